"""Exact distributions of dice pools: totals, and totals without the ``k`` highest groups
(BrikWars' Deflection, and its explosion rings: every ``k`` at once).

The method (chosen by measurement, see docs/dice-engine.md) is float64 numpy. A pool's total is
a direct convolution of its groups. Dropping the ``k`` highest groups, for every ``k`` at once,
is an order-statistics identity evaluated on the discrete Fourier transform (``_lowest_all``).

Mass is left out only where stated, and ``truncation_bound`` adds it up:

* Bonus chains after ``depth`` dice: exactly ``1 - prod (1 - e_t)^N_t`` is missing
  (``e_t = (1/X)(1/Y)^depth``, depth chosen so that this is < 5e-11).
* For dropped dice: sums (and Bonus-dice counts) above a cap whose upper tail is < 5e-11 may
  be misplaced (they wrap around the transform). The computed tail is added to the bound.

So ``truncation_bound`` bounds the total-variation distance between the reported and the true
distribution (< 1e-9); float rounding adds ~1e-14 (measured against brute force in the tests).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from app.rules.dice import groups
from app.rules.dice.groups import GroupTable, IntArray, chain_depth, group_table
from app.rules.dice.results import FloatArray, JointDistribution, TotalDistribution
from app.rules.dice.spec import Dice, Pool, Ties, check_ties
from app.rules.errors import InvalidInput, TooMuchWork
from app.rules.memo import bounded_cache

CArray = NDArray[np.complex128]

TAIL_BUDGET = 5e-11
"""Mass a calculation may misplace beyond each of its caps (total, Bonus-dice count)."""
WORK_LIMIT = 5e8
"""Estimated complex multiply-adds allowed for one drop/ring calculation (~2 s at the 2.5e8/s
measured on the slowest case; see bench/dice_compare.py)."""
CACHE_BYTES = 32 << 20
"""Bytes of arrays each of the pool caches below may keep (a 100-die ring table alone can
take tens of MB; entries past the budget push out the least recently used)."""
_BLOCK_ELEMENTS = 65536
"""Complex entries per block of outcomes (about 1 MiB: stays in cache across the K loop)."""

Types = list[tuple[GroupTable, int]]


def _types(dice: tuple[Dice, ...], groups_in_calc: int, budget: float | None = None) -> Types:
    """One table per distinct kind of group (Deflection flags do not change a roll)."""
    merged: dict[tuple[int, int, str], int] = {}
    for d in dice:
        key = (d.sides, d.per_die, d.bonus_die)
        merged[key] = merged.get(key, 0) + d.count
    out = []
    for (sides, per_die, bonus_die), n in merged.items():
        kind = Dice(1, sides, per_die=per_die, bonus_die=bonus_die)  # type: ignore[arg-type]
        out.append((group_table(kind, chain_depth(kind, groups_in_calc, budget)), n))
    return out


WORK_DONE = [0.0]
"""Multiply-adds of the direct convolutions done so far (the tests hold the estimates to it)."""


def _convolve(a: FloatArray, b: FloatArray) -> FloatArray:
    WORK_DONE[0] += len(a) * len(b)
    return np.convolve(a, b)


def _power(base: FloatArray, n: int) -> FloatArray:
    """``base`` convolved with itself ``n`` times, by repeated squaring."""
    result = np.ones(1)
    while n:
        if n & 1:
            result = _convolve(result, base)
        n >>= 1
        if n:
            base = _convolve(base, base)
    return result


def _power_cost(length: int, n: int) -> tuple[float, int]:
    """Multiply-adds of ``_power`` on an array of ``length`` entries, and the result's length."""
    cost, result, base = 0.0, 1, length
    while n:
        if n & 1:
            cost += result * base
            result += base - 1
        n >>= 1
        if n:
            cost += base * base
            base += base - 1
    return cost, result


def _cap(pmf: FloatArray, budget: float) -> tuple[int, float]:
    """Smallest index whose upper tail is within ``budget``, and that tail's mass."""
    above = np.cumsum(pmf[::-1])[::-1][1:]  # above[i] = P(X > i), i < len - 1
    ok = np.nonzero(above <= budget)[0]
    if len(ok) == 0:
        return len(pmf) - 1, 0.0
    return int(ok[0]), float(above[ok[0]])


def _chain_dropped(types: Types) -> float:
    """Exact mass of "some group's chain went past its depth": 1 - prod (1 - e)^n."""
    return float(-np.expm1(sum(n * math.log1p(-t.dropped) for t, n in types)))


def _all_ones(types: Types, drop: int) -> tuple[float, int]:
    """P(every die shows 1) and the raw sum left after dropping the ``drop`` highest groups."""
    prob = math.prod((1.0 / t.sides) ** n for t, n in types)
    values = sorted(v for t, n in types for v in [t.all_ones_value] * n)
    return prob, sum(values[: max(0, len(values) - drop)])


@dataclass(frozen=True, eq=False, slots=True)
class _Sums:
    """All groups of some dice summed (chain-truncated only); cached, arrays read-only."""

    types: Types
    total: FloatArray
    bonus: FloatArray
    chain_dropped: float


def _sums(dice: tuple[Dice, ...], groups_in_calc: int) -> _Sums:
    return _sums_cached(dice, groups_in_calc, groups.CHAIN_BUDGET)


@bounded_cache(256, max_bytes=CACHE_BYTES)
def _sums_cached(dice: tuple[Dice, ...], groups_in_calc: int, budget: float) -> _Sums:
    types = _types(dice, groups_in_calc, budget)
    check_sums_work(types)
    total, bonus = np.ones(1), np.ones(1)
    left_out = 0.0
    for t, n in types:
        if t.per_die > 0:
            part, tail = _power_by_bonus(t, n, TAIL_BUDGET)
            left_out += tail
        else:
            part = _power(t.value_pmf, n)
        total = _convolve(total, part)
        bonus = _convolve(bonus, _power(t.bonus_pmf, n))
    total.setflags(write=False)
    bonus.setflags(write=False)
    return _Sums(types, total, bonus, _chain_dropped(types) + left_out)


SUMS_LIMIT = 2e9
"""Multiply-adds allowed for a pool's total (direct convolutions, ~1e9 a second here; the
largest legal pools need < 5e8 since a per-die modifier no longer spreads them)."""


def sums_work(types: Types) -> float:
    """Multiply-adds of ``_sums_cached`` for these group kinds, from their sizes alone."""
    cost, total_len, bonus_len = 0.0, 1, 1
    for t, n in types:
        bonus_cost, part_bonus = _power_cost(len(t.bonus_pmf), n)
        if t.per_die > 0:
            # the Bonus-dice cap: this estimate's own sum, then _power_by_bonus's
            rows = _cap(_power(t.bonus_pmf, n), TAIL_BUDGET)[0] + 1
            part_cost, part_len = _by_bonus_cost(t, n, rows)
            part_cost += 2 * bonus_cost
        else:
            part_cost, part_len = _power_cost(len(t.value_pmf), n)
        cost += part_cost + bonus_cost + total_len * part_len + bonus_len * part_bonus
        total_len += part_len - 1
        bonus_len += part_bonus - 1
    return cost


def check_sums_work(types: Types) -> None:
    """Raise ``TooMuchWork`` (naming the dice) before summing pools past ``SUMS_LIMIT``."""
    work = sums_work(types)
    if work > SUMS_LIMIT:
        raise TooMuchWork(
            f"summing {sum(n for _, n in types)} dice needs ~{work:.2g} operations; "
            "roll fewer dice",
            field="count",
        )


def _slope(t: GroupTable) -> int:
    """What each Bonus die after the first adds at most: its maximum after the per-die
    modifier (0 without Bonus dice)."""
    if t.bonus_die == "none":
        return 0
    return max(0, (6 if t.bonus_die == "d6" else t.sides) + t.per_die)


def _by_bonus(t: GroupTable) -> tuple[FloatArray, int]:
    """One group as ``joint[bonus, residual - offset]`` with ``value = slope * bonus +
    residual``: a positive per-die modifier spreads the values (every die adds it) but not
    the residuals, which stay within the last die's faces."""
    residual = t.values - _slope(t) * t.bonus
    offset = int(residual.min())
    joint = np.zeros((t.depth + 1, int(residual.max()) - offset + 1))
    np.add.at(joint, (t.bonus, residual - offset), t.probs)
    return joint, offset


def _conv_rows(a: FloatArray, b: FloatArray, rows: int) -> FloatArray:
    """2-D convolution of ``a`` and ``b`` (bonus x residual), keeping the first ``rows``."""
    out = np.zeros((min(rows, a.shape[0] + b.shape[0] - 1), a.shape[1] + b.shape[1] - 1))
    for i in range(min(a.shape[0], rows)):
        for j in range(min(b.shape[0], rows - i)):
            out[i + j] += _convolve(a[i], b[j])
    return out


def _conv_rows_cost(
    a: tuple[int, int], b: tuple[int, int], rows: int
) -> tuple[float, tuple[int, int]]:
    """Multiply-adds of ``_conv_rows`` on arrays of shapes ``a`` and ``b``, and its shape."""
    pairs = sum(min(b[0], rows - i) for i in range(min(a[0], rows)))
    return float(pairs * a[1] * b[1]), (min(rows, a[0] + b[0] - 1), a[1] + b[1] - 1)


def _by_bonus_cost(t: GroupTable, n: int, rows: int) -> tuple[float, int]:
    """Multiply-adds of ``_power_by_bonus``'s row convolutions, and its total's length."""
    residual = t.values - _slope(t) * t.bonus
    width = int(residual.max() - residual.min()) + 1
    cost, result, base = 0.0, (1, 1), (min(t.depth + 1, rows), width)
    k = n
    while k:
        if k & 1:
            step, result = _conv_rows_cost(result, base, rows)
            cost += step
        k >>= 1
        if k:
            step, base = _conv_rows_cost(base, base, rows)
            cost += step
    return cost, n * int(residual.min()) + _slope(t) * (result[0] - 1) + result[1]


def _power_by_bonus(t: GroupTable, n: int, tail_budget: float) -> tuple[FloatArray, float]:
    """Total of ``n`` groups of one kind with a positive per-die modifier, and the mass left
    out (sums with more Bonus dice than the cap whose tail is within ``tail_budget``).

    Summing the spread values directly costs ``(n * depth * (sides + per_die))**2``: 7 s for
    five d4 at +1000 each. Summing (Bonus dice, residual) pairs costs ``(bonus cap)**2``
    small convolutions whatever the modifier; the totals are then placed at
    ``residuals + n * offset + slope * bonus``.
    """
    joint, offset = _by_bonus(t)
    rows, tail = _cap(_power(t.bonus_pmf, n), tail_budget)
    rows += 1
    result = np.ones((1, 1))
    base = joint[:rows]
    k = n
    while k:
        if k & 1:
            result = _conv_rows(result, base, rows)
        k >>= 1
        if k:
            base = _conv_rows(base, base, rows)
    slope, width = _slope(t), result.shape[1]
    total = np.zeros(n * offset + slope * (result.shape[0] - 1) + width)
    for b in range(result.shape[0]):
        start = n * offset + slope * b
        total[start : start + width] += result[b]
    return total, tail


def _fast_len(n: int) -> int:
    """Smallest 2-3-5-smooth length >= n (cheap FFT sizes)."""
    while True:
        m = n
        for f in (2, 3, 5):
            while m % f == 0:
                m //= f
        if m == 1:
            return n
        n += 1


# --- the order-statistics core ---------------------------------------------------------------


def _phases(values: IntArray, freqs: IntArray, size: int) -> CArray:
    """``exp(-2 pi i v f / size)`` for every value and frequency, from the ``size`` roots of
    unity (an exact index gather instead of one complex exponential per entry)."""
    roots: CArray = np.exp(-2j * np.pi * np.arange(size) / size)
    phases: CArray = roots[np.outer(values, freqs) % size]
    return phases


def _union(types: Types, fewer_first: bool = False) -> tuple[IntArray, IntArray, FloatArray]:
    """All kinds' outcomes merged in ascending order: values, bonus, probs[type, i].

    The order is ``(value, bonus)``; with ``fewer_first`` equal values put *more* Bonus dice
    lower, so the ring removes the group with fewer dice first.
    """
    if len(types) == 1:
        table = types[0][0]
        if not fewer_first:
            return table.values, table.bonus, table.probs[None, :]
        order = np.lexsort((-table.bonus, table.values))
        return table.values[order], table.bonus[order], table.probs[None, order]
    sign = -1 if fewer_first else 1
    keys = sorted(
        {(int(v), int(b)) for t, _ in types for v, b in zip(t.values, t.bonus, strict=True)},
        key=lambda k: (k[0], sign * k[1]),
    )
    index = {k: i for i, k in enumerate(keys)}
    probs = np.zeros((len(types), len(keys)))
    for row, (t, _) in enumerate(types):
        for v, b, p in zip(t.values, t.bonus, t.probs, strict=True):
            probs[row, index[(int(v), int(b))]] += p
    values = np.array([k[0] for k in keys], dtype=np.int64)
    bonus = np.array([k[1] for k in keys], dtype=np.int64)
    return values, bonus, probs


def _lowest_all(
    types: Types,
    size_s: int,
    size_b: int,
    residual: tuple[int, int] | None = None,
    fewer_first: bool = False,
) -> FloatArray:
    """``R[K, s, b]``: sub-distribution of (sum, Bonus dice) of the lowest ``K`` groups.

    With ``residual = (slope, offset)`` (one type only) the sum axis holds each kept group's
    ``value - slope * bonus - offset`` instead of its value; see ``_joint_by_residual``.

    Works on the discrete Fourier transform (lengths ``size_s`` x ``size_b``; sums past them
    wrap around, which callers count as tail mass). Take the distinct outcomes ``o_i`` in
    ascending ``(value, dice)`` order; for each type, ``G<=i`` is the transform of one group
    restricted to outcomes ``<= o_i``, ``T>i`` its mass above ``o_i``, ``z_i`` the transform of
    ``o_i``. With ``y`` marking kept groups,

        sum_K R[K] y^K = 1 + sum_i  y z_i / (1 - y z_i) * (F_{i-1}(y) - F_i(y)),
        F_i(y) = prod_types (y G<=i + T>i) ** N_t,

    because ``F_{i-1} - F_i`` collects the configurations in which ``o_i`` is the ``K``-th
    lowest outcome for ``K`` from ``n + 1`` (``n`` groups below it) to ``n + b`` (``b`` at it),
    and the factor adds the ``K - n`` kept groups at ``o_i``. The coefficients of
    ``y z / (1 - y z) * D(y)`` obey ``S[K] = z (S[K-1] + D[K-1])``: every ``K`` in ``O(N)``.
    """
    counts = [n for _, n in types]
    n_all = sum(counts)
    values, bonus, probs = _union(types, fewer_first)
    if residual is not None:
        values = values - residual[0] * bonus - residual[1]
    above = np.maximum(np.cumsum(probs[:, ::-1], axis=1)[:, ::-1] - probs, 0.0)

    fs = np.arange(size_s // 2 + 1)
    fb = np.arange(size_b)
    phase_s = _phases(values, fs, size_s)
    if size_b == 1:
        z = phase_s
    else:
        phase_b = _phases(bonus, fb, size_b)
        z = (phase_b[:, :, None] * phase_s[:, None, :]).reshape(len(values), -1)

    r_hat = np.zeros((n_all + 1, z.shape[1]), dtype=complex)
    r_hat[0] = math.prod(float(probs[t].sum()) ** n for t, n in enumerate(counts))
    at_most = [_cumsum_rows(probs[t][:, None] * z) for t in range(len(types))]
    if len(types) == 1:
        _single_type(n_all, probs[0], above[0], z, at_most[0], r_hat)
    else:
        _mixed_types(counts, probs, above, z, at_most, r_hat)
    spectra = r_hat.reshape(n_all + 1, size_b, size_s // 2 + 1)
    if size_b > 1:
        spectra = np.fft.ifft(spectra, axis=1)
    r = np.fft.irfft(spectra, n=size_s, axis=2)
    return np.where(r > 0.0, r, 0.0).transpose(0, 2, 1)


def _cumsum_rows(a: CArray) -> CArray:
    """Running sum down the rows, in place.

    ``np.cumsum(axis=0)`` walks columns and is ~10x slower than a row loop once the array
    leaves the cache; on small arrays it is the faster of the two.
    """
    if a.size <= 32768:
        return np.cumsum(a, axis=0, out=a)
    for i in range(1, a.shape[0]):
        a[i] += a[i - 1]
    return a


def _int_power(a: CArray, n: int) -> CArray:
    """``a ** n`` for a whole ``n >= 0`` by repeated squaring (exact products, no logs).

    The result starts as the first power it needs (no multiplication by ones): these are
    small arrays, where each numpy call costs more than its arithmetic.
    """
    if n == 0:
        return np.ones_like(a)
    result: CArray | None = None
    base = a
    while True:
        if n & 1:
            result = base.copy() if result is None else np.multiply(result, base, out=result)
        n >>= 1
        if not n:
            break
        base = base * base
    assert result is not None
    return result


def _single_type(
    n_all: int,
    probs: FloatArray,
    above: FloatArray,
    z: CArray,
    at_most: CArray,
    r_hat: CArray,
) -> None:
    """``_lowest_all``'s sum for one type of group, powers built as ``K`` grows.

    Outcomes are taken in blocks small enough to stay in cache across the ``K`` loop.
    """
    exps = n_all - np.arange(n_all + 1)
    combs = np.array([float(math.comb(n_all, n)) for n in range(n_all + 1)])
    block = max(1, _BLOCK_ELEMENTS // z.shape[1])
    for lo in range(0, z.shape[0], block):
        hi = min(z.shape[0], lo + block)
        zc, le = z[lo:hi], at_most[lo:hi]
        lt = le - probs[lo:hi, None] * zc
        before_const = (combs[None, :] * (above[lo:hi] + probs[lo:hi])[:, None] ** exps).T
        after_const = (combs[None, :] * above[lo:hi, None] ** exps).T
        pow_lt = np.ones_like(zc)
        pow_le = np.ones_like(zc)
        acc = np.zeros_like(zc)
        tmp = np.empty_like(zc)
        tmp2 = np.empty_like(zc)
        # complex x real-column products run on the float views (about twice as fast)
        pow_lt_f, pow_le_f = pow_lt.view(np.float64), pow_le.view(np.float64)
        tmp_f, tmp2_f = tmp.view(np.float64), tmp2.view(np.float64)
        for k in range(1, n_all + 1):
            n = k - 1
            np.multiply(pow_lt_f, before_const[n][:, None], out=tmp_f)
            np.multiply(pow_le_f, after_const[n][:, None], out=tmp2_f)
            tmp -= tmp2
            acc += tmp
            acc *= zc
            r_hat[k] += acc.sum(axis=0)  # not a BLAS call: threaded BLAS stalls under load
            if k < n_all:
                pow_lt *= lt
                pow_le *= le


def _poly_mul(a: list[CArray], b: list[CArray]) -> list[CArray]:
    """Product of two polynomials in ``y`` whose coefficients are arrays."""
    out = [np.zeros_like(a[0]) for _ in range(len(a) + len(b) - 1)]
    for i, x in enumerate(a):
        for j, w in enumerate(b):
            out[i + j] += x * w
    return out


def _binomial_poly(base: CArray, const: FloatArray, n_t: int) -> list[CArray]:
    """Coefficients of ``(y * base + const) ** n_t`` in ``y`` (``const`` per row)."""
    coeffs = []
    power = np.ones_like(base)
    for n in range(n_t + 1):
        coeffs.append(math.comb(n_t, n) * power * (const ** (n_t - n))[:, None])
        power = power * base
    return coeffs


def _mixed_types(
    counts: list[int],
    probs: FloatArray,
    above: FloatArray,
    z: CArray,
    at_most: list[CArray],
    r_hat: CArray,
) -> None:
    """``_lowest_all``'s sum for several types: the polynomials in ``y`` multiplied out."""
    n_all = sum(counts)
    block = max(1, _BLOCK_ELEMENTS // (z.shape[1] * (n_all + 1)))
    for lo in range(0, z.shape[0], block):
        hi = min(z.shape[0], lo + block)
        zc = z[lo:hi]
        before: list[CArray] | None = None
        after: list[CArray] | None = None
        for t, n_t in enumerate(counts):
            le = at_most[t][lo:hi]
            lt = le - probs[t, lo:hi, None] * zc
            b_poly = _binomial_poly(lt, above[t, lo:hi] + probs[t, lo:hi], n_t)
            a_poly = _binomial_poly(le, above[t, lo:hi], n_t)
            before = b_poly if before is None else _poly_mul(before, b_poly)
            after = a_poly if after is None else _poly_mul(after, a_poly)
        assert before is not None and after is not None
        acc = np.zeros_like(zc)
        for k in range(1, n_all + 1):
            acc = zc * (acc + (before[k - 1] - after[k - 1]))
            r_hat[k] += acc.sum(axis=0)


def _estimate_work(types: Types, frequencies: int, size_b: int) -> float:
    """Complex multiply-adds of ``_lowest_all`` (outcomes x frequencies x per-K work)."""
    n_outcomes = sum(len(t.values) for t, _ in types)
    poly, length = 0, 1
    for _, n in types:
        poly += 2 * length * (n + 1) if len(types) > 1 else 0
        length += n
    n_all = length - 1
    return float(n_outcomes) * frequencies * size_b * (6 * n_all + poly)


def work_bound(pool: Pool, layers: int = 0) -> float:
    """An upper bound of the work of ``deflect(pool, layers)`` in real multiply-adds, from
    the pool's sizes alone (nothing is summed): the sums, and with Deflection the
    order-statistics sweep over the whole support (the real sweep stops at a tail cap, so
    this only ever over-estimates). Callers use it to keep small requests inline.

    >>> work_bound(Pool.of(2, 6)) < 1e4 < work_bound(Pool.of(20, 6, per_die=900), 2)
    True
    """
    types = _types(pool.dice, pool.dice_count)
    work = sums_work(types)
    if layers:
        support = sum(n * int(t.values.max()) for t, n in types) + 1
        work += 4 * _estimate_work(types, support // 2 + 1, 1)  # complex: ~4 real each
    return work


@dataclass(frozen=True, eq=False, slots=True)
class _Lowest:
    types: Types
    lowest: FloatArray  # [K, s, b], read-only
    bound: float


def _lowest(
    dice: tuple[Dice, ...], with_bonus: bool, groups_in_calc: int, ties: Ties = "more_dice_first"
) -> _Lowest:
    return _lowest_cached(dice, with_bonus, groups_in_calc, groups.CHAIN_BUDGET, TAIL_BUDGET, ties)


@bounded_cache(64, max_bytes=CACHE_BYTES)
def _lowest_cached(
    dice: tuple[Dice, ...],
    with_bonus: bool,
    groups_in_calc: int,
    chain_budget: float,
    tail_budget: float,
    ties: Ties = "more_dice_first",
) -> _Lowest:
    fewer_first = with_bonus and ties == "fewer_dice_first"  # totals never depend on ties
    sums = _sums_cached(dice, groups_in_calc, chain_budget)
    s_cap, s_tail = _cap(sums.total, tail_budget)
    size_b, b_tail = 1, 0.0
    if with_bonus:
        b_cap, b_tail = _cap(sums.bonus, tail_budget)
        size_b = _fast_len(b_cap + 1)
        if len(sums.types) == 1:
            return _joint_by_residual(sums, size_b, sums.chain_dropped + b_tail, fewer_first)
    _check_work(sums.types, s_cap // 2 + 1, size_b)
    lowest = _lowest_all(sums.types, _fast_len(s_cap + 1), size_b, None, fewer_first)
    lowest.setflags(write=False)
    return _Lowest(sums.types, lowest, sums.chain_dropped + s_tail + b_tail)


def _check_work(types: Types, frequencies: int, size_b: int) -> None:
    work = _estimate_work(types, frequencies, size_b)
    if work > WORK_LIMIT:
        spread = any(t.per_die > t.sides for t, _ in types)
        raise TooMuchWork(
            f"dropping dice from {sum(n for _, n in types)} groups needs ~{work:.2g} operations; "
            + (
                "a smaller per-die modifier keeps the totals narrow"
                if spread
                else "use fewer dice or less Deflection"
            ),
            field="per_die" if spread else "count",
        )


def _joint_by_residual(sums: _Sums, size_b: int, bound: float, fewer_first: bool) -> _Lowest:
    """(sum, Bonus dice) of the lowest K groups of one kind, on a much smaller grid.

    Every Bonus die after the first adds the same ``slope`` (the Bonus die's maximum after
    the per-die modifier), so a group's value is ``slope * bonus + residual`` with a small
    residual (the last die's face, plus a constant for chains). The sweep runs on
    (sum of residuals, Bonus dice) - exact on the residual axis, no cap needed - and the sums
    are rebuilt as ``residuals + K * offset + slope * bonus``.
    """
    table, n_all = sums.types[0]
    bonus_sides = 6 if table.bonus_die == "d6" else table.sides
    slope = max(0, bonus_sides + table.per_die)
    residual = table.values - slope * table.bonus
    offset = int(residual.min())
    size_r = _fast_len(n_all * int(residual.max() - offset) + 1)
    _check_work(sums.types, size_r // 2 + 1, size_b)
    small = _lowest_all(sums.types, size_r, size_b, (slope, offset), fewer_first)
    top = size_r + n_all * max(0, offset) + slope * (size_b - 1)
    lowest = np.zeros((n_all + 1, top, size_b))
    for k in range(n_all + 1):
        for b in range(size_b):
            start = k * offset + slope * b
            if start >= 0:
                lowest[k, start : start + size_r, b] = small[k, :, b]
            else:  # cannot happen for real rolls (sums are >= 0); wrapped tail mass only
                lowest[k, 0 : start + size_r, b] = small[k, -start:, b]
    lowest.setflags(write=False)
    return _Lowest(sums.types, lowest, bound)


def _top_dropped(types: Types, drop: int, size_s: int) -> FloatArray:
    """Sum of all groups without the ``drop`` highest: O(drop) per outcome.

    The mirror of ``_lowest_all``'s identity, marking dropped groups with ``y`` (groups above
    ``o_i`` count only by their mass ``T``, kept ones by their transform):

        sum_k Q[k] y^k = G^N + sum_i  w_i / (1 - w_i) * (F_i(y) - F'_i(y)),  w_i = y conj(z_i),
        F_i(y) = prod_types (y T>i + G<=i)^N_t,   F'_i(y) = prod_types (y T>=i + G<i)^N_t,

    so ``S[k] = conj(z) (S[k-1] + D[k-1])`` needs only the coefficients of ``y^0..y^(drop-1)``:
    cheaper than every ``K`` when a few layers of Deflection remove a few dice.
    """
    if len(types) == 1:
        table, n_t = types[0]
        return _top_dropped_counts(table, (n_t,), drop, size_s)[0]
    values, _, probs = _union(types)
    fs = np.arange(size_s // 2 + 1)
    z = _phases(values, fs, size_s)
    first: list[CArray] | None = None
    second: list[CArray] | None = None
    for t, (_, n_t) in enumerate(types):
        p = probs[t]
        above = np.maximum(np.cumsum(p[::-1])[::-1] - p, 0.0)
        le = _cumsum_rows(p[:, None] * z)
        lt = le - p[:, None] * z
        a_poly = _low_coefficients(le, above, n_t, drop)
        b_poly = _low_coefficients(lt, above + p, n_t, drop)
        first = a_poly if first is None else _poly_mul(first, a_poly)[:drop]
        second = b_poly if second is None else _poly_mul(second, b_poly)[:drop]
    assert first is not None and second is not None
    back = np.conj(z)
    acc = np.zeros_like(z)
    for n in range(drop):
        if n < len(first):
            acc += first[n]
            acc -= second[n]
        acc *= back
    kept = np.fft.irfft(acc.sum(axis=0), n=size_s)
    return np.where(kept > 0.0, kept, 0.0)


def _top_dropped_counts(
    table: GroupTable, counts: tuple[int, ...], drop: int, size_s: int
) -> list[FloatArray]:
    """``_top_dropped`` for one kind of group, for several group counts at once: the phases
    and the running sums are shared, only the powers differ (a pool and its Over-the-Top
    pool, one more group of the same kind)."""
    p = table.probs
    z = _phases(table.values, np.arange(size_s // 2 + 1), size_s)
    pz = p[:, None] * z
    above = np.maximum(np.cumsum(p[::-1])[::-1] - p, 0.0)
    le = _cumsum_rows(pz.copy())
    lt = le - pz
    back = np.conj(z)
    out = []
    for n_t in counts:
        first = _low_coefficients(le, above, n_t, drop)
        second = _low_coefficients(lt, above + p, n_t, drop)
        acc = np.zeros_like(z)
        for n in range(drop):
            if n < len(first):
                acc += first[n]
                acc -= second[n]
            acc *= back
        kept = np.fft.irfft(acc.sum(axis=0), n=size_s)
        out.append(np.where(kept > 0.0, kept, 0.0))
    return out


def _low_coefficients(base: CArray, mass: FloatArray, n_t: int, terms: int) -> list[CArray]:
    """Coefficients ``y^0 .. y^(terms-1)`` of ``(y * mass + base) ** n_t`` (``mass`` per row)."""
    top = min(terms - 1, n_t)
    power = _int_power(base, n_t - top)  # base^(n_t - n), built from n = top down to 0
    out: list[CArray] = [np.empty(0, dtype=complex)] * (top + 1)
    for n in range(top, -1, -1):
        # y^0 is base^n_t itself (binomial 1, mass^0): no scaling pass
        out[n] = power if n == 0 else (float(math.comb(n_t, n)) * mass[:, None] ** n) * power
        if n:
            power = power * base
    return out


@dataclass(frozen=True, eq=False, slots=True)
class _Kept:
    types: Types
    pmf: FloatArray  # raw sum of the kept groups, read-only
    bound: float


def _kept(dice: tuple[Dice, ...], drop: int, groups_in_calc: int) -> _Kept:
    """Raw-sum pmf without the ``drop`` highest groups (``0 < drop < groups``)."""
    return _kept_cached(dice, drop, groups_in_calc, groups.CHAIN_BUDGET, TAIL_BUDGET)


@bounded_cache(256, max_bytes=CACHE_BYTES)
def _kept_cached(
    dice: tuple[Dice, ...], drop: int, groups_in_calc: int, chain_budget: float, tail_budget: float
) -> _Kept:
    sums = _sums_cached(dice, groups_in_calc, chain_budget)
    n_all = sum(n for _, n in sums.types)
    if 2 * drop > n_all:
        low = _lowest_cached(dice, False, groups_in_calc, chain_budget, tail_budget)
        return _Kept(low.types, low.lowest[n_all - drop, :, 0], low.bound)
    s_cap, s_tail = _cap(sums.total, tail_budget)
    _check_work(sums.types, s_cap // 2 + 1, 1)
    pmf = _top_dropped(sums.types, drop, _fast_len(s_cap + 1))
    pmf.setflags(write=False)
    return _Kept(sums.types, pmf, sums.chain_dropped + s_tail)


def clear_caches() -> None:
    """Forget every cached pool result (group tables stay: they are a handful of rule data).

    >>> clear_caches()  # e.g. before timing a calculation from scratch
    >>> _sums_cached.cache_info().currsize
    0
    """
    _sums_cached.cache_clear()
    _lowest_cached.cache_clear()
    _kept_cached.cache_clear()
    _kept_pair_cached.cache_clear()


# --- results ---------------------------------------------------------------------------------


def _check_drop(drop: int, name: str) -> None:
    if not isinstance(drop, int) or isinstance(drop, bool) or drop < 0:
        raise InvalidInput(name, f"needs a whole number >= 0, got {drop!r}")


def _shift_floor(raw: FloatArray, modifier: int) -> FloatArray:
    """Add ``modifier`` to the totals (axis 0), piling everything below 0 onto 0."""
    if modifier >= 0:
        out = np.zeros((raw.shape[0] + modifier, *raw.shape[1:]))
        out[modifier:] = raw
        return out
    cut = min(-modifier, raw.shape[0] - 1)
    out = np.array(raw[cut:])
    out[0] += raw[:cut].sum(axis=0)
    if cut < -modifier:  # the whole support lands on 0
        out[0] += out[1:].sum(axis=0)
        out = out[:1]
    return out


def _finish(
    raw: FloatArray, modifier: int, ones: float, ones_sum: int, bound: float
) -> TotalDistribution:
    """Apply the total modifier (total floored at 0) to a raw-sum pmf."""
    return TotalDistribution(_shift_floor(raw, modifier), ones, max(0, ones_sum + modifier), bound)


def total_distribution(pool: Pool) -> TotalDistribution:
    """Exact distribution of a pool's total, Bonus dice included, floored at 0.

    >>> d = total_distribution(Pool.of(1, 6, bonus_die="none"))
    >>> [round(float(p), 4) for p in d.pmf]
    [0.0, 0.1667, 0.1667, 0.1667, 0.1667, 0.1667, 0.1667]
    >>> d = total_distribution(Pool.of(2, 6))  # 12 = 6 + (1..5) with the other die on 6 - b
    >>> round(d.probability(7), 6), round(d.probability(12), 6), d.truncation_bound < 1e-9
    (0.111111, 0.046296, True)
    """
    sums = _sums(pool.dice, pool.dice_count)
    prob, ones_sum = _all_ones(sums.types, 0)
    return _finish(sums.total, pool.modifier, prob, ones_sum, sums.chain_dropped)


def drop_highest_all(pool: Pool) -> tuple[TotalDistribution, ...]:
    """The total without its ``k`` highest groups, for every ``k`` from 0 to the dice count.

    Groups are valued with their Bonus dice, after per-die modifiers; on equal value the group
    with more dice counts as higher. The total modifier applies after the drop.

    >>> rings = drop_highest_all(Pool.of(2, 6, bonus_die="none"))
    >>> [round(d.mean(), 4) for d in rings]  # 2d6: 7, lowest of two: 2.5278, nothing: 0
    [7.0, 2.5278, 0.0]
    """
    low = _lowest(pool.dice, False, pool.dice_count)
    n_all = pool.dice_count
    result = []
    for k in range(n_all + 1):
        prob, ones_sum = _all_ones(low.types, k)
        result.append(
            _finish(low.lowest[n_all - k, :, 0], pool.modifier, prob, ones_sum, low.bound)
        )
    return tuple(result)


def drop_highest(pool: Pool, drop: int) -> TotalDistribution:
    """The pool's total without its ``drop`` highest groups (each with its Bonus dice).

    Dropping at least as many groups as the pool holds leaves only the total modifier.

    >>> d = drop_highest(Pool.of(3, 10), 1)
    >>> round(d.probability(0), 6), round(d.mass(), 9)
    (0.0, 1.0)
    """
    _check_drop(drop, "drop")
    if drop == 0:
        return total_distribution(pool)
    if drop >= pool.dice_count:
        prob, _ = _all_ones(_sums(pool.dice, pool.dice_count).types, drop)
        return _finish(np.ones(1), pool.modifier, prob, 0, 0.0)
    kept = _kept(pool.dice, drop, pool.dice_count)
    prob, ones_sum = _all_ones(kept.types, drop)
    return _finish(kept.pmf, pool.modifier, prob, ones_sum, kept.bound)


def deflect(pool: Pool, layers: int) -> TotalDistribution:
    """Damage after ``layers`` of Deflection: each layer removes the highest deflectable group.

    Dice marked ``deflectable=False`` (Phased) always count. Armor Piercing is the caller's
    business: it cancels layers before they get here.

    >>> phased = Pool((Dice(1, 10), Dice(1, 12, deflectable=False)))
    >>> round(deflect(phased, 5).mean() - total_distribution(Pool.of(1, 12)).mean(), 9)
    0.0
    """
    _check_drop(layers, "layers")
    hard = tuple(d for d in pool.dice if not d.deflectable)
    soft = tuple(d for d in pool.dice if d.deflectable)
    if not hard:
        return drop_highest(pool, layers)
    if not soft or layers == 0:
        return total_distribution(pool)
    n_all = pool.dice_count
    hard_sums = _sums(hard, n_all)
    hard_sum = hard_sums.total
    hard_ones, hard_ones_sum = _all_ones(hard_sums.types, 0)
    bound = hard_sums.chain_dropped
    soft_count = sum(d.count for d in soft)
    if layers >= soft_count:
        soft_pmf = np.ones(1)
        soft_ones, soft_ones_sum = _all_ones(_sums(soft, n_all).types, layers)
    else:
        kept = _kept(soft, layers, n_all)
        soft_pmf = kept.pmf
        soft_ones, soft_ones_sum = _all_ones(kept.types, layers)
        bound += kept.bound
    return _finish(
        np.convolve(soft_pmf, hard_sum),
        pool.modifier,
        soft_ones * hard_ones,
        soft_ones_sum + hard_ones_sum,
        bound,
    )


def deflect_with_over_the_top(
    pool: Pool, layers: int
) -> tuple[TotalDistribution, TotalDistribution]:
    """``deflect(pool, layers)`` and ``deflect(pool.with_extra_die(), layers)`` (the Damage
    Roll without and with its Over-the-Top die), computed together when the pool holds one
    kind of die: the second shares the first's transforms and its chain depth and cap (those
    of the larger pool, so the smaller pool's result is at least as tight).

    >>> plain, ott = deflect_with_over_the_top(Pool.of(3, 6), 1)
    >>> bool(abs(plain.mean() - deflect(Pool.of(3, 6), 1).mean()) < 1e-9)
    True
    >>> bool(abs(ott.mean() - deflect(Pool.of(4, 6), 1).mean()) < 1e-9)
    True
    """
    _check_drop(layers, "layers")
    grown = pool.with_extra_die()
    n = pool.dice_count
    if len(pool.dice) != 1 or not pool.dice[0].deflectable or not 0 < 2 * layers <= n:
        return deflect(pool, layers), deflect(grown, layers)
    small, big = _kept_pair(pool.dice[0], n, layers)
    out = []
    for kept in (small, big):
        prob, ones_sum = _all_ones(kept.types, layers)
        out.append(_finish(kept.pmf, pool.modifier, prob, ones_sum, kept.bound))
    return out[0], out[1]


def _kept_pair(dice: Dice, n: int, drop: int) -> tuple[_Kept, _Kept]:
    return _kept_pair_cached(
        Dice(1, dice.sides, dice.per_die, dice.bonus_die),
        n,
        drop,
        groups.CHAIN_BUDGET,
        TAIL_BUDGET,
    )


@bounded_cache(256, max_bytes=CACHE_BYTES)
def _kept_pair_cached(
    kind: Dice, n: int, drop: int, chain_budget: float, tail_budget: float
) -> tuple[_Kept, _Kept]:
    """n and n + 1 groups of one kind without their ``drop`` highest: one chain depth (for
    n + 1 groups) and one cap (the n + 1 total's: the n total is never larger)."""
    grown = (Dice(n + 1, kind.sides, kind.per_die, kind.bonus_die),)
    sums = _sums_cached(grown, n + 1, chain_budget)
    ((table, _),) = sums.types
    s_cap, s_tail = _cap(sums.total, tail_budget)
    _check_work(sums.types, s_cap // 2 + 1, 1)
    small_pmf, big_pmf = _top_dropped_counts(table, (n, n + 1), drop, _fast_len(s_cap + 1))
    small_pmf.setflags(write=False)
    big_pmf.setflags(write=False)
    small_types: Types = [(table, n)]
    return (
        _Kept(small_types, small_pmf, _chain_dropped(small_types) + s_tail),
        _Kept(sums.types, big_pmf, sums.chain_dropped + s_tail),
    )


def explosion_rings(pool: Pool, *, ties: Ties = "more_dice_first") -> tuple[JointDistribution, ...]:
    """Every ring of an explosion: ring ``k`` is the total without the ``k`` highest groups.

    Returns one joint (total, dice left) distribution per ring, ``k = 0 .. dice - 1``; the
    dice left count Bonus dice (KnockBack 1" each). The total modifier (e.g. a target-size
    Damage modifier) applies to each ring's total. All rings come from one roll, so they share
    one all-ones event (a Critical Failure: the defender may declare a Dud). ``ties`` is the
    rule option of ruling D1 (which of two equal groups goes first; dice left only).

    >>> rings = explosion_rings(Pool.of(3, 10))
    >>> len(rings), round(float(rings[0].dice()[3]), 6)  # 3 dice left unless a 10 showed
    (3, 0.729)
    """
    check_ties(ties)
    low = _lowest(pool.dice, True, pool.dice_count, ties)
    n_all = pool.dice_count
    rings = []
    for k in range(n_all):
        kept = n_all - k
        raw = low.lowest[kept]  # [sum, bonus]
        joint = np.zeros((raw.shape[0], kept + raw.shape[1]))
        joint[:, kept:] = raw
        prob, ones_sum = _all_ones(low.types, k)
        rings.append(
            JointDistribution(
                _shift_floor(joint, pool.modifier),
                prob,
                max(0, ones_sum + pool.modifier),
                kept,
                low.bound,
            )
        )
    return tuple(rings)
