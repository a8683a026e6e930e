"""One total against another (damage against armour): P(>), P(=), P(<), with the all-ones
roll apart (in BrikWars a Critical Failure, which has no effect)."""

from __future__ import annotations

import numpy as np

from app.rules.dice.exact import total_distribution
from app.rules.dice.results import (
    Comparison,
    ComparisonByDice,
    FloatArray,
    JointDistribution,
    TotalDistribution,
)
from app.rules.dice.spec import Pool
from app.rules.errors import InvalidInput

Armour = int | TotalDistribution | Pool


def _armour(armour: Armour) -> TotalDistribution:
    if isinstance(armour, TotalDistribution):
        return armour
    if isinstance(armour, Pool):
        return total_distribution(armour)
    if isinstance(armour, int) and not isinstance(armour, bool):
        return TotalDistribution.fixed(armour)
    raise InvalidInput("armour", f"needs a number, a pool or a distribution, got {armour!r}")


def _below_equal_above(armour: TotalDistribution, size: int) -> tuple[FloatArray, ...]:
    """For totals 0..size-1: P(A < s), P(A == s), P(A > s) over the armour's kept mass."""
    a = np.zeros(max(size, len(armour.pmf)))
    a[: len(armour.pmf)] = armour.pmf
    cum = np.cumsum(a)
    below = np.concatenate(([0.0], cum[:-1]))[:size]
    equal = a[:size]
    above = (cum[-1] - cum)[:size]
    return below, equal, above


def compare(
    damage: TotalDistribution, armour: Armour, *, separate_critical: bool = True
) -> Comparison:
    """Compare a damage distribution with a fixed Armour, an Armour pool or distribution.

    With ``separate_critical`` (the default) the all-ones roll is taken out of the three
    outcomes and reported as ``critical_failure`` (it has no effect whatever the totals).

    >>> from app.rules.dice.exact import total_distribution
    >>> c = compare(total_distribution(Pool.of(1, 6)), 4)
    >>> round(c.greater, 6), round(c.equal, 6), round(c.less, 6), round(c.critical_failure, 6)
    (0.333333, 0.166667, 0.333333, 0.166667)
    """
    arm = _armour(armour)
    d = damage.excluding_all_ones() if separate_critical else np.array(damage.pmf)
    below, equal, above = _below_equal_above(arm, len(d))
    # plain sums, not BLAS dot products: threaded BLAS stalls when the machine is busy (a
    # wide damage total, 4d10+954/die, took 10-40 ms so, 3 ms without)
    return Comparison(
        greater=float((d * below).sum()),
        equal=float((d * equal).sum()),
        less=float((d * above).sum()),
        critical_failure=damage.all_ones if separate_critical else 0.0,
        truncation_bound=damage.truncation_bound + arm.truncation_bound,
    )


def compare_by_dice(ring: JointDistribution, armour: Armour) -> ComparisonByDice:
    """One explosion ring against one Armour roll, split by the dice left (KnockBack inches).

    The all-ones roll (no damage, no KnockBack) is reported apart.

    >>> from app.rules.dice.exact import explosion_rings
    >>> ring0 = explosion_rings(Pool.of(1, 10))[0]
    >>> c = compare_by_dice(ring0, 4)
    >>> round(float(c.greater[1]), 6), round(float(c.less[1]), 6), round(c.critical_failure, 6)
    (0.5, 0.2, 0.1)
    """
    arm = _armour(armour)
    j = ring.excluding_all_ones()
    below, equal, above = _below_equal_above(arm, j.shape[0])
    # plain sums, not BLAS matrix products: threaded BLAS stalls when the machine is busy
    return ComparisonByDice(
        greater=(below[:, None] * j).sum(axis=0),
        equal=(equal[:, None] * j).sum(axis=0),
        less=(above[:, None] * j).sum(axis=0),
        critical_failure=ring.all_ones,
        truncation_bound=ring.truncation_bound + arm.truncation_bound,
    )
