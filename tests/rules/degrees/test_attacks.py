"""Degrees attacks: every shot and round checked against brute-force enumeration of the d10s
(``brute.py``), and the engine's seeded rolls against the same rules die by die."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from itertools import product
from typing import Any

import pytest

from app.rules.degrees.plan import DegreesAttack
from app.rules.degrees.ruleset import RULESET
from app.rules.ruleset import TargetInput
from tests.rules.degrees.brute import S, ScriptedDice, enumerate_dice, gas_pump, shot

OPTIONS = RULESET.decode_options(None)


def unit(
    degree: int = 3,
    weapons: list[dict[str, Any]] | None = None,
    *,
    kind: str = "personnel",
    **more: Any,
) -> Any:
    return RULESET.decode_unit(
        {
            "name": more.pop("name", "U"),
            "kind": kind,
            "degree": degree,
            "weapons": weapons or [],
            **more,
        }
    )


def attack(
    attacker: Any,
    targets: list[Any],
    weapons: tuple[int, ...] = (0,),
    locations: tuple[str, ...] = (),
    **situation: Any,
) -> DegreesAttack:
    inputs = [TargetInput(targets[0])] + [
        TargetInput(t, {"location": locations[i]} if locations else {})
        for i, t in enumerate(targets[1:])
    ]
    return RULESET.attack(attacker, weapons, inputs, situation, OPTIONS)


def states_of(odds_detail: dict[str, Any]) -> Counter[tuple[int, int, int, int]]:
    return Counter(
        {
            (s["armour"], s["back_armour"], s["hp"], s["ap_lost"]): s["p"]
            for s in odds_detail["states"]
        }
    )


def assert_same(engine: Counter[Any], brute: Counter[Any]) -> None:
    keys = {k for k, p in engine.items() if p > 1e-12} | {k for k, p in brute.items() if p > 1e-12}
    for key in keys:
        assert engine[key] == pytest.approx(brute[key], abs=1e-9), key


def check(
    made: DegreesAttack, k: int, play: Callable[[Iterator[int]], list[S]], every: int = 1
) -> dict[str, Any]:
    """The main target's final states, P(restrained) and the dampened counts against the
    enumeration of k dice; and for every sequence, the engine's roll with those dice."""
    brute = enumerate_dice(k, lambda dice: tuple(play(dice)))
    detail = made.odds().detail
    assert_same(states_of(detail), _main(brute))
    restrained = sum(p for finals, p in brute.items() if finals[0].restrained)
    assert detail["restrained"] == pytest.approx(restrained, abs=1e-9)
    dampened: Counter[str] = Counter()
    for finals, p in brute.items():
        dampened[str(finals[0].dampened)] += p
    assert_same(Counter(detail["dampened"]), dampened)
    for n, seq in enumerate(product(range(1, 11), repeat=k)):
        if n % every:
            continue
        rolled = made.roll(ScriptedDice(seq)).detail["targets"]  # type: ignore[arg-type]
        expected = play(iter(seq))
        got = [
            S(
                t["armour"],
                t["back_armour"],
                t["hp"],
                t["ap_lost"],
                t["restrained"],
                len(t["dampened"]),
            )
            for t in rolled
        ]
        assert got == expected, seq
    return detail


def _main(brute: Counter[Any]) -> Counter[tuple[int, int, int, int]]:
    out: Counter[tuple[int, int, int, int]] = Counter()
    for finals, p in brute.items():
        out[finals[0].key] += p
    return out


# ---------------------------------------------------------------- single shots

TARGETS = [(3, 0, 3), (0, 0, 2), (2, 1, 2), (1, 2, 1), (5, 0, 4), (0, 3, 1)]


@pytest.mark.parametrize(
    ("catalogue_id", "type_id"),
    [
        ("katana", "standard"),
        ("gamma_gun", "gamma_gun"),
        ("flashback", "flashback"),
        ("p_gun", "percussion_gun"),
        ("punch_gun", "punch_gun"),
        ("stun_gun", "stun_gun"),
        ("sensory_dampener", "sensory_dampener"),
    ],
)
@pytest.mark.parametrize("penetrate", ["best", "never"])
def test_one_shot_of_each_type_at_every_degree_matches_enumeration(
    catalogue_id: str, type_id: str, penetrate: str
) -> None:
    for degree in (1, 2, 3, 5, 7, 10):
        for armour, back, hp in TARGETS:
            shooter = unit(4, [{"type": catalogue_id, "degree": degree}], ap=12)
            target = unit(3, armour=armour, back_armour=back, hp=hp)
            made = attack(shooter, [target], penetrate=penetrate, drawn=True, range="present")
            final = degree

            def play(
                dice: Iterator[int], final: int = final, s: S = S(armour, back, hp)
            ) -> list[S]:
                return [shot(s, type_id, final, dice, penetrate=penetrate == "best")]

            check(made, 2, play)


def test_a_stun_gun_the_target_tries_to_break_free_from() -> None:
    shooter = unit(2, [{"type": "stun_gun", "degree": 4}])
    for armour, back, hp in TARGETS:
        made = attack(shooter, [unit(2, armour=armour, back_armour=back, hp=hp)], break_free=True)

        def play(dice: Iterator[int], s: S = S(armour, back, hp)) -> list[S]:
            return [shot(s, "stun_gun", 4, dice, break_free=True)]

        detail = check(made, 2, play)
    # a hit restrains unless the extra d10 is a raw 1: P = 0.4 x 0.9
    assert detail["restrained"] == pytest.approx(0.36)


def test_an_am_converter_needs_a_natural_1_and_deals_10() -> None:
    shooter = unit(5, [{"type": "a_am_converter"}], kind="army")
    target = unit(8, kind="army")
    made = attack(shooter, [target])
    detail = check(made, 1, lambda dice: [shot(S(8, 0, 8), "am_converter", 10, dice)])
    assert detail["hit"] == pytest.approx(0.1)
    assert detail["hp_left"] == {"6": pytest.approx(0.1), "8": pytest.approx(0.9)}


def test_a_degree_of_zero_or_less_never_hits_and_ten_or_more_always_does() -> None:
    shooter = unit(2, [{"type": "gamma_gun", "degree": 1}, {"type": "katana", "degree": 10}])
    target = unit(3)
    assert attack(shooter, [target], bloom=1).odds().detail["hit"] == 0.0
    assert attack(shooter, [target], (1,), op=3).odds().detail["hit"] == 1.0


# ---------------------------------------------------------------- rounds


def test_two_shots_then_another_weapon_track_the_target_between_shots() -> None:
    shooter = unit(
        4,
        [{"type": "rifle", "degree": 3}, {"type": "gamma_gun", "degree": 5}],
        ap=6,
    )
    made = attack(shooter, [unit(3, back_armour=1)], (0, 1), shots=2, range="close")
    assert made.ap_cost == 4

    def play(dice: Iterator[int]) -> list[S]:
        s = S(3, 1, 3)
        s = shot(s, "classical_ballistic", 3, dice)
        s = shot(s, "classical_ballistic", 3, dice)
        s = shot(s, "gamma_gun", 5, dice)
        return [shot(s, "gamma_gun", 5, dice)]

    detail = check(made, 4, play)
    lines = made.odds().lines
    assert [line.label for line in lines] == [
        "Rifle 3°, shot 1",
        "Rifle 3°, shot 2",
        "Anti-personnel γ-gun 5°, shot 1",
        "Anti-personnel γ-gun 5°, shot 2",
    ]
    # the last line is the round
    assert lines[-1].main.probability("destroyed") == pytest.approx(detail["destroyed"])


def test_a_punch_gun_round_in_gas_with_its_penetrating_second_roll() -> None:
    shooter = unit(4, [{"type": "punch_gun", "degree": 5}], ap=4)
    # at Close in light gas: -1°; two shots
    made = attack(shooter, [unit(2, armour=1, hp=1)], shots=2, range="close", medium="light")

    def play(dice: Iterator[int]) -> list[S]:
        s = S(1, 0, 1)
        for _ in range(2):
            s = shot(s, "punch_gun", 4, dice)
        return [s]

    check(made, 4, play)


@pytest.mark.parametrize(
    ("carried", "pump", "compress_op", "k"),
    [(2, 2, 1, 5), (0, 3, 0, 5), (1, 2, 2, 4), (3, 1, 0, 3)],
)
def test_a_gas_gun_pumped_and_fired_twice_with_over_compression(
    carried: int, pump: int, compress_op: int, k: int
) -> None:
    shooter = unit(2, [{"type": "gas_gun", "degree": 2}], ap=12)
    made = attack(
        shooter,
        [unit(3)],
        carried=carried,
        pump=pump,
        compress_op=compress_op,
        shots=2,
        range="present",
    )

    def play(dice: Iterator[int]) -> list[S]:
        s, gun = S(3, 0, 3), 2
        for start in (carried, 0):
            if gun <= 0:
                continue
            pumped, gun, _ = gas_pump(gun, start, pump, compress_op, dice)
            s = shot(s, "gas_gun", pumped, dice)
        return [s]

    check(made, k, play, every=7 if k == 5 else 1)

    # the gun's odds: its max after the round, by enumeration of the pumping alone
    def gun_after(dice: Iterator[int]) -> int:
        gun = 2
        for start in (carried, 0):
            if gun > 0:
                _, gun, _ = gas_pump(gun, start, pump, compress_op, dice)
                next(dice)  # the shot
        return gun

    brute = enumerate_dice(k, gun_after)
    detail = made.odds().detail
    assert_same(Counter(detail["gun_max"]["0"]), Counter({str(m): p for m, p in brute.items()}))
    assert detail["gun_damaged"] == pytest.approx(1 - brute[2])


def test_a_wrecked_gas_gun_fires_no_more() -> None:
    # a 1-max gun pumped to 3: the roll against 2° (no OP) damages it on 1 or 2: wrecked
    made = attack(
        unit(2, [{"type": "gas_gun", "degree": 1}], ap=12),
        [unit(3)],
        pump=2,
        shots=2,
        range="present",
    )
    roll = made.roll(ScriptedDice([1, 10]))  # type: ignore[arg-type]
    assert roll.detail["attacker"]["gas"] == {"0": {"max": 0}}
    assert roll.lines[0].notes == ("gun_damaged",)
    assert roll.lines[1].skipped == "the gas gun is wrecked"
    assert [d.purpose for d in roll.lines[1].dice] == []


# ---------------------------------------------------------------- area attacks


def test_a_grenade_rolls_each_unit_separately_and_counts_the_units_hit() -> None:
    shooter = unit(2, [{"type": "v_howitzer", "degree": 9}], kind="vehicular")
    targets = [
        unit(3, kind="vehicular"),
        unit(2, kind="vehicular"),
        unit(4, kind="vehicular", back_armour=1),
    ]
    made = attack(shooter, targets, locations=("close", "far"))
    degrees = [9, 8, 7]

    def play(dice: Iterator[int]) -> list[S]:
        return [
            shot(S(t.armour, t.back_armour, t.hp), "explosive", d, dice)
            for t, d in zip(targets, degrees, strict=True)
        ]

    brute = enumerate_dice(3, lambda dice: tuple(play(dice)))
    odds = made.odds()
    assert odds.lines[0].kind == "area" == made.roll(ScriptedDice([1, 2, 3])).lines[0].kind  # type: ignore[arg-type]
    assert odds.detail["extra_locations"] == 9
    units_hit: Counter[str] = Counter()
    for finals, p in brute.items():
        units_hit[
            str(
                sum(
                    f != S(t.armour, t.back_armour, t.hp)
                    for f, t in zip(finals, targets, strict=True)
                )
            )
        ] += p
    assert_same(Counter(odds.detail["units_hit"]), units_hit)
    for i in range(len(targets)):
        destroyed = sum(p for finals, p in brute.items() if finals[i].hp == 0)
        assert odds.lines[0].targets[i].probability("destroyed") == pytest.approx(destroyed)
    for seq in product(range(1, 11), repeat=3):
        rolled = made.roll(ScriptedDice(seq)).detail["targets"]  # type: ignore[arg-type]
        assert [(t["armour"], t["back_armour"], t["hp"]) for t in rolled] == [
            (s.armour, s.back, s.hp) for s in play(iter(seq))
        ]


def test_area_weapons_reach_close_from_4_and_far_from_6() -> None:
    grenade = unit(2, [{"type": "grenade", "degree": 3}])
    assert attack(grenade, [unit(1), unit(1)], locations=("close",)).problems() == (
        "Explosive (grenade) 3° attacks Close locations only from 4°.",
    )
    missile = unit(2, [{"type": "missile", "degree": 5}])
    assert attack(missile, [unit(1), unit(1)], locations=("close",)).problems() == ()
    assert attack(missile, [unit(1), unit(1)], locations=("far",)).problems() != ()


def test_only_area_weapons_attack_further_units() -> None:
    made = attack(unit(2, [{"type": "katana"}]), [unit(1), unit(1)])
    assert made.problems() == ("Only area weapons attack more than one unit.",)


# ---------------------------------------------------------------- degrees and AP


def _degree(made: DegreesAttack) -> int:
    return made.shots[0].shots[0].degree  # type: ignore[union-attr]


def test_the_degree_of_a_shot_adds_up_its_modifiers() -> None:
    gamma = unit(4, [{"type": "gamma_gun"}])
    assert _degree(attack(gamma, [unit(3)], bloom=2)) == 3
    assert _degree(attack(gamma, [unit(3)], bloom=3)) == 1  # incandescent: -1 more
    rifle = unit(4, [{"type": "rifle"}])
    assert _degree(attack(rifle, [unit(3)], bloom=3)) == 2  # any weapon at incandescent
    assert _degree(attack(rifle, [unit(3)], set_degree=2, extend=1, op=2)) == 5
    assert _degree(attack(rifle, [unit(3)], set_degree=9)) == 3  # set at most to the max
    flashback = unit(4, [{"type": "flashback"}])
    assert _degree(attack(flashback, [unit(3)], range="far")) == 5
    inter = unit(4, [{"type": "inter_offer"}])
    assert _degree(attack(inter, [unit(3)], range="very_far", revealed=True)) == 5
    assert _degree(attack(inter, [unit(3)], range="very_far")) == 4
    rod = unit(4, [{"type": "dousing_rod", "real_ammo": True}], human=True)
    assert _degree(attack(rod, [unit(3)])) == 5
    punch = unit(4, [{"type": "punch_gun", "degree": 4}])
    assert _degree(attack(punch, [unit(3)], range="far", medium="heavy")) == -1
    higher = unit(4, [{"type": "v_main"}])
    assert _degree(attack(higher, [unit(3)])) == 10  # a higher-order weapon on personnel


def test_direct_radiation_cannot_fire_at_very_far() -> None:
    made = attack(unit(4, [{"type": "gamma_gun"}]), [unit(3)], range="very_far")
    assert made.problems() == (
        "Anti-personnel γ-gun 5° cannot fire at Very Far (direct radiation).",
    )


def test_the_ap_of_a_round_must_fit_the_units_ap() -> None:
    rifle = unit(3, [{"type": "rifle"}], name="Simo")
    assert attack(rifle, [unit(3)], shots=3).ap_cost == 3
    assert attack(rifle, [unit(3)], shots=3, stay_hidden=True).problems() == (
        "needs 6 AP; Simo has 3 this round.",
    )
    assert attack(rifle, [unit(3)], shots=3, stay_hidden=True, ap=6).problems() == ()
    dampener = unit(3, [{"type": "sensory_dampener"}])
    assert attack(dampener, [unit(3)]).ap_cost == 0
    # 0 AP shots are not free of limits: at most 24 shots in one round
    three = unit(3, [{"type": "sensory_dampener"}] * 3)
    assert attack(three, [unit(3)], (0, 1, 2), shots=8).problems() == ()
    assert attack(three, [unit(3)], (0, 1, 2), shots=9).problems() == (
        "at most 24 shots in one round; 27 chosen.",
    )


def test_small_attacks_are_computed_inline_and_big_area_attacks_in_the_workers() -> None:
    assert attack(unit(3, [{"type": "rifle"}]), [unit(3)], shots=3).inline()
    missile = unit(2, [{"type": "missile", "degree": 6}])
    assert not attack(missile, [unit(1)] * 30).inline()


# ---------------------------------------------------------------- the text's worked examples


def test_worked_example_gas_gun_over_compression() -> None:
    """A 2-max gun with 2 AP pumped; both AP of a new round pumped into it, 1 OP on the first
    roll: 3 against 2° fails; 1 against 4° damages it to a 1-max; the 4° + 1 extended = 5°
    shot at a fresh 3° rolls 5: front Armour gone, 2 HP lost, critically wounded."""
    gunner = unit(2, [{"type": "gas_gun", "degree": 2}], ap=4)
    made = attack(gunner, [unit(3)], carried=2, pump=2, compress_op=1, extend=1, range="present")
    assert made.problems() == () and made.ap_cost == 4
    roll = made.roll(ScriptedDice([3, 1, 5]))  # type: ignore[arg-type]
    dice = [(d.purpose, d.natural, d.value) for d in roll.lines[0].dice]
    assert dice == [
        ("over-compression vs 2°", 3, 3),
        ("over-compression vs 4°", 1, 1),
        ("attack vs 5°", 5, 5),
    ]
    assert roll.detail["attacker"]["gas"] == {"0": {"max": 1}}
    assert roll.detail["targets"][0] | {} == {
        "armour": 0,
        "back_armour": 0,
        "hp": 1,
        "ap_lost": 0,
        "restrained": False,
        "dampened": [],
    }
    assert roll.lines[0].effects[0].outcome == "critical"
    # the next round's shot alone: 4° carried in the 1-max gun, 1 extended: 2 AP, 5°
    damaged = unit(2, [{"type": "gas_gun", "degree": 1}], ap=3)
    shot_only = attack(damaged, [unit(3)], carried=4, extend=1, range="present")
    assert shot_only.ap_cost == 2
    assert shot_only.roll(ScriptedDice([5])).detail["targets"][0]["hp"] == 1  # type: ignore[arg-type]
    # exact: the damage odds of the over-compression, 1/10 x... : first roll against 2°
    # (0.2), else the second against 4° (0.8 x 0.4)
    assert made.odds().detail["gun_damaged"] == pytest.approx(0.2 + 0.8 * 0.4)


def test_worked_example_thinnys_p_gun_turn() -> None:
    """Begin 1 + whip out the p-gun 1 (round 1), devote another 1 + fire 1 (round 2): a 5°
    attack with a 4° p-gun, 4 AP; a Thinny's 3 AP a round cannot do it in one round."""
    thinny = unit(2, [{"type": "p_gun", "degree": 4}], name="Thinny")
    in_one = attack(thinny, [unit(3)], extend=1)
    assert in_one.problems() == ("needs 4 AP; Thinny has 3 this round.",)
    second_round = attack(thinny, [unit(3)], extend=1, carried=2)
    assert second_round.problems() == () and second_round.ap_cost == 2
    assert _degree(second_round) == 5
    assert second_round.odds().detail["hit"] == pytest.approx(0.5)
    # a SWAT (more AP) extends twice: 6°, and a raw 6 kills a fresh 3°
    swat = unit(3, [{"type": "p_gun", "degree": 4}], ap=5)
    six = attack(swat, [unit(3)], extend=2)
    assert six.problems() == () and _degree(six) == 6
    assert six.odds().detail["destroyed"] == pytest.approx(0.1)


def test_worked_example_a_6_degree_attack_kills_a_fresh_3_with_a_raw_6() -> None:
    made = attack(unit(6, [{"type": "katana", "degree": 6}]), [unit(3)])
    assert made.roll(ScriptedDice([6])).detail["targets"][0]["hp"] == 0  # type: ignore[arg-type]
    assert made.roll(ScriptedDice([5])).detail["targets"][0]["hp"] == 1  # type: ignore[arg-type]
    assert made.odds().detail["destroyed"] == pytest.approx(0.1)


def test_worked_example_swat_sensory_dampener_rounds() -> None:
    senses = ["audition", "vision", "analgesia", "nociception"]
    swat = unit(3, [{"type": "sensory_dampener", "degree": 4}])
    target = unit(2, senses=senses)
    round_1 = attack(swat, [target])  # the 0 AP attack at 4°: the GM rolls 5, a miss
    assert round_1.ap_cost == 0
    missed = round_1.roll(ScriptedDice([5]))  # type: ignore[arg-type]
    assert missed.lines[0].effects[0].outcome == "unharmed"
    round_2 = attack(swat, [target], extend=1)  # turns up the heat: 1 AP, 5°
    assert round_2.ap_cost == 1 and _degree(round_2) == 5
    hit = round_2.roll(ScriptedDice([4])).detail["targets"][0]  # type: ignore[arg-type]
    assert hit["ap_lost"] == 4
    assert hit["dampened"] == ["audition", "vision", "analgesia", "nociception"]
    assert (hit["armour"], hit["hp"], hit["restrained"]) == (2, 2, False)


def test_worked_example_a_2_degree_explosive_attacks_up_to_20_units() -> None:
    grenadier = unit(2, [{"type": "grenade", "degree": 2}])
    assert attack(grenadier, [unit(1)] * 20).problems() == ()
    assert attack(grenadier, [unit(1)] * 21).problems() == (
        "Explosive (grenade) 2° attacks at most 20 units in a location; 21 chosen Here.",
    )
    precision = unit(2, [{"type": "precision_charge", "degree": 2}])
    assert attack(precision, [unit(1)] * 11).problems() == (
        "Precision explosive 2° attacks at most 10 units in a location; 11 chosen Here.",
    )
