"""Seeded rolls: structure, replay, the rule texts' examples, and Monte Carlo vs exact."""

from __future__ import annotations

import gc
import math
import random
from collections import Counter
from collections.abc import Iterator

import numpy as np
import pytest

from app.rules.dice import (
    Dice,
    Pool,
    RolledDie,
    compare,
    deflect,
    explosion_rings,
    roll_explosion,
    roll_pool,
    total_distribution,
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
        (10, 10, False), (6, 6, True), (6, 2, True)]
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


# --- Monte Carlo: the exact engine against the seeded rolls --------------------------------


def within(count: int, n: int, p: float, *, z: float = 4.0) -> bool:
    """``count`` of ``n`` rolls is within ``z`` standard errors of probability ``p``."""
    se = math.sqrt(max(p * (1 - p), 1.0 / n) / n)
    return abs(count / n - p) <= z * se


def check_histogram(counts: Counter, n: int, pmf: np.ndarray) -> None:
    for value in set(counts) | set(np.nonzero(pmf > 1e-6)[0].tolist()):
        p = float(pmf[value]) if value < len(pmf) else 0.0
        assert within(counts.get(value, 0), n, p), (value, counts.get(value, 0) / n, p)


@pytest.fixture(autouse=True)
def _no_gc_pauses() -> Iterator[None]:
    """Monte Carlo loops allocate millions of small tuples; cyclic GC passes only slow them."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.fixture(scope="module")
def explosions() -> Explosions:
    """200,000 seeded 10d10 explosions: ((total, dice) per ring, critical failure)."""
    rng = random.Random(20261130)
    pool = Pool.of(10, 10)
    out = []
    gc.disable()
    try:
        for _ in range(ROLLS):
            boom = roll_explosion(pool, rng)
            out.append((tuple(boom.rings), boom.roll.critical_failure))
    finally:
        gc.enable()
    return out


@pytest.mark.slow
def test_monte_carlo_explosion_rings(explosions: Explosions) -> None:
    rings = explosion_rings(Pool.of(10, 10))
    for k, ring in enumerate(rings):
        check_histogram(Counter(rings_[k][0] for rings_, _ in explosions), ROLLS,
                        ring.total().pmf)
        check_histogram(Counter(rings_[k][1] for rings_, _ in explosions), ROLLS, ring.dice())
    # one joint cell per ring, the most likely one
    for k in (0, 3, 9):
        t, c = np.unravel_index(np.argmax(rings[k].pmf), rings[k].pmf.shape)
        hits = sum(1 for rings_, _ in explosions if rings_[k] == (t, c))
        assert within(hits, ROLLS, float(rings[k].pmf[t, c]))


@pytest.mark.slow
def test_monte_carlo_knockback_against_armour(
    explosions: Explosions,
) -> None:
    # ring 2 against a 1d10 Armour roll (the ground in "Wall Demolition"), split by dice left
    from app.rules.dice import compare_by_dice

    armour_rng = random.Random(7)
    armour = Pool.of(1, 10)
    result = compare_by_dice(explosion_rings(Pool.of(10, 10))[2], armour)
    wins = Counter()
    for rings_, critical in explosions:
        a = roll_pool(armour, armour_rng).total
        if rings_[2][0] > a and not critical:
            wins[rings_[2][1]] += 1
    for dice in range(8, 12):
        assert within(wins.get(dice, 0), ROLLS, float(result.greater[dice]))
    assert sum(wins.values()) > 0.9 * ROLLS  # ring 2 of 10d10 nearly always beats 1d10


@pytest.mark.slow
def test_monte_carlo_plated_object_in_ring_two(explosions: Explosions) -> None:
    # An object with 1 layer of Deflection in ring 2: damage = the total without 3 groups
    # (ring 3's total), KnockBack = ring 2's dice left; the joint from the same rolls.
    from app.rules.dice.plated import explosion_ring_deflected

    exact = explosion_ring_deflected(Pool.of(10, 10), 2, 1)
    tally = Counter((rings_[3][0], rings_[2][1]) for rings_, _ in explosions)
    for (t, c), n in tally.items():
        inside = t < exact.pmf.shape[0] and c < exact.pmf.shape[1]
        assert within(n, ROLLS, float(exact.pmf[t, c]) if inside else 0.0), (t, c)
    top = np.unravel_index(np.argmax(exact.pmf), exact.pmf.shape)
    assert tally[top] > 0


@pytest.mark.slow
def test_monte_carlo_damage_against_armour_pool() -> None:
    rng = random.Random(5)
    damage, armour = Pool.of(5, 10), Pool.of(5, 10)
    result = compare(total_distribution(damage), armour)
    tally = Counter()
    for _ in range(ROLLS):
        d, a = roll_pool(damage, rng), roll_pool(armour, rng)
        if d.critical_failure:
            tally["crit"] += 1
        else:
            tally[(d.total > a.total) - (d.total < a.total)] += 1
    assert within(tally[1], ROLLS, result.greater)
    assert within(tally[0], ROLLS, result.equal)
    assert within(tally[-1], ROLLS, result.less)


@pytest.mark.slow
def test_monte_carlo_deflection_with_modifiers_and_bonus_options() -> None:
    rng = random.Random(11)
    pool = Pool(
        (Dice(3, 6, per_die=-1), Dice(1, 4, bonus_die="d6"), Dice(1, 12, deflectable=False)),
        modifier=-2,
    )
    exact = deflect(pool, 2)
    totals = Counter()
    ones = 0
    for _ in range(ROLLS):
        roll = roll_pool(pool, rng)
        totals[roll.deflected_total(2)] += 1
        ones += roll.critical_failure
    check_histogram(totals, ROLLS, exact.pmf)
    assert within(ones, ROLLS, exact.all_ones)
