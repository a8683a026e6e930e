"""Odds and rolls between saved units, checked against a hand computation."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.rules.brikwars import attacks as atk
from app.rules.brikwars import unit_from_dict
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
