"""The D20 calculator over HTTP: the stateless ``/api/v1/rulesets/d20/odds`` and ``/roll``
contract of issue 13 (odds checked against brute-force enumeration of the D20s), their
refusals by field, and the calculator page, its fragment and its API on saved D20 figurines."""

from __future__ import annotations

import html
import json
from fractions import Fraction
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db.models import Unit, User, Weapon
from app.services import transfer
from app.services.army_document import FORMAT, VERSION
from tests.rules.d20.brute import cp_lost, enumerate_attack
from tests.web.conftest import Member

ODDS = "/api/v1/rulesets/d20/odds"
ROLL = "/api/v1/rulesets/d20/roll"
ISSUE_BODY = {
    "attack": {"stat": 8, "power": 6, "modifier": 0, "automatic": True},
    "targets": [{"pd": 20}, {"pd": 18}, {"pd": 25}],
}
SINGLE = {"attack": {"stat": 8, "power": 6}, "targets": [{"pd": 20, "evasion": 3, "cp": 2}]}


def _expected(body: dict[str, Any]) -> tuple[list[dict[str, Fraction]], dict[int, Fraction]]:
    attack = body["attack"]
    base = attack["stat"] + attack["power"] + attack.get("modifier", 0)
    n = len(body["targets"])
    penalties = [-min(i + 1, 4) for i in range(n)] if attack.get("automatic") else [0]
    return enumerate_attack(
        [base + p for p in penalties],
        [t["pd"] + t.get("evasion", 0) for t in body["targets"]],
        [t.get("cp", 1) for t in body["targets"]],
        margin_wounds=attack.get("margin_wounds", False),
        naturals=attack.get("naturals", False),
    )


@pytest.mark.parametrize(
    "body",
    [
        ISSUE_BODY,
        SINGLE,
        {
            "attack": {"stat": 12, "power": 4, "modifier": -2, "automatic": True},
            "targets": [{"pd": 15}, {"pd": 20, "evasion": 2}, {"pd": 10}, {"pd": 30}, {"pd": 12}],
        },
        {
            "attack": {"stat": 0, "power": 0, "naturals": True, "margin_wounds": True},
            "targets": [{"pd": 40, "cp": 3}],
        },
    ],
)
def test_the_stateless_odds_answer_the_issues_contract_exactly(
    client: TestClient, body: dict[str, Any]
) -> None:
    r = client.post(ODDS, json=body)
    assert r.status_code == 200, r.text
    answer = r.json()
    per, count = _expected(body)
    assert len(answer["targets"]) == len(body["targets"])
    for got, want in zip(answer["targets"], per, strict=True):
        assert got["wound"] == pytest.approx(float(1 - want["unhurt"]), abs=1e-12)
        assert got["out"] == pytest.approx(float(want["out"]), abs=1e-12)
    assert set(answer["wounded_count"]) == {str(k) for k in range(len(body["targets"]) + 1)}
    for k, p in answer["wounded_count"].items():
        assert p == pytest.approx(float(count.get(int(k), Fraction(0))), abs=1e-12)
    (line,) = answer["lines"]
    for target in line["targets"]:
        assert sum(o["probability"] for o in target["outcomes"]) == pytest.approx(1.0)


def test_the_issues_example_in_numbers(client: TestClient) -> None:
    """Shot 8 + Power 6 = 14, at -1, -2, -3: 13 vs PD 20 wounds on 8-20 (13/20), 12 vs 18 on
    7-20 (14/20), 11 vs 25 on 15-20 (6/20)."""
    answer = client.post(ODDS, json=ISSUE_BODY).json()
    assert [t["wound"] for t in answer["targets"]] == [
        pytest.approx(0.65),
        pytest.approx(0.7),
        pytest.approx(0.3),
    ]
    assert answer["wounded_count"]["0"] == pytest.approx(0.35 * 0.3 * 0.7)
    assert answer["wounded_count"]["3"] == pytest.approx(0.65 * 0.7 * 0.3)


def test_a_stateless_explosion_with_cover_height_and_objects(client: TestClient) -> None:
    body = {
        "attack": {"stat": 0, "equipment": "defensive_grenade", "distance": 20, "objects": "30"},
        "targets": [{"pd": 30}, {"pd": 30, "cover": True, "cp": 2}, {"pd": 10, "height": 6}],
    }
    answer = client.post(ODDS, json=body).json()
    per, _ = enumerate_attack([25, 25], [30, 35], [1, 2])
    wounds = [t["wound"] for t in answer["targets"]]
    assert wounds == [
        pytest.approx(float(1 - per[0]["unhurt"])),
        pytest.approx(float(1 - per[1]["unhurt"])),
        0.0,  # more than 5 cm above the blast
    ]
    assert answer["objects"] == [{"dl": 30, "destroyed": pytest.approx(0.75)}]  # 25 + 6..20 - 1
    two = {
        "attack": {"stat": 0, "equipment": "lightning_charge", "charges": 2},
        "targets": [{"pd": 30}],
    }
    assert client.post(ODDS, json=two).json()["power"] == 20


def _wound_faces(power: int, against: int) -> float:
    """P(power + 1D20 > against), the 20 faces counted here."""
    return sum(1 for natural in range(1, 21) if power + natural > against) / 20


@pytest.mark.parametrize(
    ("equipment", "power", "pd", "evasion"),
    [
        ("defensive_grenade", 25, 35, 4),
        ("hypersensor_mine", 25, 30, 9),
        ("hurricane_charge", 15, 18, 2),
        ("typhoon_charge", 35, 40, 12),
    ],
)
def test_a_stateless_explosion_is_set_against_pd_alone_whatever_the_evasion(
    client: TestClient, equipment: str, power: int, pd: int, evasion: int
) -> None:
    """RULINGS 3.3: "Power of the explosion + 1 D20 / Physical Defense" (Evasion dodges
    shots and blows, not a blast); a shot against the same figurine still counts Evasion."""
    answers = [
        client.post(
            ODDS,
            json={
                "attack": {"stat": 0, "equipment": equipment, "su": True},
                "targets": [{"pd": pd, "evasion": e}],
            },
        )
        for e in (evasion, 0)
    ]
    assert [a.status_code for a in answers] == [200, 200], answers[0].text
    dodger, still = (a.json() for a in answers)
    assert dodger["targets"] == still["targets"]
    expected = _wound_faces(power, pd)
    assert expected != _wound_faces(power, pd + evasion)  # the case tells the rules apart
    assert dodger["targets"][0]["wound"] == pytest.approx(expected, abs=1e-12)
    assert dodger["targets"][0]["defence"] == pd
    assert dodger["lines"][0]["steps"][-1] == ["+ 1D20 against", "PD (+ cover)"]
    shot = {"attack": {"stat": 8, "power": power}, "targets": [{"pd": pd, "evasion": evasion}]}
    answer = client.post(ODDS, json=shot).json()
    assert answer["targets"][0]["wound"] == pytest.approx(
        _wound_faces(8 + power, pd + evasion), abs=1e-12
    )
    assert answer["targets"][0]["defence"] == pd + evasion


def test_a_big_automatic_fire_computed_by_the_workers_is_still_exact(client: TestClient) -> None:
    body = {
        "attack": {"stat": 10, "power": 5, "automatic": True},
        "targets": [{"pd": 10 + i} for i in range(12)],
    }
    r = client.post(ODDS, json=body)
    assert r.status_code == 200, r.text
    wounds = [t["wound"] for t in r.json()["targets"]]
    penalties = [min(i + 1, 4) for i in range(12)]
    # 15 - penalty + n > 10 + i: n > i + penalty - 5
    assert wounds == [
        pytest.approx(min(20, 20 - max(0, i + p - 5)) / 20) for i, p in enumerate(penalties)
    ]
    rolled = client.post(ROLL, json=body | {"seed": 3})
    assert rolled.status_code == 200 and len(rolled.json()["targets"]) == 12


def test_a_seeded_roll_is_the_same_twice_and_follows_the_dice(client: TestClient) -> None:
    body = ISSUE_BODY | {"seed": 5}
    first = client.post(ROLL, json=body)
    assert first.status_code == 200, first.text
    assert first.json() == client.post(ROLL, json=body).json()
    seen = set()
    for seed in range(30):
        answer = client.post(ROLL, json=ISSUE_BODY | {"seed": seed}).json()
        assert answer["seed"] == seed
        (line,) = answer["lines"]
        naturals = [d["natural"] for d in line["dice"]]
        seen.add(tuple(naturals))
        for natural, bonus, target, after in zip(
            naturals, (13, 12, 11), ISSUE_BODY["targets"], answer["targets"], strict=True
        ):
            lost = cp_lost(bonus, target["pd"], natural)
            assert after == {"cp_lost": lost, "shaken": False, "wounded": lost > 0}
    assert len(seen) > 20


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({**SINGLE, "attack": {"stat": 8, "power": -1}}, "attack.power"),
        ({**SINGLE, "attack": {"stat": 8, "power": 101}}, "attack.power"),
        ({**SINGLE, "attack": {"stat": 8, "power": 6, "reach": -5}}, "attack.reach"),
        ({**SINGLE, "attack": {"stat": 41, "power": 6}}, "attack.stat"),
        ({**SINGLE, "attack": {"power": 6}}, "attack.stat"),
        ({**SINGLE, "attack": {"stat": 8, "power": 6, "modifier": 21}}, "attack.modifier"),
        ({**SINGLE, "attack": {"stat": 8, "power": 6, "equipment": "laser"}}, "attack.equipment"),
        (
            {**SINGLE, "attack": {"stat": 8, "equipment": "flaming_grenade", "su": False}},
            "attack.su",
        ),
        (
            {**SINGLE, "attack": {"stat": 8, "equipment": "flaming_grenade", "distance": 25}},
            "attack.distance",
        ),
        ({**SINGLE, "attack": {"stat": 8, "power": 6, "objects": "10"}}, "attack.objects"),
        (
            {**SINGLE, "attack": {"stat": 8, "equipment": "typhoon_charge", "objects": "x"}},
            "attack.objects",
        ),
        (
            {**SINGLE, "attack": {"stat": 8, "power": 6, "reach": 20, "distance": 21}},
            "attack.distance",
        ),
        ({**SINGLE, "targets": [{"pd": 41}]}, "targets.0.pd"),
        ({**SINGLE, "targets": [{"pd": -1}]}, "targets.0.pd"),
        ({**SINGLE, "targets": [{"evasion": 2}]}, "targets.0.pd"),
        ({**SINGLE, "targets": [{"pd": 10, "cp": 0}]}, "targets.0.cp"),
        ({**ISSUE_BODY, "targets": [{"pd": 20}]}, "targets"),
        ({**SINGLE, "targets": [{"pd": 20}, {"pd": 18}]}, "targets"),
        ({**SINGLE, "targets": []}, "targets"),
        ({**SINGLE, "targets": [{"pd": 20}] * 61}, "targets"),
        ({"attack": {"stat": 8, "power": 6}}, "targets"),
        ({**SINGLE, "defender": {}}, "defender"),
    ],
)
def test_bad_stateless_bodies_are_422s_naming_the_field(
    client: TestClient, body: dict[str, Any], field: str
) -> None:
    for url, extra in ((ODDS, {}), (ROLL, {"seed": 1})):
        r = client.post(url, json=body | extra)
        assert r.status_code == 422, r.text
        assert r.json()["detail"][0]["field"] == field


# ---------------------------------------------------------------- saved D20 figurines


def _fig(name: str, weapons: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    stats = {"shot": 8, "hth": 6, "pd": 20, "evasion": 0, "dexterity": 5, "cp": 1}
    return {"name": name, "kind": "figurine", **stats, **more, "weapons": weapons}


RIFLE = {"type": "gun", "name": "Rifle", "reach": 60, "power": 6, "automatic": True}
PISTOL = {"type": "gun", "name": "Pistol", "reach": 20, "power": 3}
UNITS = [
    _fig("Gunner", [RIFLE, PISTOL]),
    _fig("Chronos", [], pd=18, evasion=2),
    _fig("Chronos B", [], pd=20),
    _fig("Chronos C", [], pd=25),
    _fig("Grenadier", [{"type": "defensive_grenade"}], kind="su"),
    _fig("Grunt", [{"type": "defensive_grenade"}]),
    _fig("Sapper", [{"type": "hurricane_charge"}]),
]


def _army(app: Any, member: Member) -> dict[str, tuple[int, list[int]]]:
    """UNITS saved in one army: name -> (unit id, weapon ids)."""
    document = {
        "format": FORMAT,
        "version": VERSION,
        "ruleset": "d20",
        "rules_version": "D20 weapons and equipment with BrikForge RULINGS §3 (2026-12)",
        "name": "D20 calculator",
        "budget": 1000,
        "notes": "",
        "house_rules": {"allow_over_budget": True},
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


def test_the_page_and_fragment_show_automatic_fire_on_saved_figurines(
    app: Any, member: Member
) -> None:
    units = _army(app, member)
    gunner, weapons = units["Gunner"]
    url = (
        f"/calculator?attacker={gunner}&target={units['Chronos'][0]}&weapons={weapons[0]}"
        f"&mode=automatic&distance=30"
        f"&follower={units['Chronos B'][0]}&follower={units['Chronos C'][0]}"
    )
    page = member.client.get(url)
    assert page.status_code == 200
    text = html.unescape(page.text)
    assert 'data-name="wounded_count"' in text and 'data-name="per_target"' in text
    # 13 vs 20, 12 vs 20, 11 vs 25: none wounded with 7/20 x 8/20 x 14/20
    assert f'data-label="0 wounded" data-p="{7 / 20 * 8 / 20 * 14 / 20:.9f}"' in text
    assert "Chronos C" in text
    fragment = member.client.get(url, headers={"HX-Request": "true"})
    assert fragment.status_code == 200 and 'data-name="cp_left"' in fragment.text


def test_the_page_shows_an_explosions_objects(app: Any, member: Member) -> None:
    units = _army(app, member)
    sapper, weapons = units["Sapper"]
    url = (
        f"/calculator?attacker={sapper}&target={units['Chronos'][0]}&weapons={weapons[0]}"
        "&mode=explosion&objects=10,30"
    )
    text = html.unescape(member.client.get(url).text)
    assert 'data-name="objects"' in text
    assert 'data-label="DL 10 destroyed" data-p="1.000000000"' in text
    assert 'data-label="DL 30 destroyed" data-p="0.250000000"' in text  # 15 + 16..20 - 1


def test_saved_figurines_explosions_skip_evasion_and_shots_count_it(
    app: Any, member: Member
) -> None:
    """Chronos: PD 18, Evasion 2. The Sapper's P15 charge is set against PD 18 alone
    (15 + 4..20: 17/20, RULINGS 3.3); the Gunner's shot (8 + 6) against 18 + 2 (7..20: 14/20)."""
    units = _army(app, member)
    headers = {"X-CSRF-Token": member.csrf}
    cases = (
        ("Sapper", {"mode": "explosion"}, _wound_faces(15, 18), "PD (+ cover)"),
        ("Gunner", {"distance": 10}, _wound_faces(14, 20), "PD + Evasion"),
    )
    for attacker, situation, wound, against in cases:
        unit_id, weapons = units[attacker]
        body = {
            "attacker": {"unit_id": unit_id, "weapon_ids": weapons[:1]},
            "target": {"unit_id": units["Chronos"][0]},
            "situation": situation,
        }
        r = member.client.post("/api/v1/calculator/odds", json=body, headers=headers)
        assert r.status_code == 200, r.text
        (line,) = r.json()["lines"]
        (target,) = line["targets"]
        assert 1 - target["unhurt"] == pytest.approx(wound, abs=1e-12)
        assert line["steps"][-1] == {"label": "+ 1D20 against", "value": against}
    assert _wound_faces(15, 18) == 17 / 20 and _wound_faces(14, 20) == 14 / 20
    sapper, weapons = units["Sapper"]
    page = member.client.get(
        f"/calculator?attacker={sapper}&target={units['Chronos'][0]}&weapons={weapons[0]}"
        "&mode=explosion"
    )
    text = html.unescape(page.text)
    assert "PD (+ cover)" in text and "PD + Evasion" not in text


@pytest.mark.parametrize(
    ("attacker", "weapon", "situation", "followers", "reason"),
    [
        ("Gunner", 0, {"mode": "automatic"}, 0, "Automatic fire needs at least two targets."),
        ("Gunner", 1, {"distance": 21}, 0, "21 cm is beyond Pistol's Reach (20 cm)."),
        ("Grunt", 0, {"mode": "explosion"}, 0, "Only SUs carry grenades; Grunt is not an SU."),
        (
            "Gunner",
            None,
            {"mode": "automatic"},
            1,
            "Gunner carries two ranged weapons: it shoots one target per turn.",
        ),
    ],
)
def test_refused_attacks_are_422s_by_the_api_and_shown_on_the_page(
    app: Any,
    member: Member,
    attacker: str,
    weapon: int | None,
    situation: dict[str, Any],
    followers: int,
    reason: str,
) -> None:
    units = _army(app, member)
    unit_id, weapons = units[attacker]
    chosen = weapons if weapon is None else [weapons[weapon]]
    body: dict[str, Any] = {
        "attacker": {"unit_id": unit_id, "weapon_ids": chosen},
        "target": {"unit_id": units["Chronos"][0]},
        "situation": situation,
    }
    if followers:
        body["followers"] = [{"unit_id": units["Chronos B"][0]}]
    headers = {"X-CSRF-Token": member.csrf}
    for url, extra in (("/api/v1/calculator/odds", {}), ("/api/v1/calculator/roll", {"seed": 1})):
        r = member.client.post(url, json=body | extra, headers=headers)
        assert r.status_code == 422, r.text
        assert any(reason in e["reason"] for e in r.json()["detail"])
    query = "&".join(f"weapons={w}" for w in chosen)
    query += "".join(f"&{k}={v}" for k, v in situation.items())
    if followers:
        query += f"&follower={units['Chronos B'][0]}"
    page = member.client.get(f"/calculator?attacker={unit_id}&target={units['Chronos'][0]}&{query}")
    assert page.status_code == 200
    assert reason in html.unescape(page.text)


@pytest.mark.parametrize(
    ("situation", "field"),
    [
        ({"mode": "volley"}, "situation.mode"),
        ({"distance": -1}, "situation.distance"),
        ({"modifier": 21}, "situation.modifier"),
        ({"objects": "x"}, "situation.objects"),
        ({"height": -3}, "situation.height"),
        ({"cover": 1}, "situation.cover"),  # on/off fields take true or false only
        ({"shaken": "yes"}, "situation.shaken"),
        ({"mode": "explosion", "cover": 0}, "situation.cover"),
    ],
)
def test_bad_situations_are_422s_naming_the_field(
    app: Any, member: Member, situation: dict[str, Any], field: str
) -> None:
    units = _army(app, member)
    gunner, weapons = units["Gunner"]
    body = {
        "attacker": {"unit_id": gunner, "weapon_ids": weapons[:1]},
        "target": {"unit_id": units["Chronos"][0]},
        "situation": situation,
    }
    r = member.client.post(
        "/api/v1/calculator/odds", json=body, headers={"X-CSRF-Token": member.csrf}
    )
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["field"] == field


def test_the_page_gives_the_odds_of_defusing(app: Any, member: Member) -> None:
    units = _army(app, member)
    sapper, weapons = units["Sapper"]
    url = (
        f"/calculator?attacker={sapper}&target={units['Chronos'][0]}&weapons={weapons[0]}"
        "&mode=defuse"
    )
    text = html.unescape(member.client.get(url).text)
    # Dexterity 5 + 1D20 > DL 15 (the Hurricane-type charge's Power): 11-20
    assert 'data-name="defused" data-p="0.500000000"' in text
    assert "Dexterity 5 + 1D20 > DL 15" in text


def test_a_further_targets_on_off_field_takes_true_or_false_only(app: Any, member: Member) -> None:
    units = _army(app, member)
    sapper, weapons = units["Sapper"]
    body = {
        "attacker": {"unit_id": sapper, "weapon_ids": weapons[:1]},
        "target": {"unit_id": units["Chronos"][0]},
        "situation": {"mode": "explosion"},
    }
    headers = {"X-CSRF-Token": member.csrf}
    for cover in (1, "on"):
        follower = {"unit_id": units["Chronos B"][0], "cover": cover}
        r = member.client.post(
            "/api/v1/calculator/odds", json=body | {"followers": [follower]}, headers=headers
        )
        assert r.status_code == 422, (cover, r.text)
        assert r.json()["detail"][0]["field"] == "followers.0.cover", cover
    follower = {"unit_id": units["Chronos B"][0], "cover": True}
    r = member.client.post(
        "/api/v1/calculator/odds", json=body | {"followers": [follower]}, headers=headers
    )
    assert r.status_code == 200, r.text
