"""D20 attacks: shots, blows, automatic fire, explosions, objects and defusing checked against
brute-force enumeration of the D20s (``brute.py``), the text's worked examples, the house
rules, the refusals, and the seeded rolls against the same rules die by die."""

from __future__ import annotations

import pickle
import random
from fractions import Fraction
from typing import Any

import pytest

from app.rules.d20.attack import D20Attack
from app.rules.d20.options import D20Options
from app.rules.d20.ruleset import RULESET
from app.rules.errors import InvalidInput
from app.rules.ruleset import TargetInput
from tests.rules.d20.brute import cp_lost, defence, enumerate_attack

OPTIONS = RULESET.decode_options(None)
RIFLE = {"type": "gun", "name": "Rifle", "reach": 60, "power": 6, "automatic": True}
PISTOL = {"type": "gun", "name": "Pistol", "reach": 20, "power": 3}
KNIFE = {"type": "hth", "name": "Knife", "power": 4}


def fig(name: str = "F", weapons: list[dict[str, Any]] | None = None, **more: Any) -> Any:
    data = {"name": name, "shot": 8, "hth": 6, "pd": 20, "evasion": 0, "dexterity": 5, "cp": 1}
    return RULESET.decode_unit(data | more | {"weapons": weapons or []})


def attack(
    attacker: Any,
    targets: list[Any],
    weapons: tuple[int, ...] = (0,),
    fields: list[dict[str, Any]] | None = None,
    options: D20Options = OPTIONS,
    **situation: Any,
) -> D20Attack:
    inputs = [TargetInput(t, (fields or [{}] * len(targets))[i]) for i, t in enumerate(targets)]
    return RULESET.attack(attacker, weapons, inputs, situation, options)


def outcomes(made: D20Attack, index: int = 0) -> dict[str, float]:
    target = made.odds().lines[0].targets[index]
    return {o.key: o.probability for o in target.outcomes}


def approx(value: Fraction) -> Any:
    return pytest.approx(float(value), abs=1e-12)


# ------------------------------------------------------------------ single shots and blows


@pytest.mark.parametrize(
    ("shot", "power", "modifier", "pd", "evasion", "cp"),
    [(8, 6, 0, 20, 0, 1), (8, 6, 2, 20, 3, 2), (0, 0, 0, 0, 0, 1), (10, 30, 0, 40, 0, 1)],
)
def test_a_single_shot_matches_the_enumeration(
    shot: int, power: int, modifier: int, pd: int, evasion: int, cp: int
) -> None:
    gun = {"type": "gun", "name": "G", "reach": 60, "power": power}
    made = attack(
        fig(shot=shot, weapons=[gun]), [fig(pd=pd, evasion=evasion, cp=cp)], modifier=modifier
    )
    assert made.problems() == ()
    per, count = enumerate_attack([shot + power + modifier], [pd + evasion], [cp])
    got = outcomes(made)
    for key in ("out", "wounded", "unhurt"):
        assert got[key] == approx(per[0][key])
    detail = made.odds().detail
    assert detail["targets"][0]["wound"] == approx(count.get(1, Fraction(0)))
    assert {int(k): v for k, v in detail["wounded_count"].items() if v} == {
        k: approx(v) for k, v in count.items() if v
    }


def test_wounds_only_when_the_total_is_greater_than_the_defence() -> None:
    # Shot 8 + Power 6 = 14; defence 20 + 3 = 23: a natural 10 is 24 (wounds), 9 is 23 (not)
    made = attack(fig(weapons=[RIFLE]), [fig(pd=20, evasion=3)])
    assert made.odds().detail["targets"][0]["wound"] == pytest.approx(11 / 20)
    assert made.odds().detail["targets"][0]["needs"] == 10


def test_the_margin_and_cp_left_distributions_of_a_shot() -> None:
    made = attack(fig(weapons=[RIFLE]), [fig(pd=20, cp=3)])
    detail = made.odds().detail["targets"][0]
    # totals 15..34 against 20: margins -5..14, each 1/20
    assert detail["margin"] == {str(m): pytest.approx(0.05) for m in range(-5, 15)}
    assert detail["cp_left"] == {"2": pytest.approx(14 / 20), "3": pytest.approx(6 / 20)}


def test_a_shot_beyond_reach_is_refused_with_the_reason() -> None:
    made = attack(fig(weapons=[PISTOL]), [fig()], distance=21)
    assert made.problems() == ("21 cm is beyond Pistol's Reach (20 cm).",)
    assert attack(fig(weapons=[PISTOL]), [fig()], distance=20).problems() == ()


def test_a_blow_uses_hth_and_a_gun_as_a_club_has_power_1() -> None:
    attacker = fig(hth=6, weapons=[RIFLE, KNIFE])
    target = fig(pd=10)
    club = attack(attacker, [target], (0,), mode="blow")
    knife = attack(attacker, [target], (1,), mode="blow")
    bare = attack(attacker, [target], (), mode="blow")
    # HtH 6 + 1 = 7 vs 10: naturals 4..20; + 4 = 10: 1..20; bare 6: 5..20
    assert club.odds().detail["targets"][0]["wound"] == pytest.approx(17 / 20)
    assert knife.odds().detail["targets"][0]["wound"] == pytest.approx(20 / 20)
    assert bare.odds().detail["targets"][0]["wound"] == pytest.approx(16 / 20)
    assert club.problems() == knife.problems() == bare.problems() == ()
    assert attack(attacker, [target], (1,), mode="shot").problems() == (
        "A shot needs a gun; Knife is not one.",
    )


def test_shaken_targets_lose_their_evasion() -> None:
    attacker = fig(weapons=[RIFLE])
    target = fig(pd=20, evasion=5)
    alert = attack(attacker, [target]).odds().detail["targets"][0]
    shaken = attack(attacker, [target], shaken=True).odds().detail["targets"][0]
    assert (alert["defence"], shaken["defence"]) == (25, 20)
    assert (alert["wound"], shaken["wound"]) == (pytest.approx(9 / 20), pytest.approx(14 / 20))


# ------------------------------------------------------------------ house rules


@pytest.mark.parametrize("margin_wounds", [False, True])
@pytest.mark.parametrize("naturals", [False, True])
def test_the_house_rules_match_the_enumeration(margin_wounds: bool, naturals: bool) -> None:
    options = D20Options(margin_wounds=margin_wounds, naturals=naturals)
    bonuses, defences, cps = [14, 3, 30], [20, 25, 10], [3, 1, 4]
    attacker = fig(shot=14 - 6 + 1, weapons=[RIFLE])
    # automatic fire: the attack's bonus 9 + 6 = 15, then -1, -2, -3: 14, 13, 12
    targets = [fig(pd=d, cp=c) for d, c in zip(defences, cps, strict=True)]
    made = attack(attacker, targets, options=options, mode="automatic")
    bonuses = [14, 13, 12]
    per, count = enumerate_attack(
        bonuses, defences, cps, margin_wounds=margin_wounds, naturals=naturals
    )
    for i in range(3):
        got = outcomes(made, i)
        for key in ("out", "wounded", "unhurt"):
            assert got[key] == approx(per[i][key]), (i, key)
    wounded = made.odds().detail["wounded_count"]
    assert {int(k): v for k, v in wounded.items() if v > 1e-15} == {
        k: approx(v) for k, v in count.items()
    }


def test_naturals_20_wounds_and_1_misses_whatever_the_totals() -> None:
    options = D20Options(naturals=True)
    hopeless = attack(fig(shot=0, weapons=[RIFLE]), [fig(pd=40)], options=options)
    certain = attack(fig(shot=40, weapons=[RIFLE]), [fig(pd=0)], options=options)
    assert hopeless.odds().detail["targets"][0]["wound"] == pytest.approx(1 / 20)
    assert certain.odds().detail["targets"][0]["wound"] == pytest.approx(19 / 20)
    plain = attack(fig(shot=0, weapons=[RIFLE]), [fig(pd=40)])
    assert plain.odds().detail["targets"][0]["wound"] == 0


def test_margin_wounds_remove_the_margin_over_5_rounded_up() -> None:
    assert cp_lost(14, 20, 20, margin_wounds=True) == 3  # 34 - 20 = 14: 3 CP
    options = D20Options(margin_wounds=True)
    made = attack(fig(weapons=[RIFLE]), [fig(pd=20, cp=20)], options=options)
    lost = made.odds().detail["targets"][0]["cp_lost"]
    # margins 1..5: 1 CP; 6..10: 2 CP; 11..14: 3 CP
    assert lost == {
        "0": pytest.approx(6 / 20),
        "1": pytest.approx(5 / 20),
        "2": pytest.approx(5 / 20),
        "3": pytest.approx(4 / 20),
    }


# ------------------------------------------------------------------ automatic fire


def test_automatic_fire_on_four_targets_is_at_minus_1_2_3_4() -> None:
    """The text's example: -1 from the first figurine, a further -1 each, at most -4."""
    targets = [fig(f"T{n}", pd=20) for n in range(6)]
    made = attack(fig(weapons=[RIFLE]), targets[:4], mode="automatic")
    detail = made.odds().detail["targets"]
    assert [t["modifier"] for t in detail] == [-1, -2, -3, -4]
    assert [t["bonus"] for t in detail] == [13, 12, 11, 10]
    assert [t["wound"] for t in detail] == [pytest.approx(k / 20) for k in (13, 12, 11, 10)]
    six = attack(fig(weapons=[RIFLE]), targets, mode="automatic").odds().detail["targets"]
    assert [t["modifier"] for t in six] == [-1, -2, -3, -4, -4, -4]


def test_automatic_fire_matches_the_enumeration_of_every_die() -> None:
    pds = [15, 22, 18, 30]
    made = attack(fig(weapons=[RIFLE]), [fig(pd=p, cp=2) for p in pds], mode="automatic")
    per, count = enumerate_attack([13, 12, 11, 10], pds, [2, 2, 2, 2])
    detail = made.odds().detail
    for i in range(4):
        assert detail["targets"][i]["wound"] == approx(1 - per[i]["unhurt"])
    assert {int(k): v for k, v in detail["wounded_count"].items()} == {
        k: approx(count.get(k, Fraction(0))) for k in range(5)
    }


def test_automatic_fire_is_refused_at_one_target_or_without_the_ability() -> None:
    assert attack(fig(weapons=[RIFLE]), [fig()], mode="automatic").problems() == (
        "Automatic fire needs at least two targets.",
    )
    assert attack(fig(weapons=[PISTOL]), [fig(), fig()], mode="automatic").problems() == (
        "Pistol has no automatic fire.",
    )
    assert attack(fig(weapons=[RIFLE]), [fig(), fig()], mode="shot").problems() == (
        "A single shot strikes one target (automatic fire: several).",
    )


def test_two_ranged_weapons_at_two_targets_are_refused() -> None:
    made = attack(fig("Duo", weapons=[RIFLE, PISTOL]), [fig(), fig()], (0, 1), mode="automatic")
    assert "Duo carries two ranged weapons: it shoots one target per turn." in made.problems()
    assert (
        attack(fig(weapons=[RIFLE, PISTOL]), [fig(), fig()], (0,), mode="automatic").problems()
        == ()
    )


# ------------------------------------------------------------------ explosions


def grenadier(*kinds: str, su: bool = True) -> Any:
    return fig("SU", [{"type": k} for k in kinds], kind="su" if su else "figurine")


def test_a_defensive_grenade_respects_cover_and_matches_the_enumeration() -> None:
    targets = [fig(pd=30), fig(pd=35, evasion=2, cp=2), fig(pd=40)]
    fields = [{}, {"cover": True}, {}]
    made = attack(
        grenadier("defensive_grenade"), targets, fields=fields, mode="explosion", distance=20
    )
    assert made.problems() == ()
    # the second is in cover (+5) and its Evasion 2 does not count against a blast
    defences = [
        defence(30, 0, explosion=True),
        defence(35, 2, explosion=True, cover=5),
        defence(40, 0, explosion=True),
    ]
    assert defences == [30, 40, 40]
    per, count = enumerate_attack([25, 25, 25], defences, [1, 2, 1])
    for i in range(3):
        for key in ("out", "wounded", "unhurt"):
            assert outcomes(made, i)[key] == approx(per[i][key])
    wounded = made.odds().detail["wounded_count"]
    assert {int(k): v for k, v in wounded.items()} == {
        k: approx(count.get(k, Fraction(0))) for k in range(4)
    }


def _faces(power: int, against: int, cp: int, flat: int = 0) -> dict[str, Fraction]:
    """One figurine's outcomes against Power + 1D20 over ``against``, the 20 faces counted
    here (1 CP a wound, ``flat`` CP besides)."""
    counts = {"out": 0, "wounded": 0, "unhurt": 0}
    for natural in range(1, 21):
        lost = (1 if power + natural > against else 0) + flat
        counts["out" if lost >= cp else "wounded" if lost else "unhurt"] += 1
    return {k: Fraction(v, 20) for k, v in counts.items()}


@pytest.mark.parametrize(
    ("equipment", "power", "flat", "pd", "evasion", "cp", "cover"),
    [
        ("defensive_grenade", 25, 0, 35, 4, 1, False),
        ("defensive_grenade", 25, 0, 30, 7, 2, True),
        ("hypersensor_mine", 25, 0, 36, 3, 1, False),
        ("flaming_grenade", 15, 2, 20, 5, 3, False),
        ("hurricane_charge", 15, 0, 18, 2, 1, False),
        ("typhoon_charge", 35, 0, 40, 10, 2, True),
    ],
)
def test_an_explosion_is_set_against_pd_alone_whatever_the_evasion(
    equipment: str, power: int, flat: int, pd: int, evasion: int, cp: int, cover: bool
) -> None:
    """RULINGS 3.3: "Power of the explosion + 1 D20 / Physical Defense"; Evasion dodges shots
    and blows, not a blast. A figurine with Evasion fares as one with Evasion 0, and both as
    the 20 faces counted against the PD (+ the cover bonus where the blast respects it)."""
    options = D20Options(cover_bonus=5)
    respects_cover = equipment != "flaming_grenade"
    thrower = grenadier(equipment)
    fields = [{"cover": cover}]
    dodger = attack(
        thrower,
        [fig(pd=pd, evasion=evasion, cp=cp)],
        fields=fields,
        mode="explosion",
        options=options,
    )
    still = attack(
        thrower, [fig(pd=pd, evasion=0, cp=cp)], fields=fields, mode="explosion", options=options
    )
    assert dodger.problems() == () == still.problems()
    against = pd + (5 if cover and respects_cover else 0)
    expected = _faces(power, against, cp, flat)
    # each case tells the two rules apart: PD + Evasion would give other odds
    assert expected != _faces(power, against + evasion, cp, flat)
    assert outcomes(dodger) == outcomes(still)
    assert outcomes(dodger) == {k: approx(v) for k, v in expected.items()}
    assert dodger.odds().detail == still.odds().detail
    assert dodger.odds().detail["targets"][0]["defence"] == against
    assert dodger.odds().lines[0].steps[-1] == (
        "+ 1D20 against",
        "PD (+ cover)" if respects_cover else "PD",
    )


def test_a_shot_and_a_blow_still_count_evasion_and_not_while_shaken() -> None:
    target, flat_footed = fig(pd=18, evasion=4, cp=1), fig(pd=18, evasion=0, cp=1)
    shot = attack(fig(weapons=[RIFLE]), [target])  # Shot 8 + Power 6
    expected = _faces(14, 18 + 4, 1)
    assert outcomes(shot) == {k: approx(v) for k, v in expected.items()}
    assert outcomes(shot) != outcomes(attack(fig(weapons=[RIFLE]), [flat_footed]))
    blow = attack(fig(weapons=[KNIFE]), [target], mode="blow")  # HtH 6 + Power 4
    assert outcomes(blow) == {k: approx(v) for k, v in _faces(10, 22, 1).items()}
    shaken = attack(fig(weapons=[RIFLE]), [target], shaken=True)
    assert outcomes(shaken) == {k: approx(v) for k, v in _faces(14, 18, 1).items()}


def test_the_cover_bonus_option_and_flaming_grenades_ignore_cover() -> None:
    target = fig(pd=30)
    options = D20Options(cover_bonus=10)
    frag = attack(
        grenadier("defensive_grenade"), [target], mode="explosion", cover=True, options=options
    )
    assert frag.odds().detail["targets"][0]["defence"] == 40
    fire = attack(
        grenadier("flaming_grenade"), [target], mode="explosion", cover=True, options=options
    )
    assert fire.odds().detail["targets"][0]["defence"] == 30


def test_a_flaming_grenade_takes_2_cp_from_every_figurine_besides_the_roll() -> None:
    # F15 + 1D20 vs PD 20: naturals 6..20 wound (15/20) for 1 CP more
    made = attack(
        grenadier("flaming_grenade"), [fig(pd=20, cp=5), fig(pd=40, cp=2)], mode="explosion"
    )
    first, second = made.odds().detail["targets"]
    assert first["cp_lost"] == {"2": pytest.approx(5 / 20), "3": pytest.approx(15 / 20)}
    assert first["wound"] == 1.0
    assert second["out"] == 1.0  # 2 CP of 2
    assert made.odds().detail["wounded_count"]["2"] == pytest.approx(1.0)


def test_the_searing_grenade_on_three_psy_chronos() -> None:
    """The text's example: three Chronos caught by the flash are all Shaken; no roll."""
    chronos = [fig(f"Psy Chronos {n}", pd=18, evasion=4, cp=2) for n in (1, 2, 3)]
    made = attack(grenadier("searing_grenade"), chronos, mode="explosion", cover=True, distance=15)
    assert made.problems() == ()
    odds = made.odds()
    for target in odds.lines[0].targets:
        assert target.probability("shaken") == 1.0
        assert target.probability("unhurt") == 1.0
    roll = made.roll(random.Random(3))
    assert roll.lines[0].dice == ()
    assert roll.detail["targets"] == [{"cp_lost": 0, "shaken": True, "wounded": False}] * 3


def test_grenades_do_not_hit_more_than_5_cm_above_the_blast() -> None:
    targets = [fig(pd=20), fig(pd=20), fig(pd=20)]
    fields = [{}, {"height": 5}, {"height": 6}]
    made = attack(grenadier("defensive_grenade"), targets, fields=fields, mode="explosion")
    wound = [t["wound"] for t in made.odds().detail["targets"]]
    assert wound == [pytest.approx(1.0), pytest.approx(1.0), 0.0]
    roll = made.roll(random.Random(1))
    assert [d.target for d in roll.lines[0].dice] == [0, 1]
    # the mine and charges are not grenades: height does not save from them
    mine = attack(
        fig(weapons=[{"type": "hypersensor_mine"}]), targets, fields=fields, mode="explosion"
    )
    assert mine.odds().detail["targets"][2]["wound"] == pytest.approx(1.0)


def test_a_mine_shakes_every_figurine_hurt_or_not() -> None:
    made = attack(
        fig(weapons=[{"type": "hypersensor_mine"}]), [fig(pd=40), fig(pd=30)], mode="explosion"
    )
    odds = made.odds()
    assert [t.probability("shaken") for t in odds.lines[0].targets] == [1.0, 1.0]
    assert odds.detail["targets"][0]["wound"] == pytest.approx(5 / 20)  # 25 + 16..20 > 40
    assert all(t["shaken"] for t in made.roll(random.Random(2)).detail["targets"])


def test_two_p10_charges_set_together_are_p20() -> None:
    """The text's synergy example: two 10-Power explosives add up to 20."""
    two = fig(weapons=[{"type": "lightning_charge"}, {"type": "lightning_charge"}])
    made = attack(two, [fig(pd=30)], (0, 1), mode="explosion")
    assert made.problems() == ()
    assert made.odds().detail["power"] == 20
    assert made.odds().detail["targets"][0]["wound"] == pytest.approx(10 / 20)  # 20 + 11..20
    alone = attack(two, [fig(pd=30)], (0,), mode="explosion")
    assert alone.odds().detail["targets"][0]["wound"] == 0.0


def test_the_cupboard_of_dl_10_against_a_p15_charge() -> None:
    """The text's example: the cupboard's DL 10 against P15/r10: a 1 is enough."""
    made = attack(
        fig(weapons=[{"type": "hurricane_charge"}]), [fig(pd=40)], mode="explosion", objects="10"
    )
    assert made.odds().detail["objects"] == [{"dl": 10, "destroyed": 1.0}]
    for seed in range(50):
        assert made.roll(random.Random(seed)).detail["objects"] == [{"dl": 10, "destroyed": True}]


@pytest.mark.parametrize("dl", [0, 10, 15, 16, 20, 34, 35, 36])
def test_objects_are_destroyed_when_the_dl_is_at_least_1_lower(dl: int) -> None:
    made = attack(
        fig(weapons=[{"type": "hurricane_charge"}]), [fig()], mode="explosion", objects=f"{dl}"
    )
    expected = Fraction(sum(1 for n in range(1, 21) if dl <= 15 + n - 1), 20)
    assert made.odds().detail["objects"][0]["destroyed"] == approx(expected)


def test_explosions_are_refused_as_the_rules_say() -> None:
    grunt = grenadier("defensive_grenade", su=False)
    grunt = fig("Grunt", [{"type": "defensive_grenade"}])
    assert (
        "Only SUs carry grenades; Grunt is not an SU."
        in attack(grunt, [fig()], mode="explosion").problems()
    )
    far = attack(grenadier("defensive_grenade"), [fig()], mode="explosion", distance=21)
    assert far.problems() == ("21 cm is beyond Defensive Grenade's Reach (20 cm).",)
    two = grenadier("defensive_grenade", "flaming_grenade")
    assert attack(two, [fig()], (0, 1), mode="explosion").problems() == (
        "Only charges set together explode together (their Power adds).",
    )
    assert attack(fig(weapons=[RIFLE]), [fig()], mode="explosion").problems() == (
        "Only grenades, mines and charges explode.",
    )


@pytest.mark.parametrize("objects", ["x", "10, -1", ",".join(["1"] * 21), "201"])
def test_bad_objects_are_refused_by_name(objects: str) -> None:
    with pytest.raises(InvalidInput) as err:
        attack(grenadier("defensive_grenade"), [fig()], mode="explosion", objects=objects)
    assert err.value.field == "objects"


# ------------------------------------------------------------------ defusing


@pytest.mark.parametrize(("dexterity", "dl"), [(5, 10), (5, 15), (0, 35), (20, 15), (0, 0)])
def test_defusing_is_dexterity_plus_d20_greater_than_the_dl(dexterity: int, dl: int) -> None:
    made = attack(fig(dexterity=dexterity), [fig()], (), mode="defuse", dl=dl)
    expected = Fraction(sum(1 for n in range(1, 21) if dexterity + n > dl), 20)
    assert made.odds().detail["defused"] == approx(expected)
    assert made.odds().lines[0].note("defused") == approx(expected)


def test_a_charges_dl_is_its_power() -> None:
    defuser = fig(dexterity=5, weapons=[{"type": "typhoon_charge"}, {"type": "hurricane_charge"}])
    made = attack(defuser, [fig()], (1,), mode="defuse")
    assert made.odds().detail["dl"] == 15
    assert made.odds().detail["defused"] == pytest.approx(10 / 20)  # 5 + 11..20 > 15
    assert attack(fig(), [fig()], (), mode="defuse").problems() == (
        "Give the charge's DL, or choose the charges to defuse.",
    )


# ------------------------------------------------------------------ rolls


def test_seeded_rolls_follow_the_rules_die_by_die() -> None:
    options = D20Options(margin_wounds=True)
    targets = [fig(pd=p, cp=3) for p in (15, 22, 18, 30)]
    made = attack(fig(weapons=[RIFLE]), targets, options=options, mode="automatic")
    bonuses = [13, 12, 11, 10]
    for seed in range(200):
        roll = made.roll(random.Random(seed))
        dice = roll.lines[0].dice
        assert [d.target for d in dice] == [0, 1, 2, 3]
        for die, target, bonus, data in zip(
            dice, targets, bonuses, roll.detail["targets"], strict=True
        ):
            lost = min(3, cp_lost(bonus, target.pd, die.natural, margin_wounds=True))
            assert die.value == bonus + die.natural
            assert data == {"cp_lost": lost, "shaken": False, "wounded": lost > 0}
        assert roll == made.roll(random.Random(seed))


def test_a_seeded_explosion_rolls_each_object_and_is_reproducible() -> None:
    made = attack(
        fig(weapons=[{"type": "typhoon_charge"}]),
        [fig(pd=40)],
        mode="explosion",
        objects="40, 50, 54",
    )
    seen = set()
    for seed in range(300):
        roll = made.roll(random.Random(seed))
        naturals = [d.natural for d in roll.lines[0].dice[1:]]
        assert [o["destroyed"] for o in roll.detail["objects"]] == [
            dl <= 35 + n - 1 for dl, n in zip((40, 50, 54), naturals, strict=True)
        ]
        seen.add(tuple(o["destroyed"] for o in roll.detail["objects"]))
    assert (True, True, True) in seen and (False, False, False) in seen


def test_monte_carlo_of_an_explosion_agrees_with_the_exact_number_wounded() -> None:
    made = attack(
        grenadier("defensive_grenade"),
        [fig(pd=p) for p in (30, 35, 40, 28, 33)],
        mode="explosion",
        objects="30",
    )
    exact = made.odds().detail["wounded_count"]
    rolls = 20_000
    counts: dict[int, int] = {}
    rng = random.Random(2026)
    for _ in range(rolls):
        k = sum(t["wounded"] for t in made.roll(rng).detail["targets"])
        counts[k] = counts.get(k, 0) + 1
    for k, p in exact.items():
        se = (max(p * (1 - p), 1e-12) / rolls) ** 0.5
        assert abs(counts.get(int(k), 0) / rolls - p) <= 4 * se + 1e-9


# ------------------------------------------------------------------ the interface


def test_bad_targets_and_weapons_are_refused_by_name() -> None:
    shooter = fig(weapons=[RIFLE])
    with pytest.raises(InvalidInput) as err:
        attack(shooter, [fig(), fig()], fields=[{}, {"height": -1}], mode="automatic")
    assert err.value.field == "targets.1.height"
    with pytest.raises(InvalidInput) as err:
        attack(shooter, [fig(), fig()], fields=[{}, {"range": 1}], mode="automatic")
    assert err.value.field == "targets.1.range"
    with pytest.raises(InvalidInput) as err:
        attack(shooter, [fig()], (3,))
    assert err.value.field == "weapons"
    with pytest.raises(InvalidInput) as err:
        attack(shooter, [fig()] * 61, mode="automatic")
    assert err.value.field == "targets"
    with pytest.raises(InvalidInput) as err:
        attack(shooter, [fig()], mode="volley")
    assert err.value.field == "mode"


def test_the_situation_round_trips_and_defaults() -> None:
    values = {f.name: f.default for f in RULESET.situation_fields}
    situation = RULESET.decode_situation(values)
    assert RULESET.encode_situation(situation) == values
    changed = RULESET.decode_situation(values | {"mode": "explosion", "objects": "10, 15"})
    assert RULESET.decode_situation(RULESET.encode_situation(changed)) == changed


def test_default_weapons_and_their_cost() -> None:
    unit = fig(
        weapons=[
            {"type": "lightning_charge", "points": 2},
            KNIFE | {"points": 3},
            RIFLE | {"points": 7},
        ]
    )
    assert RULESET.default_weapons(unit, OPTIONS) == (2,)
    assert RULESET.weapons_cost(unit, (0, 2), OPTIONS) == 9
    assert RULESET.default_weapons(fig(), OPTIONS) == ()


def test_big_attacks_go_to_the_workers_and_travel_there_intact() -> None:
    small = attack(fig(weapons=[RIFLE]), [fig()] * 8, mode="automatic")
    big = attack(
        grenadier("defensive_grenade"),
        [fig(pd=p % 40) for p in range(40)],
        mode="explosion",
        objects="10, 20",
    )
    assert small.inline() and not big.inline()
    again = pickle.loads(pickle.dumps(big))  # noqa: S301 (our own bytes: what the workers do)
    assert again == big and again.odds() == big.odds()
