"""Collisions and Charging Shoves (chapter 5.4): a MOM's 1d6" of KnockBack against a POP.

A Collision spends the MOM for 1d6" of KnockBack; the target's Physical Opposition (one POP,
1d6) cancels that many inches. A Charging Shove adds the MOM's 1d6" to the Shove's own
KnockBack (no POP: the text gives POP to Collisions). A target stopped by a larger obstacle
takes one point of Smash damage per inch of KnockBack prevented, against its Armour.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from app.rules.brikwars.attacks.common import (
    MAX_MODIFIER,
    LoggedDie,
    Outcome,
    Target,
    _whole,
    roll_logged,
)
from app.rules.brikwars.options import DEFAULT_OPTIONS, BrikWarsOptions
from app.rules.dice import TotalDistribution, compare, total_distribution

MOM_SIDES = 6
POP_SIDES = 6


@dataclass(frozen=True, slots=True)
class CollisionOdds:
    """``knockback``: (inches, probability) of the target's KnockBack (0: resisted, the two
    are locked in Close Combat); ``smash``: the Smash damage against a larger obstacle, and
    its outcomes against the target's Armour (no KnockBack stopped: no effect)."""

    knockback: tuple[tuple[int, float], ...]
    resisted: float
    smash: tuple[tuple[int, float], ...]
    destroyed: float
    size_damage: float
    something_bad: float
    no_effect: float
    truncation_bound: float


@dataclass(frozen=True, slots=True)
class CollisionRoll:
    """A rolled Collision: its dice, the KnockBack, the Smash damage and the outcome."""

    dice: tuple[LoggedDie, ...]
    knockback: int
    smash: int
    armour: int | None
    outcome: Outcome


@dataclass(frozen=True, slots=True)
class Collision:
    """A Collision (``pop=True``) or a Charging Shove (``pop=False``, ``base_knockback`` = the
    Shove's own inches). ``obstacle``: inches to a larger obstacle behind the target (None:
    open ground). MOM and POP dice earn no Bonus dice: they are neither Damage nor Armour
    dice (ruling A7).

    >>> c = Collision(Target.minifig())
    >>> round(c.odds().resisted, 4)  # the MOM's d6 does not beat the POP's d6: 21 of 36
    0.5833
    """

    target: Target = field(default_factory=Target)
    pop: bool = True
    base_knockback: int = 0
    obstacle: int | None = None
    options: BrikWarsOptions = DEFAULT_OPTIONS

    def __post_init__(self) -> None:
        _whole(self.base_knockback, "base_knockback", 0, MAX_MODIFIER)
        if self.obstacle is not None:
            _whole(self.obstacle, "obstacle", 0, MAX_MODIFIER)

    def _knockback(self) -> np.ndarray:
        mom = np.full(MOM_SIDES, 1.0 / MOM_SIDES)
        size = self.base_knockback + MOM_SIDES + 1
        out = np.zeros(size)
        pops = range(1, POP_SIDES + 1) if self.pop else (0,)
        for m, pm in enumerate(mom, start=1):
            for p in pops:
                q = pm / (POP_SIDES if self.pop else 1)
                out[max(0, self.base_knockback + m - p)] += q
        return out

    def odds(self) -> CollisionOdds:
        """The exact KnockBack distribution and the Smash damage's outcomes."""
        kb = self._knockback()
        smash = np.zeros(len(kb))
        for inches, p in enumerate(kb):
            stopped = 0 if self.obstacle is None else max(0, inches - self.obstacle)
            smash[stopped] += p
        armour = self.target.armour_value(self.options)
        # No KnockBack stopped is no effect at all; the Smash damage itself is compared.
        struck = smash.copy()
        struck[0] = 0.0
        c = compare(
            TotalDistribution(struck, 0.0, 0, 0.0),
            armour if isinstance(armour, int) else total_distribution(armour),
        )
        size = self.target.takes_size_damage
        return CollisionOdds(
            knockback=tuple((i, float(p)) for i, p in enumerate(kb) if p > 0),
            resisted=float(kb[0]),
            smash=tuple((i, float(p)) for i, p in enumerate(smash) if p > 0),
            destroyed=0.0 if size else c.greater,
            size_damage=c.greater if size else 0.0,
            something_bad=c.equal,
            no_effect=float(smash[0]) + c.less,
            truncation_bound=c.truncation_bound,
        )

    def roll(self, rng: random.Random) -> CollisionRoll:
        """The MOM die, the POP die (Collisions), then the Armour if Smash damage was taken."""
        log: list[LoggedDie] = []
        mom = rng.randrange(MOM_SIDES) + 1
        log.append(LoggedDie("MOM KnockBack", MOM_SIDES, mom, mom, False))
        pop = 0
        if self.pop:
            pop = rng.randrange(POP_SIDES) + 1
            log.append(LoggedDie("POP", POP_SIDES, pop, pop, False))
        kb = max(0, self.base_knockback + mom - pop)
        smash = 0 if self.obstacle is None else max(0, kb - self.obstacle)
        if not smash:
            return CollisionRoll(tuple(log), kb, 0, None, "no_effect")
        value = self.target.armour_value(self.options)
        armour = value if isinstance(value, int) else roll_logged(value, rng, "armour", log).total
        outcome: Outcome
        if smash > armour:
            outcome = "size_damage" if self.target.takes_size_damage else "destroyed"
        else:
            outcome = "something_bad" if smash == armour else "no_effect"
        return CollisionRoll(tuple(log), kb, smash, armour, outcome)
