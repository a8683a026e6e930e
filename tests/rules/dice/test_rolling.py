"""Seeded rolls: structure, replay, the rule texts' examples, and Monte Carlo vs exact."""

from __future__ import annotations

import random

from app.rules.dice import (
    Dice,
    Pool,
    RolledDie,
    roll_explosion,
    roll_pool,
)

ROLLS = 200_000
Explosions = list[tuple[tuple[tuple[int, int], ...], bool]]


class Scripted(random.Random):
    """A Random whose die faces are given in advance (``randrange(n) + 1`` = next face)."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:  # type: ignore[override]
        face = self.faces.pop(0)
        assert 1 <= face <= start
        return face - 1


def test_rolls_replay_from_their_seed() -> None:
    pool = Pool((Dice(4, 6, per_die=-1), Dice(2, 10, bonus_die="d6")), modifier=2)
    first = [roll_pool(pool, random.Random(s)) for s in range(50)]
    again = [roll_pool(pool, random.Random(s)) for s in range(50)]
    assert first == again
    assert len({r.dice for r in first}) > 40


def test_every_die_is_recorded_with_group_face_value_and_bonus_flag() -> None:
    # d6 groups with -1 per die: 6 earns a Bonus d6, which shows 6 and earns another, then 1.
    roll = roll_pool(Pool.of(2, 6, per_die=-1), Scripted([6, 6, 1, 3]))
    assert roll.dice == (
        RolledDie(0, 6, 6, 5, False),
        RolledDie(0, 6, 6, 5, True),
        RolledDie(0, 6, 1, 0, True),
        RolledDie(1, 6, 3, 2, False),
    )
    assert roll.group_values == (10, 2)
    assert roll.group_dice == (3, 1)
    assert roll.total == 12
    assert not roll.critical_failure


def test_bonus_die_option_d6_and_none() -> None:
    d6 = roll_pool(Pool.of(1, 10, bonus_die="d6"), Scripted([10, 6, 2]))
    assert [(d.sides, d.natural, d.bonus) for d in d6.dice] == [
        (10, 10, False),
        (6, 6, True),
        (6, 2, True),
    ]
    none = roll_pool(Pool.of(1, 10, bonus_die="none"), Scripted([10]))
    assert none.total == 10 and len(none.dice) == 1


def test_burnination_out_of_range_penalty_applies_to_each_die() -> None:
    # Ch. 8 "Burnination": 3d4 + one Over-the-Top d4 at -1 per die (1" Out of Range) roll
    # 3, 1, 2 and 2; "reduced to 2, 0, 1, and 1" for a total of 4.
    pool = Pool.of(3, 4, per_die=-1).with_extra_die()
    roll = roll_pool(pool, Scripted([3, 1, 2, 2]))
    assert [d.value for d in roll.dice] == [2, 0, 1, 1]
    assert roll.total == 4


def test_wall_demolition_rings_and_knockback() -> None:
    # Ch. 8 "Wall Demolition": a 3d10 Explosion rolls 3, 6, 7: 16 in the first two inches,
    # 9 in the next two, 3 in the outermost; KnockBack 3" in ring 0 and 2" in ring 1.
    boom = roll_explosion(Pool.of(3, 10), Scripted([3, 6, 7]))
    assert [(r.total, r.dice) for r in boom.rings] == [(16, 3), (9, 2), (3, 1)]


def test_explosion_ring_removes_a_die_with_its_bonus_dice() -> None:
    boom = roll_explosion(Pool.of(3, 10), Scripted([3, 10, 2, 5]))  # 10 + 2 is one group
    assert [(r.total, r.dice) for r in boom.rings] == [(20, 4), (8, 2), (3, 1)]


def test_ties_remove_the_group_with_more_dice_first() -> None:
    # d6 shows 6 then a Bonus 1 (7, two dice); d10 shows 7 (one die): equal value.
    boom = roll_explosion(Pool((Dice(1, 10), Dice(1, 6))), Scripted([7, 6, 1]))
    assert [(r.total, r.dice) for r in boom.rings] == [(14, 3), (7, 1)]


def test_tie_rule_option_removes_the_group_with_fewer_dice_first() -> None:
    pool = Pool((Dice(1, 10), Dice(1, 6)))
    boom = roll_explosion(pool, Scripted([7, 6, 1]), ties="fewer_dice_first")
    assert [(r.total, r.dice) for r in boom.rings] == [(14, 3), (7, 2)]


def test_deflection_keeps_phased_dice() -> None:
    pool = Pool((Dice(1, 6), Dice(1, 12, deflectable=False)))
    roll = roll_pool(pool, Scripted([5, 11]))
    assert roll.deflected_total(1) == 11
    assert roll.total_without(1) == 5


def test_all_ones_is_a_critical_failure() -> None:
    assert roll_pool(Pool.of(3, 6, modifier=4), Scripted([1, 1, 1])).critical_failure
    assert not roll_pool(Pool.of(3, 6), Scripted([1, 2, 1])).critical_failure
