"""Damage against Armour: exact comparisons against the brute-force oracle."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.rules.dice import (
    Dice,
    Pool,
    TotalDistribution,
    compare,
    compare_by_dice,
    deflect,
    explosion_rings,
    total_distribution,
)
from app.rules.errors import InvalidInput
from tests.rules.dice.oracle import enumerate_pool

ROUNDING = 1e-12


def oracle_compare(
    damage: dict[int, Fraction], armour: dict[int, Fraction]
) -> tuple[Fraction, Fraction, Fraction]:
    gt = eq = lt = Fraction(0)
    for d, pd in damage.items():
        for a, pa in armour.items():
            if d > a:
                gt += pd * pa
            elif d == a:
                eq += pd * pa
            else:
                lt += pd * pa
    return gt, eq, lt


def check(got: float, exact: Fraction, missing: Fraction, bound: float) -> None:
    assert float(exact) - bound - ROUNDING <= got <= float(exact + missing) + bound + ROUNDING


@pytest.mark.parametrize(
    ("damage", "armour"),
    [
        (Pool.of(2, 6), Pool.of(2, 6)),  # a Hero's Armour 2d6 also earns Bonus dice
        (Pool.of(1, 8, modifier=1), Pool.of(1, 10)),
        (Pool.of(3, 4, per_die=-1), Pool.of(1, 6)),
        (Pool((Dice(1, 10), Dice(1, 6, per_die=-1)), modifier=-1), Pool.of(2, 10)),
    ],
)
def test_pool_against_armour_pool(damage: Pool, armour: Pool) -> None:
    od, oa = enumerate_pool(damage, 4), enumerate_pool(armour, 4)
    missing = od.missing + oa.missing
    exact = oracle_compare(od.totals(exclude_all_ones=True), oa.totals())
    result = compare(total_distribution(damage), armour)
    for got, want in zip((result.greater, result.equal, result.less), exact, strict=True):
        check(got, want, missing, result.truncation_bound)
    assert result.critical_failure == pytest.approx(float(od.all_ones()), abs=ROUNDING)
    assert result.truncation_bound < 1e-9
    total = result.greater + result.equal + result.less + result.critical_failure
    assert 1 - result.truncation_bound - ROUNDING <= total <= 1 + ROUNDING


@pytest.mark.parametrize("armour", [0, 1, 4, 7, 12])
def test_against_fixed_armour_with_criticals_kept_in(armour: int) -> None:
    damage = Pool.of(2, 6, per_die=-1, modifier=1)
    od = enumerate_pool(damage, 6)
    exact = oracle_compare(od.totals(), {armour: Fraction(1)})
    result = compare(total_distribution(damage), armour, separate_critical=False)
    assert result.critical_failure == 0.0
    for got, want in zip((result.greater, result.equal, result.less), exact, strict=True):
        check(got, want, od.missing, result.truncation_bound)


def test_minifig_hit_by_a_gun_with_deflection() -> None:
    # 2d6 against Heavy Armor (1 layer of Deflection) over Armour 4: the highest die goes.
    damage = Pool.of(2, 6)
    od = enumerate_pool(damage, 6, drop=1)
    exact = oracle_compare(od.totals(exclude_all_ones=True), {4: Fraction(1)})
    result = compare(deflect(damage, 1), 4)
    for got, want in zip((result.greater, result.equal, result.less), exact, strict=True):
        check(got, want, od.missing, result.truncation_bound)
    assert result.critical_failure == pytest.approx(1 / 36)


def test_ring_by_dice_left_against_armour() -> None:
    pool, armour = Pool.of(3, 10), Pool.of(1, 10)
    oa = enumerate_pool(armour, 4)
    for k, ring in enumerate(explosion_rings(pool)):
        od = enumerate_pool(pool, 2, drop=k)
        result = compare_by_dice(ring, armour)
        by_dice: dict[int, dict[int, Fraction]] = {}
        for (t, c, ones), p in od.outcomes.items():
            if not ones:
                by_dice.setdefault(c, {})[t] = by_dice.get(c, {}).get(t, Fraction(0)) + p
        missing = od.missing + oa.missing
        for c in range(len(result.greater)):
            exact = oracle_compare(by_dice.get(c, {}), oa.totals())
            for got, want in zip(
                (result.greater[c], result.equal[c], result.less[c]), exact, strict=True
            ):
                check(float(got), want, missing, result.truncation_bound)
        assert result.critical_failure == pytest.approx(1e-3)
        totals = result.totals()
        assert totals.greater == pytest.approx(float(result.greater.sum()))


def test_fixed_distribution_and_bad_armour() -> None:
    four = TotalDistribution.fixed(4)
    assert compare(total_distribution(Pool.of(1, 4, bonus_die="none")), four).equal == 0.25
    with pytest.raises(InvalidInput) as err:
        compare(total_distribution(Pool.of(1, 6)), "4")  # type: ignore[arg-type]
    assert err.value.field == "armour"
