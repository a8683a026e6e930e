"""Odds and rolls between saved units, checked against a hand computation."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pytest

from app.rules.brikwars import attacks as atk
from app.rules.brikwars import unit_from_dict
from tests.rules.brikwars.attack_support import G, armour_table, damage_vs_armour
from tests.web.conftest import Member


def api(member: Member, method: str, url: str, **kw):  # type: ignore[no-untyped-def]
    return member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)


@pytest.fixture
def duel(member: Member) -> dict[str, int]:
    army = api(member, "POST", "/api/v1/armies", json={"name": "Duel", "budget": 50}).json()
    shooter = api(
        member,
        "POST",
        f"/api/v1/armies/{army['id']}/units",
        json={"name": "Shooter", "kind": "minifig", "weapons": [{"type": "short_ranged_weapon"}]},
    ).json()
    target = api(
        member,
        "POST",
        f"/api/v1/armies/{army['id']}/units",
        json={"name": "Target", "kind": "minifig"},
    ).json()
    return {
        "army": army["id"],
        "shooter": shooter["id"],
        "weapon": shooter["weapons"][0]["id"],
        "target": target["id"],
    }


def _body(duel: dict[str, int], **situation: object) -> dict[str, object]:
    return {
        "attacker": {
            "army_id": duel["army"],
            "unit_id": duel["shooter"],
            "weapon_id": duel["weapon"],
        },
        "target": {"army_id": duel["army"], "unit_id": duel["target"]},
        "situation": situation,
    }


def test_minifig_duel_matches_a_hand_computation(member: Member, duel: dict[str, int]) -> None:
    """Short-Ranged Weapon (Use 3, 1d6) at 2" against a minifig (Armour 4), by hand:
    natural 1-2 miss; 3-5 hit with 1d6 (5 or 6 beat 4, a 4 is Something Bad); a natural 6
    is Over the Top: 2d6, of which 6/36 total 4 or less (3/36 exactly 4, 1/36 all ones)."""
    odds = api(member, "POST", "/api/v1/calculator/odds", json=_body(duel, distance=2)).json()
    assert odds["miss"] == pytest.approx(72 / 216, abs=1e-9)
    assert odds["destroyed"] == pytest.approx(66 / 216, abs=1e-9)
    assert odds["something_bad"] == pytest.approx(21 / 216, abs=1e-9)
    assert odds["no_effect"] == pytest.approx(57 / 216, abs=1e-9)
    assert odds["size_damage"] == 0
    assert (odds["attacker"], odds["weapon"], odds["target"]) == (
        "Shooter",
        "Short-Ranged Weapon",
        "Target",
    )


def test_the_odds_are_the_engines(member: Member, duel: dict[str, int]) -> None:
    body = _body(duel, distance=8, firing_blind=True, visible_sections=2)
    odds = api(member, "POST", "/api/v1/calculator/odds", json=body).json()
    shooter = unit_from_dict(
        {"name": "S", "kind": "minifig", "weapons": [{"type": "short_ranged_weapon"}]}
    )
    engine = atk.attack_of(
        shooter,
        shooter.weapons[0],
        atk.target_of(unit_from_dict({"name": "T", "kind": "minifig"}), visible_sections=2),
        distance=Fraction(8),
        situation=atk.Situation(firing_blind=True),
    ).odds()
    for name in ("miss", "no_effect", "something_bad", "destroyed"):
        assert odds[name] == pytest.approx(getattr(engine, name), abs=1e-12)
    near = api(member, "POST", "/api/v1/calculator/odds", json=_body(duel, distance=2)).json()
    assert odds["miss"] > near["miss"]  # out of range, blind and half hidden: harder


def test_seeded_rolls_repeat_and_log_every_die(member: Member, duel: dict[str, int]) -> None:
    body = {**_body(duel, distance=2), "seed": 1234}
    first = api(member, "POST", "/api/v1/calculator/roll", json=body).json()
    again = api(member, "POST", "/api/v1/calculator/roll", json=body).json()
    assert first == again and first["seed"] == 1234
    assert first["dice"][0]["sides"] == 6 and first["dice"][0]["purpose"]
    fresh = api(member, "POST", "/api/v1/calculator/roll", json=_body(duel)).json()
    assert isinstance(fresh["seed"], int)


def test_bad_and_foreign_attacks_are_refused(
    member: Member, stranger: Member, duel: dict[str, int]
) -> None:
    body = _body(duel)
    body["attacker"] = {**body["attacker"], "weapon_id": 9999}  # type: ignore[dict-item]
    r = api(member, "POST", "/api/v1/calculator/odds", json=body)
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "attacker.weapons"
    assert "Shooter has no such weapon" in r.text
    r = api(member, "POST", "/api/v1/calculator/odds", json=_body(duel, distance=-1))
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "situation.distance"
    r = api(stranger, "POST", "/api/v1/calculator/odds", json=_body(duel))
    assert r.status_code == 404 and "Shooter" not in r.text


TANK = {
    "name": "Tank",
    "kind": "creation",
    "size": 4,
    "structure_level": 2,
    "weapons": [
        {"type": "gun", "size": 3},
        {"type": "machinegun", "size": 2},
        {"type": "gun", "size": 6},
    ],
}


@pytest.fixture
def column(member: Member, duel: dict[str, int]) -> dict[str, object]:
    tank = api(member, "POST", f"/api/v1/armies/{duel['army']}/units", json=TANK).json()
    return {**duel, "tank": tank["id"], "guns": [w["id"] for w in tank["weapons"]]}


def _turn(column: dict, weapons: list[int], **extra: object) -> dict[str, object]:
    return {
        "attacker": {"unit_id": column["tank"], "weapon_ids": weapons},
        "target": {"unit_id": column["target"]},
        **extra,
    }


def test_a_turn_of_two_weapons_and_its_power(member: Member, column: dict) -> None:
    gun, mg, big = column["guns"]
    odds = api(member, "POST", "/api/v1/calculator/odds", json=_turn(column, [gun, mg])).json()
    assert [line["weapons"] for line in odds["lines"]] == [[gun], [mg]]
    assert odds["any_destroying"] == pytest.approx(
        1 - (1 - odds["lines"][0]["destroyed"]) * (1 - odds["lines"][1]["destroyed"])
    )
    # 3" + 2" + 6" = 11" of Power against the Tank's 8": refused, naming why
    r = api(member, "POST", "/api/v1/calculator/odds", json=_turn(column, [gun, mg, big]))
    assert r.status_code == 422
    detail = r.json()["detail"][0]
    assert detail["field"] == "attacker.weapon_ids" and 'need 11" of Power' in detail["reason"]


def test_burst_and_arc_fire_from_saved_units(member: Member, column: dict) -> None:
    mg = column["guns"][1]
    burst = api(
        member,
        "POST",
        "/api/v1/calculator/odds",
        json=_turn(column, [mg], situation={"burst": 3}),
    ).json()
    assert burst["lines"][0]["kind"] == "burst" and 0 < burst["lines"][0]["jam"] < 1
    arc = api(
        member,
        "POST",
        "/api/v1/calculator/odds",
        json=_turn(
            column,
            [mg],
            situation={"arc": 2, "distance": 3},
            followers=[{"unit_id": column["shooter"], "distance": 4}],
        ),
    ).json()
    assert arc["lines"][0]["kind"] == "arc" and len(arc["lines"][0]["targets"]) == 2


def test_a_rolled_turn_lists_every_die_per_line(member: Member, column: dict) -> None:
    gun, mg, _ = column["guns"]
    body = {**_turn(column, [gun, mg], situation={"burst": 2}), "seed": 99}
    first = api(member, "POST", "/api/v1/calculator/roll", json=body).json()
    assert first == api(member, "POST", "/api/v1/calculator/roll", json=body).json()
    assert [line["kind"] for line in first["lines"]] == ["single", "burst"]
    assert first["dice"] == [d for line in first["lines"] for d in line["dice"]]
    assert first["lines"][0]["dice"][0]["purpose"] == "action"


def test_allies_join_a_combined_attack(member: Member, column: dict) -> None:
    gun = column["guns"][0]
    body = _turn(column, [gun], situation={"distance": 2})
    body["allies"] = [{"unit_id": column["shooter"]}]
    odds = api(member, "POST", "/api/v1/calculator/odds", json=body).json()
    assert [line["kind"] for line in odds["lines"]] == ["combined"]
    assert "Shooter's Short-Ranged Weapon" in odds["lines"][0]["label"]


def test_a_missile_rack_launch_is_one_line_and_one_action_die_per_round(
    member: Member, duel: dict[str, int]
) -> None:
    """Ruling T6: the calculator shows each of the three rounds, odds and roll alike."""
    rack = {
        "name": "Rack",
        "kind": "creation",
        "size": "4",
        "structure_level": "2",
        "weapons": [
            {
                "type": "launcher",
                "size": 3,
                "payload": {"explosive": {"xsize": 1, "rounds": 6}, "per_launch": 3},
            }
        ],
    }
    unit = api(member, "POST", f"/api/v1/armies/{duel['army']}/units", json=rack).json()
    body = {
        "attacker": {"unit_id": unit["id"], "weapon_ids": [unit["weapons"][0]["id"]]},
        "target": {"unit_id": duel["target"]},
        "situation": {"distance": 4},
    }
    odds = api(member, "POST", "/api/v1/calculator/odds", json=body).json()
    assert [line["label"][-12:] for line in odds["lines"]] == [
        "round 1 of 3",
        "round 2 of 3",
        "round 3 of 3",
    ]
    assert [line["kind"] for line in odds["lines"]] == ["explosive"] * 3
    rolled = api(member, "POST", "/api/v1/calculator/roll", json={**body, "seed": 3}).json()
    actions = [d for line in rolled["lines"] for d in line["dice"] if d["purpose"] == "action"]
    skipped = [line for line in rolled["lines"] if not line["dice"]]
    assert len(rolled["lines"]) == 3 and len(actions) + len(skipped) == 3


# ------------------------------------------------- chapter 8's worked examples, between saved units
# Each is computed apart from the engine: the text's own figures, and a face-by-face walk over
# the Action die with the Damage and Armour oracle of ``tests.rules.brikwars.attack_support``.


def _oracle(
    use: int, modifier: int, groups: list[G], damage_modifier: int, armour: dict[int, float]
) -> dict[str, float]:
    """One d6 attack by listing the Action faces: a natural 1 misses, a 6 always hits and is
    Over the Top (one more Damage die), else the face plus ``modifier`` must reach ``use``;
    a hit's Damage above the Armour harms, equal is Something Bad, all ones do nothing."""
    plain = damage_vs_armour(groups, damage_modifier, 0, armour, 6)
    over = damage_vs_armour([*groups, groups[0]], damage_modifier, 0, armour, 6)
    out = {"miss": 0.0, "no_effect": 0.0, "something_bad": 0.0, "harmed": 0.0}
    for face in range(1, 7):
        if face == 1 or (face != 6 and face + modifier < use):
            out["miss"] += 1 / 6
            continue
        t = over if face == 6 else plain
        out["no_effect"] += (t["less"] + t["critical_failure"]) / 6
        out["something_bad"] += t["equal"] / 6
        out["harmed"] += t["greater"] / 6
    return out


def _matches(got: dict[str, float], want: dict[str, float]) -> None:
    assert got["miss"] == pytest.approx(want["miss"], abs=1e-9)
    assert got["no_effect"] == pytest.approx(want["no_effect"], abs=1e-3)
    assert got["something_bad"] == pytest.approx(want["something_bad"], abs=1e-3)
    harmed = got["destroyed"] + got["size_damage"]
    assert harmed == pytest.approx(want["harmed"], abs=1e-3)


def _units(member: Member, *bodies: dict[str, Any]) -> list[dict[str, Any]]:
    army = api(member, "POST", "/api/v1/armies", json={"name": "Ch. 8", "budget": 500}).json()
    out = []
    for body in bodies:
        r = api(member, "POST", f"/api/v1/armies/{army['id']}/units", json=body)
        assert r.status_code == 201, r.text
        out.append(r.json())
    return out


def _fire(
    attacker: dict[str, Any],
    target: dict[str, Any],
    followers: Sequence[dict[str, object]] = (),
    **situation: object,
) -> dict[str, Any]:
    return {
        "attacker": {"unit_id": attacker["id"], "weapon_ids": [attacker["weapons"][0]["id"]]},
        "target": {"unit_id": target["id"]},
        "situation": situation,
        "followers": list(followers),
    }


def test_burnination_dragon_over_a_cottage_and_three_peasants(member: Member) -> None:
    """Chapter 8, "Fire Example: Burnination": a 3" FlameThrower (Use 4, Range 8", 3d4 Fire)
    in an Arc of 1 over the cottage (4" of it in the Arc: +2 Action and Damage) and three
    peasants, the last 1" Out of Range: -1 Auto Penalty, so the cottage is hit on a natural 3+
    (+1 in all), a peasant on a 5+ (a 4 fails), the far one only on a 6 (-2), with -1 on each
    of its Damage dice."""
    dragon, cottage, peasant = _units(
        member,
        {
            "name": "Dragon",
            "kind": "creation",
            "size": 3,
            "structure_level": 1,
            "weapons": [{"type": "flamethrower", "size": 3}],
        },
        {"name": "Cottage", "kind": "creation", "size": 6, "structure_level": 2},
        {"name": "Peasant", "kind": "minifig"},
    )
    flame = dragon["weapons"][0]["stats"]
    assert (flame["use"], flame["range_inches"], flame["damage"]["text"]) == (4, 8, "3d4 Fire")
    followers = [{"unit_id": peasant["id"], "distance": d} for d in (6, 7, 9)]
    body = _fire(dragon, cottage, followers, arc=1, distance=5, visible_size=4)
    r = api(member, "POST", "/api/v1/calculator/odds", json=body)
    assert r.status_code == 200, r.text
    (line,) = r.json()["lines"]
    steps = {s["label"]: s["value"] for s in line["steps"]}
    assert (steps["target size and visibility"], steps["Auto Penalty"]) == ("+2", "-1")
    assert steps["Damage"] == "3d4 +2" and line["jam"] == pytest.approx(0, abs=1e-12)
    cottage_odds, first, second, far = line["targets"]
    assert [t["miss"] for t in line["targets"]] == pytest.approx([2 / 6, 4 / 6, 4 / 6, 5 / 6])
    wall = armour_table([G(10), G(10)], 3)  # a Size 6" Structure Level 2 Creation: 2d10
    _matches(cottage_odds, _oracle(4, 2 - 1, [G(4)] * 3, 2, wall))
    for peasant_odds in (first, second):
        _matches(peasant_odds, _oracle(4, -1, [G(4)] * 3, 0, {4: 1.0}))
    _matches(far, _oracle(4, -2, [G(4, per_die=-1)] * 3, 0, {4: 1.0}))
    # Fire Damage sets whatever it hits on Fire, the peasant it does not kill included.
    assert far["on_fire"] == pytest.approx(1 / 6, abs=1e-3)


def test_your_mama_flamegun_arc_of_two_at_plus_two(member: Member) -> None:
    """Chapter 8, "Arc Example: Your Mama": a FlameGun fired in an Arc of 2 at a 4" target:
    the +2 Target Size Bonus cancels the -2 Auto Penalty and, in Arc Fire, adds +2 Damage.
    (The calculator's first target spans no points; a further target spanning both points of
    the Arc takes three attacks.)"""
    trooper, mama, mook = _units(
        member,
        {"name": "Trooper", "kind": "minifig", "weapons": [{"type": "flamegun"}]},
        {"name": "Your Mama", "kind": "creation", "size": 4, "structure_level": 1},
        {"name": "Mook", "kind": "minifig"},
    )
    gun = trooper["weapons"][0]["stats"]
    assert (gun["use"], gun["damage"]["text"]) == (2, "1d4+1 Fire")
    r = api(member, "POST", "/api/v1/calculator/odds", json=_fire(trooper, mama, arc=2, distance=2))
    assert r.status_code == 200, r.text
    (line,) = r.json()["lines"]
    steps = {s["label"]: s["value"] for s in line["steps"]}
    assert (steps["target size and visibility"], steps["Auto Penalty"]) == ("+2", "-2")
    assert steps["Damage"] == "1d4 +3"
    armour = armour_table([G(mama["armor"]["sides"])] * mama["armor"]["dice"], 3)
    _matches(line["targets"][0], _oracle(2, 0, [G(4)], 1 + 2, armour))
    spanning = [{"unit_id": mama["id"], "distance": 2, "spans": 2}]
    r = api(
        member,
        "POST",
        "/api/v1/calculator/odds",
        json=_fire(trooper, mook, spanning, arc=2, distance=2),
    )
    steps = {s["label"]: s["value"] for s in r.json()["lines"][0]["steps"]}
    assert steps["shots"] == "4"  # one at the Mook, three at Your Mama


def test_shotgun_wedding_damage_falls_with_distance_and_cover(member: Member) -> None:
    """Chapter 8, "BlastGun Example: ShotGun Wedding": a ShotGun (1d8+1 - distance, Arc 1,
    no Auto Penalty): Constance in the first inch takes 1d8+1, Wooyang an inch away 1d8, the
    parson four inches away 1d8-3; Virginia two inches away behind 1/3 cover 1d8-2, Purity
    three inches away almost hidden 1d8-4, Constance's baby (a small target) 1d8."""
    grundy, bride, wooyang, parson = _units(
        member,
        {"name": "Grundy", "kind": "minifig", "weapons": [{"type": "shotgun"}]},
        {"name": "Bride", "kind": "minifig"},
        {"name": "Wooyang", "kind": "minifig"},
        {"name": "Parson", "kind": "minifig"},
    )
    gun = grundy["weapons"][0]["stats"]
    assert (gun["use"], gun["damage"]["text"]) == (3, "1d8+1 − distance")
    followers = [
        {"unit_id": wooyang["id"], "distance": 1},
        {"unit_id": parson["id"], "distance": 4},
    ]
    # The first target's cover and small Target Size are Target Size modifiers: in Arc Fire
    # they count on the Action Roll as well as on the Damage.
    for situation, size, damage, text in (
        ({"distance": 0.5}, 0, 1, "1d8 +1"),  # Constance, within the first inch
        ({"distance": 2, "visible_sections": 2}, -1, -2, "1d8 -2"),  # Virginia
        ({"distance": 3, "visible_sections": 1}, -2, -4, "1d8 -4"),  # Purity
        ({"distance": 0.5, "small": "2x2"}, -1, 0, "1d8"),  # Constance's baby
    ):
        body = _fire(grundy, bride, followers, **situation)
        r = api(member, "POST", "/api/v1/calculator/odds", json=body)
        assert r.status_code == 200, r.text
        (line,) = r.json()["lines"]
        steps = {s["label"]: s["value"] for s in line["steps"]}
        assert "Auto Penalty" not in steps and steps["Damage"] == text, situation
        first, then_wooyang, then_parson = line["targets"]
        _matches(first, _oracle(3, size, [G(8)], damage, {4: 1.0}))
        _matches(then_wooyang, _oracle(3, 0, [G(8)], 0, {4: 1.0}))
        _matches(then_parson, _oracle(3, 0, [G(8)], -3, {4: 1.0}))


def test_a_shotgun_at_one_target_loses_damage_with_distance(member: Member) -> None:
    """A BlastGun is an Arc of 1 with or without further targets: the parson four inches
    away takes 1d8-3 when he is the only target too (the single-attack path once left the
    distance out: 1d8+1)."""
    grundy, parson = _units(
        member,
        {"name": "Grundy", "kind": "minifig", "weapons": [{"type": "shotgun"}]},
        {"name": "Parson", "kind": "minifig"},
    )
    for distance, damage, text in ((0.5, 1, "1d8 +1"), (2, -1, "1d8 -1"), (4, -3, "1d8 -3")):
        r = api(
            member, "POST", "/api/v1/calculator/odds", json=_fire(grundy, parson, distance=distance)
        )
        assert r.status_code == 200, r.text
        (line,) = r.json()["lines"]
        steps = {s["label"]: s["value"] for s in line["steps"]}
        assert steps["Damage"] == text, (distance, steps)
        (target,) = line["targets"]
        _matches(target, _oracle(3, 0, [G(8)], damage, {4: 1.0}))


def test_missile_racks_fire_three_rounds_each_at_use_six(member: Member) -> None:
    """Chapter 8, "Payload Example: Missile Racks": each rack is a Size 3" Launcher loaded
    with six Size 1 Explosives; it fires up to three of them a turn, rolling a Use:6 Action
    Roll separately for each (on a d6: only a natural 6 hits)."""
    rack = {
        "type": "launcher",
        "size": 3,
        "payload": {"explosive": {"xsize": 1, "rounds": 6}, "per_launch": 3},
    }
    titan, target = _units(
        member,
        {
            "name": "Uber-Titan",
            "kind": "creation",
            "size": 6,
            "structure_level": 2,
            "weapons": [rack, {**rack, "label": "right rack"}],
        },
        {"name": "Target", "kind": "minifig"},
    )
    assert [w["stats"]["use"] for w in titan["weapons"]] == [6, 6]
    body = _fire(titan, target, distance=4)
    body["attacker"]["weapon_ids"] = [w["id"] for w in titan["weapons"]]
    r = api(member, "POST", "/api/v1/calculator/odds", json=body)
    assert r.status_code == 200, r.text
    lines = r.json()["lines"]
    assert [line["label"][-12:] for line in lines] == [f"round {k} of 3" for k in (1, 2, 3)] * 2
    for line in lines:
        steps = {s["label"]: s["value"] for s in line["steps"]}
        assert (steps["Action roll"], steps["Explosion"]) == ("d6 against Use 6", "1d10 Explosion")
        # a natural 6 is Over the Top: 2d10 against the minifig's Armour 4
        _matches(line, _oracle(6, 0, [G(10)], 0, {4: 1.0}))
