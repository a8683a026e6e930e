"""Further targets in a blast (ruling T8): an Explosive aimed at the main target catches every
further target within its radius, each at the ring its distance from the blast centre gives,
all sharing the Explosion's one Damage roll, each figurine rolling its own Armour. Each
target's odds and the tallies over all figurines against a brute-force walk over every die
(the Action die, the Explosion's d10s with their Bonus dice, each figurine's Armour), and a
seeded Monte Carlo; the text's Wall Demolition example through a rolled turn."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from fractions import Fraction

import pytest

from app.rules.brikwars.attacks import target_of
from app.rules.brikwars.attacks.blast import blast_scenarios, ring_of
from app.rules.brikwars.attacks.common import Target
from app.rules.brikwars.attacks.explosion import Explosion
from app.rules.brikwars.catalogue import DamageExpr
from app.rules.brikwars.options import DEFAULT_OPTIONS
from app.rules.brikwars.turn import ArcFollower, Turn, TurnSituation
from app.rules.brikwars.units import UnitSpec, WeaponSpec
from app.rules.errors import InvalidInput
from app.rules.registry import get_ruleset
from app.rules.ruleset import TargetInput
from tests.rules.brikwars.attack_support import Forced, G, armour_table, group_outcomes, within

BRIKWARS = get_ruleset("brikwars")
TROOPER = UnitSpec(name="Trooper", kind="minifig")
VICTIM = UnitSpec(name="Victim", kind="hero")
# a minifig in Heavy Armor: one layer of Deflection (and Armour 4)
PLATED = UnitSpec(name="Plated", kind="minifig", weapons=(WeaponSpec("heavy_armor"),))
CART = UnitSpec(name="Cart", size=2, structure_level=1)  # 1d10 Armour, loses Size, +1 Size
KEYS = ("miss", "no_effect", "something_bad", "size_damage", "destroyed")
DEPTH = 4  # Bonus chains in the oracle: 1e-5 of each d10 left out
ARMOUR_DEPTH = {6: 6, 10: 4}  # and below 4e-6 of each Armour die
TOL = 5e-5


def _launcher(xsize: int) -> UnitSpec:
    return UnitSpec(name="Gunner", kind="hero", weapons=(WeaponSpec("rocket", xsize=xsize),))


def _armour(unit: UnitSpec) -> dict[int, float]:
    a = unit.armour
    if not a.dice:
        return {a.fixed: 1.0}
    return armour_table([G(a.sides)] * a.dice, ARMOUR_DEPTH[a.sides], a.fixed)


def _values(depth: int) -> list[tuple[int, bool, float]]:
    """One d10 group's (value, natural 1, probability), merged."""
    merged: Counter[tuple[int, bool]] = Counter()
    for value, _, one, p in group_outcomes(G(10), depth)[0]:
        merged[(value, one)] += p
    return [(v, one, p) for (v, one), p in merged.items()]


Fact = tuple[dict[int, float], int, int, Target]
"""A figurine's Armour table, Deflection layers, Target Size modifier and view as a target."""


def _damage_of(fact: Fact, ring: int, values: list[int], ones: bool) -> int | None:
    """A figurine's Damage from the dice ``values`` (-1: not caught, None: a Dud): the total
    without the ``ring`` highest dice, less as many more as its Deflection layers, plus its
    Target Size modifier."""
    _, layers, modifier, _ = fact
    if ring >= len(values):
        return -1
    if ones:
        return None
    kept = sorted(values, reverse=True)[ring + layers :]
    return max(0, sum(kept) + modifier)


def _law_of(fact: Fact, damage: int | None) -> dict[str, float]:
    armour, _, _, target = fact
    if damage == -1:
        return {"miss": 1.0}
    if damage is None:
        return {"no_effect": 1.0}
    hit = "size_damage" if target.takes_size_damage else "destroyed"
    out: Counter[str] = Counter()
    for a, q in armour.items():
        out["no_effect" if damage < a else "something_bad" if damage == a else hit] += q
    return dict(out)


def _count(laws: list[dict[str, float]], key: str) -> list[float]:
    """P(exactly i of the independent figurines end with ``key``)."""
    dist = [1.0]
    for law in laws:
        q = law.get(key, 0.0)
        dist = [
            (dist[i] if i < len(dist) else 0.0) * (1 - q) + (dist[i - 1] * q if i else 0.0)
            for i in range(len(dist) + 1)
        ]
    return dist


def _oracle(
    xsize: int, use: int, objects: list[tuple[UnitSpec, int, int]]
) -> tuple[list[dict[str, float]], dict[str, list[float]]]:
    """A Rocket of ``xsize`` d10s at Use ``use`` on a Hero's d10 (1 misses, 10 is a Critical
    Success: one more d10), its blast over ``objects`` (unit, ring, figurines): each figurine's
    law and how many figurines end with each outcome (independent given the dice; every die a
    natural 1 is a Dud)."""
    figs = [(unit, ring) for unit, ring, n in objects for _ in range(n)]
    each = [Counter[str]() for _ in figs]
    counts = {k: [0.0] * (len(figs) + 1) for k in KEYS}
    facts: list[Fact] = [
        (_armour(u), u.armour.deflection, target_of(u).size_modifier, target_of(u)) for u, _ in figs
    ]
    # per Damage of each figurine (given the Action face): its probability
    by_damage: Counter[tuple[int | None, ...]] = Counter()
    for face in range(1, 11):
        if face == 1 or (face < 10 and face < use):
            by_damage[(-1,) * len(figs)] += 0.1
            continue
        for combo in itertools.product(_values(DEPTH), repeat=xsize + (face == 10)):
            values = [c[0] for c in combo]
            ones = all(c[1] for c in combo)
            key = tuple(_damage_of(facts[f], r, values, ones) for f, (_, r) in enumerate(figs))
            by_damage[key] += 0.1 * math.prod(c[2] for c in combo)
    for damages, p in by_damage.items():
        laws = [_law_of(facts[f], d) for f, d in enumerate(damages)]
        for f, law in enumerate(laws):
            for key, q in law.items():
                each[f][key] += p * q
        for key in KEYS:
            for i, x in enumerate(_count(laws, key)):
                counts[key][i] += p * x
    return [dict(c) for c in each], counts


def _per_figurine(turn: Turn) -> list[dict[str, float]]:
    (line,) = turn.odds().lines
    by_fig = {}
    for t in line.targets:
        for k in range(t.figure, t.figure + t.figures):
            by_fig[(t.index, k)] = {key: getattr(t, key) for key in KEYS}
    return [by_fig[fig] for fig in turn.figurines()]


CASES = [
    # (xsize, Use, main unit, main squad, further targets (unit, inches from the centre, squad))
    pytest.param(
        2,
        4,
        TROOPER,
        2,
        [(VICTIM, Fraction(3), 1), (TROOPER, Fraction(5), 1), (TROOPER, Fraction(9), 2)],
        id="2d10-squad2-hero-ring1-ott-ring2-beyond",
    ),
    pytest.param(
        2,
        4,
        CART,
        1,
        [(PLATED, Fraction(1), 2), (TROOPER, Fraction(4), 1)],
        id="2d10-cart-deflected-minifigs-ring0-minifig-ring1",
    ),
    pytest.param(
        2,
        4,
        VICTIM,
        2,
        [(PLATED, Fraction(1), 1), (CART, Fraction(4), 1)],
        id="2d10-heroes-ring0-cart-ring1-rolled-armour-in-two-rings",
    ),
]


@pytest.mark.parametrize(("xsize", "use", "main", "figures", "more"), CASES)
def test_a_blast_catches_further_targets_against_every_die(xsize, use, main, figures, more):
    """Each figurine's odds, and the tallies (rolled Armour in two rings too: one outcome per
    pair of capped Damage values, some 4,400)."""
    turn = Turn(
        _launcher(xsize),
        (0,),
        main,
        TurnSituation(distance=Fraction(2)),
        tuple(ArcFollower(u, figures=n, blast_distance=d) for u, d, n in more),
        figures=figures,
    )
    (line,) = turn.odds().lines
    assert any(f"Use {use}" in s.value for s in line.steps)
    objects = [(main, 0, figures)] + [(u, ring_of(d), n) for u, d, n in more]
    each, counts = _oracle(xsize, use, objects)
    for fig, (got, want) in enumerate(zip(_per_figurine(turn), each, strict=True)):
        for key in KEYS:
            assert got[key] == pytest.approx(want.get(key, 0.0), abs=TOL), (fig, key)
    tallies = turn.odds().tallies
    assert not any(s.label == "tally" for s in line.steps)
    sized = any(u.kind == "creation" for u, _, _ in objects)
    assert [k for k, _, _ in tallies] == (
        ["something_bad", "size_damage", "destroyed"] if sized else ["something_bad", "destroyed"]
    )
    for key, _, dist in tallies:
        assert dist == pytest.approx(counts[key], abs=TOL), key


def test_a_target_beyond_the_radius_is_not_caught():
    """Beyond the radius even an Over-the-Top d10 cannot reach: a miss, named in the steps;
    ring 2 of a 2d10 blast only on a Critical Success."""
    turn = Turn(
        _launcher(2),
        (0,),
        TROOPER,
        TurnSituation(distance=Fraction(2)),
        (
            ArcFollower(TROOPER, blast_distance=Fraction(5)),
            ArcFollower(TROOPER, blast_distance=Fraction(6) + Fraction(1, 2)),
            ArcFollower(TROOPER),  # no distance from the blast: not in it
        ),
    )
    (line,) = turn.odds().lines
    targets = {t.index: t for t in line.targets}
    assert set(targets) == {0, 1, 2}
    assert targets[2].miss == 1.0
    assert 0 < targets[1].destroyed < targets[0].destroyed
    assert targets[1].destroyed <= 0.1  # only on the natural 10
    steps = {s.value for s in line.steps}
    assert 'target 3 at 6.5": beyond the 4" radius' in steps
    assert any(v.startswith('target 2 at 5": only on a Critical Success') for v in steps)
    assert line.reach == ((0, 0), (1, 0))
    for seed in range(30):
        effects = turn.roll(random.Random(seed)).lines[0].effects
        assert [(e.target, e.figure) for e in effects] == [(0, 0), (1, 0)]


def test_the_blast_distance_is_read_and_bounded():
    def odds(*more: TargetInput) -> object:
        attack = BRIKWARS.attack(
            _launcher(2), (0,), [TargetInput(TROOPER), *more], {"distance": "2"}, DEFAULT_OPTIONS
        )
        return attack.odds()

    with pytest.raises(InvalidInput) as err:
        odds(TargetInput(VICTIM, {"blast_distance": "-1"}))
    assert err.value.field == "targets.1.blast_distance"
    got = odds(TargetInput(VICTIM, {"blast_distance": "3"}, figures=2))
    assert got is not None
    turn = Turn(
        _launcher(2),
        (0,),
        TROOPER,
        TurnSituation(distance=Fraction(2)),
        (ArcFollower(VICTIM, figures=2, blast_distance=Fraction(3)),),
    )
    assert turn.figurines() == ((0, 0), (1, 0), (1, 1))
    assert len(turn.odds().tallies[0][2]) == 4


def test_the_joint_law_of_one_target_is_its_ring_law():
    """One object: the joint law is the ring's own scenarios (``ring_scenarios``)."""
    boom = Explosion(DamageExpr(3, 10, explosion=True))
    for unit in (VICTIM, CART, PLATED):
        target = target_of(unit)
        for ring in range(3):
            joint = blast_scenarios(boom, ((target, ring),))
            assert joint is not None
            ring_law = boom.ring_scenarios(target, ring)
            for i in range(4):
                a = sum(w * rows[0][i] for w, rows in joint)
                b = sum(w * row[i] for w, row in ring_law)
                assert a == pytest.approx(b, abs=1e-9), (unit.name, ring, i)


def test_a_shared_roll_links_the_rings():
    """Fixed Armour 4 in rings 0 and 1 of a 2d10 blast: ring 1 destroyed needs ring 0
    destroyed (the same dice, one fewer), never the other way round."""
    boom = Explosion(DamageExpr(2, 10, explosion=True))
    law = blast_scenarios(boom, ((Target.minifig(), 0), (Target.minifig(), 1)))
    assert law is not None
    outer_only = sum(w * r[1][3] * (1 - r[0][3]) for w, r in law)
    both = sum(w * r[1][3] * r[0][3] for w, r in law)
    assert outer_only == 0.0
    assert both == pytest.approx(boom.ring_odds(Target.minifig(), 1).destroyed)


def _mixed_oracle(
    groups: list[tuple[G, bool]], use: int, objects: list[tuple[UnitSpec, int, int]]
) -> tuple[list[dict[str, float]], dict[str, list[float]]]:
    """``_oracle`` for a pool of several kinds (``groups``: each group and whether it is Armor
    Piercing; a Critical Success adds a plain d10): the rings remove the highest groups (more
    dice first on equal values, then a plain group before an Armor Piercing or Phased one,
    ruling A17); each Armor Piercing group left in a ring cancels a layer of Deflection, the
    layers left remove the highest deflectable groups left (rulings A6, A17)."""
    figs = [(unit, ring) for unit, ring, n in objects for _ in range(n)]
    facts = [
        (_armour(u), u.armour.deflection, target_of(u).size_modifier, target_of(u)) for u, _ in figs
    ]
    depth = {6: 7, 10: DEPTH, 12: 4}
    by_damage: Counter[tuple[int | None, ...]] = Counter()
    for face in range(1, 11):
        if face == 1 or (face < 10 and face < use):
            by_damage[(-1,) * len(figs)] += 0.1
            continue
        pool = groups + ([(G(10), False)] if face == 10 else [])
        each_group = [
            [
                (v, d, one, p, g.deflectable, ap)
                for v, d, one, p in group_outcomes(g, depth[g.sides])[0]
            ]
            for g, ap in pool
        ]
        for combo in itertools.product(*each_group):
            ranked = sorted(combo, key=lambda c: (-c[0], -c[1], c[5] or not c[4]))
            ones = all(c[2] for c in combo)
            key = []
            for (_, layers, modifier, _), (_, ring) in zip(facts, figs, strict=True):
                if ring >= len(ranked):
                    key.append(-1)
                    continue
                if ones:
                    key.append(None)
                    continue
                kept = ranked[ring:]
                left = max(0, layers - sum(1 for c in kept if c[5]))
                total = 0
                for c in kept:
                    if left and c[4]:
                        left -= 1
                        continue
                    total += c[0]
                key.append(max(0, total + modifier))
            by_damage[tuple(key)] += 0.1 * math.prod(c[3] for c in combo)
    each = [Counter[str]() for _ in figs]
    counts = {k: [0.0] * (len(figs) + 1) for k in KEYS}
    for damages, p in by_damage.items():
        laws = [_law_of(facts[f], d) for f, d in enumerate(damages)]
        for f, law in enumerate(laws):
            for key_, q in law.items():
                each[f][key_] += p * q
        for key_ in KEYS:
            for i, x in enumerate(_count(laws, key_)):
                counts[key_][i] += p * x
    return [dict(c) for c in each], counts


MIXED = [
    # (variant, xsize, groups, main, squad, further (unit, inches, squad))
    pytest.param(
        "armor_piercing",
        2,
        [(G(6), True), (G(6), True)],
        TROOPER,
        2,
        [(VICTIM, Fraction(3), 1), (PLATED, Fraction(1), 1), (PLATED, Fraction(5), 1)],
        id="armor-piercing-2d6-over-the-top-plated-in-two-rings",
    ),
    pytest.param(
        "phased",
        3,
        [(G(12, deflectable=False), False), (G(10), False)],
        PLATED,
        1,
        [(VICTIM, Fraction(3), 1), (PLATED, Fraction(3), 1), (TROOPER, Fraction(5), 1)],
        id="phased-d12-odd-d10-over-the-top-plated",
    ),
]


@pytest.mark.parametrize(("variant", "xsize", "groups", "main", "figures", "more"), MIXED)
def test_a_mixed_pool_blast_against_every_die(variant, xsize, groups, main, figures, more):
    """Mixed pools (an Armor Piercing blast gone Over the Top: d6s and a plain d10; Phased
    with an odd d10): each figurine's odds and the tallies against every die."""
    gunner = UnitSpec(
        name="Gunner",
        kind="hero",
        weapons=(WeaponSpec("rocket", xsize=xsize, variant=variant),),
    )
    turn = Turn(
        gunner,
        (0,),
        main,
        TurnSituation(distance=Fraction(2), divert_turns=1 if xsize > 2 else 0),
        tuple(ArcFollower(u, figures=n, blast_distance=d) for u, d, n in more),
        figures=figures,
    )
    odds = turn.odds()
    (line,) = odds.lines
    use = next(int(v) for v in range(2, 11) if any(f"Use {v}" in s.value for s in line.steps))
    objects = [(main, 0, figures)] + [(u, ring_of(d), n) for u, d, n in more]
    each, counts = _mixed_oracle(groups, use, objects)
    for fig, (got, want) in enumerate(zip(_per_figurine(turn), each, strict=True)):
        for key in KEYS:
            assert got[key] == pytest.approx(want.get(key, 0.0), abs=TOL), (fig, key)
    assert not any(s.label == "tally" for s in line.steps)
    assert odds.tallies
    for key, _, dist in odds.tallies:
        assert dist == pytest.approx(counts[key], abs=TOL), key


def test_wall_demolition_through_a_rolled_turn():
    """Chapter 8, "Explosion Example: Wall Demolition": a Size 3" Missile (3d10) rolls 3, 6
    and 7: 16, 9 and 3 by ring (each object adds its Target Size, RULINGS 1.3). The wall (3d10
    Armour) rolls 15: its part in ring 0 is destroyed (a Creation loses 1" of Size), the rest
    of the wall (ring 1) survives; the ground (1d10) rolls 8: destroyed within 4", not in
    ring 2."""
    wall = UnitSpec(name="Wall", size=1, structure_level=3)
    ground = UnitSpec(name="Ground", size=1, structure_level=1)
    wall3 = UnitSpec(name="Blast wall", size=3, structure_level=3)
    assert target_of(wall).size_modifier == target_of(ground).size_modifier == 0
    attack = BRIKWARS.attack(
        _launcher(3),
        (0,),
        [
            TargetInput(wall3),
            TargetInput(wall3, {"blast_distance": "3"}),
            TargetInput(ground, {"blast_distance": "3"}),
            TargetInput(ground, {"blast_distance": "5"}),
        ],
        {"distance": "6", "divert_turns": "1"},  # an X3 Rocket is Too Big for a Hero
        DEFAULT_OPTIONS,
    )
    # the Action die (Use 6), the Explosion's 3, 6, 7, then each object's Armour in order
    rng = Forced([7, 3, 6, 7, 5, 5, 5, 5, 5, 5, 8, 8])
    (line,) = attack.roll(rng).lines
    assert rng.done()
    assert [d.natural for d in line.dice if d.purpose == "explosion"] == [3, 6, 7]
    effects = [(e.target, e.outcome, e.damage) for e in line.effects]
    # the Blast wall is Size 3" (+1 Target Size): 17 and 10 against its 15
    assert effects == [
        (0, "size_damage", 17),
        (1, "no_effect", 10),
        (2, "destroyed", 9),
        (3, "no_effect", 3),
    ]


@pytest.mark.slow
def test_a_bigger_blast_matches_200000_seeded_rolls():
    """A 3d10 Rocket over a squad of 3 minifigs, 2 Heroes at 3", a plated minifig at 1.5" and
    a Cart at 4": each figurine's odds and the tallies against the engine's own rolls."""
    turn = Turn(
        _launcher(3),
        (0,),
        TROOPER,
        TurnSituation(distance=Fraction(3), divert_turns=1),  # an X3 Rocket is Too Big
        (
            ArcFollower(VICTIM, figures=2, blast_distance=Fraction(3)),
            ArcFollower(PLATED, blast_distance=Fraction(3, 2)),
            ArcFollower(CART, blast_distance=Fraction(4)),
        ),
        figures=3,
    )
    odds = turn.odds()
    tallies = {k: d for k, _, d in odds.tallies}
    assert set(tallies) == {"something_bad", "size_damage", "destroyed"}
    each = dict(zip(turn.figurines(), _per_figurine(turn), strict=True))
    rng = random.Random(27_0008)
    n = 200_000
    seen = {k: Counter[int]() for k in tallies}
    per: dict[tuple[int, int], Counter[str]] = {fig: Counter() for fig in each}
    for _ in range(n):
        effects = turn.roll(rng).lines[0].effects
        outcome = Counter(e.outcome for e in effects)
        for key in tallies:
            seen[key][outcome[key]] += 1
        for e in effects:
            per[(e.target, e.figure)][e.outcome] += 1
    for key, dist in tallies.items():
        for count, p in enumerate(dist):
            assert within(seen[key][count], n, p), (key, count, seen[key][count] / n, p)
    for fig, law in each.items():
        for key in KEYS:
            assert within(per[fig][key], n, law[key]), (fig, key, per[fig][key] / n, law[key])
