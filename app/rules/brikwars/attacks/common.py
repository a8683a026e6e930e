"""The pieces every attack shares: the Action roll, the target, the situation, the dice log.

Pure Python plus the dice core (numpy). Probabilities are float64 from exact die weights; each
result carries the ``truncation_bound`` of the Bonus-dice chains the dice core left out.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, NamedTuple

from app.rules.brikwars.catalogue import DamageExpr
from app.rules.brikwars.options import DEFAULT_OPTIONS, BrikWarsOptions
from app.rules.brikwars.units import Armour
from app.rules.dice import Dice, Pool, PoolRoll, roll_pool
from app.rules.errors import InvalidInput

ACTION_DICE: tuple[int, ...] = (4, 6, 8, 10, 12)
MAX_USE = 100
MAX_MODIFIER = 1000
TargetKind = Literal["minifig", "hero", "creation", "object"]
SmallTarget = Literal["2x2", "1x1"]
Outcome = Literal["miss", "no_effect", "something_bad", "destroyed", "size_damage"]
OUTCOMES: tuple[Outcome, ...] = ("miss", "no_effect", "something_bad", "destroyed", "size_damage")


def _whole(value: object, field: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise InvalidInput(field, f"needs a whole number from {low} to {high}, got {value!r}")
    return value


# --------------------------------------------------------------------------- Action roll


@dataclass(frozen=True, slots=True)
class ActionRoll:
    """An Action roll: the Action die against a Use rating, with the summed modifiers.

    A natural 1 is a Critical Failure (a miss whatever the modifiers); the die's maximum face
    is a Critical Success (a hit whatever the modifiers, and Over the Top).

    >>> ActionRoll(6, 4, modifier=-1).faces()
    ('fumble', 'miss', 'miss', 'miss', 'hit', 'critical')
    """

    die: int
    use: int
    modifier: int = 0

    def __post_init__(self) -> None:
        if self.die not in ACTION_DICE or isinstance(self.die, bool):
            raise InvalidInput(
                "action.die", f"must be one of d4, d6, d8, d10, d12 (got {self.die!r})"
            )
        _whole(self.use, "action.use", 0, MAX_USE)
        _whole(self.modifier, "action.modifier", -MAX_MODIFIER, MAX_MODIFIER)

    def with_modifier(self, extra: int) -> ActionRoll:
        """The same roll with ``extra`` added to its modifier."""
        return ActionRoll(self.die, self.use, self.modifier + extra)

    def result(self, natural: int) -> str:
        """``fumble`` (natural 1), ``critical`` (natural maximum), ``hit`` or ``miss``."""
        if natural == 1:
            return "fumble"
        if natural == self.die:
            return "critical"
        return "hit" if natural + self.modifier >= self.use else "miss"

    def faces(self) -> tuple[str, ...]:
        """The result of every natural face 1..die, in order (each has probability 1/die)."""
        return tuple(self.result(f) for f in range(1, self.die + 1))

    def probabilities(self) -> tuple[float, float, float]:
        """P(miss, fumbles included), P(plain hit), P(Critical Success).

        >>> [round(p, 4) for p in ActionRoll(6, 4).probabilities()]
        [0.5, 0.3333, 0.1667]
        """
        faces = self.faces()
        hit = faces.count("hit") / self.die
        return 1.0 - hit - 1.0 / self.die, hit, 1.0 / self.die

    def roll(
        self,
        rng: random.Random,
        log: list[LoggedDie],
        purpose: str = "action",
        target: int | None = None,
    ) -> int:
        """Roll the die, log it, return the natural face."""
        natural = rng.randrange(self.die) + 1
        log.append(LoggedDie(purpose, self.die, natural, natural + self.modifier, False, target))
        return natural


# --------------------------------------------------------------------------- dice log


class LoggedDie(NamedTuple):
    """One die rolled during a resolution: what it was for, its natural face and its value.

    ``value`` is the face after per-die modifiers (a damage die), or the modified total (an
    Action roll); ``bonus`` marks Bonus dice; ``target`` indexes the target (area attacks).
    (A named tuple: Monte Carlo checks create millions, and it is immutable and cheap.)
    """

    purpose: str
    sides: int
    natural: int
    value: int
    bonus: bool
    target: int | None = None


def log_pool(
    roll: PoolRoll,
    purpose: str,
    log: list[LoggedDie],
    *,
    target: int | None = None,
    extra_from: int | None = None,
) -> None:
    """Append a pool's dice to ``log``; groups from ``extra_from`` on are labelled Over the Top."""
    labels = _LABELS.get(purpose)
    if labels is None:
        ott = f"{purpose} (Over the Top)"
        labels = _LABELS[purpose] = (purpose, f"{purpose} (Bonus)", ott, f"{ott} (Bonus)")
    cut = len(roll.group_values) if extra_from is None else extra_from
    new, append = tuple.__new__, log.append  # LoggedDie(...) without its Python-level __new__
    for group, sides, natural, value, bonus in roll.dice:
        label = labels[(2 if group >= cut else 0) + bonus]
        append(new(LoggedDie, (label, sides, natural, value, bonus, target)))


_LABELS: dict[str, tuple[str, str, str, str]] = {}


def roll_logged(
    pool: Pool, rng: random.Random, purpose: str, log: list[LoggedDie], **kw: int | None
) -> PoolRoll:
    """Roll a pool and log its dice."""
    roll = roll_pool(pool, rng)
    log_pool(roll, purpose, log, **kw)
    return roll


# --------------------------------------------------------------------------- target


MINIFIG_ARMOUR = Armour(fixed=4)
SMALL_PENALTY = {None: 0, "2x2": -1, "1x1": -2}
SECTION_PENALTY = {3: 0, 2: -1, 1: -2}


@dataclass(frozen=True, slots=True)
class Target:
    """What is attacked: its Armour (fixed or rolled, with Deflection layers) and its size.

    ``reach`` is the inches of the target the attack can reach (+1 per full 2", chapter 5);
    ``small`` a small target (``"2x2"`` -1, ``"1x1"`` -2); ``visible_sections`` of a minifig
    (3: none, 2: -1, 1: -2). ``effective_size`` of a Creation: above 1" a destroying hit takes
    1" of Size Damage instead (RULINGS 1.2).

    >>> Target(Armour(dice=3, sides=10), kind="creation", reach=Fraction(4)).size_modifier
    2
    """

    armour: Armour = MINIFIG_ARMOUR
    kind: TargetKind = "minifig"
    reach: Fraction | int = 1
    small: SmallTarget | None = None
    visible_sections: int = 3
    effective_size: Fraction | int | None = None

    def __post_init__(self) -> None:
        if self.small not in SMALL_PENALTY:
            raise InvalidInput("target.small", "must be 2x2, 1x1 or none")
        if self.visible_sections not in SECTION_PENALTY:
            raise InvalidInput("target.visible_sections", "must be 1, 2 or 3")
        if Fraction(self.reach) < 0:
            raise InvalidInput("target.reach", "must be at least 0")
        a = self.armour
        if a.dice:
            _whole(a.dice, "armour.dice", 1, 100)
            if a.sides not in (4, 6, 8, 10, 12, 20):
                raise InvalidInput("armour.sides", f"unknown die d{a.sides}")
        _whole(a.fixed, "armour.fixed", 0, MAX_MODIFIER)
        _whole(a.deflection, "deflection", 0, 100)

    @classmethod
    def minifig(cls, **kw: object) -> Target:
        """A standard minifig: Armour 4, Size 1"."""
        return cls(Armour(fixed=4), "minifig", **kw)  # type: ignore[arg-type]

    @property
    def size_modifier(self) -> int:
        """Target Size and visibility: +1 per full 2" reached, small -1/-2, sections -1/-2."""
        return (
            math.floor(Fraction(self.reach) / 2)
            + SMALL_PENALTY[self.small]
            + SECTION_PENALTY[self.visible_sections]
        )

    @property
    def takes_size_damage(self) -> bool:
        """A Creation larger than 1" loses 1" of Effective Size instead of being destroyed."""
        return (
            self.kind == "creation"
            and self.effective_size is not None
            and Fraction(self.effective_size) > 1
        )

    def armour_value(self, options: BrikWarsOptions) -> int | Pool:
        """A fixed Armour, or the Armour pool (its dice earn Bonus dice too)."""
        a = self.armour
        if not a.dice:
            return a.fixed
        return Pool.of(a.dice, a.sides, modifier=a.fixed, bonus_die=options.bonus_die)


# --------------------------------------------------------------------------- situation


@dataclass(frozen=True, slots=True)
class Situation:
    """The chapter 5 modifiers of one attack (the target's own are on ``Target``).

    ``out_of_range``: inches beyond the Range (see ``inches_out_of_range``): -1 Action, and -1
    on each damage die (not for Explosives). ``firing_blind`` -5, ``outnumbered`` -1 (close
    combat), ``gunnery_support`` +1 per supporting Gunner; ``action_modifier`` and
    ``damage_modifier`` are anything else (a Heroic bonus, a house rule).

    >>> Situation(out_of_range=2, firing_blind=True, gunnery_support=1).action_total
    -6
    """

    out_of_range: int = 0
    firing_blind: bool = False
    outnumbered: bool = False
    gunnery_support: int = 0
    action_modifier: int = 0
    damage_modifier: int = 0

    def __post_init__(self) -> None:
        _whole(self.out_of_range, "out_of_range", 0, MAX_MODIFIER)
        _whole(self.gunnery_support, "gunnery_support", 0, 100)
        _whole(self.action_modifier, "action_modifier", -MAX_MODIFIER, MAX_MODIFIER)
        _whole(self.damage_modifier, "damage_modifier", -MAX_MODIFIER, MAX_MODIFIER)

    @property
    def action_total(self) -> int:
        """Sum of the Action modifiers."""
        return (
            -self.out_of_range
            - 5 * self.firing_blind
            - self.outnumbered
            + self.gunnery_support
            + self.action_modifier
        )


NO_SITUATION = Situation()


def homing_in(previous_bonus: int, gunnery_support: int, natural_action: int, die: int) -> int:
    """The Homing In bonus a firing team keeps after one attack (chapter 8.5, RULINGS 1.7).

    While neither the weapon nor the target moves and the weapon keeps firing at the same
    point, the Gunnery Support bonuses of earlier attacks stay and this attack's supporters
    add theirs: the attack is made with ``Situation(gunnery_support=previous_bonus +
    gunnery_support)`` and the team keeps that sum, whether the attack hit or missed. A
    Critical Failure (``natural_action`` 1 on the d``die`` Action die) cancels the bonus:
    the team starts over from 0 (ruling A18). When the weapon or the target moves, the caller
    starts over too (pass ``previous_bonus=0``). Each Action roll is one attack: for a Burst
    or Arc Fire call it for every shot in order.

    >>> bonus = homing_in(0, 1, natural_action=3, die=6)   # turn 1: one supporter, +1
    >>> bonus = homing_in(bonus, 1, natural_action=5, die=6); bonus   # turn 2 fired at +2
    2
    >>> homing_in(bonus, 1, natural_action=1, die=6)   # turn 3 at +3: a Critical Failure
    0
    """
    if die not in ACTION_DICE or isinstance(die, bool):
        raise InvalidInput("die", f"must be one of d4, d6, d8, d10, d12 (got {die!r})")
    _whole(previous_bonus, "previous_bonus", 0, MAX_MODIFIER)
    _whole(gunnery_support, "gunnery_support", 0, 100)
    _whole(natural_action, "natural_action", 1, die)
    if natural_action == 1:
        return 0
    return previous_bonus + gunnery_support


def inches_out_of_range(
    distance: Fraction | int | float, weapon_range: Fraction | int, height: Fraction | int = 0
) -> int:
    """Inches beyond the Range, after Height Advantage (+1" per inch above, at most +5").

    A started inch counts (ruling A1): any distance past the Range takes at least -1.

    >>> inches_out_of_range(9, 8), inches_out_of_range(8.5, 8), inches_out_of_range(12, 8, 7)
    (1, 1, 0)
    """
    reach = Fraction(weapon_range) + min(Fraction(5), max(Fraction(0), Fraction(height)))
    beyond = Fraction(distance) - reach
    return max(0, math.ceil(beyond))


# --------------------------------------------------------------------------- damage pools


def damage_pool(
    damage: DamageExpr,
    *,
    per_die: int = 0,
    modifier: int = 0,
    options: BrikWarsOptions = DEFAULT_OPTIONS,
    extra_dice: tuple[Dice, ...] = (),
) -> Pool:
    """The dice of a Damage Roll: the weapon's dice (and a second kind, if any), the per-die
    modifier on every die, the weapon's modifier plus ``modifier`` on the total.

    ``extra_dice`` are added after the weapon's (a MOM's Action die on a Charge).

    >>> damage_pool(DamageExpr(3, 4), per_die=-1).dice[0]
    Dice(count=3, sides=4, per_die=-1, bonus_die='same', deflectable=True)
    """
    bonus = options.bonus_die
    dice = [Dice(damage.dice, damage.sides, per_die, bonus, not damage.ignores_deflection)]
    extra = damage.extra
    if extra is not None:
        dice.append(Dice(extra.dice, extra.sides, per_die, bonus, not extra.ignores_deflection))
    dice.extend(extra_dice)
    return Pool(tuple(dice), damage.modifier + modifier)


def over_the_top(pool: Pool, damage: DamageExpr) -> Pool:
    """The pool plus the Over-the-Top die: one more die of the weapon's type, or for an
    Explosive one more standard d10 (RULINGS 1.1), placed last so the log reads in order."""
    first = pool.dice[0]
    if damage.explosion:
        extra = Dice(1, 10, 0, first.bonus_die, True)
    else:
        extra = Dice(1, first.sides, first.per_die, first.bonus_die, first.deflectable)
    return Pool((*pool.dice, extra), pool.modifier)
