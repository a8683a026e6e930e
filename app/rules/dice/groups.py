"""One die group's outcomes: (value, Bonus dice earned, probability), the chain truncated.

A group's outcome is ordered by ``(value, dice)``: between two groups of equal value the one
with more dice counts as higher (see docs/rulings.md, "Dice"). With that order every group
with ``j`` Bonus dice is at least as high as every group with fewer, whatever the modifiers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.rules.dice.spec import Dice

CHAIN_BUDGET = 5e-11
"""Probability mass a whole calculation may drop by truncating Bonus chains."""


@dataclass(frozen=True, slots=True)
class GroupOutcomes:
    """The outcomes of one die group, truncated after ``depth`` Bonus dice.

    ``outcomes`` holds ``(value, bonus_dice, probability)`` sorted by ``(value, bonus_dice)``;
    ``dropped`` is the exact probability of the left-out event "the group earns more than
    ``depth`` Bonus dice", i.e. ``(1/X) * (1/Y)**depth``.
    """

    dice: Dice
    depth: int
    outcomes: tuple[tuple[int, int, float], ...]
    dropped: float

    @property
    def all_ones_value(self) -> int:
        """The group's value when its die shows a natural 1 (no Bonus die)."""
        return self.dice.die_value(1)


def chain_depth(dice: Dice, groups_in_calculation: int, budget: float = CHAIN_BUDGET) -> int:
    """Fewest Bonus dice to enumerate so that all groups together drop at most ``budget``.

    >>> chain_depth(Dice(1, 10), 15)
    11
    """
    bonus = dice.bonus_sides
    if bonus is None:
        return 0
    depth = 0
    while groups_in_calculation * _dropped(dice.sides, bonus, depth) > budget:
        depth += 1
    return depth


def _dropped(sides: int, bonus: int, depth: int) -> float:
    return (1.0 / sides) * (1.0 / bonus) ** depth


def group_outcomes(dice: Dice, depth: int) -> GroupOutcomes:
    """Enumerate one group of ``dice`` with up to ``depth`` Bonus dice.

    >>> g = group_outcomes(Dice(1, 6, bonus_die="none"), 0)
    >>> [v for v, _, _ in g.outcomes], g.dropped
    ([1, 2, 3, 4, 5, 6], 0.0)
    """
    bonus = dice.bonus_sides
    weights: dict[tuple[int, int], float] = {}

    def add(key: tuple[int, int], p: float) -> None:
        weights[key] = weights.get(key, 0.0) + p

    x = dice.sides
    for face in range(1, x):
        add((dice.die_value(face), 0), 1.0 / x)
    if bonus is None:
        add((dice.die_value(x), 0), 1.0 / x)
        dropped = 0.0
    else:
        base, prob = dice.die_value(x), 1.0 / x
        for j in range(1, depth + 1):
            for face in range(1, bonus):
                add((base + dice.die_value(face), j), prob / bonus)
            base += dice.die_value(bonus)
            prob /= bonus
        dropped = prob  # the last die counted showed its maximum: the chain goes on unseen
        assert math.isclose(dropped, _dropped(x, bonus, depth), rel_tol=1e-12)
    outcomes = tuple((v, b, p) for (v, b), p in sorted(weights.items()))
    return GroupOutcomes(dice, depth, outcomes, dropped)
