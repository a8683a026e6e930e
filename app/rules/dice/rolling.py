"""Seeded rolls: every die with its natural face, its value, its group and Bonus flag.

Randomness is always an argument (``random.Random``), so a roll replays from its seed. Rolls
follow the rules without truncation: a Bonus chain goes on while dice show their maximum.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from app.rules.dice.spec import Pool


@dataclass(frozen=True, slots=True)
class RolledDie:
    """One die: ``group`` is the index of the die group (pool order), ``bonus`` marks Bonus dice.

    ``value`` is the natural face after the per-die modifier, floored at 0.
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

    @property
    def group_values(self) -> tuple[int, ...]:
        """Each group's value: its dice's values summed."""
        values = [0] * self.pool.dice_count
        for die in self.dice:
            values[die.group] += die.value
        return tuple(values)

    @property
    def group_dice(self) -> tuple[int, ...]:
        """Each group's number of dice (1 + its Bonus dice)."""
        counts = [0] * self.pool.dice_count
        for die in self.dice:
            counts[die.group] += 1
        return tuple(counts)

    @property
    def critical_failure(self) -> bool:
        """Every die shows a natural 1 (a Damage Roll with no effect at all)."""
        return all(die.natural == 1 for die in self.dice)

    @property
    def total(self) -> int:
        """All groups plus the total modifier, floored at 0."""
        return max(0, sum(self.group_values) + self.pool.modifier)

    def highest_groups(self, count: int, *, deflectable_only: bool = False) -> tuple[int, ...]:
        """Indices of the ``count`` highest groups, highest first (ties: more dice first).

        >>> roll = PoolRoll(Pool.of(2, 6), (RolledDie(0, 6, 3, 3, False),
        ...                                 RolledDie(1, 6, 5, 5, False)))
        >>> roll.highest_groups(1)
        (1,)
        """
        values, counts = self.group_values, self.group_dice
        groups = self.pool.groups()
        candidates = [
            g for g in range(len(values)) if groups[g].deflectable or not deflectable_only
        ]
        ordered = sorted(candidates, key=lambda g: (-values[g], -counts[g], g))
        return tuple(ordered[:count])

    def total_without(self, drop: int, *, deflectable_only: bool = False) -> int:
        """The total after removing the ``drop`` highest groups (modifier applied after)."""
        removed = set(self.highest_groups(drop, deflectable_only=deflectable_only))
        kept = sum(v for g, v in enumerate(self.group_values) if g not in removed)
        return max(0, kept + self.pool.modifier)

    def deflected_total(self, layers: int) -> int:
        """The total after ``layers`` of Deflection (non-deflectable groups stay)."""
        return self.total_without(layers, deflectable_only=True)


@dataclass(frozen=True, slots=True)
class Ring:
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
    for g, spec in enumerate(pool.groups()):
        sides, bonus = spec.sides, False
        bonus_sides = spec.bonus_sides
        while True:
            face = rng.randint(1, sides)
            dice.append(RolledDie(g, sides, face, spec.die_value(face), bonus))
            if bonus_sides is None or face != sides:
                break
            sides, bonus = bonus_sides, True
    return PoolRoll(pool, tuple(dice))


def roll_explosion(pool: Pool, rng: random.Random) -> ExplosionRoll:
    """Roll an explosion and read its rings: each ring removes the highest remaining group.

    >>> e = roll_explosion(Pool.of(3, 10), random.Random(1))
    >>> [r.natural for r in e.roll.dice], [(r.total, r.dice) for r in e.rings]
    ([3, 10, 2, 5], [(20, 4), (8, 2), (3, 1)])
    """
    roll = roll_pool(pool, rng)
    order = roll.highest_groups(pool.dice_count)
    values, counts = roll.group_values, roll.group_dice
    kept_sum, kept_dice = sum(values), sum(counts)
    rings = []
    for g in order:
        rings.append(Ring(max(0, kept_sum + pool.modifier), kept_dice))
        kept_sum -= values[g]
        kept_dice -= counts[g]
    return ExplosionRoll(roll, tuple(rings))
