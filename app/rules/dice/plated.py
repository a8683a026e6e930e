"""An explosion ring against an object with Deflection: damage and KnockBack jointly.

In ring ``k`` the explosion has lost its ``k`` highest groups; an Armor-Plated object there
also deflects the ``L`` highest remaining groups from its *damage*, while the KnockBack (dice
left in the ring) still counts them. So the joint of (damage, dice left) needs two ranks at
once, which the every-k identities in ``exact`` do not give. This module sweeps the outcomes
from the highest down with the number of groups already placed as its state: the groups get
ranks in that order, and each rank knows whether it is dropped by the ring (``<= k``),
deflected (``<= k + L``, counted for KnockBack only) or kept (both). One sweep costs about
``outcomes x N^2 / 2`` shifted additions of a (damage x Bonus dice) array.
"""

from __future__ import annotations

import math

import numpy as np

from app.rules.dice import exact
from app.rules.dice.results import FloatArray, JointDistribution
from app.rules.dice.spec import Pool, Ties, check_ties
from app.rules.errors import InvalidInput, TooMuchWork

CALL_LIMIT = 600_000
"""Array operations allowed for one sweep (~2 s with numpy's per-call cost)."""
ELEMENT_LIMIT = 2e9
"""Array elements touched allowed for one sweep (~2 s)."""


def explosion_ring_deflected(
    pool: Pool, ring: int, layers: int, *, ties: Ties = "more_dice_first"
) -> JointDistribution:
    """Ring ``ring`` of an explosion against an object with ``layers`` of Deflection.

    ``pmf[t, c]``: the damage after Deflection is ``t`` (the total without the ``ring + layers``
    highest groups, total modifier applied) and ``c`` dice are left in the ring (without the
    ``ring`` highest groups: the KnockBack, Bonus dice included). Every die must be
    deflectable (Phased dice are refused). With ``layers == 0`` this is
    ``explosion_rings(pool)[ring]``.

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
    if any(not d.deflectable for d in pool.dice):
        raise InvalidInput("dice", "Phased (non-deflectable) dice are not supported here")
    if layers == 0:
        return exact.explosion_rings(pool, ties=ties)[ring]

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


def _add_shifted(
    into: dict[tuple[int, ...], FloatArray],
    key: tuple[int, ...],
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


def _check_work(n_outcomes: int, counts: list[int], elements: int) -> None:
    states = math.prod(n + 1 for n in counts)
    calls = n_outcomes * states * sum(n + 1 for n in counts)
    if calls > CALL_LIMIT or calls * elements > ELEMENT_LIMIT:
        raise TooMuchWork(
            f"a deflected ring of {sum(counts)} groups needs ~{calls:.2g} array operations"
        )
