"""Compare three ways to compute BrikWars dice exactly; prints a Markdown table.

    <a venv with icepool>/bin/python bench/dice_compare.py [--quick]

(a) icepool (exact rationals, the field's dice library), (b) the BrikForge engine (numpy
float64: direct convolution for totals, the Fourier order-statistics identity for drop-k),
(c) pure Python with integer weights and dicts (exact). Cases: 3d6 with Bonus chains; 10d10
with the k highest groups dropped, every k; 5d10 damage against a 5d10 Armour roll; the single
attack the attack engine does most (4d6 at -1 per die, one layer of Deflection, vs 2d6); the
10d10 explosion's rings with dice left (KnockBack) against 5d10.

Every variant truncates the Bonus chain at the same depth; errors are measured against (c).
icepool caches results, so its first call (cold) and repeated calls (warm) are both shown.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import icepool
import numpy as np

from app.rules.dice import (
    Dice,
    Pool,
    compare,
    compare_by_dice,
    deflect,
    drop_highest_all,
    explosion_rings,
    total_distribution,
)
from app.rules.dice.groups import chain_depth

# --- (c) pure Python, integer weights ----------------------------------------------------------


def py_group(sides: int, per_die: int, depth: int) -> tuple[dict[tuple[int, int], int], int]:
    """Group outcomes (value, bonus dice) -> integer weight over ``sides ** (depth + 1)``."""
    denom = sides ** (depth + 1)
    out: dict[tuple[int, int], int] = {}
    base, weight = 0, denom // sides
    for j in range(depth + 1):
        for face in range(1, sides):
            key = (base + max(0, face + per_die), j)
            out[key] = out.get(key, 0) + weight
        base += max(0, sides + per_die)
        weight //= sides
    return out, denom


def py_convolve(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] = out.get(x + y, 0) + p * q
    return out


def py_total(n: int, sides: int, per_die: int, depth: int) -> tuple[dict[int, int], int]:
    group, denom = py_group(sides, per_die, depth)
    values: dict[int, int] = {}
    for (v, _), w in group.items():
        values[v] = values.get(v, 0) + w
    total = {0: 1}
    for _ in range(n):
        total = py_convolve(total, values)
    return total, denom**n


def py_lowest_all(
    n_all: int, sides: int, per_die: int, depth: int
) -> tuple[list[dict[int, int]], int]:
    """Sum of the lowest K of n iid groups, every K: the emission sweep in exact integers."""
    group, denom = py_group(sides, per_die, depth)
    keys = sorted(group)
    fact = [math.factorial(i) for i in range(n_all + 1)]
    lowest: list[dict[int, int]] = [{} for _ in range(n_all + 1)]
    lowest[0] = {0: sum(group.values()) ** n_all}
    w: list[dict[int, int]] = [{0: 1}] + [{} for _ in range(n_all)]
    tail = sum(group.values())
    for v, b in keys:
        p = group[(v, b)]
        tail -= p
        for n in range(n_all):
            if not w[n]:
                continue
            for big_k in range(n + 1, n_all + 1):
                coef = 0
                for bb in range(big_k - n, n_all - n + 1):
                    r = n_all - n - bb
                    coef += fact[n_all] // (fact[n] * fact[bb] * fact[r]) * p**bb * tail**r
                if coef:
                    target, shift = lowest[big_k], (big_k - n) * v
                    for s, x in w[n].items():
                        target[s + shift] = target.get(s + shift, 0) + x * coef
        new = [dict(d) for d in w]
        for n in range(n_all + 1):
            for bb in range(1, n_all - n + 1):
                c = math.comb(n + bb, bb) * p**bb
                for s, x in w[n].items():
                    new[n + bb][s + bb * v] = new[n + bb].get(s + bb * v, 0) + c * x
        w = new
    return lowest, denom**n_all


def py_compare(d: dict[int, int], a: dict[int, int]) -> tuple[int, int, int]:
    gt = eq = lt = 0
    for x, p in d.items():
        for y, q in a.items():
            if x > y:
                gt += p * q
            elif x == y:
                eq += p * q
            else:
                lt += p * q
    return gt, eq, lt


# --- timing helpers ----------------------------------------------------------------------------


def clear_engine_caches() -> None:
    """Forget every pool result; keep the per-die-kind group tables (a handful of rule data)."""
    from app.rules.dice import exact

    exact.clear_caches()


def timed(fn: Callable[[], Any], repeat: int, *, engine: bool = False) -> tuple[float, float, Any]:
    """(first call seconds, median of ``repeat`` more calls, first result).

    For the engine the median is taken with its caches cleared before every call (cold), so
    it measures the computation, not the cache; ``warm`` rows show the cached cost.
    """
    if engine:
        clear_engine_caches()
    start = time.perf_counter()
    result = fn()
    cold = time.perf_counter() - start
    runs = []
    for _ in range(repeat):
        if engine:
            clear_engine_caches()
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return cold, statistics.median(runs) if runs else cold, result


def warm(fn: Callable[[], Any], repeat: int) -> float:
    fn()
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def max_err(got: dict[int, float], exact: dict[int, int], denom: int) -> float:
    keys = set(got) | set(exact)
    return max(abs(float(got.get(k, 0.0)) - exact.get(k, 0) / denom) for k in keys)


def engine_dict(pmf: np.ndarray) -> dict[int, float]:
    return {i: float(p) for i, p in enumerate(pmf) if p}


def icepool_dict(die: icepool.Die) -> dict[int, float]:
    denom = die.denominator()
    return {int(k): q / denom for k, q in die.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repeats, skip slow (c)")
    args = parser.parse_args()
    rep = 5 if args.quick else 20
    rows: list[tuple[str, str, str, str, str, str]] = []

    def row(
        case: str,
        variant: str,
        cold: float,
        median: float,
        err: str,
        fn: Callable[[], Any] | None = None,
    ) -> None:
        cached = f"{warm(fn, rep) * 1e3:.3f}" if fn is not None else "-"
        rows.append((case, variant, f"{cold * 1e3:.2f}", f"{median * 1e3:.2f}", cached, err))

    # 1. 3d6 total with Bonus chains --------------------------------------------------------
    depth = chain_depth(Dice(1, 6), 3)
    exact, denom = py_total(3, 6, 0, depth)

    def eng_3d6() -> Any:
        return total_distribution(Pool.of(3, 6))

    cold, med, eng = timed(eng_3d6, rep, engine=True)
    row(
        "3d6 total",
        "(b) numpy engine",
        cold,
        med,
        f"{max_err(engine_dict(eng.pmf), exact, denom):.1e}",
        eng_3d6,
    )
    cold, med, ice = timed(lambda: 3 @ icepool.d6.explode(depth=depth), rep)
    row("3d6 total", "(a) icepool", cold, med, f"{max_err(icepool_dict(ice), exact, denom):.1e}*")
    cold, med, _ = timed(lambda: py_total(3, 6, 0, depth), rep)
    row("3d6 total", "(c) pure Python ints", cold, med, "exact")

    # 2. 10d10, drop the k highest, every k ------------------------------------------------
    depth = chain_depth(Dice(1, 10), 10)

    def eng_drops() -> Any:
        return drop_highest_all(Pool.of(10, 10))

    cold, med, eng_all = timed(eng_drops, rep, engine=True)
    if not args.quick:
        pcold, _, (lowest, denom) = timed(lambda: py_lowest_all(10, 10, 0, depth), 0)
        err = max(max_err(engine_dict(eng_all[k].pmf), lowest[10 - k], denom) for k in range(11))
        row("10d10 drop k, all k", "(b) numpy engine", cold, med, f"{err:.1e}", eng_drops)
    else:
        row("10d10 drop k, all k", "(b) numpy engine", cold, med, "-", eng_drops)

    def ice_drops() -> list[icepool.Die]:
        d10x = icepool.d10.explode(depth=depth)
        return [icepool.Pool([d10x] * 10).lowest(10 - k).sum() for k in range(10)]

    cold, med, ice_all = timed(ice_drops, max(1, rep // 5))
    if not args.quick:
        err = max(max_err(icepool_dict(ice_all[k]), lowest[10 - k], denom) for k in range(10))
        row("10d10 drop k, all k", "(a) icepool", cold, med, f"{err:.1e}*")
        row("10d10 drop k, all k", "(c) pure Python ints", pcold, pcold, "exact")
    else:
        row("10d10 drop k, all k", "(a) icepool", cold, med, "-")

    # 3. 5d10 damage against 5d10 Armour ----------------------------------------------------
    depth = chain_depth(Dice(1, 10), 5)
    dmg, denom = py_total(5, 10, 0, depth)
    gt, eq, lt = py_compare(dmg, dmg)
    exact_cmp = (gt / denom**2, eq / denom**2, lt / denom**2)

    def eng_cmp() -> Any:
        return compare(total_distribution(Pool.of(5, 10)), Pool.of(5, 10), separate_critical=False)

    cold, med, res = timed(eng_cmp, rep, engine=True)
    err = max(
        abs(a - b) for a, b in zip((res.greater, res.equal, res.less), exact_cmp, strict=True)
    )
    row("5d10 vs 5d10 armour", "(b) numpy engine", cold, med, f"{err:.1e}", eng_cmp)

    def ice_cmp() -> tuple[float, float, float]:
        damage = 5 @ icepool.d10.explode(depth=depth)
        armour = 5 @ icepool.d10.explode(depth=depth)  # independent of the damage
        return (
            (damage > armour).probability(True),
            (damage == armour).probability(True),
            (damage < armour).probability(True),
        )

    cold, med, ires = timed(ice_cmp, max(1, rep // 5))
    err = max(abs(float(a) - b) for a, b in zip(ires, exact_cmp, strict=True))
    row("5d10 vs 5d10 armour", "(a) icepool", cold, med, f"{err:.1e}*")
    cold, med, _ = timed(lambda: py_compare(*(py_total(5, 10, 0, depth)[0],) * 2), max(1, rep // 5))
    row("5d10 vs 5d10 armour", "(c) pure Python ints", cold, med, "exact")

    # 4. The common single attack --------------------------------------------------------------
    def attack() -> Any:
        return compare(deflect(Pool.of(4, 6, per_die=-1), 1), Pool.of(2, 6))

    cold, med, _ = timed(attack, rep * 5, engine=True)
    row("4d6-1/die, 1 Deflection, vs 2d6", "(b) numpy engine", cold, med, "(tests)", attack)

    # 5. Explosion rings with KnockBack against 5d10 -----------------------------------------------
    def rings_vs_armour() -> list[Any]:
        armour = total_distribution(Pool.of(5, 10))
        return [compare_by_dice(r, armour) for r in explosion_rings(Pool.of(10, 10))]

    def damage_rings_vs_armour() -> list[Any]:
        armour = total_distribution(Pool.of(5, 10))
        return [compare(d, armour) for d in drop_highest_all(Pool.of(10, 10))[:10]]

    cold, med, _ = timed(damage_rings_vs_armour, rep, engine=True)
    row(
        "10d10 rings (damage only) vs 5d10",
        "(b) numpy engine",
        cold,
        med,
        "(tests)",
        damage_rings_vs_armour,
    )
    cold, med, _ = timed(rings_vs_armour, rep, engine=True)
    row(
        "10d10 rings joint (dmg, dice) vs 5d10",
        "(b) numpy engine",
        cold,
        med,
        "(tests)",
        rings_vs_armour,
    )

    print(
        "| case | variant | first call ms | median ms (uncached) | median ms (cached) "
        "| max abs error vs (c) |"
    )
    print("|---|---|---:|---:|---:|---:|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print()
    print("* icepool lumps the chain past its depth into the last die (`end=0`) where the")
    print("  others drop it; the error column is the difference that makes (~ the chain mass).")
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, icepool {icepool.__version__}")


if __name__ == "__main__":
    main()
