"""Seeded Monte Carlo of the roll functions against the exact engine (200,000 rolls each).

Each sample is two seeded halves rolled in two worker processes (the suite has two cores);
the workers send back only tallies. Every check is within 4 standard errors.
"""

from __future__ import annotations

import gc
import math
import random
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
import pytest

# The BrikWars ring against a Deflecting object is checked here too: it reads the same
# 200,000 explosions, which are the dice core's (its exact oracle is BrikWars').
from app.rules.brikwars.plated import explosion_ring_deflected
from app.rules.dice import (
    Dice,
    Pool,
    compare,
    compare_by_dice,
    deflect,
    explosion_rings,
    roll_explosion,
    roll_pool,
    total_distribution,
)

pytestmark = pytest.mark.slow  # every test reads the module's Monte Carlo fixture
ROLLS = 200_000
HALF = ROLLS // 2
EXPLOSION = Pool.of(10, 10)
GROUND = Pool.of(1, 10)  # the ground's Armour in "Wall Demolition"
DEFLECTED = Pool(
    (Dice(3, 6, per_die=-1), Dice(1, 4, bonus_die="d6"), Dice(1, 12, deflectable=False)),
    modifier=-2,
)

Tallies = dict[str, Any]


def _explosions(seed: int) -> Tallies:
    """Half of the 10d10 explosions: per-ring totals, dice, joint cells, and two derived uses."""
    rng, armour_rng = random.Random(seed), random.Random(seed + 1)
    n = EXPLOSION.dice_count
    totals = [Counter() for _ in range(n)]
    dice = [Counter() for _ in range(n)]
    joint = [Counter() for _ in range(n)]
    knockback: Counter = Counter()  # ring 2 beats a 1d10 Armour roll, by dice left
    plated: Counter = Counter()  # 1 layer of Deflection in ring 2: (ring 3 total, ring 2 dice)
    critical = 0
    for _ in range(HALF):
        boom = roll_explosion(EXPLOSION, rng)
        rings = boom.rings
        for k, cell in enumerate(rings):
            totals[k][cell.total] += 1
            dice[k][cell.dice] += 1
            joint[k][cell] += 1
        armour = roll_pool(GROUND, armour_rng).total
        if boom.roll.critical_failure:
            critical += 1
        elif rings[2].total > armour:
            knockback[rings[2].dice] += 1
        plated[(rings[3].total, rings[2].dice)] += 1
    return {
        "totals": totals,
        "dice": dice,
        "joint": joint,
        "knockback": knockback,
        "plated": plated,
        "critical": critical,
    }


def _duels(seed: int) -> Tallies:
    """Half of the 5d10 Damage Rolls against 5d10 Armour rolls."""
    rng = random.Random(seed)
    damage, armour = Pool.of(5, 10), Pool.of(5, 10)
    tally: Counter = Counter()
    for _ in range(HALF):
        d, a = roll_pool(damage, rng), roll_pool(armour, rng)
        if d.critical_failure:
            tally["crit"] += 1
        else:
            tally[(d.total > a.total) - (d.total < a.total)] += 1
    return {"duel": tally}


def _deflections(seed: int) -> Tallies:
    """Half of the mixed pool's rolls through 2 layers of Deflection."""
    rng = random.Random(seed)
    totals: Counter = Counter()
    ones = 0
    for _ in range(HALF):
        roll = roll_pool(DEFLECTED, rng)
        totals[roll.deflected_total(2)] += 1
        ones += roll.critical_failure
    return {"deflected": totals, "ones": ones}


def _run(job: tuple[str, int]) -> Tallies:
    gc.disable()  # millions of short-lived tuples; cyclic GC passes only slow the loop
    try:
        return {"explosions": _explosions, "duels": _duels, "deflections": _deflections}[job[0]](
            job[1]
        )
    finally:
        gc.enable()


def _merge(a: Any, b: Any) -> Any:
    if isinstance(a, dict) and not isinstance(a, Counter):
        return {key: _merge(a[key], b[key]) for key in a}
    if isinstance(a, list):
        return [_merge(x, y) for x, y in zip(a, b, strict=True)]
    return a + b


@pytest.fixture(scope="module")
def mc() -> Tallies:
    """All samples: each job's two seeded halves, on two worker processes."""
    jobs = [
        (name, seed)
        for name, seeds in (
            ("explosions", (20261130, 20261131)),
            ("duels", (5, 6)),
            ("deflections", (11, 12)),
        )
        for seed in seeds
    ]
    with ProcessPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(_run, jobs))
    merged: Tallies = {}
    for first, second in zip(results[::2], results[1::2], strict=True):
        merged.update(_merge(first, second))
    return merged


def within(count: int, n: int, p: float, *, z: float = 4.0) -> bool:
    """``count`` of ``n`` rolls is within ``z`` standard errors of probability ``p``."""
    se = math.sqrt(max(p * (1 - p), 1.0 / n) / n)
    return abs(count / n - p) <= z * se


def check_histogram(counts: Counter, n: int, pmf: np.ndarray) -> None:
    for value in set(counts) | set(np.nonzero(pmf > 1e-6)[0].tolist()):
        p = float(pmf[value]) if value < len(pmf) else 0.0
        assert within(counts.get(value, 0), n, p), (value, counts.get(value, 0) / n, p)


def check_cells(counts: Counter, n: int, pmf: np.ndarray) -> None:
    for (t, c), hits in counts.items():
        inside = t < pmf.shape[0] and c < pmf.shape[1]
        assert within(hits, n, float(pmf[t, c]) if inside else 0.0), (t, c)
    top = np.unravel_index(np.argmax(pmf), pmf.shape)
    assert counts[tuple(int(i) for i in top)] > 0


def test_monte_carlo_explosion_rings(mc: Tallies) -> None:
    rings = explosion_rings(EXPLOSION)
    for k, ring in enumerate(rings):
        check_histogram(mc["totals"][k], ROLLS, ring.total().pmf)
        check_histogram(mc["dice"][k], ROLLS, ring.dice())
    for k in (0, 3, 9):
        check_cells(mc["joint"][k], ROLLS, rings[k].pmf)
    assert within(mc["critical"], ROLLS, rings[0].all_ones)


def test_monte_carlo_knockback_against_armour(mc: Tallies) -> None:
    # ring 2 against a 1d10 Armour roll, split by dice left; a Critical Failure has no effect
    result = compare_by_dice(explosion_rings(EXPLOSION)[2], GROUND)
    for dice in range(8, 12):
        assert within(mc["knockback"].get(dice, 0), ROLLS, float(result.greater[dice]))
    assert sum(mc["knockback"].values()) > 0.9 * ROLLS  # ring 2 of 10d10 nearly always wins


def test_monte_carlo_plated_object_in_ring_two(mc: Tallies) -> None:
    # 1 layer of Deflection in ring 2: damage = the total without 3 groups (ring 3's total),
    # KnockBack = ring 2's dice left; the joint from the same rolls.
    check_cells(mc["plated"], ROLLS, explosion_ring_deflected(EXPLOSION, 2, 1).pmf)


def test_monte_carlo_damage_against_armour_pool(mc: Tallies) -> None:
    result = compare(total_distribution(Pool.of(5, 10)), Pool.of(5, 10))
    tally = mc["duel"]
    assert within(tally[1], ROLLS, result.greater)
    assert within(tally[0], ROLLS, result.equal)
    assert within(tally[-1], ROLLS, result.less)
    assert within(tally["crit"], ROLLS, result.critical_failure)


def test_monte_carlo_deflection_with_modifiers_and_bonus_options(mc: Tallies) -> None:
    exact = deflect(DEFLECTED, 2)
    check_histogram(mc["deflected"], ROLLS, exact.pmf)
    assert within(mc["ones"], ROLLS, exact.all_ones)
