"""Degrees squads and area attacks by location (issue 27): a target of N figurines is N units
wherever units are counted. Every TargetOdds and every tally against brute-force
enumeration of the d10s (``brute.py``, written apart from the engine), a seeded Monte Carlo of
the engine's own roll for 60 units, the limits (D x 10 units in a location) and the bounds,
and the words for the locations an area attack reaches (RULINGS 2.4)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from math import sqrt
from typing import Any

import pytest

from app.rules.degrees import round as round_module
from app.rules.degrees.area import reach
from app.rules.degrees.plan import MAX_UNITS, DegreesAttack
from app.rules.degrees.ruleset import RULESET
from app.rules.errors import InvalidInput
from app.rules.ruleset import AttackOdds, TargetInput
from tests.rules.degrees.brute import S, ScriptedDice, enumerate_dice, hits, shot

OPTIONS = RULESET.decode_options(None)
TALLIED = ("destroyed", "critical", "wounded")
PENALTY = {"here": 0, "close": -1, "far": -2}


def unit(degree: int = 3, weapons: list[dict[str, Any]] | None = None, **more: Any) -> Any:
    return RULESET.decode_unit(
        {"name": "U", "kind": "personnel", "degree": degree, "weapons": weapons or [], **more}
    )


@dataclass(frozen=True)
class Squad:
    """A target as the test writes it: its unit's degree and back-line Armour, where it
    stands, how many figurines."""

    degree: int
    location: str = "here"
    figures: int = 1
    back: int = 0

    @property
    def start(self) -> S:
        return S(self.degree, self.back, self.degree)  # a fresh unit (RULINGS 2.2)


def made(
    weapons: list[dict[str, Any]], squads: list[Squad], chosen: tuple[int, ...] = (0,), **sit: Any
) -> DegreesAttack:
    inputs = [
        TargetInput(
            unit(s.degree, back_armour=s.back),
            {"location": s.location} if n else {},
            figures=s.figures,
        )
        for n, s in enumerate(squads)
    ]
    return RULESET.attack(unit(5, weapons), chosen, inputs, {"ap": 12, **sit}, OPTIONS)


# ---------------------------------------------------------------- the rules written out


def outcome(start: S, after: S) -> str:
    if after.hp == 0:
        return "destroyed"
    if after.hp < start.hp:
        return "critical" if after.hp == 1 else "wounded"
    if after.armour + after.back < start.armour + start.back:
        return "armour"
    return "unharmed"


# a line: (weapon type id, degree Here, area?)
Line = tuple[str, int, bool]


def play(lines: list[Line], squads: list[Squad], dice: Iterator[int]) -> tuple[Any, ...]:
    """Each line's every figurine's (state, hit so far), in the engine's order: the lines in
    turn, in each the targets in turn and each target's figurines in turn; a line that is not
    an area attack attacks only the first target's first figurine."""
    states = [[(s.start, False)] * s.figures for s in squads]
    out = []
    for type_id, degree, is_area in lines:
        for i, squad in enumerate(squads):
            at = degree + PENALTY[squad.location]
            for f in range(squad.figures):
                if not is_area and (i or f):
                    continue
                now, hit = states[i][f]
                n = next(dice)  # these types roll one die a shot
                states[i][f] = (shot(now, type_id, at, iter([n])), hit or hits(n, at))
        out.append(tuple(tuple(figs) for figs in states))
    return tuple(out)


def units_of(squads: list[Squad]) -> list[tuple[int, int]]:
    return [(i, f) for i, s in enumerate(squads) for f in range(s.figures)]


def assert_matches_brute(attack: DegreesAttack, lines: list[Line], squads: list[Squad]) -> None:
    units = units_of(squads)
    dice = sum(len(units) if a else 1 for _, _, a in lines)
    brute = enumerate_dice(dice, lambda d: play(lines, squads, d))
    odds = attack.odds()
    assert len(odds.lines) == len(lines)
    for n, line in enumerate(odds.lines):
        covered = Counter(
            (t.target, f) for t in line.targets for f in range(t.figure, t.figure + t.figures)
        )
        assert covered == Counter(units)  # every figurine in exactly one entry
        for t in line.targets:
            for f in range(t.figure, t.figure + t.figures):
                start = squads[t.target].start
                for o in t.outcomes:
                    p = sum(
                        q for r, q in brute.items() if outcome(start, r[n][t.target][f][0]) == o.key
                    )
                    assert o.probability == pytest.approx(p, abs=1e-12), (n, t, f, o.key)
    final = [(r[-1], q) for r, q in brute.items()]
    assert_tallies(odds, squads, final)


def assert_tallies(odds: AttackOdds, squads: list[Squad], final: list[tuple[Any, float]]) -> None:
    units = units_of(squads)
    assert [t.key for t in odds.tallies] == list(TALLIED)
    for tally in odds.tallies:
        dist: Counter[int] = Counter()
        for states, q in final:
            dist[sum(outcome(squads[i].start, states[i][f][0]) == tally.key for i, f in units)] += q
        assert len(tally.distribution) == len(units) + 1
        for k, p in enumerate(tally.distribution):
            assert p == pytest.approx(dist[k], abs=1e-12), (tally.key, k)
    hit: Counter[str] = Counter()
    destroyed_none = 0.0
    for states, q in final:
        hit[str(sum(states[i][f][1] for i, f in units))] += q
        destroyed_none += q * all(states[i][f][0].hp for i, f in units)
    assert odds.decisive == pytest.approx(1 - destroyed_none)
    if "units_hit" not in odds.detail:  # an attack without an area weapon
        assert not any(t.kind == "area" for t in odds.lines)
        return
    assert odds.detail["units_hit"] == pytest.approx({k: hit[k] for k in odds.detail["units_hit"]})
    assert sum(hit.values()) == pytest.approx(sum(odds.detail["units_hit"].values()))


def assert_rolls_match(
    attack: DegreesAttack, lines: list[Line], squads: list[Squad], samples: int = 300
) -> None:
    """The engine's roll with scripted dice leaves each figurine as the rules do, each die
    and effect naming its target and figurine."""
    units = units_of(squads)
    dice = sum(len(units) if a else 1 for _, _, a in lines)
    rng = random.Random(27)
    for _ in range(samples):
        seq = [rng.randint(1, 10) for _ in range(dice)]
        rolled = attack.roll(ScriptedDice(seq))  # type: ignore[arg-type]
        expected = play(lines, squads, iter(seq))
        for n, (line, (_, _, is_area)) in enumerate(zip(rolled.lines, lines, strict=True)):
            attacked = units if is_area else [(0, 0)]
            assert [(d.target, d.figure) for d in line.dice] == attacked
            assert [(e.target, e.figure) for e in line.effects] == units
            for e in line.effects:
                start = squads[e.target].start
                assert e.outcome == outcome(start, expected[n][e.target][e.figure][0])
        for i, squad in enumerate(squads):
            target = rolled.detail["targets"][i]
            figs = target["figures"] if squad.figures > 1 else [target]
            got = [S(t["armour"], t["back_armour"], t["hp"]) for t in figs]
            assert got == [s for s, _ in expected[-1][i]]


# ---------------------------------------------------------------- brute force, small cases


def test_an_explosive_on_two_squads_in_two_locations_matches_enumeration() -> None:
    squads = [Squad(2, figures=2), Squad(1, "close", figures=3)]
    attack = made([{"type": "missile", "degree": 4}], squads)
    assert attack.problems() == ()
    lines: list[Line] = [("explosive", 4, True)]
    odds = attack.odds()
    # alike figurines share one entry
    assert [(t.target, t.figure, t.figures) for t in odds.lines[0].targets] == [
        (0, 0, 2),
        (1, 0, 3),
    ]
    assert_matches_brute(attack, lines, squads)
    assert_rolls_match(attack, lines, squads)


def test_three_targets_two_of_them_squads_match_enumeration() -> None:
    squads = [Squad(2, figures=2), Squad(3, back=1), Squad(2, "close", figures=2, back=1)]
    attack = made([{"type": "missile", "degree": 5}], squads)
    lines: list[Line] = [("explosive", 5, True)]
    assert_matches_brute(attack, lines, squads)
    assert_rolls_match(attack, lines, squads)


def test_a_rifle_then_a_grenade_split_the_squad_they_fire_at() -> None:
    """The rifle strikes one figurine: the squad's first has odds of its own, the other
    figurine shares its odds with none but itself."""
    squads = [Squad(2, figures=2, back=1), Squad(3, "close")]
    attack = made(
        [{"type": "rifle", "degree": 3}, {"type": "grenade", "degree": 4}], squads, (0, 1)
    )
    assert attack.problems() == ()
    lines: list[Line] = [("classical_ballistic", 3, False), ("explosive", 4, True)]
    odds = attack.odds()
    assert [(t.target, t.figure, t.figures) for t in odds.lines[0].targets] == [
        (0, 0, 1),
        (0, 1, 1),
        (1, 0, 1),
    ]
    assert odds.lines[0].targets[1].probability("unharmed") == 1.0  # not fired at yet
    assert_matches_brute(attack, lines, squads)
    assert_rolls_match(attack, lines, squads)


def test_a_rifle_at_a_squad_strikes_one_figurine() -> None:
    squads = [Squad(1, figures=3)]
    attack = made([{"type": "rifle", "degree": 3}], squads)
    assert attack.problems() == ()  # a squad is not 'more than one unit' for one shot
    lines: list[Line] = [("classical_ballistic", 3, False)]
    odds = attack.odds()
    assert [(t.figure, t.figures) for t in odds.lines[0].targets] == [(0, 1), (1, 2)]
    assert odds.tallies[0].distribution == pytest.approx((0.7, 0.3, 0.0, 0.0))
    assert_matches_brute(attack, lines, squads)
    assert_rolls_match(attack, lines, squads, samples=50)


def test_each_figurine_rolls_its_own_die_and_has_its_own_effect() -> None:
    attack = made([{"type": "grenade", "degree": 2}], [Squad(2, figures=3)])
    rolled = attack.roll(ScriptedDice([1, 5, 2]))  # type: ignore[arg-type]
    (line,) = rolled.lines
    assert line.kind == "area"
    assert [(d.figure, d.natural) for d in line.dice] == [(0, 1), (1, 5), (2, 2)]
    assert [(e.figure, e.damage, e.outcome) for e in line.effects] == [
        (0, 1, "critical"),  # a natural 1 penetrates: the back line is worse
        (1, None, "unharmed"),
        (2, 2, "armour"),
    ]
    assert [t["hp"] for t in rolled.detail["targets"][0]["figures"]] == [1, 2, 2]


def test_one_unit_alone_has_no_tallies() -> None:
    assert made([{"type": "rifle"}], [Squad(3)]).odds().tallies == ()


# ---------------------------------------------------------------- 60 units, Monte Carlo


@pytest.mark.slow
def test_a_6_degree_explosive_on_60_units_agrees_with_50000_seeded_rolls() -> None:
    squads = [
        Squad(2, figures=20),
        Squad(3, "close", figures=20, back=1),
        Squad(1, "far", figures=10),
        Squad(4, "far", figures=10),
    ]
    attack = made([{"type": "missile", "degree": 6}], squads)
    assert attack.problems() == ()
    odds = attack.odds()
    rolls = 50_000  # 3,000,000 figurines; 200,000 rolls took 3 minutes of CI
    rng = random.Random(2027)
    tally_counts = {key: Counter[int]() for key in TALLIED}
    group_counts = [Counter[str]() for _ in squads]
    for _ in range(rolls):
        targets = attack.roll(rng).detail["targets"]  # type: ignore[arg-type]
        per_key = dict.fromkeys(TALLIED, 0)
        for i, squad in enumerate(squads):
            for t in targets[i]["figures"]:
                key = outcome(squad.start, S(t["armour"], t["back_armour"], t["hp"]))
                group_counts[i][key] += 1
                if key in per_key:
                    per_key[key] += 1
        for key, k in per_key.items():
            tally_counts[key][k] += 1

    def close(p: float, seen: int, n: int) -> None:
        sigma = sqrt(max(p * (1 - p), 1e-12) / n)
        assert abs(seen / n - p) <= 4 * sigma + 1e-9, (p, seen / n)

    for tally in odds.tallies:
        assert sum(tally.distribution) == pytest.approx(1.0)
        for k, p in enumerate(tally.distribution):
            close(p, tally_counts[tally.key][k], rolls)
    for t in odds.lines[0].targets:
        assert t.figures == squads[t.target].figures
        for o in t.outcomes:
            close(o.probability, group_counts[t.target][o.key], rolls * t.figures)


# ---------------------------------------------------------------- limits and bounds


def test_a_location_holds_at_most_d_x_10_units_squads_counting_their_figurines() -> None:
    grenade = [{"type": "grenade", "degree": 2}]
    assert made(grenade, [Squad(1, figures=20)]).problems() == ()
    assert made(grenade, [Squad(1, figures=15), Squad(1, figures=6)]).problems() == (
        "Explosive (grenade) 2° attacks at most 20 units in a location; 21 chosen Here.",
    )
    missile = [{"type": "missile", "degree": 6}]
    full = [Squad(1, figures=60), Squad(1, "close", figures=60), Squad(1, "far", figures=60)]
    assert made(missile, full).problems() == ()  # 60 in each location (RULINGS 2.4)
    assert made(missile, [*full, Squad(1, "close")]).problems() == (
        "Tactical propulsive (missile) 6° attacks at most 60 units in a location; 61 chosen Close.",
    )
    precision = [{"type": "precision_charge", "degree": 2}]
    assert made(precision, [Squad(1, figures=10)]).problems() == ()
    assert made(precision, [Squad(1, figures=11)]).problems() != ()


@pytest.mark.parametrize("figures", [0, -1])
def test_a_target_has_at_least_one_figurine(figures: int) -> None:
    with pytest.raises(InvalidInput) as refused:
        made([{"type": "grenade"}], [Squad(1), Squad(1, figures=figures)])
    assert refused.value.field == "targets.1.figures"


def test_the_figurines_of_all_targets_are_bounded_before_any_work() -> None:
    missile = [{"type": "missile", "degree": 10}]
    per = MAX_UNITS // 3
    squads = [Squad(1, figures=per), Squad(1, "close", figures=per), Squad(1, "far", figures=per)]
    assert made(missile, squads).units == MAX_UNITS >= 60
    with pytest.raises(InvalidInput) as refused:
        made(missile, [*squads[:2], Squad(1, "far", figures=per + 1)])
    assert refused.value.field == "targets.2.figures"


def _enumerated(attack: DegreesAttack, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """(chain transitions, count-distribution steps) of a real run of the odds."""
    counts = {"transitions": 0, "steps": 0}
    outcomes, distribution = round_module.outcomes, round_module.count_distribution

    def counted_outcomes(shot: Any, target: Any) -> Any:
        found = outcomes(shot, target)
        counts["transitions"] += len(found)  # the chains enumerate each one
        return found

    def counted_distribution(chances: Any) -> list[float]:
        chances = list(chances)
        counts["steps"] += len(chances) * (len(chances) + 1) // 2
        return distribution(chances)

    with monkeypatch.context() as patch:
        patch.setattr(round_module, "outcomes", counted_outcomes)
        patch.setattr(round_module, "count_distribution", counted_distribution)
        attack.odds()
    return counts["transitions"], counts["steps"]


def test_the_counted_work_bounds_what_the_odds_enumerate(monkeypatch: pytest.MonkeyPatch) -> None:
    """The estimate, counted before any work, is at least the transitions and steps a real
    run enumerates, and within a factor of 8 of its transitions (no timing: the rates are
    ``bench inline``'s)."""
    rifle = [{"type": "rifle", "degree": 3}]
    missile = [{"type": "missile", "degree": 6}]
    punch = [{"type": "punch_gun", "degree": 4}]
    cases = [
        made(rifle, [Squad(3)]),
        made(rifle, [Squad(3, figures=5)], shots=3),
        made(rifle, [Squad(6)], shots=8),
        made(punch, [Squad(4)], shots=3),
        made(missile, [Squad(1, figures=30)]),
        made(missile, [Squad(1, figures=10), Squad(2, "close", figures=4)], shots=2),
    ]
    for attack in cases:
        _, transitions, _, steps = attack.work_terms()
        real_transitions, real_steps = _enumerated(attack, monkeypatch)
        assert real_transitions <= transitions <= 8 * real_transitions
        assert real_steps <= steps


def test_inline_rests_on_the_counted_work() -> None:
    """What scales the work scales the estimate: shots (the chains' states), figurines (the
    tallies) and groups of alike figurines (a target's odds on each line)."""
    rifle = [{"type": "rifle", "degree": 3}]
    shots = [made(rifle, [Squad(6)], shots=n).work_units() for n in (1, 3, 8)]
    assert shots == sorted(shots) and shots[0] < shots[-1]
    missile = [{"type": "missile", "degree": 6}]
    squads = [made(missile, [Squad(1, figures=n)]).work_units() for n in (2, 30, 100)]
    assert squads == sorted(squads) and squads[0] < squads[-1]
    assert made(rifle, [Squad(3, figures=5)]).inline()  # one figurine fired at
    assert made(missile, [Squad(1, figures=40)]).inline()  # alike: one group
    assert not made(missile, [Squad(1, figures=MAX_UNITS)]).inline()  # the tallies' steps
    # the one figure, 2,000 units: 60 figurines some 1,300 (inline), 100 some 2,850 (not)
    sixty, hundred = (made(missile, [Squad(1, figures=n)]) for n in (60, 100))
    assert 1000 < sixty.work_units() < 2000 < hundred.work_units()
    assert sixty.inline() and not hundred.inline()


def test_the_stateless_body_takes_a_squad() -> None:
    body = {"attack": {"degree": 2, "type": "explosive"}, "target": {"armour": 1, "hp": 1}}
    one = RULESET.attack_from_body(body)
    squad = RULESET.attack_from_body({**body, "target": {"armour": 1, "hp": 1, "figures": 3}})
    destroyed = one.odds().lines[0].main.probability("destroyed")
    odds = squad.odds()
    assert (odds.lines[0].main.figures, odds.decisive) == (
        3,
        pytest.approx(1 - (1 - destroyed) ** 3),
    )
    brute = enumerate_dice(
        3, lambda d: sum(shot(S(1, 0, 1), "explosive", 2, d).hp == 0 for _ in range(3))
    )
    assert odds.tallies[0].distribution == pytest.approx(tuple(brute[k] for k in range(4)))
    assert len(squad.roll(random.Random(1)).lines[0].dice) == 3
    crowd = RULESET.attack_from_body({**body, "target": {"armour": 1, "hp": 1, "figures": 21}})
    assert crowd.problems() == (
        "Area-effect explosive 2° attacks at most 20 units in a location; 21 chosen Here.",
    )
    for figures in (0, MAX_UNITS + 1):
        with pytest.raises(InvalidInput) as refused:
            RULESET.attack_from_body({**body, "target": {"armour": 1, "hp": 1, "figures": figures}})
        assert refused.value.field == "target.figures"


# ---------------------------------------------------------------- where an area attack reaches


def _reach(degree: int, **situation: Any) -> tuple[int | None, str]:
    detail = made([{"type": "grenade", "degree": degree}], [Squad(1)], **situation).odds().detail
    return detail["extra_locations"], detail["reach"]


def test_below_4_degrees_an_area_attack_reaches_no_further_location() -> None:
    """RULINGS 2.4: a 2° grenade attacks its own location only, however high its final
    degree (it used to read '2 extra Close/Far locations may be attacked')."""
    for degree in (1, 2, 3):
        assert _reach(degree) == (
            0,
            f"Explosive (grenade) {degree}° attacks its own location only "
            "(Close locations from 4°).",
        )
    assert _reach(3, op=5)[0] == 0  # the degree chosen decides, not the final one
    assert _reach(4, set_degree=3)[0] == 0  # set to stun below 4°


def test_from_4_degrees_close_locations_as_many_as_the_final_degree() -> None:
    assert _reach(4) == (
        4,
        "Explosive (grenade) 4° attacks also up to 4 Close (-1°) locations "
        "(Far locations from 6°).",
    )
    assert _reach(5, op=2) == (
        7,
        "Explosive (grenade) 5° attacks also up to 7 Close (-1°) locations "
        "(Far locations from 6°).",
    )


def test_from_6_degrees_close_or_far_locations() -> None:
    assert _reach(6) == (
        6,
        "Explosive (grenade) 6° attacks also up to 6 Close (-1°) or Far (-2°) locations.",
    )
    assert _reach(6, bloom=3) == (  # incandescent: -1° to every attack
        5,
        "Explosive (grenade) 6° attacks also up to 5 Close (-1°) or Far (-2°) locations.",
    )


def test_a_final_degree_of_1_reaches_one_location() -> None:
    assert reach(4, 1) == "also up to 1 Close (-1°) location (Far locations from 6°)"
    assert reach(6, 0) == "its own location only (a final degree of 0° reaches no further location)"
