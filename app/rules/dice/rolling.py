"""Seeded rolls: every die with its natural face, its value, its group and Bonus flag.

Randomness is always an argument (``random.Random``), so a roll replays from its seed. Rolls
are never truncated: a Bonus chain goes on while dice show their maximum.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import NamedTuple

from app.rules.dice.spec import Pool, Ties, check_ties


class RolledDie(NamedTuple):
    """One die: ``group`` is the index of the die group (pool order), ``bonus`` marks Bonus dice.

    ``value`` is the natural face after the per-die modifier, floored at 0. (A named tuple:
    rolls create many of these, and it is immutable and cheap.)
    """

    group: int
    sides: int
    natural: int
    value: int
    bonus: bool


@dataclass(frozen=True, slots=True)
class PoolRoll:
    """A rolled pool: its dice in roll order (each group's die, then its Bonus dice)."""

    pool: Pool
    dice: tuple[RolledDie, ...]
    group_values: tuple[int, ...]
    """Each group's value: its dice's values summed."""
    group_dice: tuple[int, ...]
    """Each group's number of dice (1 + its Bonus dice)."""

    @classmethod
    def of(cls, pool: Pool, dice: tuple[RolledDie, ...]) -> PoolRoll:
        """A roll from its dice (group values and dice counts derived once), e.g. to replay one.

        >>> r = PoolRoll.of(Pool.of(1, 6), (RolledDie(0, 6, 6, 6, False),
        ...                                 RolledDie(0, 6, 2, 2, True)))
        >>> r.group_values, r.group_dice, r.total
        ((8,), (2,), 8)
        """
        values = [0] * pool.dice_count
        counts = [0] * pool.dice_count
        for die in dice:
            values[die.group] += die.value
            counts[die.group] += 1
        return cls(pool, dice, tuple(values), tuple(counts))

    @property
    def critical_failure(self) -> bool:
        """Every die shows a natural 1 (a Damage Roll with no effect at all)."""
        return all(die.natural == 1 for die in self.dice)

    @property
    def total(self) -> int:
        """All groups plus the total modifier, floored at 0."""
        return max(0, sum(self.group_values) + self.pool.modifier)

    def highest_groups(
        self, count: int, *, deflectable_only: bool = False, ties: Ties = "more_dice_first"
    ) -> tuple[int, ...]:
        """Indices of the ``count`` highest groups, highest first.

        Equal values: more dice first (ruling D1) or, with ``ties="fewer_dice_first"``, fewer;
        then the lower group index.

        >>> roll = PoolRoll.of(Pool.of(2, 6), (RolledDie(0, 6, 3, 3, False),
        ...                                    RolledDie(1, 6, 5, 5, False)))
        >>> roll.highest_groups(1)
        (1,)
        """
        values, counts = self.group_values, self.group_dice
        if deflectable_only:
            groups = self.pool.groups()
            candidates = [g for g in range(len(values)) if groups[g].deflectable]
        else:
            candidates = list(range(len(values)))
        sign = 1 if ties == "fewer_dice_first" else -1
        ordered = sorted((-values[g], sign * counts[g], g) for g in candidates)
        return tuple(g for _, _, g in ordered[:count])

    def total_without(self, drop: int, *, deflectable_only: bool = False) -> int:
        """The total after removing the ``drop`` highest groups (modifier applied after)."""
        removed = set(self.highest_groups(drop, deflectable_only=deflectable_only))
        kept = sum(v for g, v in enumerate(self.group_values) if g not in removed)
        return max(0, kept + self.pool.modifier)

    def deflected_total(self, layers: int) -> int:
        """The total after ``layers`` of Deflection (non-deflectable groups stay)."""
        return self.total_without(layers, deflectable_only=True)


class Ring(NamedTuple):
    """One explosion ring: its damage total and the dice left (KnockBack inches)."""

    total: int
    dice: int


@dataclass(frozen=True, slots=True)
class ExplosionRoll:
    """A rolled explosion: the dice and one ``Ring`` per group (ring 0 = all dice)."""

    roll: PoolRoll
    rings: tuple[Ring, ...]


def roll_pool(pool: Pool, rng: random.Random) -> PoolRoll:
    """Roll every group of ``pool`` with its Bonus chain.

    >>> r = roll_pool(Pool.of(3, 6), random.Random(7))
    >>> [(d.group, d.natural, d.bonus) for d in r.dice]
    [(0, 3, False), (1, 2, False), (2, 4, False)]
    >>> r.total
    9
    """
    dice: list[RolledDie] = []
    values: list[int] = []
    counts: list[int] = []
    append, randrange = dice.append, rng.randrange  # local names: this loop is hot
    new_die = tuple.__new__  # RolledDie(...) without the named tuple's Python-level __new__
    g = 0
    for spec in pool.dice:
        per_die, bonus_sides = spec.per_die, spec.bonus_sides
        for _ in range(spec.count):
            sides, bonus, value, count = spec.sides, False, 0, 0
            while True:
                face = randrange(sides) + 1
                worth = max(0, face + per_die)
                append(new_die(RolledDie, (g, sides, face, worth, bonus)))
                value += worth
                count += 1
                if bonus_sides is None or face != sides:
                    break
                sides, bonus = bonus_sides, True
            values.append(value)
            counts.append(count)
            g += 1
    return PoolRoll(pool, tuple(dice), tuple(values), tuple(counts))


def roll_explosion(
    pool: Pool, rng: random.Random, *, ties: Ties = "more_dice_first"
) -> ExplosionRoll:
    """Roll an explosion and read its rings: each ring removes the highest remaining group.

    ``ties`` decides between equal groups (ruling D1; only the dice left can differ).

    >>> e = roll_explosion(Pool.of(3, 10), random.Random(1))
    >>> [r.natural for r in e.roll.dice], [(r.total, r.dice) for r in e.rings]
    ([3, 10, 2, 5], [(20, 4), (8, 2), (3, 1)])
    """
    check_ties(ties)
    roll = roll_pool(pool, rng)
    values, counts = roll.group_values, roll.group_dice
    # highest value first, then more (or fewer) dice, then lower group index, as highest_groups
    sign = -1 if ties == "fewer_dice_first" else 1
    order = sorted(
        ((v, sign * c, -g, c) for g, (v, c) in enumerate(zip(values, counts, strict=True))),
        reverse=True,
    )
    kept_sum, kept_dice = sum(values) + pool.modifier, sum(counts)
    rings = []
    for value, _, _, count in order:
        rings.append(Ring(max(0, kept_sum), kept_dice))
        kept_sum -= value
        kept_dice -= count
    return ExplosionRoll(roll, tuple(rings))
