"""The Degrees calculator over HTTP: the stateless ``/api/v1/rulesets/degrees/odds`` and
``/roll`` contract of issue 12 (odds checked against enumeration of the d10), their refusals
by field, and the calculator page, its fragment and its API on saved Degrees units."""

from __future__ import annotations

import html
import json
from collections import Counter
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db.models import Unit, User, Weapon
from app.services import transfer
from app.services.army_document import FORMAT, VERSION
from tests.rules.degrees.brute import S, enumerate_dice, shot
from tests.web.conftest import Member

ODDS = "/api/v1/rulesets/degrees/odds"
ROLL = "/api/v1/rulesets/degrees/roll"
ISSUE_BODY = {
    "attack": {"degree": 5, "modifier": -1, "penetrates_on": 1},
    "target": {"armour": 3, "hp": 3},
}


def _brute(
    degree: int, armour: int, hp: int, penetrates_on: int, type_id: str = "standard"
) -> Counter[S]:
    return enumerate_dice(
        2,
        lambda dice: shot(S(armour, 0, hp), type_id, degree, dice, penetrates_on=penetrates_on),
    )


def _dist(brute: Counter[S], of: str) -> dict[str, float]:
    out: Counter[str] = Counter()
    for s, p in brute.items():
        out[str(getattr(s, of))] += p
    return dict(out)


@pytest.mark.parametrize(
    ("body", "degree", "penetrates_on"),
    [
        (ISSUE_BODY, 4, 1),
        ({"attack": {"degree": 6}, "target": {"armour": 3, "hp": 3}}, 6, 1),
        ({"attack": {"degree": 7, "penetrates_on": 0}, "target": {"armour": 4, "hp": 2}}, 7, 0),
        (
            {
                "attack": {"degree": 3, "penetrates_on": 3, "op": 1},
                "target": {"armour": 1, "hp": 4},
            },
            4,
            3,
        ),
    ],
)
def test_the_stateless_odds_answer_the_issues_contract_exactly(
    client: TestClient, body: dict[str, Any], degree: int, penetrates_on: int
) -> None:
    r = client.post(ODDS, json=body)
    assert r.status_code == 200, r.text
    answer = r.json()
    target = body["target"]
    brute = _brute(degree, target["armour"], target["hp"], penetrates_on)
    fresh = S(target["armour"], 0, target["hp"])
    assert answer["hit"] == pytest.approx(sum(p for s, p in brute.items() if s != fresh))
    assert answer["destroyed"] == pytest.approx(sum(p for s, p in brute.items() if s.hp == 0))
    assert answer["critically_wounded"] == pytest.approx(
        sum(p for s, p in brute.items() if s.hp == 1)
    )
    for key, of in (("hp_left", "hp"), ("armour_left", "armour")):
        expected = {k: v for k, v in _dist(brute, of).items() if v > 1e-12}
        assert set(answer[key]) == set(expected)
        for value, p in expected.items():
            assert answer[key][value] == pytest.approx(p)
    (line,) = answer["lines"]
    assert sum(o["probability"] for o in line["targets"][0]["outcomes"]) == pytest.approx(1.0)


def test_the_issues_example_in_numbers(client: TestClient) -> None:
    """5° -1 = 4° against Armour 3, HP 3: rolls 1-4 hit; a natural 1 goes to the back line
    (HP 2 is worse than Armour 2); 2 and 3 strip Armour; 4 takes the Armour and 1 HP."""
    answer = client.post(ODDS, json=ISSUE_BODY).json()
    assert answer["hit"] == pytest.approx(0.4)
    assert answer["destroyed"] == 0.0 and answer["critically_wounded"] == 0.0
    assert answer["hp_left"] == {"2": pytest.approx(0.2), "3": pytest.approx(0.8)}
    assert answer["armour_left"] == {
        "0": pytest.approx(0.2),
        "1": pytest.approx(0.1),
        "3": pytest.approx(0.7),
    }


PUNCH_BODY = {"attack": {"degree": 2, "type": "punch_gun"}, "target": {"armour": 5, "hp": 5}}


def test_a_2_degree_punch_gun_keeps_its_natural_1_on_the_front(client: TestClient) -> None:
    """Issue 27: at 2° the penetrating roll would be at 0°, which cannot succeed (RULINGS 2.1,
    2.2): a natural 1 is 1 point on the front, like a 2; no HP is ever lost."""
    answer = client.post(ODDS, json=PUNCH_BODY).json()
    (target,) = answer["lines"][0]["targets"]
    outcomes = {o["key"]: o["probability"] for o in target["outcomes"]}
    assert outcomes["wounded"] == 0.0  # HP lost: was 0.1
    assert outcomes["armour"] == pytest.approx(0.2)  # Armour only: was 0.1
    assert answer["hp_left"] == {"5": pytest.approx(1.0)}
    assert answer["armour_left"] == {
        "3": pytest.approx(0.1),
        "4": pytest.approx(0.1),
        "5": pytest.approx(0.8),
    }
    natural_1 = 0
    for seed in range(40):
        rolled = client.post(ROLL, json=PUNCH_BODY | {"seed": seed}).json()
        (line,) = rolled["lines"]
        if line["dice"][0]["natural"] != 1:
            continue
        natural_1 += 1
        assert [d["purpose"] for d in line["dice"]] == ["attack vs 2°"]  # no second die
        (effect,) = line["effects"]
        assert effect["words"] == (
            "Armour 5 -> 4; the point on the front: a back-line roll at 0° cannot succeed"
        )
        assert rolled["targets"][0] == {
            "armour": 4,
            "back_armour": 0,
            "hp": 5,
            "ap_lost": 0,
            "restrained": False,
            "dampened": [],
        }
    assert natural_1


def test_a_stun_gun_type_drains_ap_in_the_stateless_odds(client: TestClient) -> None:
    body = {"attack": {"degree": 4, "type": "stun_gun"}, "target": {"armour": 3, "hp": 3, "ap": 3}}
    answer = client.post(ODDS, json=body).json()
    assert answer["armour_left"] == {"3": 1.0}
    assert answer["ap_lost"] == {
        "0": pytest.approx(0.6),
        "2": pytest.approx(0.2),  # a natural 1: 1 + 1 AP (and 1 HP)
        "3": pytest.approx(0.1),
        "4": pytest.approx(0.1),
    }
    assert answer["hp_left"] == {"2": pytest.approx(0.1), "3": pytest.approx(0.9)}


def test_a_seeded_roll_is_the_same_twice_and_reports_the_target_after(client: TestClient) -> None:
    body = ISSUE_BODY | {"seed": 5}
    first = client.post(ROLL, json=body)
    assert first.status_code == 200, first.text
    assert first.json() == client.post(ROLL, json=body).json()
    seen = set()
    for seed in range(30):
        answer = client.post(ROLL, json=ISSUE_BODY | {"seed": seed}).json()
        assert answer["seed"] == seed
        (line,) = answer["lines"]
        (die,) = line["dice"]
        natural = die["natural"]
        seen.add(natural)
        expected = shot(S(3, 0, 3), "standard", 4, iter([natural]))
        (after,) = answer["targets"]
        assert (after["armour"], after["back_armour"], after["hp"]) == (
            expected.armour,
            expected.back,
            expected.hp,
        )
        assert answer["attacker"]["ap_spent"] == 1
    assert len(seen) > 3


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({**ISSUE_BODY, "attack": {"degree": 0}}, "attack.degree"),
        ({**ISSUE_BODY, "attack": {"degree": 11}}, "attack.degree"),
        ({**ISSUE_BODY, "attack": {"degree": "5°"}}, "attack.degree"),
        ({**ISSUE_BODY, "attack": {"modifier": 1}}, "attack.degree"),
        ({**ISSUE_BODY, "attack": {"degree": 5, "penetrates_on": 11}}, "attack.penetrates_on"),
        ({**ISSUE_BODY, "attack": {"degree": 5, "type": "laser"}}, "attack.type"),
        ({**ISSUE_BODY, "attack": {"degree": 5, "colour": "red"}}, "attack.colour"),
        ({**ISSUE_BODY, "target": {"armour": -1, "hp": 3}}, "target.armour"),
        ({**ISSUE_BODY, "target": {"armour": 3, "hp": -2}}, "target.hp"),
        ({**ISSUE_BODY, "target": {"armour": 3, "hp": 0}}, "target.hp"),
        ({**ISSUE_BODY, "target": {"armour": 3, "hp": 3, "ap": -1}}, "target.ap"),
        ({**ISSUE_BODY, "target": {"hp": 3}}, "target.armour"),
        ({"attack": {"degree": 5}}, "target"),
        ({**ISSUE_BODY, "defender": {}}, "defender"),
    ],
)
def test_bad_stateless_bodies_are_422s_naming_the_field(
    client: TestClient, body: dict[str, Any], field: str
) -> None:
    for url, extra in ((ODDS, {}), (ROLL, {"seed": 1})):
        r = client.post(url, json=body | extra)
        assert r.status_code == 422, r.text
        assert r.json()["detail"][0]["field"] == field


# ---------------------------------------------------------------- saved Degrees units


def _unit(name: str, degree: int, weapons: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {"name": name, "kind": "personnel", "degree": degree, "weapons": weapons, **more}


UNITS = [
    _unit("Gunner", 2, [{"type": "gas_gun", "degree": 2}], ap=4),
    _unit("Trooper", 3, []),
    _unit("Grenadier", 2, [{"type": "grenade", "degree": 2}]),
    _unit("Raider", 2, []),
    _unit("Simo", 3, [{"type": "rifle"}]),
    _unit("SWAT", 3, [{"type": "sensory_dampener", "degree": 4}]),
    _unit("Suspect", 2, [], senses="Audition, Vision, Analgesia, Nociception"),
]


def _army(app: Any, member: Member) -> dict[str, tuple[int, list[int]]]:
    """UNITS saved in one army: name -> (unit id, weapon ids)."""
    document = {
        "format": FORMAT,
        "version": VERSION,
        "ruleset": "degrees",
        "rules_version": "Degrees ch. 9 with BrikForge RULINGS §2 (2026-12)",
        "name": "Degrees calculator",
        "budget": 1000,
        "notes": "",
        "house_rules": {},
        "units": UNITS,
    }
    with app.state.sessionmaker() as session:
        user = session.scalars(select(User).where(User.email == member.email)).one()
        army = transfer.import_army(session, user=user, raw=json.dumps(document).encode())
        rows = session.execute(
            select(Unit.id, Unit.name).where(Unit.army_id == army.id).order_by(Unit.position)
        ).all()
        out = {}
        for unit_id, name in rows:
            weapons = session.scalars(
                select(Weapon.id).where(Weapon.unit_id == unit_id).order_by(Weapon.position)
            ).all()
            out[name] = (unit_id, list(weapons))
        session.commit()
    return out


def test_the_page_shows_what_a_gas_gun_round_leaves_and_the_guns_odds(
    app: Any, member: Member
) -> None:
    units = _army(app, member)
    gunner, weapons = units["Gunner"]
    target, _ = units["Trooper"]
    url = (
        f"/calculator?attacker={gunner}&target={target}&weapons={weapons[0]}"
        "&carried=2&pump=2&compress_op=1&extend=1&range=present"
    )
    page = member.client.get(url)
    assert page.status_code == 200
    text = html.unescape(page.text)
    assert "What Trooper has left after the round" in text
    assert 'data-name="hp_left"' in text and 'data-name="gun_max"' in text
    assert "damaged by over-compression" in text and "52.0%" in text  # 0.2 + 0.8 x 0.4
    fragment = member.client.get(url, headers={"HX-Request": "true"})
    assert fragment.status_code == 200 and 'data-name="gun_damaged"' in fragment.text


def test_the_page_shows_an_area_attacks_units_hit(app: Any, member: Member) -> None:
    units = _army(app, member)
    grenadier, weapons = units["Grenadier"]
    url = (
        f"/calculator?attacker={grenadier}&target={units['Trooper'][0]}&weapons={weapons[0]}"
        f"&follower={units['Raider'][0]}&follower_location=here"
        f"&follower={units['Simo'][0]}&follower_location=here"
    )
    page = member.client.get(url)
    assert page.status_code == 200
    text = html.unescape(page.text)
    assert 'data-name="units_hit"' in text
    assert "Units hit: 3 attacked" in text
    # three 2° rolls: none hit with 0.8^3
    assert 'data-label="0 hit" data-p="0.512000000"' in text


def test_an_attack_over_the_units_ap_is_refused_on_the_page_and_by_the_api(
    app: Any, member: Member
) -> None:
    units = _army(app, member)
    simo, weapons = units["Simo"]
    target, _ = units["Trooper"]
    url = f"/calculator?attacker={simo}&target={target}&weapons={weapons[0]}&shots=3&stay_hidden=on"
    page = member.client.get(url)
    assert page.status_code == 200
    assert "needs 6 AP; Simo has 3 this round." in html.unescape(page.text)
    body = {
        "attacker": {"unit_id": simo, "weapon_ids": weapons},
        "target": {"unit_id": target},
        "situation": {"shots": 3, "stay_hidden": True},
    }
    headers = {"X-CSRF-Token": member.csrf}
    for url, extra in (("/api/v1/calculator/odds", {}), ("/api/v1/calculator/roll", {"seed": 1})):
        r = member.client.post(url, json=body | extra, headers=headers)
        assert r.status_code == 422, r.text
        (error,) = r.json()["detail"]
        assert error["field"] == "attacker.weapon_ids"
        assert "needs 6 AP; Simo has 3 this round." in error["reason"]
    fits = {**body, "situation": {"shots": 3, "stay_hidden": True, "ap": 6}}
    assert (
        member.client.post("/api/v1/calculator/odds", json=fits, headers=headers).status_code == 200
    )


@pytest.mark.parametrize(
    ("situation", "field"),
    [
        ({"shots": 0}, "situation.shots"),
        ({"extend": 11}, "situation.extend"),
        ({"range": "orbit"}, "situation.range"),
        ({"penetrate": "always"}, "situation.penetrate"),
        ({"ap": -1}, "situation.ap"),
    ],
)
def test_bad_situations_are_422s_naming_the_field(
    app: Any, member: Member, situation: dict[str, Any], field: str
) -> None:
    units = _army(app, member)
    simo, weapons = units["Simo"]
    body = {
        "attacker": {"unit_id": simo, "weapon_ids": weapons},
        "target": {"unit_id": units["Trooper"][0]},
        "situation": situation,
    }
    r = member.client.post(
        "/api/v1/calculator/odds", json=body, headers={"X-CSRF-Token": member.csrf}
    )
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["field"] == field


def test_the_page_names_the_senses_a_dampener_takes_in_the_targets_order(
    app: Any, member: Member
) -> None:
    """The SWAT's 5° dampener (4° + 1 AP): each natural n of 1-5 hits and dampens the first n
    senses of the Suspect's order, 10% each."""
    units = _army(app, member)
    swat, weapons = units["SWAT"]
    url = f"/calculator?attacker={swat}&target={units['Suspect'][0]}&weapons={weapons[0]}&extend=1"
    text = html.unescape(member.client.get(url).text)
    assert "Senses dampened (in Suspect's order)" in text
    rows = [
        "Audition",
        "Audition, Vision",
        "Audition, Vision, Analgesia",
        "Audition, Vision, Analgesia, Nociception",
        "Audition, Vision, Analgesia, Nociception, Thermal",  # then the table's order
    ]
    for senses in rows:
        assert f'<tr><td>{senses}</td><td class="num p" data-p="0.100000000">' in text
