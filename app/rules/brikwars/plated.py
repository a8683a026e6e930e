"""BrikWars: an explosion ring against an object with Deflection, damage and KnockBack jointly.

In ring ``k`` the explosion has lost its ``k`` highest groups; an Armor-Plated object there
also deflects the ``L`` highest remaining groups from its *damage*, while the KnockBack (dice
left in the ring) still counts them. So the joint of (damage, dice left) needs two ranks at
once, which the every-k identities in ``exact`` do not give. This module sweeps the outcomes
from the highest down with the number of groups already placed as its state: the groups get
ranks in that order, and each rank knows whether it is dropped by the ring (``<= k``),
deflected (``<= k + L``, counted for KnockBack only) or kept (both). One sweep costs about
``outcomes x N^2 / 2`` shifted additions of a (damage x Bonus dice) array.

Mixed pools (``piercing`` dice, or Phased dice that Deflection cannot remove) take the general
sweep: the layers that apply are only known once the ring's dropped groups are placed (each
Armor Piercing die left in the ring cancels one), so the state also carries the layers still
to apply to the next deflectable group (ruling A17).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import TypeVar

import numpy as np

from app.rules.dice import exact
from app.rules.dice.groups import chain_depth, group_table
from app.rules.dice.results import FloatArray, JointDistribution
from app.rules.dice.spec import Dice, Pool, Ties, check_ties
from app.rules.errors import InvalidInput, TooMuchWork

K = TypeVar("K", bound=Hashable)  # a sweep state: groups placed (and layers left)

CALL_LIMIT = 600_000
"""Array operations allowed for one sweep (~2 s with numpy's per-call cost)."""
ELEMENT_LIMIT = 2e9
"""Array elements touched allowed for one sweep (~2 s)."""
MIXED_CALL_WEIGHT = 0.25
"""The general sweep's bound counts states and groups that never meet (measured 0.3-0.6 us
a counted operation against ~4 us for the plain sweep), so it weighs a quarter."""
REQUEST_CALL_LIMIT = 250_000
"""Array operations allowed for all the sweeps of one request (every ring of an explosion):
measured 3.5-4.4 us each on the 2-core machine from 12d10 to 30d4, but up to 6.4 us for d20s
(12d20 took 2.2 s at 350,000), so ~1.6 s at most."""


def explosion_ring_deflected(
    pool: Pool,
    ring: int,
    layers: int,
    *,
    ties: Ties = "more_dice_first",
    piercing: tuple[bool, ...] | None = None,
) -> JointDistribution:
    """Ring ``ring`` of an explosion against an object with ``layers`` of Deflection.

    ``pmf[t, c]``: the damage after Deflection is ``t`` (the total without the ``ring + layers``
    highest groups, total modifier applied) and ``c`` dice are left in the ring (without the
    ``ring`` highest groups: the KnockBack, Bonus dice included). With ``layers == 0`` this is
    ``explosion_rings(pool)[ring]``.

    Mixed pools: ``piercing[i]`` marks ``pool.dice[i]`` as Armor Piercing (each such group
    left in the ring cancels one layer), and non-deflectable (Phased) dice are never removed
    by Deflection: the layers left remove the highest *deflectable* groups of the ring. On a
    tie between kinds, the ring removes a plain group (deflectable, not piercing) first: the
    attacker's choice, which never lowers his damage (ruling A17).

    >>> j = explosion_ring_deflected(Pool.of(3, 10), 0, 1)  # ring 0, Armor Plating
    >>> round(j.total().mean(), 4), round(float(j.dice()[3]), 6)
    (8.6386, 0.729)
    """
    check_ties(ties)
    n_all = pool.dice_count
    if not isinstance(ring, int) or isinstance(ring, bool) or not 0 <= ring < n_all:
        raise InvalidInput("ring", f"needs a whole number from 0 to {n_all - 1}, got {ring!r}")
    if not isinstance(layers, int) or isinstance(layers, bool) or layers < 0:
        raise InvalidInput("layers", f"needs a whole number >= 0, got {layers!r}")
    if piercing is not None and len(piercing) != len(pool.dice):
        raise InvalidInput("piercing", "needs one flag per Dice of the pool")
    special = any(piercing or ()) or any(not d.deflectable for d in pool.dice)
    if layers == 0:
        return exact.explosion_rings(pool, ties=ties)[ring]
    if special:
        return _mixed(pool, ring, layers, ties, piercing or (False,) * len(pool.dice))

    sums = exact._sums(pool.dice, n_all)
    s_cap, s_tail = exact._cap(sums.total, exact.TAIL_BUDGET)
    b_cap, b_tail = exact._cap(sums.bonus, exact.TAIL_BUDGET)
    values, bonus, probs = exact._union(sums.types, ties == "fewer_dice_first")
    counts = [n for _, n in sums.types]
    _check_work(len(values), counts, (s_cap + 1) * (b_cap + 1))

    full = ring + layers  # ranks above this are kept for damage
    shape = (s_cap + 1, b_cap + 1)
    start = np.zeros(shape)
    start[0, 0] = 1.0
    states: dict[tuple[int, ...], FloatArray] = {(0,) * len(counts): start}
    for i in range(len(values) - 1, -1, -1):  # highest outcome first
        v, beta = int(values[i]), int(bonus[i])
        for t, n_t in enumerate(counts):
            p = float(probs[t, i])
            if p == 0.0:
                continue
            grown: dict[tuple[int, ...], FloatArray] = {}
            for placed, arr in states.items():
                done = sum(placed)  # ranks 1..done are taken by higher (or earlier) groups
                for b in range(n_t - placed[t] + 1):
                    weight = math.comb(n_t - placed[t], b) * p**b
                    if weight == 0.0:
                        break
                    counted = max(0, done + b - max(done, ring))  # ranks > ring
                    damaged = max(0, done + b - max(done, full))  # ranks > ring + layers
                    key = (*placed[:t], placed[t] + b, *placed[t + 1 :])
                    _add_shifted(grown, key, arr, weight, damaged * v, counted * beta, shape)
            states = grown
    raw = states.get(tuple(counts), np.zeros(shape))

    kept = n_all - ring
    joint = np.zeros((raw.shape[0], kept + raw.shape[1]))
    joint[:, kept:] = raw
    prob, ones_sum = exact._all_ones(sums.types, full)
    return JointDistribution(
        exact._shift_floor(joint, pool.modifier),
        prob,
        max(0, ones_sum + pool.modifier),
        kept,
        sums.chain_dropped + s_tail + b_tail,
    )


Kind = tuple[int, int, str, bool, bool]  # sides, per_die, bonus_die, deflectable, piercing


def _kinds(pool: Pool, piercing: tuple[bool, ...]) -> list[tuple[Kind, int]]:
    """The pool's groups by kind, plain kinds first (removed first on a tie, ruling A17)."""
    merged: dict[Kind, int] = {}
    for d, ap in zip(pool.dice, piercing, strict=True):
        key = (d.sides, d.per_die, d.bonus_die, d.deflectable, bool(ap))
        merged[key] = merged.get(key, 0) + d.count
    return sorted(merged.items(), key=lambda kv: kv[0][3] is False or kv[0][4])


def _mixed(
    pool: Pool, ring: int, layers: int, ties: Ties, piercing: tuple[bool, ...]
) -> JointDistribution:
    """The general sweep: Armor Piercing groups and non-deflectable groups mixed with plain
    ones. State: (groups placed per kind, layers still to apply or -1 before the ring's
    dropped groups are all placed)."""
    n_all = pool.dice_count
    sums = exact._sums(pool.dice, n_all)
    s_cap, s_tail = exact._cap(sums.total, exact.TAIL_BUDGET)
    b_cap, b_tail = exact._cap(sums.bonus, exact.TAIL_BUDGET)
    kinds = _kinds(pool, piercing)
    types: exact.Types = []
    for (sides, per_die, bonus_die, _, _), n in kinds:
        one = Dice(1, sides, per_die=per_die, bonus_die=bonus_die)  # type: ignore[arg-type]
        types.append((group_table(one, chain_depth(one, n_all)), n))
    values, bonus, probs = exact._union(types, ties == "fewer_dice_first")
    counts = [n for _, n in kinds]
    soft = [k[3] for k, _ in kinds]
    pierce = [k[4] for k, _ in kinds]
    ap_total = sum(n for (k, n) in kinds if k[4])
    _check_work(len(values), counts, (s_cap + 1) * (b_cap + 1), _layer_states(kinds, n_all, layers))

    def layers_left(placed: tuple[int, ...], t: int, dropped_now: int) -> int:
        ap_dropped = sum(placed[u] for u in range(len(counts)) if pierce[u])
        ap_dropped += dropped_now if pierce[t] else 0
        return max(0, layers - (ap_total - ap_dropped))

    shape = (s_cap + 1, b_cap + 1)
    start = np.zeros(shape)
    start[0, 0] = 1.0
    zero = (0,) * len(counts)
    first = max(0, layers - ap_total) if ring == 0 else -1
    states: dict[tuple[tuple[int, ...], int], FloatArray] = {(zero, first): start}
    for i in range(len(values) - 1, -1, -1):  # highest outcome first
        v, beta = int(values[i]), int(bonus[i])
        for t, n_t in enumerate(counts):
            p = float(probs[t, i])
            if p == 0.0:
                continue
            grown: dict[tuple[tuple[int, ...], int], FloatArray] = {}
            for (placed, rem), arr in states.items():
                done = sum(placed)  # ranks 1..done are taken by higher (or earlier) groups
                for b in range(n_t - placed[t] + 1):
                    weight = math.comb(n_t - placed[t], b) * p**b
                    if weight == 0.0:
                        break
                    dropped = min(b, max(0, ring - done))  # ranks <= ring
                    kept = b - dropped
                    left = rem
                    if left < 0 and done + b >= ring:
                        left = layers_left(placed, t, dropped)
                    damaged = kept
                    if kept and soft[t]:
                        deflected = min(left, kept)
                        left -= deflected
                        damaged -= deflected
                    key = ((*placed[:t], placed[t] + b, *placed[t + 1 :]), left)
                    _add_shifted(grown, key, arr, weight, damaged * v, kept * beta, shape)
            states = grown
    raw = np.zeros(shape)
    for (placed, _), arr in states.items():
        if placed == tuple(counts):
            raw += arr

    kept_dice = n_all - ring
    joint = np.zeros((raw.shape[0], kept_dice + raw.shape[1]))
    joint[:, kept_dice:] = raw
    prob = math.prod((1.0 / k[0]) ** n for k, n in kinds)
    return JointDistribution(
        exact._shift_floor(joint, pool.modifier),
        prob,
        max(0, _all_ones_damage(kinds, ring, layers) + pool.modifier),
        kept_dice,
        sums.chain_dropped + s_tail + b_tail,
    )


def _all_ones_damage(kinds: list[tuple[Kind, int]], ring: int, layers: int) -> int:
    """The raw damage when every die shows 1: the same ranks, read off directly."""
    ranked = sorted(
        ((max(0, 1 + k[1]), order, k) for order, (k, n) in enumerate(kinds) for _ in range(n)),
        key=lambda x: (-x[0], x[1]),
    )
    return deflected_sum(ranked[ring:], layers)


def deflected_sum(kept: Sequence[tuple[int, object, Kind]], layers: int) -> int:
    """The sum of the dice ``kept`` (value, rank, kind; highest first) after ``layers`` of
    Deflection, each piercing die kept cancelling one layer, each layer left taking the
    highest deflectable die."""
    left = max(0, layers - sum(1 for _, _, k in kept if k[4]))
    damage = 0
    for value, _, k in kept:
        if left and k[3]:
            left -= 1
            continue
        damage += value
    return damage


def _add_shifted(
    into: dict[K, FloatArray],
    key: K,
    arr: FloatArray,
    weight: float,
    shift_s: int,
    shift_b: int,
    shape: tuple[int, int],
) -> None:
    """``into[key] += weight * arr`` shifted by (shift_s, shift_b); what falls off is tail."""
    if shift_s >= shape[0] or shift_b >= shape[1]:
        return
    target = into.get(key)
    if target is None:
        target = into[key] = np.zeros(shape)
    target[shift_s:, shift_b:] += weight * arr[: shape[0] - shift_s, : shape[1] - shift_b]


def _calls(n_outcomes: int, counts: list[int], extra: int = 1) -> int:
    """An upper bound of the array operations of one sweep (outcomes x states x growth)."""
    states = math.prod(n + 1 for n in counts) * extra
    return n_outcomes * states * sum(n + 1 for n in counts)


def sweep_work(pool: Pool, layers: int, piercing: tuple[bool, ...] | None = None) -> int:
    """The array operations of one ``explosion_ring_deflected(pool, ring, layers, ...)``
    (the same for every ring), from the pool's outcomes alone: callers that sweep many rings
    add these up and refuse the request before the first sweep (``check_request_work``).

    >>> sweep_work(Pool.of(12, 10), 1) > sweep_work(Pool.of(6, 10), 1) > 0
    True
    """
    if layers == 0:
        return 0
    n_all = pool.dice_count
    special = any(piercing or ()) or any(not d.deflectable for d in pool.dice)
    if not special:
        sums = exact._sums(pool.dice, n_all)
        values, _, _ = exact._union(sums.types)
        return _calls(len(values), [n for _, n in sums.types])
    kinds = _kinds(pool, piercing or (False,) * len(pool.dice))
    types: exact.Types = []
    for (sides, per_die, bonus_die, _, _), n in kinds:
        one = Dice(1, sides, per_die=per_die, bonus_die=bonus_die)  # type: ignore[arg-type]
        types.append((group_table(one, chain_depth(one, n_all)), n))
    values, _, _ = exact._union(types)
    calls = _calls(len(values), [n for _, n in kinds], _layer_states(kinds, n_all, layers))
    return math.ceil(calls * MIXED_CALL_WEIGHT)


def _layer_states(kinds: list[tuple[Kind, int]], n_all: int, layers: int) -> int:
    """Distinct values of the general sweep's layers-left state: -1, then values within
    ``ap_total + n_all`` of ``layers`` (it starts at most ``ap_total`` below and falls by
    one a deflected group), so at most ``ap_total + n_all + 2`` whatever the layers."""
    ap_total = sum(n for k, n in kinds if k[4])
    return min(layers, ap_total + n_all) + 2


def check_request_work(calls: int, dice: int) -> None:
    """Refuse (``TooMuchWork`` on the dice count) a request whose sweeps together need more
    than ``REQUEST_CALL_LIMIT`` array operations, before any of them runs."""
    if calls > REQUEST_CALL_LIMIT:
        raise TooMuchWork(
            f"{dice} dice against Deflection need ~{calls:.2g} array operations over every "
            f"ring (at most {REQUEST_CALL_LIMIT:.2g}, about 2 s); use fewer dice",
            field="count",
        )


def _check_work(n_outcomes: int, counts: list[int], elements: int, extra: int = 1) -> None:
    calls = _calls(n_outcomes, counts, extra)
    if calls > CALL_LIMIT or calls * elements > ELEMENT_LIMIT:
        raise TooMuchWork(
            f"a deflected ring of {sum(counts)} groups needs ~{calls:.2g} array operations; "
            "use fewer dice",
            field="count",
        )
