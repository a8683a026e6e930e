"""What a turn answers: the exact odds of each line with its step-by-step breakdown, and a
rolled line's dice and effects on its targets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from app.rules.brikwars.attacks import LoggedDie, Outcome
from app.rules.brikwars.units import UnitSpec

LineKind = Literal["single", "combined", "arc", "burst", "explosive"]


@dataclass(frozen=True)
class Step:
    """One line of a breakdown: what it is and its figure."""

    label: str
    value: str


# --------------------------------------------------------------------------- odds


@dataclass(frozen=True)
class TargetLine:
    """The odds of one line for one target (the main target is index 0): for each of its
    ``figures`` figurines from its ``figure``-th (a squad target: alike figurines share one
    line, figurines whose odds differ get one each)."""

    index: int
    miss: float
    no_effect: float
    something_bad: float
    destroyed: float
    size_damage: float
    on_fire: float
    figure: int = 0
    figures: int = 1

    def outcomes(self) -> dict[str, float]:
        return {
            "miss": self.miss,
            "no_effect": self.no_effect,
            "something_bad": self.something_bad,
            "destroyed": self.destroyed,
            "size_damage": self.size_damage,
        }


@dataclass(frozen=True)
class LineOdds:
    """Exact odds of one attack line.

    ``targets``: per target (index 0 the main one): the best result the line achieves on it.
    ``damage``: the Damage after Deflection given a hit, as (value, probability), for single
    and Combined attacks (empty otherwise); ``jam``: P(the gun ends Inoperative).
    ``reach``: the figurines (target, figure) the line can strike, and ``scenarios`` its
    joint law over them: weights and, per figurine of ``reach``, P(miss, no effect,
    Something Bad, Size Damage, destroyed), the figurines independent given a scenario (a
    jam links an Arc's shots; one Damage roll serves a whole blast). A blast gives them as
    arrays (``law``: weights and laws), ``joint()`` either way.
    """

    weapons: tuple[int, ...]
    kind: LineKind
    label: str
    targets: tuple[TargetLine, ...]
    damage: tuple[tuple[int, float], ...]
    over_the_top: float
    jam: float
    truncation_bound: float
    steps: tuple[Step, ...]
    reach: tuple[tuple[int, int], ...] = ((0, 0),)
    scenarios: tuple[tuple[float, np.ndarray], ...] = ()
    law: tuple[np.ndarray, np.ndarray] | None = None

    def joint(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The scenarios as arrays: weights ``(S,)`` and laws ``(S, len(reach), 5)`` (a
        blast's ``law``, already arrays); ``None`` when the line has none."""
        if self.law is not None:
            return self.law
        if not self.scenarios:
            return None
        weights = np.array([w for w, _ in self.scenarios])
        return weights, np.stack([law for _, law in self.scenarios])

    @property
    def main(self) -> TargetLine:
        return self.targets[0]

    def at_least(self) -> tuple[tuple[int, float], ...]:
        """P(Damage >= N given a hit) for each N in the distribution."""
        out: list[tuple[int, float]] = []
        left = 1.0
        for value, p in self.damage:
            out.append((value, max(0.0, left)))
            left -= p
        return tuple(out)


@dataclass(frozen=True)
class TurnOdds:
    """The odds of every line, and P(at least one destroying hit on the main target):
    lines are independent given the target at the start of the turn (ruling T2).
    ``tallies``: (key, label, distribution) of how many figurines of all the targets end
    with each outcome (``turn.tally``); empty when too many scenarios to mix."""

    lines: tuple[LineOdds, ...]
    any_destroying: float
    truncation_bound: float
    tallies: tuple[tuple[str, str, tuple[float, ...]], ...] = ()

    @property
    def expected_destroying(self) -> float:
        """Expected destroying hits on the main target (destroyed, or 1" of Size Damage), at
        most one per line: the sum of each line's chance (ruling C1)."""
        return sum(ln.main.destroyed + ln.main.size_damage for ln in self.lines)


# --------------------------------------------------------------------------- rolls


@dataclass(frozen=True)
class Effect:
    """What one line did to one target: ``size_damage`` inches of Size lost."""

    target: int
    outcome: Outcome
    size_damage: int = 0
    on_fire: bool = False
    damage: int | None = None
    figure: int = 0


@dataclass(frozen=True)
class LineRoll:
    """One rolled line: every die in order, what it did, and whether its gun jammed."""

    weapons: tuple[int, ...]
    kind: LineKind
    label: str
    dice: tuple[LoggedDie, ...]
    effects: tuple[Effect, ...]
    jammed: bool = False
    natural_action: int | None = None
    skipped: str = ""
    # a die's ``target`` is the index of a figurine of ``owners``, when the line strikes
    # several: (target, figure); empty: a die's target is the target
    owners: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class TurnRoll:
    """A rolled turn: the lines in order and the targets as they are afterwards."""

    lines: tuple[LineRoll, ...]
    targets_after: tuple[UnitSpec, ...]

    @property
    def jammed(self) -> tuple[int, ...]:
        """The weapons now Inoperative until Reloaded."""
        return tuple(i for line in self.lines if line.jammed for i in line.weapons)

    @property
    def critical_failure(self) -> bool:
        """Any natural 1 on an Action roll (Homing In starts over)."""
        return any(d.purpose == "action" and d.natural == 1 for ln in self.lines for d in ln.dice)
