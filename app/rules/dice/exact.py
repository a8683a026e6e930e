"""Exact distributions of pools: totals, Deflection (drop the k highest groups), explosion rings.

The method (chosen by measurement, see docs/dice-engine.md) is float64 numpy on integer-indexed
arrays. A pool's total is a convolution of its groups. Dropping the ``k`` highest groups uses
an order-statistics sweep over the groups' outcomes in ascending ``(value, dice)`` order: with
``W[n]`` the distribution of ``n`` given groups all below the current outcome ``o`` (built
incrementally), the sum of the lowest ``K`` groups gets, for every ``n < K``, the term
``W[n]`` shifted by ``(K - n) * o`` times the multinomial weight that ``b >= K - n`` groups
show ``o`` and the others are above it. One sweep yields every ``K`` at once, so all rings of
an explosion cost one sweep.

Mass is left out only where stated: Bonus chains after ``depth`` dice (``chain_depth``), and
totals or Bonus-dice counts beyond caps whose tail mass is computed; the sum of these is the
result's ``truncation_bound``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from app.rules.dice.groups import GroupOutcomes, chain_depth, group_outcomes
from app.rules.dice.results import FloatArray, JointDistribution, TotalDistribution
from app.rules.dice.spec import Dice, Pool
from app.rules.errors import InvalidInput, TooMuchWork

TAIL_BUDGET = 5e-11
"""Mass a calculation may drop beyond each of its caps (total, Bonus-dice count)."""
WORK_LIMIT = 4e8
"""Estimated array-element operations allowed (~2 s on a laptop core; see the benchmark)."""


@dataclass(frozen=True, slots=True)
class _Raw:
    """A distribution of the raw sum (before the total modifier), optionally by Bonus dice.

    ``pmf[s, b]``: raw sum ``s`` with ``b`` Bonus dice among the counted groups (``b`` axis of
    length 1 when not tracked). ``groups`` counted; all-ones event data; mass left out.
    """

    pmf: FloatArray
    groups: int
    all_ones: float
    all_ones_sum: int
    bound: float


def _types(dice: tuple[Dice, ...]) -> list[tuple[Dice, int]]:
    """Merge entries that roll alike (Deflection flags do not change a roll)."""
    merged: dict[tuple[int, int, str], int] = {}
    for d in dice:
        key = (d.sides, d.per_die, d.bonus_die)
        merged[key] = merged.get(key, 0) + d.count
    return [(Dice(1, s, per_die=m, bonus_die=b), n) for (s, m, b), n in merged.items()]  # type: ignore[arg-type]


def _outcomes(types: list[tuple[Dice, int]], groups: int) -> list[tuple[GroupOutcomes, int]]:
    return [(group_outcomes(d, chain_depth(d, groups)), n) for d, n in types]


def _power(base: FloatArray, n: int, axis_len: int | None = None) -> FloatArray:
    """``base`` convolved with itself ``n`` times (1-D), by repeated squaring."""
    result = np.ones(1)
    while n:
        if n & 1:
            result = np.convolve(result, base)
        n >>= 1
        if n:
            base = np.convolve(base, base)
    return result


def _group_pmfs(go: GroupOutcomes) -> tuple[FloatArray, FloatArray]:
    """One group's value pmf and Bonus-dice pmf."""
    vmax = max(v for v, _, _ in go.outcomes)
    bmax = max(b for _, b, _ in go.outcomes)
    values, bonus = np.zeros(vmax + 1), np.zeros(bmax + 1)
    for v, b, p in go.outcomes:
        values[v] += p
        bonus[b] += p
    return values, bonus


def _cap(pmf: FloatArray) -> tuple[int, float]:
    """Smallest index whose upper tail is within ``TAIL_BUDGET``, and that tail's mass."""
    tail = np.cumsum(pmf[::-1])[::-1]  # tail[i] = P(X >= i)
    above = np.append(tail[1:], 0.0)  # above[i] = P(X > i)
    cap = int(np.argmax(above <= TAIL_BUDGET))
    return cap, float(above[cap])


def _chain_dropped(outs: list[tuple[GroupOutcomes, int]]) -> float:
    """Exact mass of "some group's chain went past its depth": 1 - prod (1 - e)^n."""
    return float(-np.expm1(sum(n * math.log1p(-go.dropped) for go, n in outs)))


def _all_ones(outs: list[tuple[GroupOutcomes, int]], drop: int) -> tuple[float, int]:
    """P(every die shows 1) and the raw sum left after dropping the ``drop`` highest groups."""
    prob = math.prod((1.0 / go.dice.sides) ** n for go, n in outs)
    values = sorted(v for go, n in outs for v in [go.all_ones_value] * n)
    kept = values[: max(0, len(values) - drop)]
    return prob, sum(kept)


def _full_sum(outs: list[tuple[GroupOutcomes, int]]) -> tuple[FloatArray, FloatArray]:
    """Raw-sum pmf and Bonus-dice pmf of all groups together (chain-truncated only)."""
    total, bonus = np.ones(1), np.ones(1)
    for go, n in outs:
        values, bon = _group_pmfs(go)
        total = np.convolve(total, _power(values, n))
        bonus = np.convolve(bonus, _power(bon, n))
    return total, bonus


def _raw_total(pool_dice: tuple[Dice, ...], groups_in_calc: int) -> _Raw:
    outs = _outcomes(_types(pool_dice), groups_in_calc)
    total, _ = _full_sum(outs)
    prob, ones_sum = _all_ones(outs, 0)
    n = sum(c for _, c in outs)
    return _Raw(total[:, None], n, prob, ones_sum, _chain_dropped(outs))


def _comb_tables(n_t: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    """For ``n + b <= N``: multinomial N!/(n! b! r!), r = N - n - b, and C(n + b, b)."""
    n = np.arange(n_t + 1)[:, None]
    b = np.arange(n_t + 1)[None, :]
    rest = n_t - n - b
    multi = np.zeros((n_t + 1, n_t + 1))
    grow = np.zeros((n_t + 1, n_t + 1))
    for i in range(n_t + 1):
        for j in range(n_t + 1 - i):
            multi[i, j] = math.comb(n_t, i) * math.comb(n_t - i, j)
            grow[i, j] = math.comb(i + j, j)
    return multi, np.where(rest >= 0, rest, 0).astype(float), grow


def _sweep(
    outs: list[tuple[GroupOutcomes, int]], s_cap: int, b_cap: int | None
) -> FloatArray:
    """``R[K, s, b]``: sub-distribution of (sum, Bonus dice) of the lowest ``K`` groups.

    ``b_cap is None`` collapses the Bonus axis to length 1.
    """
    counts = [n for _, n in outs]
    n_types, n_all = len(counts), sum(counts)
    size_s, size_b = s_cap + 1, (1 if b_cap is None else b_cap + 1)
    keys = sorted({(v, b) for go, _ in outs for v, b, _ in go.outcomes})
    index = {k: i for i, k in enumerate(keys)}
    probs = np.zeros((n_types, len(keys)))
    for t, (go, _) in enumerate(outs):
        for v, b, p in go.outcomes:
            probs[t, index[(v, b)]] += p
    tails = np.cumsum(probs[:, ::-1], axis=1)[:, ::-1] - probs  # mass strictly above
    tails = np.maximum(tails, 0.0)
    tables = [_comb_tables(n) for n in counts]
    powers = [np.arange(n + 1, dtype=float) for n in counts]

    shape = tuple(n + 1 for n in counts)
    n_states = math.prod(shape)
    levels = np.indices(shape).reshape(n_types, -1).sum(axis=0)  # |n| per state
    w = np.zeros((*shape, size_s, size_b))
    w[(0,) * n_types + (0, 0)] = 1.0
    r = np.zeros((n_all + 1, size_s, size_b))
    r[0, 0, 0] = math.prod(float(probs[t].sum()) ** n for t, n in enumerate(counts))

    for i, (v, bon) in enumerate(keys):
        # q[states..., b]: weight that, of the groups not yet placed below this outcome,
        # b show it and the rest are above it (summed over types by b).
        q: FloatArray | None = None
        for t in range(n_types):
            multi, rest, _ = tables[t]
            p_pow = probs[t, i] ** powers[t]
            t_pow = np.where(multi > 0, tails[t, i] ** rest, 0.0)
            a = multi * p_pow[None, :] * t_pow
            if q is None:
                q = a
            else:
                grown = np.zeros((*q.shape[:-1], a.shape[0], q.shape[-1] + a.shape[1] - 1))
                for b2 in range(a.shape[1]):
                    grown[..., b2 : b2 + q.shape[-1]] += q[..., None, :] * a[:, b2][:, None]
                q = grown
        assert q is not None
        suffix = np.cumsum(q[..., ::-1], axis=-1)[..., ::-1].reshape(n_states, -1)
        flat_w = w.reshape(n_states, size_s, size_b)
        for d in range(1, n_all + 1):
            sh_s, sh_b = d * v, (0 if b_cap is None else d * bon)
            if sh_s >= size_s or sh_b >= size_b:
                break
            src = flat_w[:, : size_s - sh_s, : size_b - sh_b]
            if n_types == 1:
                rows = n_all + 1 - d
                r[d:, sh_s:, sh_b:] += src[:rows] * suffix[:rows, d][:, None, None]
            else:
                ok = np.nonzero((levels + d <= n_all) & (suffix[:, d] != 0.0))[0]
                if not len(ok):
                    continue
                mix = np.zeros((n_all + 1, len(ok)))
                mix[levels[ok] + d, np.arange(len(ok))] = suffix[ok, d]
                part = mix @ src[ok].reshape(len(ok), -1)
                r[:, sh_s:, sh_b:] += part.reshape(n_all + 1, size_s - sh_s, size_b - sh_b)
        # Update: n given groups all at or below this outcome.
        for t, n_t in enumerate(counts):
            p = probs[t, i]
            if p == 0.0:
                continue
            grow = tables[t][2]
            new = w.copy()
            for b in range(1, n_t + 1):
                sh_s, sh_b = b * v, (0 if b_cap is None else b * bon)
                if sh_s >= size_s or sh_b >= size_b:
                    break
                weights = grow[: n_t + 1 - b, b] * p**b
                src_index: list[slice] = [slice(None)] * n_types
                dst_index: list[slice] = [slice(None)] * n_types
                src_index[t] = slice(0, n_t + 1 - b)
                dst_index[t] = slice(b, n_t + 1)
                wshape = [1] * (n_types + 2)
                wshape[t] = n_t + 1 - b
                new[(*dst_index, slice(sh_s, None), slice(sh_b, None))] += (
                    w[(*src_index, slice(0, size_s - sh_s), slice(0, size_b - sh_b))]
                    * weights.reshape(wshape)
                )
            w = new
    return r


def _estimate_work(outs: list[tuple[GroupOutcomes, int]], s_cap: int, b_size: int) -> float:
    n_outcomes = len({(v, b) for go, _ in outs for v, b, _ in go.outcomes})
    n_all = sum(n for _, n in outs)
    n_states = math.prod(n + 1 for _, n in outs)
    return float(n_outcomes) * 2 * n_all * n_states * (s_cap + 1) * b_size / 2


def _ordered(pool_dice: tuple[Dice, ...], with_bonus: bool, groups_in_calc: int) -> tuple[
    list[tuple[GroupOutcomes, int]], FloatArray, float
]:
    outs = _outcomes(_types(pool_dice), groups_in_calc)
    total, bonus = _full_sum(outs)
    s_cap, s_tail = _cap(total)
    bound = _chain_dropped(outs) + s_tail
    b_cap = None
    if with_bonus:
        b_cap, b_tail = _cap(bonus)
        bound += b_tail
    work = _estimate_work(outs, s_cap, 1 if b_cap is None else b_cap + 1)
    if work > WORK_LIMIT:
        raise TooMuchWork(
            f"dropping dice from {sum(n for _, n in outs)} groups needs ~{work:.2g} operations"
        )
    return outs, _sweep(outs, s_cap, b_cap), bound


def _check_drop(drop: int, name: str) -> None:
    if not isinstance(drop, int) or isinstance(drop, bool) or drop < 0:
        raise InvalidInput(name, f"needs a whole number >= 0, got {drop!r}")


def _finish_total(raw: FloatArray, modifier: int, ones: float, ones_sum: int,
                  bound: float) -> TotalDistribution:
    """Apply the total modifier (total floored at 0) to a raw-sum pmf."""
    out = _shift_floor(raw, modifier)
    return TotalDistribution(out, ones, max(0, ones_sum + modifier), bound)


def _shift_floor(raw: FloatArray, modifier: int) -> FloatArray:
    """Shift axis 0 by ``modifier``, piling everything below 0 onto 0."""
    if modifier >= 0:
        pad = [(modifier, 0)] + [(0, 0)] * (raw.ndim - 1)
        return np.pad(raw, pad)
    cut = -modifier
    if cut >= raw.shape[0]:
        out = np.zeros((1, *raw.shape[1:]))
        out[0] = raw.sum(axis=0)
        return out
    out = np.array(raw[cut:])
    out[0] += raw[:cut].sum(axis=0)
    return out


def total_distribution(pool: Pool) -> TotalDistribution:
    """Exact distribution of a pool's total, Bonus dice included, floored at 0.

    >>> d = total_distribution(Pool.of(1, 6, bonus_die="none"))
    >>> [round(float(p), 4) for p in d.pmf]
    [0.0, 0.1667, 0.1667, 0.1667, 0.1667, 0.1667, 0.1667]
    >>> d = total_distribution(Pool.of(2, 6))  # 2d6 with Bonus dice: 12 needs a 6 and more
    >>> round(d.probability(7), 6), round(d.probability(12), 6), d.truncation_bound < 1e-9
    (0.111111, 0.046296, True)
    """
    raw = _raw_total(pool.dice, pool.dice_count)
    return _finish_total(raw.pmf[:, 0], pool.modifier, raw.all_ones, raw.all_ones_sum,
                         raw.bound)


def drop_highest_all(pool: Pool) -> tuple[TotalDistribution, ...]:
    """The total without its ``k`` highest groups, for every ``k`` from 0 to the dice count.

    Groups are valued with their Bonus dice, after per-die modifiers; ties go to the group with
    more dice. The total modifier applies after the drop.

    >>> rings = drop_highest_all(Pool.of(2, 6, bonus_die="none"))
    >>> [round(d.mean(), 4) for d in rings]  # 2d6: 7, lowest of two: 2.5278, nothing: 0
    [7.0, 2.5278, 0.0]
    """
    outs, r, bound = _ordered(pool.dice, False, pool.dice_count)
    n_all = pool.dice_count
    result = []
    for k in range(n_all + 1):
        prob, ones_sum = _all_ones(outs, k)
        result.append(_finish_total(r[n_all - k, :, 0], pool.modifier, prob, ones_sum, bound))
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
    n_all = pool.dice_count
    if drop >= n_all:
        prob, _ = _all_ones(_outcomes(_types(pool.dice), n_all), drop)
        return TotalDistribution(TotalDistribution.fixed(max(0, pool.modifier)).pmf, prob,
                                 max(0, pool.modifier), 0.0)
    return drop_highest_all(pool)[drop]


def deflect(pool: Pool, layers: int) -> TotalDistribution:
    """Damage after ``layers`` of Deflection: each layer removes the highest deflectable group.

    Dice marked ``deflectable=False`` (Phased) are always counted; Armor Piercing is the
    caller's business (it cancels layers before they reach here).

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
    hard_raw = _raw_total(hard, n_all)
    soft_count = sum(d.count for d in soft)
    if layers >= soft_count:
        soft_pmf = np.ones(1)
        outs = _outcomes(_types(soft), n_all)
        soft_ones, soft_ones_sum, soft_bound = _all_ones(outs, layers)[0], 0, 0.0
    else:
        outs, r, soft_bound = _ordered(soft, False, n_all)
        soft_pmf = r[soft_count - layers, :, 0]
        soft_ones, soft_ones_sum = _all_ones(outs, layers)
    raw = np.convolve(soft_pmf, hard_raw.pmf[:, 0])
    return _finish_total(raw, pool.modifier, soft_ones * hard_raw.all_ones,
                         soft_ones_sum + hard_raw.all_ones_sum, soft_bound + hard_raw.bound)


def explosion_rings(pool: Pool) -> tuple[JointDistribution, ...]:
    """Every ring of an explosion: ring ``k`` is the total without the ``k`` highest groups.

    Returns one joint (total, dice left) distribution per ring, ``k = 0 .. dice - 1``; the
    dice left count Bonus dice (KnockBack 1" each). The total modifier (e.g. a target-size
    Damage modifier) applies to each ring's total. All rings come from one roll, so they share
    one all-ones event (a Critical Failure: the defender may declare a Dud).

    >>> rings = explosion_rings(Pool.of(3, 10))
    >>> len(rings), round(float(rings[0].dice()[3]), 6)  # 3 dice left unless some die showed 10
    (3, 0.729)
    """
    outs, r, bound = _ordered(pool.dice, True, pool.dice_count)
    n_all = pool.dice_count
    rings = []
    for k in range(n_all):
        kept = n_all - k
        raw = r[kept]  # [sum, bonus]
        joint = np.zeros((raw.shape[0], kept + raw.shape[1]))
        joint[:, kept:] = raw
        out = _shift_floor(joint, pool.modifier)
        prob, ones_sum = _all_ones(outs, k)
        rings.append(JointDistribution(out, prob, max(0, ones_sum + pool.modifier), kept,
                                       bound))
    return tuple(rings)
