"""Squads and several targets (ruling T7): a target's figurines are Arc targets of their own
(one after another, each spanning as its target does) or objects in the blast (one Damage
roll, each its own Armour roll); each figurine's odds and the tally of how many end with
each outcome, against a brute-force walk over every die, and a seeded Monte Carlo."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from fractions import Fraction

import pytest

from app.rules.brikwars.options import DEFAULT_OPTIONS
from app.rules.brikwars.turn import MAX_FIGURINES, ArcFollower, Turn, TurnSituation
from app.rules.brikwars.units import UnitSpec, WeaponSpec
from app.rules.errors import InvalidInput
from app.rules.registry import get_ruleset
from app.rules.ruleset import TargetInput
from tests.rules.brikwars.attack_support import (
    G,
    armour_table,
    damage_vs_armour,
    pool_outcomes,
    within,
)

HERO = UnitSpec(
    name="Hero",
    kind="hero",
    weapons=(
        WeaponSpec("autogun"),
        WeaponSpec("thrown_explosive"),
        WeaponSpec("flamegun"),
        WeaponSpec("shotgun"),
    ),
)
TROOPER = UnitSpec(name="Trooper", kind="minifig")
VICTIM = UnitSpec(name="Victim", kind="hero")
BRIKWARS = get_ruleset("brikwars")
RANK = {"miss": 0, "no_effect": 1, "something_bad": 2, "size_damage": 3, "destroyed": 4}
KEYS = ("miss", "no_effect", "something_bad", "size_damage", "destroyed")
DEPTH = {4: 9, 6: 6, 8: 5, 10: 5}  # Bonus chains in the oracle: below 1e-5 left out
TOL = 5e-5

# --------------------------------------------------------------------------- the oracle


def _armour(unit: UnitSpec) -> dict[int, float]:
    """Armour 4 for a minifig, 2d6 (Bonus dice) for a Hero."""
    return armour_table(4 if unit.kind == "minifig" else [G(6), G(6)], DEPTH[6])


def _hit_law(groups: list[G], modifier: int, armour: dict[int, float]) -> dict[str, float]:
    c = damage_vs_armour(groups, modifier, 0, armour, DEPTH[groups[0].sides])
    return {
        "destroyed": c["greater"],
        "something_bad": c["equal"],
        "no_effect": c["less"] + c["critical_failure"],
    }


def _shot_law(
    die: int, use: int, modifier: int, jam_below: int, damage: tuple[int, int, int], unit: UnitSpec
) -> dict[tuple[bool, str], float]:
    """One Arc shot: every natural Action face, then the Damage dice (Over the Top on the
    maximum face) against the figurine's Armour: P(jams, outcome)."""
    dice, sides, dmg_mod = damage
    armour = _armour(unit)
    plain = _hit_law([G(sides)] * dice, dmg_mod, armour)
    ott = _hit_law([G(sides)] * (dice + 1), dmg_mod, armour)
    out: Counter[tuple[bool, str]] = Counter()
    for face in range(1, die + 1):
        jam = face < jam_below
        if face == 1 or (face != die and face + modifier < use):
            out[(jam, "miss")] += 1 / die
            continue
        for key, p in (ott if face == die else plain).items():
            out[(jam, key)] += p / die
    return dict(out)


def _arc_oracle(
    shots: list[tuple[int, dict[tuple[bool, str], float]]], figurines: int
) -> tuple[list[dict[str, float]], dict[str, list[float]]]:
    """Every combination of the shots' results in order (after a jam the rest are lost):
    each figurine's best result, and how many figurines end with each outcome."""
    each = [Counter[str]() for _ in range(figurines)]
    counts = {k: [0.0] * (figurines + 1) for k in KEYS}

    def walk(i: int, jammed: bool, best: list[int], p: float) -> None:
        if i == len(shots):
            for f, r in enumerate(best):
                each[f][KEYS[r]] += p
            n = Counter(KEYS[r] for r in best)
            for k in KEYS:
                counts[k][n[k]] += p
            return
        fig, law = shots[i]
        if jammed:
            walk(i + 1, True, best, p)
            return
        for (jam, key), q in law.items():
            nxt = list(best)
            nxt[fig] = max(nxt[fig], RANK[key])
            walk(i + 1, jam, nxt, p * q)

    walk(0, False, [0] * figurines, 1.0)
    return [dict(c) for c in each], counts


def _figurine_odds(line_targets: tuple, turn: Turn) -> list[dict[str, float]]:  # type: ignore[type-arg]
    """The line's odds expanded to one law per figurine, in the turn's figurine order."""
    by_fig = {}
    for t in line_targets:
        for k in range(t.figure, t.figure + t.figures):
            by_fig[(t.index, k)] = {key: getattr(t, key) for key in KEYS}
    return [by_fig[fig] for fig in turn.figurines()]


# --------------------------------------------------------------------------- Arc Fire

ARC_CASES = [
    # (weapon, arc, main squad, main distance, followers (unit, distance, spans, figures))
    pytest.param(0, 3, 2, 2, [(VICTIM, 3, 1, 1)], id="autogun-jams-squad2-hero-spanning"),
    pytest.param(0, 2, 3, 1, [], id="autogun-squad3"),
    pytest.param(2, 1, 3, 1, [(TROOPER, 2, 0, 1)], id="flamegun-squad3-plus1"),
    pytest.param(3, 1, 2, 1, [(VICTIM, 3, 0, 1)], id="shotgun-falls-off-squad2-plus-hero"),
]


@pytest.mark.parametrize(("weapon", "arc", "figures", "distance", "more"), ARC_CASES)
def test_arc_fire_over_squads_against_every_die(weapon, arc, figures, distance, more):
    followers = tuple(ArcFollower(u, Fraction(d), s, n) for u, d, s, n in more)
    turn = Turn(
        HERO,
        (weapon,),
        TROOPER,
        TurnSituation(distance=Fraction(distance), arc=arc),
        followers,
        figures=figures,
    )
    odds = turn.odds()
    (line,) = odds.lines
    assert line.kind == "arc"
    kind = HERO.weapons[weapon].type
    jam_below = arc if kind == "autogun" else 0
    penalty = 0 if kind == "shotgun" else arc
    use, dmg = {"autogun": (3, (1, 6, 1)), "flamegun": (2, (1, 4, 1)), "shotgun": (3, (1, 8, 1))}[
        kind
    ]
    shots = []
    targets = [(TROOPER, distance, 0, figures), *more]
    fig = 0
    for unit, dist, spans, n in targets:
        fall = -math.floor(dist) if kind == "shotgun" else 0
        law = _shot_law(10, use, -penalty, jam_below, (dmg[0], dmg[1], dmg[2] + fall), unit)
        for _ in range(n):
            shots += [(fig, law)] * (1 + spans)
            fig += 1
    each, counts = _arc_oracle(shots, fig)
    got = _figurine_odds(line.targets, turn)
    for mine, theirs in zip(got, each, strict=True):
        for key in KEYS:
            assert mine[key] == pytest.approx(theirs.get(key, 0.0), abs=TOL), key
    tallies = {t[0]: t[2] for t in odds.tallies}
    assert set(tallies) == {"something_bad", "destroyed"}  # no Creation: no Size Damage
    for key, dist in tallies.items():
        assert len(dist) == fig + 1
        assert dist == pytest.approx(counts[key], abs=TOL), key


def test_alike_figurines_share_one_entry_and_a_jam_splits_them():
    flame = Turn(HERO, (2,), TROOPER, TurnSituation(distance=Fraction(1)), figures=3)
    (entry,) = flame.odds().lines[0].targets
    assert (entry.index, entry.figure, entry.figures) == (0, 0, 3)
    auto = Turn(HERO, (0,), TROOPER, TurnSituation(distance=Fraction(1), arc=3), figures=3)
    entries = auto.odds().lines[0].targets
    assert [(e.figure, e.figures) for e in entries] == [(0, 1), (1, 1), (2, 1)]
    # later figurines are less likely to be reached: the gun may have jammed
    assert entries[0].miss < entries[1].miss < entries[2].miss


def test_a_single_shot_strikes_one_figurine_of_a_squad():
    one = Turn(HERO, (0,), TROOPER, TurnSituation(distance=Fraction(1)))
    squad = Turn(HERO, (0,), TROOPER, TurnSituation(distance=Fraction(1)), figures=4)
    a, b = one.odds(), squad.odds()
    assert [(t.figure, t.figures) for t in b.lines[0].targets] == [(0, 1)]
    assert b.lines[0].main.destroyed == a.lines[0].main.destroyed
    destroyed = dict((k, d) for k, _, d in b.tallies)["destroyed"]
    assert len(destroyed) == 5
    assert destroyed[1] == pytest.approx(a.lines[0].main.destroyed)
    assert sum(destroyed[2:]) == 0.0
    assert squad.inline()  # one figurine struck: no more work than one target


# --------------------------------------------------------------------------- explosions


def _blast_oracle(unit: UnitSpec, figures: int) -> tuple[dict[str, float], dict[str, list[float]]]:
    """A thrown 1d10 Explosive (Use 1, the Hero's d10) at the squad: every Action face, every
    Damage roll (shared), every figurine's own Armour roll."""
    armour = _armour(unit)
    per_fig: Counter[str] = Counter()
    counts = {k: [0.0] * (figures + 1) for k in KEYS}
    for face in range(1, 11):
        if face == 1:  # the only miss at Use 1
            per_fig["miss"] += 0.1
            for k in KEYS:
                counts[k][figures if k == "miss" else 0] += 0.1
            continue
        groups = [G(10)] * (2 if face == 10 else 1)
        for values, _, ones, p in pool_outcomes(groups, DEPTH[10])[0]:
            damage = sum(values)
            law = Counter[str]()
            for a, q in armour.items():
                if ones or damage < a:
                    law["no_effect"] += q
                elif damage == a:
                    law["something_bad"] += q
                else:
                    law["destroyed"] += q
            for key, q in law.items():
                per_fig[key] += 0.1 * p * q
            for combo in itertools.product(law.items(), repeat=figures):
                q = 0.1 * p * math.prod(c[1] for c in combo)
                n = Counter(c[0] for c in combo)
                for k in KEYS:
                    counts[k][n[k]] += q
    return dict(per_fig), counts


@pytest.mark.parametrize(("unit", "figures"), [(TROOPER, 3), (VICTIM, 2), (VICTIM, 3)])
def test_a_blast_over_a_squad_against_every_die(unit, figures):
    turn = Turn(HERO, (1,), unit, TurnSituation(distance=Fraction(2)), figures=figures)
    odds = turn.odds()
    (line,) = odds.lines
    (entry,) = line.targets
    assert (entry.figure, entry.figures) == (0, figures)
    each, counts = _blast_oracle(unit, figures)
    for key in KEYS:
        assert getattr(entry, key) == pytest.approx(each.get(key, 0.0), abs=TOL), key
    for key, _, dist in odds.tallies:
        assert dist == pytest.approx(counts[key], abs=TOL), key


def test_the_shared_damage_roll_links_a_blast_s_figurines():
    """Minifigs' Armour is fixed: one Damage roll destroys all of them or none."""
    turn = Turn(HERO, (1,), TROOPER, TurnSituation(distance=Fraction(2)), figures=3)
    destroyed = dict((k, d) for k, _, d in turn.odds().tallies)["destroyed"]
    p = turn.odds().lines[0].main.destroyed
    assert destroyed[1] == destroyed[2] == 0.0
    assert destroyed[3] == pytest.approx(p)
    assert destroyed[3] > p**3 + 0.1  # not independent figurines


def test_a_rolled_blast_rolls_each_figurines_armour():
    turn = Turn(HERO, (1,), VICTIM, TurnSituation(distance=Fraction(2)), figures=3)
    attack = BRIKWARS.attack(
        HERO, (1,), [TargetInput(VICTIM, figures=3)], {"distance": "2"}, DEFAULT_OPTIONS
    )
    for seed in range(40):
        roll = attack.roll(random.Random(seed))
        (line,) = roll.lines
        assert [e.figure for e in line.effects] == [0, 1, 2]
        armour = [d for d in line.dice if d.purpose.startswith("armour")]
        if line.effects[0].outcome != "miss":
            assert {d.figure for d in armour} == {0, 1, 2}
    assert turn.roll(random.Random(1)).lines[0].effects


# --------------------------------------------------------------------------- bounds


def test_figures_are_bounded_before_any_work():
    calc = BRIKWARS

    def attack(*targets: TargetInput) -> None:
        calc.attack(HERO, (0,), list(targets), {"distance": "1", "arc": "2"}, DEFAULT_OPTIONS)

    with pytest.raises(InvalidInput) as err:
        attack(TargetInput(TROOPER, figures=0))
    assert err.value.field == "targets.0.figures"
    with pytest.raises(InvalidInput) as err:
        attack(
            TargetInput(TROOPER, figures=10),
            TargetInput(TROOPER, figures=10),
            TargetInput(TROOPER, figures=MAX_FIGURINES - 19),
        )
    assert err.value.field == "targets.2.figures"
    with pytest.raises(InvalidInput):
        Turn(HERO, (0,), TROOPER, figures=MAX_FIGURINES + 1)
    with pytest.raises(InvalidInput):
        Turn(HERO, (0,), TROOPER, followers=(ArcFollower(TROOPER, figures=-1),))
    attack(TargetInput(TROOPER, figures=MAX_FIGURINES))  # at the bound: accepted


def test_squads_change_the_kept_odds_key():
    a = Turn(HERO, (2,), TROOPER, TurnSituation(distance=Fraction(1)), figures=2)
    b = Turn(HERO, (2,), TROOPER, TurnSituation(distance=Fraction(1)), figures=3)
    assert len(a.odds().tallies[0][2]) == 3 and len(b.odds().tallies[0][2]) == 4
    assert a != b


# --------------------------------------------------------------------------- Monte Carlo


@pytest.mark.slow
def test_tallies_match_200000_seeded_rolls():
    """A jamming AutoGun over a squad of 5 and a Hero squad of 2 spanning a point each."""
    turn = Turn(
        HERO,
        (0,),
        TROOPER,
        TurnSituation(distance=Fraction(2), arc=3),
        (ArcFollower(VICTIM, Fraction(3), 1, 2),),
        figures=5,
    )
    odds = turn.odds()
    tallies = {k: d for k, _, d in odds.tallies}
    rng = random.Random(20270)
    n = 200_000
    seen = {k: Counter[int]() for k in tallies}
    for _ in range(n):
        effects = turn.roll(rng).lines[0].effects
        outcome = Counter(e.outcome for e in effects)
        for key in tallies:
            seen[key][outcome[key]] += 1
    for key, dist in tallies.items():
        for count, p in enumerate(dist):
            assert within(seen[key][count], n, p), (key, count, seen[key][count] / n, p)
