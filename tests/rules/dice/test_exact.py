"""Exact distributions against the brute-force oracle (every face enumerated)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.dice import (
    Dice,
    Pool,
    deflect,
    deflect_with_over_the_top,
    drop_highest,
    drop_highest_all,
    explosion_rings,
    total_distribution,
)
from app.rules.errors import InvalidInput
from tests.rules.dice.oracle import enumerate_pool

ROUNDING = 1e-12


def assert_matches(
    engine: dict[int, float] | dict[tuple[int, int], float],
    oracle: dict,
    missing: Fraction,
    bound: float,
) -> None:
    """engine(x) lies within [oracle(x) - bound, oracle(x) + missing + bound] for every x.

    The true value lies in [oracle, oracle + missing]; the engine may be off by its stated
    ``truncation_bound`` (dropped or wrapped tail mass) plus float rounding.
    """
    assert bound < 1e-9
    for key in set(engine) | set(oracle):
        got = float(engine.get(key, 0.0))
        low = float(oracle.get(key, 0)) - bound - ROUNDING
        high = float(oracle.get(key, 0) + missing) + bound + ROUNDING
        assert low <= got <= high, (key, got, float(oracle.get(key, 0)), float(missing))


def as_dict(pmf: np.ndarray) -> dict:
    return {
        tuple(int(i) for i in idx) if pmf.ndim > 1 else int(idx[0]): float(p)
        for idx, p in np.ndenumerate(pmf)
        if p != 0.0
    }


CASES = [
    (Pool.of(1, 6), 8),
    (Pool.of(2, 6, per_die=-1, modifier=1), 6),
    (Pool.of(3, 4, per_die=-2), 6),
    (Pool.of(2, 10), 5),
    (Pool.of(3, 4, bonus_die="d6"), 4),
    (Pool.of(2, 8, bonus_die="none", modifier=-3), 0),
    (Pool.of(2, 4, per_die=-4), 6),  # every die is worth 0: ties everywhere
    (Pool((Dice(1, 10), Dice(1, 6))), 5),  # a d6 6+1 ties a d10 7 with more dice
    (Pool((Dice(1, 10), Dice(1, 6), Dice(1, 4, per_die=-1))), 3),
    (Pool((Dice(1, 12), Dice(2, 6, bonus_die="none")), modifier=-2), 5),
]


@pytest.mark.parametrize(("pool", "depth"), CASES)
def test_total_matches_enumeration(pool: Pool, depth: int) -> None:
    oracle = enumerate_pool(pool, depth)
    dist = total_distribution(pool)
    assert_matches(as_dict(dist.pmf), oracle.totals(), oracle.missing, dist.truncation_bound)
    assert abs(dist.all_ones - float(oracle.all_ones())) < ROUNDING


@pytest.mark.parametrize(("pool", "depth"), CASES)
def test_drop_highest_matches_enumeration_for_every_k(pool: Pool, depth: int) -> None:
    dists = drop_highest_all(pool)
    assert len(dists) == pool.dice_count + 1
    for k, dist in enumerate(dists):
        oracle = enumerate_pool(pool, depth, drop=k)
        assert_matches(as_dict(dist.pmf), oracle.totals(), oracle.missing, dist.truncation_bound)
        # the all-ones event is located where the engine says
        ones = {t: p for (t, _, o), p in oracle.outcomes.items() if o}
        assert list(ones) == [dist.all_ones_total]
        assert dist.all_ones == pytest.approx(float(ones[dist.all_ones_total]), abs=ROUNDING)
        # and separating it leaves the non-critical totals
        assert_matches(
            as_dict(dist.excluding_all_ones()),
            oracle.totals(exclude_all_ones=True),
            oracle.missing,
            dist.truncation_bound,
        )


@pytest.mark.parametrize(("pool", "depth"), CASES)
def test_explosion_rings_joint_matches_enumeration(pool: Pool, depth: int) -> None:
    rings = explosion_rings(pool)
    assert len(rings) == pool.dice_count
    for k, ring in enumerate(rings):
        oracle = enumerate_pool(pool, depth, drop=k)
        assert_matches(as_dict(ring.pmf), oracle.joint(), oracle.missing, ring.truncation_bound)
        assert (ring.all_ones_total, ring.all_ones_dice) in {
            (t, c) for (t, c, o) in oracle.outcomes if o
        }


@pytest.mark.parametrize(("pool", "depth"), CASES)
def test_drop_highest_single_k_matches_enumeration(pool: Pool, depth: int) -> None:
    # a few dropped dice take the mirror identity (also for mixed kinds), many the full sweep
    for k in range(1, pool.dice_count):
        oracle = enumerate_pool(pool, depth, drop=k)
        dist = drop_highest(pool, k)
        assert_matches(as_dict(dist.pmf), oracle.totals(), oracle.missing, dist.truncation_bound)
        assert dist.all_ones == pytest.approx(float(oracle.all_ones()), abs=ROUNDING)


def test_drop_highest_single_k_is_the_same_as_all_k() -> None:
    pool = Pool((Dice(4, 6, per_die=-1), Dice(2, 10, bonus_die="d6")), modifier=2)
    for k, dist in enumerate(drop_highest_all(pool)):
        single = drop_highest(pool, k)
        size = max(len(single.pmf), len(dist.pmf))
        a, b = np.zeros(size), np.zeros(size)
        a[: len(single.pmf)], b[: len(dist.pmf)] = single.pmf, dist.pmf
        assert np.abs(a - b).max() <= dist.truncation_bound


def test_dropping_every_die_leaves_the_modifier() -> None:
    assert drop_highest(Pool.of(2, 6, modifier=3), 5).probability(3) == 1.0
    assert drop_highest(Pool.of(2, 6, modifier=-3), 2).probability(0) == 1.0


@pytest.mark.parametrize("layers", [0, 1, 2, 3, 4])
def test_deflection_skips_phased_dice(layers: int) -> None:
    pool = Pool((Dice(2, 6), Dice(1, 12, deflectable=False)), modifier=-1)
    oracle = enumerate_pool(pool, 3, drop=layers, deflection=True)
    dist = deflect(pool, layers)
    assert_matches(as_dict(dist.pmf), oracle.totals(), oracle.missing, dist.truncation_bound)
    assert dist.all_ones == pytest.approx(float(oracle.all_ones()), abs=ROUNDING)
    ones = {t for (t, _, o) in oracle.outcomes if o}
    assert ones == {dist.all_ones_total}


@pytest.mark.parametrize("layers", [1, 2])
def test_deflection_without_phased_dice(layers: int) -> None:
    pool = Pool.of(3, 8, per_die=-1)
    oracle = enumerate_pool(pool, 3, drop=layers, deflection=True)
    dist = deflect(pool, layers)
    assert_matches(as_dict(dist.pmf), oracle.totals(), oracle.missing, dist.truncation_bound)


@pytest.mark.parametrize(
    ("pool", "layers", "depth"),
    [
        (Pool.of(3, 6, per_die=-1, modifier=1), 1, 3),
        pytest.param(  # ~5 s to enumerate at depth 2 (depth 3: 2 minutes)
            Pool.of(4, 4, bonus_die="d6"), 2, 2, marks=pytest.mark.slow
        ),
        (Pool.of(2, 8, per_die=-2), 1, 3),
        (Pool.of(3, 6), 2, 3),  # 2 x 2 > 3: the plain path, the same answers
    ],
)
def test_deflect_with_over_the_top_matches_enumeration(pool: Pool, layers: int, depth: int) -> None:
    plain, ott = deflect_with_over_the_top(pool, layers)
    for dist, p in ((plain, pool), (ott, pool.with_extra_die())):
        oracle = enumerate_pool(p, depth, drop=layers, deflection=True)
        assert_matches(as_dict(dist.pmf), oracle.totals(), oracle.missing, dist.truncation_bound)
        assert dist.all_ones == pytest.approx(float(oracle.all_ones()), abs=ROUNDING)
        assert {t for (t, _, o) in oracle.outcomes if o} == {dist.all_ones_total}


def test_per_die_floor_at_zero_matches_burnination_values() -> None:
    # 3d4 with -1 per die (Out of Range by 1"): a natural 1 is worth 0, never -1.
    dist = total_distribution(Pool.of(3, 4, per_die=-1, bonus_die="none"))
    assert dist.probability(0) == pytest.approx(1 / 64)
    assert dist.all_ones == pytest.approx(1 / 64) and dist.all_ones_total == 0
    # Without the floor the mean would be 3 * 1.5 = 4.5 exactly; with it, still 4.5 because
    # the lowest face minus 1 is 0. A -2 per die shows the floor: faces 1, 2 -> 0.
    floored = total_distribution(Pool.of(1, 4, per_die=-2, bonus_die="none"))
    assert floored.pmf.tolist() == pytest.approx([0.5, 0.25, 0.25])


def test_bonus_chain_exact_small_values() -> None:
    # 1d6 with Bonus dice: 6 never stays 6; 7 = 6 + 1; 13 = 6 + 6 + 1.
    dist = total_distribution(Pool.of(1, 6))
    assert dist.probability(6) == 0.0
    assert dist.probability(7) == pytest.approx(1 / 36, abs=1e-15)
    assert dist.probability(13) == pytest.approx(1 / 216, abs=1e-15)
    d6_bonus = total_distribution(Pool.of(1, 4, bonus_die="d6"))
    assert d6_bonus.probability(4) == 0.0
    assert d6_bonus.probability(5) == pytest.approx(1 / 24, abs=1e-15)  # 4 then a d6 1
    none = total_distribution(Pool.of(1, 4, bonus_die="none"))
    assert none.probability(4) == pytest.approx(0.25)


small_dice = st.builds(
    Dice,
    count=st.integers(1, 2),
    sides=st.sampled_from([4, 6, 8]),
    per_die=st.integers(-3, 1),
    bonus_die=st.sampled_from(["same", "d6", "none"]),
)


@settings(max_examples=15, deadline=None)
@given(
    dice=st.lists(small_dice, min_size=1, max_size=2).filter(
        lambda ds: sum(d.count for d in ds) <= 3
    ),
    modifier=st.integers(-3, 3),
    data=st.data(),
)
def test_random_small_pools_match_enumeration(
    dice: list[Dice], modifier: int, data: st.DataObject
) -> None:
    pool = Pool(tuple(dice), modifier)
    drop = data.draw(st.integers(0, pool.dice_count - 1))
    oracle = enumerate_pool(pool, 3, drop=drop)
    ring = explosion_rings(pool)[drop]
    assert_matches(as_dict(ring.pmf), oracle.joint(), oracle.missing, ring.truncation_bound)
    dist = drop_highest(pool, drop)
    assert_matches(as_dict(dist.pmf), oracle.totals(), oracle.missing, dist.truncation_bound)


def test_explosion_rings_remove_phased_dice_like_any_other() -> None:
    # Phased dice ignore Deflection, not the rings: a ring removes the highest group.
    phased = explosion_rings(Pool((Dice(1, 10), Dice(1, 12, deflectable=False))))
    plain = explosion_rings(Pool((Dice(1, 10), Dice(1, 12))))
    for a, b in zip(phased, plain, strict=True):
        assert np.array_equal(a.pmf, b.pmf)
    oracle = enumerate_pool(Pool((Dice(1, 10), Dice(1, 12))), 5, drop=1)
    assert_matches(
        as_dict(phased[1].pmf), oracle.joint(), oracle.missing, phased[1].truncation_bound
    )


@pytest.mark.parametrize(
    "pool",
    [
        Pool((Dice(1, 10), Dice(1, 6))),
        Pool.of(2, 4, per_die=-4),
        Pool.of(3, 4, bonus_die="d6"),
        Pool((Dice(1, 10), Dice(2, 6, per_die=-1))),
    ],
)
def test_tie_rule_option_fewer_dice_first(pool: Pool) -> None:
    # Ruling D1 as a rule option: the other tie order changes only the dice left.
    fewer = explosion_rings(pool, ties="fewer_dice_first")
    more = explosion_rings(pool)
    for k, ring in enumerate(fewer):
        oracle = enumerate_pool(pool, 3, drop=k, fewer_dice_first=True)
        assert_matches(as_dict(ring.pmf), oracle.joint(), oracle.missing, ring.truncation_bound)
        assert np.allclose(
            ring.total().pmf[: len(more[k].pmf)], more[k].total().pmf[: len(ring.pmf)], atol=1e-9
        )
    with pytest.raises(InvalidInput):
        explosion_rings(pool, ties="random")  # type: ignore[arg-type]
