"""The work estimate covers every input that scales the work, before the work starts.

A per-die modifier used to spread a pool's total over ``dice x depth x (sides + modifier)``
values and sum them by direct convolution (5d4 at +1000 a die: 7 s; 30 dice: 170 s). Now a
positive per-die modifier is summed as (Bonus dice, residual) pairs, and ``sums_work``
predicts the multiply-adds of the sums from the pool's sizes alone.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.dice import Dice, Pool, deflect, exact, groups, total_distribution
from app.rules.errors import TooMuchWork

dice_kinds = st.builds(
    Dice,
    count=st.integers(1, 40),
    sides=st.sampled_from([4, 6, 8, 10, 12, 20]),
    per_die=st.one_of(st.integers(-3, 3), st.integers(-1000, 1000)),
    bonus_die=st.sampled_from(["same", "d6", "none"]),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(dice_kinds, min_size=1, max_size=2))
def test_the_estimate_bounds_the_convolutions_done(kinds: list[Dice]) -> None:
    pool = Pool(tuple(kinds))
    exact.clear_caches()
    types = exact._types(pool.dice, pool.dice_count, groups.CHAIN_BUDGET)
    estimate = exact.sums_work(types)
    before = exact.WORK_DONE[0]
    total_distribution(pool)
    assert 0 < exact.WORK_DONE[0] - before <= estimate


@pytest.mark.parametrize(
    ("count", "sides", "per_die", "bonus_die"),
    [(3, 4, 5, "same"), (4, 6, 30, "d6"), (2, 10, 1, "same"), (5, 8, 7, "none"), (7, 12, 3, "d6")],
)
def test_a_positive_per_die_modifier_sums_like_the_direct_convolution(
    count: int, sides: int, per_die: int, bonus_die: str
) -> None:
    pool = Pool.of(count, sides, per_die=per_die, bonus_die=bonus_die)  # type: ignore[arg-type]
    dist = total_distribution(pool)
    ((table, n),) = exact._types(pool.dice, count)
    direct = exact._power(table.value_pmf, n)  # the old way: every spread value summed
    size = max(len(direct), len(dist.pmf))
    a, b = np.zeros(size), np.zeros(size)
    a[: len(direct)], b[: len(dist.pmf)] = direct, dist.pmf
    assert np.abs(a - b).sum() <= dist.truncation_bound + 1e-12
    assert dist.truncation_bound < 1e-9


def test_a_large_per_die_modifier_is_cheap_to_sum() -> None:
    # the bodies: 5, 30 and 99 d4 at +1000 a die (7 s, 170 s, > 7 min before)
    for count in (5, 30, 99):
        pool = Pool.of(count, 4, per_die=1000)
        types = exact._types(pool.dice, count)
        assert exact.sums_work(types) < 5e8
        dist = total_distribution(pool)
        assert 1 - dist.mass() <= dist.truncation_bound + 1e-12
        assert dist.pmf[: 1001 * count].sum() == 0.0  # every die adds at least 1001


def test_dropping_dice_from_spread_totals_names_the_per_die_modifier() -> None:
    with pytest.raises(TooMuchWork) as err:
        deflect(Pool.of(99, 4, per_die=1000), 3)
    assert err.value.field == "per_die"
    assert "per-die modifier" in err.value.reason


def test_summing_too_much_is_refused_before_it_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exact, "SUMS_LIMIT", 1000.0)
    exact.clear_caches()
    before = exact.WORK_DONE[0]
    with pytest.raises(TooMuchWork) as err:
        total_distribution(Pool.of(50, 20))
    assert err.value.field == "count"
    assert exact.WORK_DONE[0] == before  # nothing was convolved
    exact.clear_caches()
