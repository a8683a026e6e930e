"""Seeded Monte Carlo of every attack's ``roll()`` against its exact ``odds()``.

200,000 rolls per case, as two seeded halves on two worker processes (the suite has two
cores); every frequency must be within 4 standard errors of the exact probability. The rolls
and the odds share no code beyond the attack's own description: ``roll()`` draws dice one by
one, ``odds()`` convolves distributions.
"""

from __future__ import annotations

import gc
import random
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest

from app.rules.brikwars import Armour
from app.rules.brikwars.attacks import (
    ActionRoll,
    ArcFire,
    ArcTarget,
    Attack,
    Burst,
    CombinedAttack,
    Explosion,
    ExplosionObject,
    Parry,
    Situation,
    Target,
)
from app.rules.brikwars.catalogue import DamageExpr
from tests.rules.brikwars.attack_support import within

pytestmark = pytest.mark.slow  # every test reads the module's Monte Carlo fixture
ROLLS = 200_000
HALF = ROLLS // 2
HERO_PLATED = Target(Armour(dice=2, sides=6, deflection=1), kind="hero")

SINGLE = Attack(DamageExpr(3, 6), HERO_PLATED, ActionRoll(6, 4, -1), Situation(out_of_range=1))
PARRIED = Attack(
    DamageExpr(2, 8, fire=True),
    Target.minifig(),
    ActionRoll(8, 4),
    parry=Parry(ActionRoll(6, 3), shield_layers=1),
)
COMBINED = CombinedAttack(
    (
        Attack(
            DamageExpr(2, 6),
            Target(Armour(dice=3, sides=10), kind="creation", effective_size=3),
            ActionRoll(6, 4),
        ),
        Attack(DamageExpr(1, 8, 1), Target(Armour(dice=3, sides=10)), ActionRoll(8, 5)),
    )
)
EXPLOSION = Explosion(DamageExpr(5, 10, explosion=True))
WALL = ExplosionObject(Target(Armour(dice=2, sides=10), kind="object"), 1)
PLATED = ExplosionObject(Target(Armour(fixed=8, deflection=1), kind="object"), 0, loose=True)
BURST = Burst(ActionRoll(8, 2), DamageExpr(2, 6), 3, Target(Armour(dice=2, sides=6)))
ARC = ArcFire(
    "machinegun",
    ActionRoll(6, 3, 1),
    DamageExpr(1, 6, 1),
    arc=2,
    targets=(ArcTarget(Target.minifig()), ArcTarget(Target(reach=2), spans=1)),
)

Tallies = dict[str, Any]


def _singles(seed: int) -> Tallies:
    rng = random.Random(seed)
    single, parried = Counter(), Counter()
    for _ in range(HALF):
        r = SINGLE.roll(rng)
        single[r.outcome] += 1
        single["crit"] += r.critical_failure
        p = PARRIED.roll(rng)
        parried[p.outcome] += 1
        parried["fire"] += p.on_fire
        parried["disarmed"] += p.disarmed
    return {"single": single, "parried": parried}


def _combined(seed: int) -> Tallies:
    rng = random.Random(seed)
    tally = Counter()
    for _ in range(HALF):
        tally[COMBINED.roll(rng).outcome] += 1
    return {"combined": tally}


def _explosions(seed: int) -> Tallies:
    rng = random.Random(seed)
    wall, plated = Counter(), Counter()
    for _ in range(HALF):
        r = EXPLOSION.roll(rng, (WALL, PLATED))
        a, b = r.objects
        wall[(a.outcome, a.knockback if a.outcome == "destroyed" else -1)] += 1
        plated[b.outcome] += 1
        plated[("kb", b.knockback)] += 1
    return {"wall": wall, "plated": plated}


def _volleys(seed: int) -> Tallies:
    rng = random.Random(seed)
    burst, arc = Counter(), Counter()
    for _ in range(HALF):
        r = BURST.roll(rng)
        outcomes = [s.outcome for s in r.shots]
        burst[("worst", max(outcomes, key=LEVEL.index))] += 1
        burst[("hits", outcomes.count("destroyed"))] += 1
        burst["inoperative"] += r.inoperative
        a = ARC.roll(rng)
        for t in (0, 1):
            mine = [s.outcome for s in a.shots if s.target == t]
            arc[(t, max(mine, key=LEVEL.index))] += 1
        arc["inoperative"] += a.inoperative
    return {"burst": burst, "arc": arc}


LEVEL = ["miss", "no_effect", "something_bad", "destroyed"]
JOBS = {"singles": _singles, "combined": _combined, "explosions": _explosions, "volleys": _volleys}


def _run(job: tuple[str, int]) -> Tallies:
    gc.disable()  # millions of short-lived tuples; cyclic GC passes only slow the loop
    try:
        return JOBS[job[0]](job[1])
    finally:
        gc.enable()


@pytest.fixture(scope="module")
def mc() -> Tallies:
    jobs = [(name, seed) for name in JOBS for seed in (20261130, 20261201)]
    with ProcessPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(_run, jobs))
    merged: Tallies = {}
    for first, second in zip(results[::2], results[1::2], strict=True):
        for key in first:
            merged[key] = first[key] + second[key]
    return merged


def check(count: int, p: float) -> None:
    assert within(count, ROLLS, p), (count / ROLLS, p)


def test_single_attack(mc: Tallies) -> None:
    odds = SINGLE.odds()
    for name, p in odds.outcomes().items():
        check(mc["single"][name], p)
    check(mc["single"]["crit"], odds.critical_failure)


def test_parry_with_a_shield(mc: Tallies) -> None:
    odds = PARRIED.odds()
    for name, p in odds.outcomes().items():
        check(mc["parried"][name], p)
    check(mc["parried"]["fire"], odds.on_fire)
    check(mc["parried"]["disarmed"], odds.disarmed)


def test_combined_attack(mc: Tallies) -> None:
    odds = COMBINED.odds()
    assert odds.size_damage > 0 and odds.destroyed == 0
    for name, p in odds.outcomes().items():
        check(mc["combined"][name], p)


def test_explosion_ring_and_knockback(mc: Tallies) -> None:
    ring = EXPLOSION.ring_odds(WALL.target, 1)
    check(mc["wall"][("something_bad", -1)], ring.something_bad)
    check(sum(v for (o, _), v in mc["wall"].items() if o == "no_effect"), ring.no_effect)
    for inches, p in ring.knockback_if_destroyed:
        check(mc["wall"][("destroyed", inches)], p)
    plated = EXPLOSION.ring_odds(PLATED.target, 0)
    check(mc["plated"]["destroyed"], plated.destroyed)
    check(mc["plated"]["something_bad"], plated.something_bad)
    for inches, p in plated.knockback:
        check(mc["plated"][("kb", inches)], p)


def test_burst(mc: Tallies) -> None:
    odds = BURST.odds()
    t = odds.targets[0]
    for name in LEVEL:
        check(mc["burst"][("worst", name)], getattr(t, name))
    for n, p in enumerate(t.destroying_hits):
        check(mc["burst"][("hits", n)], p)
    check(mc["burst"]["inoperative"], odds.inoperative)


def test_arc_fire(mc: Tallies) -> None:
    odds = ARC.odds()
    for t in odds.targets:
        for name in LEVEL:
            check(mc["arc"][(t.index, name)], getattr(t, name))
    check(mc["arc"]["inoperative"], odds.inoperative)
