"""One die group's outcomes: (value, Bonus dice earned, probability), the chain truncated.

A group's outcome is ordered by ``(value, dice)``: between two groups of equal value the one
with more dice counts as higher (BrikWars ruling D1 in docs/rulings.md). With that order every
group with ``j`` Bonus dice is at least as high as every group with fewer, whatever the
modifiers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from app.rules.dice.spec import BonusDie, Dice
from app.rules.memo import bounded_cache

CHAIN_BUDGET = 5e-11
"""Probability mass a whole calculation may drop by truncating Bonus chains."""

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]


@dataclass(frozen=True, eq=False, slots=True)
class GroupTable:
    """The outcomes of one die group, truncated after ``depth`` Bonus dice.

    ``values[i]``, ``bonus[i]``, ``probs[i]``: the outcomes sorted by ``(value, bonus)``;
    ``value_pmf`` and ``bonus_pmf`` their marginals. ``dropped`` is the exact probability of
    the left-out event "the group earns more than ``depth`` Bonus dice",
    ``(1/X) * (1/Y)**depth``.
    """

    sides: int
    per_die: int
    bonus_die: BonusDie
    depth: int
    values: IntArray
    bonus: IntArray
    probs: FloatArray
    value_pmf: FloatArray
    bonus_pmf: FloatArray
    dropped: float

    @property
    def all_ones_value(self) -> int:
        """The group's value when its die shows a natural 1 (no Bonus die)."""
        return max(0, 1 + self.per_die)


def _dropped(sides: int, bonus: int, depth: int) -> float:
    return (1.0 / sides) * (1.0 / bonus) ** depth


def chain_depth(dice: Dice, groups_in_calculation: int, budget: float | None = None) -> int:
    """Fewest Bonus dice to enumerate so that all groups together drop at most ``budget``.

    ``budget`` defaults to ``CHAIN_BUDGET``.

    >>> chain_depth(Dice(1, 10), 15)
    11
    """
    bonus = dice.bonus_sides
    if bonus is None:
        return 0
    budget = CHAIN_BUDGET if budget is None else budget
    depth = 0
    while groups_in_calculation * _dropped(dice.sides, bonus, depth) > budget:
        depth += 1
    return depth


def group_table(dice: Dice, depth: int) -> GroupTable:
    """Enumerate one group of ``dice`` with up to ``depth`` Bonus dice (cached: at most 1024
    tables and 16 MB, since a per-die modifier of +1000 makes a table's value pmf 160 KB).

    >>> t = group_table(Dice(1, 6, bonus_die="none"), 0)
    >>> t.values.tolist(), t.dropped
    ([1, 2, 3, 4, 5, 6], 0.0)
    >>> t = group_table(Dice(1, 4), 1)  # 1-3, then 4 + (1-3); 4+4 goes on: dropped
    >>> t.values.tolist(), t.bonus.tolist(), t.dropped
    ([1, 2, 3, 5, 6, 7], [0, 0, 0, 1, 1, 1], 0.0625)
    """
    return _table(dice.sides, dice.per_die, dice.bonus_die, depth)


@bounded_cache(1024, max_bytes=16 << 20)
def _table(sides: int, per_die: int, bonus_die: BonusDie, depth: int) -> GroupTable:
    def value(face: int) -> int:
        return max(0, face + per_die)

    bonus_sides = None if bonus_die == "none" else (6 if bonus_die == "d6" else sides)
    weights: dict[tuple[int, int], float] = {}

    def add(key: tuple[int, int], p: float) -> None:
        weights[key] = weights.get(key, 0.0) + p

    for face in range(1, sides):
        add((value(face), 0), 1.0 / sides)
    if bonus_sides is None:
        add((value(sides), 0), 1.0 / sides)
        dropped = 0.0
    else:
        base, prob = value(sides), 1.0 / sides
        for j in range(1, depth + 1):
            for face in range(1, bonus_sides):
                add((base + value(face), j), prob / bonus_sides)
            base += value(bonus_sides)
            prob /= bonus_sides
        dropped = prob  # the last die counted showed its maximum: the chain goes on unseen
    keys = sorted(weights)
    values = np.array([k[0] for k in keys], dtype=np.int64)
    bonus = np.array([k[1] for k in keys], dtype=np.int64)
    probs = np.array([weights[k] for k in keys])
    value_pmf = np.asarray(np.bincount(values, weights=probs), dtype=np.float64)
    bonus_pmf = np.asarray(np.bincount(bonus, weights=probs), dtype=np.float64)
    for a in (values, bonus, probs, value_pmf, bonus_pmf):
        a.setflags(write=False)
    return GroupTable(
        sides, per_die, bonus_die, depth, values, bonus, probs, value_pmf, bonus_pmf, dropped
    )
