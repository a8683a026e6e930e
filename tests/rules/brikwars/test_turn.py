"""A unit's turn: Power enforcement, the lines it fires, their odds and rolls in order."""

from __future__ import annotations

import math
import pickle
import random
from collections import Counter
from fractions import Fraction

import pytest

from app.rules.brikwars.attacks import attack_of, burst_of, target_of
from app.rules.brikwars.turn import ArcFollower, Turn, TurnSituation, power_check
from app.rules.brikwars.units import UnitSpec, WeaponSpec, minifig
from app.rules.errors import InvalidInput
from tests.rules.brikwars.attack_support import within

STINGER, CLAW = WeaponSpec("melee_weapon", size=5), WeaponSpec("melee_weapon", size=1)


def rex(size_damage: int = 0) -> UnitSpec:
    """Scorpiosaurus Rex of chapter 8's Power Limit example."""
    return UnitSpec(
        name="Scorpiosaurus Rex",
        size=3,
        structure_level=1,
        size_damage=size_damage,
        weapons=(STINGER, CLAW, CLAW),
    )


def tank(**kw: object) -> UnitSpec:
    fields = dict(
        name="Tank",
        size=4,
        structure_level=2,
        weapons=(
            WeaponSpec("gun", size=3),
            WeaponSpec("machinegun", size=2),
            WeaponSpec("melee_weapon", size=2),
            WeaponSpec("gun", size=1, mount="small_turret"),
        ),
    )
    fields.update(kw)
    return UnitSpec(**fields)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- Power


def test_power_limit_example_scorpiosaurus_rex():
    """Chapter 8: 6" of Power: the stinger and one claw, or two claws; not all three."""
    assert power_check(rex(), (0, 1)).ok
    assert power_check(rex(), (1, 2)).ok
    problem = power_check(rex(), (0, 1, 2)).problems
    assert len(problem) == 1
    assert '7"' in problem[0] and 'has 6"' in problem[0]


def test_rex_after_size_damage_needs_to_divert_or_team_up():
    """At Effective Size 2" his Power is 4": the stinger is Too Big on its own."""
    hurt = rex(size_damage=1)
    check = power_check(hurt, (0,))
    assert check.power == 4
    assert "Too Big" in check.problems[0] and "Divert All Power for 1 turn" in check.problems[0]
    assert power_check(hurt, (1, 2)).ok
    assert power_check(hurt, (0,), TurnSituation(divert_turns=1)).ok
    assert power_check(hurt, (0,), TurnSituation(teamwork=Fraction(1))).ok
    assert not power_check(hurt, (0,), TurnSituation(teamwork=Fraction(1, 2))).ok
    # Saved Power goes to one weapon activation only: stinger (5) + claw (1) = 6 > 4 + 1.
    assert not power_check(hurt, (0, 1), TurnSituation(teamwork=Fraction(1))).ok
    assert power_check(hurt, (0, 1), TurnSituation(divert_turns=1)).ok  # 4 + min(4, 5) = 8


def test_turreted_weapons_bring_their_own_power():
    unit = tank(size=1)  # Power 2": the 3" Gun is Too Big, the turreted 1" Gun is not
    assert power_check(unit, (3,)).ok
    assert not power_check(unit, (0,)).ok


def test_odds_and_rolls_refuse_a_turn_over_power():
    turn = Turn(rex(), (0, 1, 2), minifig())
    with pytest.raises(InvalidInput) as err:
        turn.odds()
    assert err.value.field == "weapons" and "Fire fewer weapons" in err.value.reason
    with pytest.raises(InvalidInput):
        turn.roll(random.Random(1))


@pytest.mark.parametrize(
    ("weapons", "inoperative", "words"),
    [
        ((), frozenset(), "at least one weapon"),
        ((7,), frozenset(), "no weapon 8"),
        ((0, 0), frozenset(), "once a turn"),
        ((1,), frozenset({1}), "Inoperative until Reloaded"),
    ],
)
def test_bad_weapon_choices(weapons, inoperative, words):
    with pytest.raises(InvalidInput) as err:
        Turn(tank(), weapons, minifig(), inoperative=inoperative)
    assert words in err.value.reason


def test_a_negative_distance_is_refused():
    with pytest.raises(InvalidInput) as err:
        TurnSituation(distance=Fraction(-1))
    assert err.value.field == "distance"


# --------------------------------------------------------------------------- lines


def test_a_single_weapon_line_is_the_engines_attack():
    target = UnitSpec(name="Bunker", size=3, structure_level=3)
    sit = TurnSituation(distance=Fraction(18), height=Fraction(1), gunnery_support=1, homing_in=2)
    line = Turn(tank(), (0,), target, sit).odds().lines[0]
    attack = attack_of(
        tank(),
        tank().weapons[0],
        target_of(target),
        distance=18,
        height=1,
        situation=sit.engine_situation(),
    )
    expected = attack.odds()
    assert line.kind == "single"
    assert line.main.destroyed == expected.destroyed
    assert line.main.size_damage == expected.size_damage
    assert line.damage == expected.damage_distribution
    steps = dict((s.label, s.value) for s in line.steps)
    assert steps["Gunnery Support"] == "+1" and steps["Homing In"] == "+2"
    assert (
        steps['Out of Range: at 18", 3" beyond its Range'] == "-3"
    )  # 18" against 14" Range + 1" height


def test_burst_line_keeps_the_jam_odds():
    sit = TurnSituation(burst=3)
    line = Turn(tank(), (1,), minifig(), sit).odds().lines[0]
    burst = burst_of(tank(), tank().weapons[1], target_of(minifig()), 3)
    assert line.kind == "burst"
    assert line.jam == pytest.approx(burst.odds().inoperative)
    assert dict((s.label, s.value) for s in line.steps)["Auto Penalty"] == "-3"


def test_arc_fire_line_covers_every_target_in_order():
    followers = (ArcFollower(minifig(), Fraction(4)), ArcFollower(minifig(), Fraction(13)))
    odds = Turn(tank(), (1,), minifig(), TurnSituation(arc=2), followers).odds()
    line = odds.lines[0]
    assert line.kind == "arc" and [t.index for t in line.targets] == [0, 1, 2]
    # the third target is Out of Range: it is hit less often
    assert line.targets[2].miss > line.targets[1].miss


def test_small_single_attacks_are_computed_inline_the_rest_by_the_workers():
    """Inline (where the request is handled): single attacks with few dice. A volley, a
    Combined Attack or a large Damage pool goes to the calculation workers."""
    assert Turn(tank(), (0,), minifig()).inline()
    assert Turn(tank(), (0, 3), minifig()).inline()  # two single attacks, small dice
    burst = Turn(tank(), (1,), minifig(), TurnSituation(burst=3))
    assert not burst.inline()
    assert pickle.loads(pickle.dumps(burst)) == burst  # noqa: S301  (still fit for a worker)
    combined = TurnSituation(combined=True, distance=Fraction(1))
    assert not Turn(tank(), (0, 2), minifig(), combined).inline()
    giant = tank(size=40, weapons=(WeaponSpec("gun", size=20),))
    assert not Turn(giant, (0,), tank(size=20, structure_level=3)).inline()


def _frequencies(turn: Turn, n: int, seed: int) -> Counter:
    rng = random.Random(seed)
    seen: Counter = Counter()
    for _ in range(n):
        seen[turn.roll(rng).lines[0].effects[0].outcome] += 1
    return seen


@pytest.mark.slow  # 40,000 seeded turns
@pytest.mark.parametrize(
    ("weapons", "situation"),
    [
        ((0, 2), TurnSituation(combined=True, distance=Fraction(1))),
        ((1,), TurnSituation(burst=2)),
    ],
)
def test_line_odds_match_seeded_rolls(weapons, situation):
    """Monte Carlo of the turn's own rolls against its exact odds (4 standard errors)."""
    target = UnitSpec(name="Walker", size=3, structure_level=2)
    turn = Turn(tank(), weapons, target, situation)
    main = turn.odds().lines[0].main
    n = 40_000
    seen = _frequencies(turn, n, seed=20261130)
    for outcome, p in main.outcomes().items():
        assert within(seen[outcome], n, p), (outcome, seen[outcome] / n, p)


def test_rolls_carry_size_damage_to_the_next_weapon():
    """The second weapon's Armour roll is against the target the first one left (ruling T2)."""
    target = UnitSpec(name="Walker", size=3, structure_level=3)  # 3d10 Armour at Size 3"
    turn = Turn(tank(), (0, 2), target, TurnSituation(distance=Fraction(2)))
    checked = 0
    for seed in range(400):
        rolled = turn.roll(random.Random(seed))
        first, second = rolled.lines
        lost = sum(e.size_damage for line in rolled.lines for e in line.effects)
        assert rolled.targets_after[0].size_damage == lost
        armour_dice = [d for d in second.dice if d.purpose == "armour" and not d.bonus]
        if first.effects[0].size_damage and armour_dice:
            assert len(armour_dice) == 2  # 2d10 at Effective Size 2"
            checked += 1
        elif not first.effects[0].size_damage and armour_dice:
            assert len(armour_dice) == 3
    assert checked > 5


def test_a_destroyed_target_takes_no_more_shots():
    turn = Turn(tank(), (0, 2), minifig(), TurnSituation(distance=Fraction(2)))
    for seed in range(200):
        rolled = turn.roll(random.Random(seed))
        if rolled.lines[0].effects and rolled.lines[0].effects[0].outcome == "destroyed":
            assert rolled.lines[1].skipped == "target destroyed"
            assert rolled.lines[1].dice == ()
            return
    pytest.fail("no seed destroyed the minifig with the first shot")


def test_a_jammed_gun_is_reported():
    turn = Turn(tank(), (1,), minifig(), TurnSituation(burst=3))
    jams = [turn.roll(random.Random(s)).jammed for s in range(50)]
    assert (1,) in jams and () in jams


def test_cover_and_aiming_change_the_target_size_modifier():
    """Chapter 5: +1 per 2" of the target the attack can hit; 2x2 -1, 1x1 -2."""
    big = UnitSpec(name="Frigate", size=24, structure_level=1)

    def size_step(**kw: object) -> str:
        steps = Turn(tank(), (0,), big, TurnSituation(**kw)).odds().lines[0].steps  # type: ignore[arg-type]
        return dict((s.label, s.value) for s in steps).get("target size and visibility", "+0")

    assert size_step() == "+12"
    assert size_step(visible_size=Fraction(4)) == "+2"  # the text's 4 visible inches
    assert size_step(visible_size=Fraction(4), small="1x1") == "+0"


def _allied_turn() -> tuple[Turn, UnitSpec, UnitSpec]:
    from app.rules.brikwars.turn import Ally

    walker = UnitSpec(name="Walker", size=3, structure_level=3)
    trooper = UnitSpec(name="Pvt", kind="minifig", weapons=(WeaponSpec("short_ranged_weapon"),))
    sit = TurnSituation(distance=Fraction(3))
    return Turn(tank(), (0,), walker, sit, allies=(Ally(trooper, (0,)),)), walker, trooper


def test_allies_join_a_combined_attack():
    """Another unit's weapon joins: one line, the engine's Combined Attack of both attacks."""
    from app.rules.brikwars.attacks import CombinedAttack

    turn, walker, trooper = _allied_turn()
    odds = turn.odds()
    assert len(odds.lines) == 1 and odds.lines[0].kind == "combined"
    assert "Pvt's Short-Ranged Weapon" in odds.lines[0].label
    both = CombinedAttack(
        (
            attack_of(tank(), tank().weapons[0], target_of(walker), distance=3),
            attack_of(trooper, trooper.weapons[0], target_of(walker), distance=3),
        )
    ).odds()
    assert odds.lines[0].main.size_damage == pytest.approx(both.size_damage, abs=1e-12)


@pytest.mark.slow  # 40,000 seeded turns
def test_an_allied_turns_rolls_match_its_odds():
    turn, _, _ = _allied_turn()
    n = 40_000
    seen = _frequencies(turn, n, seed=7)
    for outcome, p in turn.odds().lines[0].main.outcomes().items():
        assert within(seen[outcome], n, p), (outcome, seen[outcome] / n, p)


def test_an_ally_over_its_power_or_without_a_direct_attack_is_refused():
    from app.rules.brikwars.turn import Ally

    weak = UnitSpec(name="Drone", size=1, structure_level=1, weapons=(WeaponSpec("gun", size=3),))
    turn = Turn(tank(), (0,), minifig(), allies=(Ally(weak, (0,)),))
    assert any("Drone" in p for p in turn.power().problems)
    with pytest.raises(InvalidInput) as err:
        Turn(tank(), (0,), minifig(), allies=(Ally(weak, ()),))
    assert err.value.field == "allies"


def test_expected_destroying_hits_sum_the_lines():
    odds = Turn(
        tank(),
        (0, 2),
        UnitSpec(name="W", size=3, structure_level=2),
        TurnSituation(distance=Fraction(1)),
    ).odds()
    by_hand = sum(ln.main.destroyed + ln.main.size_damage for ln in odds.lines)
    assert len(odds.lines) == 2 and odds.expected_destroying == pytest.approx(by_hand)
    assert odds.expected_destroying >= odds.any_destroying  # one per line vs at least one


# --------------------------------------------------------------------------- Missile Racks


def _rack(per_launch: int) -> UnitSpec:
    """Chapter 8's Missile Racks: a Size 3" Launcher loaded with six Size 1 Explosives."""
    from app.rules.brikwars.units import Explosive, Payload

    launcher = WeaponSpec(
        "launcher", size=3, payload=Payload(Explosive(1, rounds=6), per_launch=per_launch)
    )
    return UnitSpec(name="Uber-Titan", size=4, structure_level=2, weapons=(launcher,))


def test_a_launch_of_three_rounds_is_three_attacks_in_the_odds():
    """Ruling T6: each round its own line, with the odds of a one-round launch."""
    from itertools import product

    target = minifig()
    one = Turn(_rack(1), (0,), target, TurnSituation(distance=4)).odds()
    three = Turn(_rack(3), (0,), target, TurnSituation(distance=4)).odds()
    assert [ln.label for ln in three.lines] == [f'3" Launcher: round {k} of 3' for k in (1, 2, 3)]
    assert all(ln.main == one.lines[0].main for ln in three.lines)
    # Brute force over which rounds destroy the minifig (the rounds are independent).
    p = one.lines[0].main.destroyed
    oracle = sum(
        math.prod(p if hit else 1 - p for hit in pattern)
        for pattern in product((False, True), repeat=3)
        if any(pattern)
    )
    assert three.any_destroying == pytest.approx(oracle, abs=1e-12)
    assert three.expected_destroying == pytest.approx(3 * p, abs=1e-12)


def test_three_round_launch_rolls_agree_with_its_odds():
    """Seeded Monte Carlo: how often the rolled launch destroys the minifig."""
    turn = Turn(_rack(3), (0,), minifig(), TurnSituation(distance=4))
    expected = turn.odds().any_destroying
    n = 3000
    destroyed = sum(
        turn.roll(random.Random(seed)).targets_after[0].effective_size <= 0 for seed in range(n)
    )
    assert within(destroyed, n, expected), (destroyed / n, expected)


def test_a_rolled_launch_shows_one_action_die_per_round():
    tough = UnitSpec(name="Bunker", size=6, structure_level=5)
    rolled = Turn(_rack(3), (0,), tough, TurnSituation(distance=4)).roll(random.Random(7))
    assert len(rolled.lines) == 3
    actions = [d for ln in rolled.lines for d in ln.dice if d.purpose == "action"]
    assert len(actions) == 3
    assert all(sum(d.purpose == "action" for d in ln.dice) == 1 for ln in rolled.lines)
