"""What gets rolled: die groups and pools, validated once.

A **die group** is one die plus the chain of Bonus dice it earns (BrikWars' rule): a die that
shows its maximum face earns one Bonus die (``bonus_die``: ``"same"`` type, ``"d6"`` or
``"none"`` for plain dice), and a Bonus die that shows its maximum earns another. A per-die
modifier applies to every die of the group, Bonus dice included, each die floored at 0
(BrikWars' Out of Range: -1 per inch). A **pool** is several groups summed plus a total
modifier, the total floored at 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from app.rules.errors import InvalidInput

BonusDie = Literal["same", "d6", "none"]
Ties = Literal["more_dice_first", "fewer_dice_first"]
"""Which of two equal-valued groups an explosion ring removes first (ruling D1, a rule option).

Only the dice left (KnockBack) can differ; totals never do."""

ALLOWED_SIDES: tuple[int, ...] = (4, 6, 8, 10, 12, 20)
MAX_DICE = 100
"""Most groups one pool may hold (armour and damage are separate pools)."""
MAX_MODIFIER = 1000
"""Largest absolute modifier (per die or total) accepted."""


def check_ties(ties: str) -> None:
    """Raise ``InvalidInput`` unless ``ties`` is a known tie rule.

    >>> check_ties("more_dice_first")
    """
    if ties not in get_args(Ties):
        raise InvalidInput("ties", f"unknown option {ties!r}; allowed {get_args(Ties)}")


@dataclass(frozen=True, slots=True)
class Dice:
    """``count`` identical die groups of ``sides`` sides.

    ``per_die`` is added to every die rolled in these groups (Bonus dice included), each die
    floored at 0. ``deflectable=False`` marks dice that Deflection cannot remove (Phased d12s);
    explosion rings still remove them.

    >>> Dice(3, 6, per_die=-1)
    Dice(count=3, sides=6, per_die=-1, bonus_die='same', deflectable=True)
    """

    count: int
    sides: int
    per_die: int = 0
    bonus_die: BonusDie = "same"
    deflectable: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.count, int) or isinstance(self.count, bool) or self.count < 1:
            raise InvalidInput("count", f"needs a whole number of dice >= 1, got {self.count!r}")
        if self.count > MAX_DICE:
            raise InvalidInput("count", f"at most {MAX_DICE} dice, got {self.count}")
        if self.sides not in ALLOWED_SIDES or isinstance(self.sides, bool):
            raise InvalidInput("sides", f"unknown die d{self.sides}; allowed {ALLOWED_SIDES}")
        if not isinstance(self.per_die, int) or abs(self.per_die) > MAX_MODIFIER:
            raise InvalidInput("per_die", f"needs a whole number within ±{MAX_MODIFIER}")
        if self.bonus_die not in get_args(BonusDie):
            raise InvalidInput("bonus_die", f"unknown option {self.bonus_die!r}")

    @property
    def bonus_sides(self) -> int | None:
        """Sides of the Bonus dice these groups earn, or ``None`` without Bonus dice."""
        if self.bonus_die == "none":
            return None
        return 6 if self.bonus_die == "d6" else self.sides

    def die_value(self, natural: int) -> int:
        """A natural face after the per-die modifier, floored at 0."""
        return max(0, natural + self.per_die)


@dataclass(frozen=True, slots=True)
class Pool:
    """Die groups summed, plus a total modifier; the total is floored at 0.

    >>> Pool.of(3, 6, modifier=1).dice_count
    3
    >>> Pool((Dice(2, 10), Dice(1, 12, deflectable=False))).dice_count
    3
    """

    dice: tuple[Dice, ...]
    modifier: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.dice, tuple) or not all(isinstance(d, Dice) for d in self.dice):
            raise InvalidInput("dice", "needs a tuple of Dice")
        if not self.dice:
            raise InvalidInput("dice", "a pool needs at least one die")
        total = sum(d.count for d in self.dice)
        if total > MAX_DICE:
            raise InvalidInput("count", f"at most {MAX_DICE} dice in one pool, got {total}")
        if not isinstance(self.modifier, int) or abs(self.modifier) > MAX_MODIFIER:
            raise InvalidInput("modifier", f"needs a whole number within ±{MAX_MODIFIER}")

    @classmethod
    def of(
        cls,
        count: int,
        sides: int,
        *,
        per_die: int = 0,
        modifier: int = 0,
        bonus_die: BonusDie = "same",
    ) -> Pool:
        """A pool of ``count`` d``sides`` groups: ``Pool.of(2, 6)`` is 2d6 with Bonus dice.

        >>> Pool.of(1, 8, modifier=1).dice
        (Dice(count=1, sides=8, per_die=0, bonus_die='same', deflectable=True),)
        """
        return cls((Dice(count, sides, per_die=per_die, bonus_die=bonus_die),), modifier)

    @property
    def dice_count(self) -> int:
        """Number of die groups (dice before any Bonus die)."""
        return sum(d.count for d in self.dice)

    def groups(self) -> tuple[Dice, ...]:
        """One ``Dice`` entry per group, in roll order (group index = position)."""
        return tuple(d for d in self.dice for _ in range(d.count))

    def plus(self, other: Pool) -> Pool:
        """Both pools' dice in one roll, modifiers added (a Combined Attack's dice).

        >>> Pool.of(1, 6).plus(Pool.of(2, 10, modifier=2)).dice_count
        3
        """
        return Pool(self.dice + other.dice, self.modifier + other.modifier)

    def with_extra_die(self) -> Pool:
        """The pool plus one die like its first entry (an Over-the-Top die).

        >>> Pool.of(2, 6, per_die=-1).with_extra_die().dice[0].count
        3
        """
        first = self.dice[0]
        grown = Dice(
            first.count + 1, first.sides, first.per_die, first.bonus_die, first.deflectable
        )
        return Pool((grown, *self.dice[1:]), self.modifier)
