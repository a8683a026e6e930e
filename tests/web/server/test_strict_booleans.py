"""Strict booleans on every JSON door that takes a ruleset's fields (ruling G9): an on/off
field of a JSON body is ``true`` or ``false`` only; ``"yes"``, ``"on"``, ``1`` and ``0`` are a
422 naming the field. A page form's ticked box ("on") is text and stays read as on."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db.models import Unit, User, Weapon
from app.services import transfer
from app.services.army_document import FORMAT, VERSION
from tests.web.conftest import Member

NOT_BOOLEANS = ("yes", "on", 1, 0)
RIFLE = {"type": "gun", "name": "Rifle", "reach": 60, "power": 6, "automatic": True}
STATS = {"shot": 8, "hth": 6, "pd": 20, "evasion": 0, "dexterity": 5, "cp": 1}


def api(member: Member, method: str, url: str, **kw: Any) -> Any:
    return member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)


def refused(r: Any, field: str) -> None:
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["field"] == field, r.text


def _d20_armies(app: Any, member: Member) -> tuple[list[int], dict[str, int], int]:
    """Two D20 armies, a gunner's and two targets': (army ids, unit ids by name, the
    gunner's rifle's id)."""
    armies = []
    with app.state.sessionmaker() as session:
        user = session.scalars(select(User).where(User.email == member.email)).one()
        for name, units in (
            ("Gunners", [{"name": "Gunner", "kind": "figurine", **STATS, "weapons": [RIFLE]}]),
            ("Targets", [{"name": n, "kind": "figurine", **STATS, "weapons": []} for n in "AB"]),
        ):
            document = {
                "format": FORMAT,
                "version": VERSION,
                "ruleset": "d20",
                "rules_version": "D20 weapons and equipment with BrikForge RULINGS §3 (2026-12)",
                "name": name,
                "budget": 1000,
                "notes": "",
                "house_rules": {},
                "units": units,
            }
            raw = json.dumps(document).encode()
            armies.append(transfer.import_army(session, user=user, raw=raw).id)
        rows = session.execute(select(Unit.id, Unit.name).where(Unit.army_id.in_(armies))).all()
        rifle = session.scalars(select(Weapon.id)).one()
        session.commit()
    return armies, {name: unit_id for unit_id, name in rows}, rifle


# ------------------------------------------------------------------ stateless odds and roll


@pytest.mark.parametrize("bad", NOT_BOOLEANS)
@pytest.mark.parametrize(
    ("where", "field"),
    [("attack", "naturals"), ("attack", "automatic"), ("targets.0", "cover")],
)
def test_the_stateless_d20_body_takes_only_true_and_false(
    client: TestClient, bad: object, where: str, field: str
) -> None:
    for url, extra in (("odds", {}), ("roll", {"seed": 1})):
        # automatic fire, so that every field applies: at two targets
        attack = {"stat": 8, "power": 6, "automatic": True}
        body: dict[str, Any] = {"attack": attack, "targets": [{"pd": 20}, {"pd": 18}]}
        part = body["attack"] if where == "attack" else body["targets"][0]
        part[field] = bad
        r = client.post(f"/api/v1/rulesets/d20/{url}", json=body | extra)
        refused(r, f"{where}.{field}")
        assert r.json()["detail"][0]["reason"] == "must be true or false"
        for good in (True, False):
            part[field] = good
            if field == "automatic" and not good:
                body["targets"] = body["targets"][:1]  # a single shot: one target
            r = client.post(f"/api/v1/rulesets/d20/{url}", json=body | extra)
            assert r.status_code == 200, r.text


# ------------------------------------------------------------------ saved units: calculator


@pytest.mark.parametrize("door", ["odds", "roll"])
def test_the_calculator_api_takes_only_true_and_false(app: Any, member: Member, door: str) -> None:
    _, ids, rifle = _d20_armies(app, member)
    url = f"/api/v1/calculator/{door}"
    body: dict[str, Any] = {
        "attacker": {"unit_id": ids["Gunner"], "weapon_ids": [rifle]},
        "target": {"unit_id": ids["A"]},
        "situation": {"mode": "automatic", "distance": 10},
        "followers": [{"unit_id": ids["B"]}],
    } | ({"seed": 1} if door == "roll" else {})
    for bad in NOT_BOOLEANS:
        situation = body["situation"] | {"shaken": bad}
        refused(api(member, "POST", url, json=body | {"situation": situation}), "situation.shaken")
        followers = [{"unit_id": ids["B"], "cover": bad}]
        refused(api(member, "POST", url, json=body | {"followers": followers}), "followers.0.cover")
    for good in (True, False):
        situation = body["situation"] | {"shaken": good}
        followers = [{"unit_id": ids["B"], "cover": good}]
        r = api(member, "POST", url, json=body | {"situation": situation, "followers": followers})
        assert r.status_code == 200, r.text


# ------------------------------------------------------------------ saved units: battles


@pytest.mark.parametrize("door", ["odds", "rolls"])
def test_the_battle_api_takes_only_true_and_false(app: Any, member: Member, door: str) -> None:
    armies, _, _ = _d20_armies(app, member)
    r = api(member, "POST", "/api/v1/battles", json={"name": "B", "army_ids": armies})
    assert r.status_code == 201, r.text
    battle = r.json()
    ids = {u["name"]: u["id"] for u in battle["units"]}
    url = f"/api/v1/battles/{battle['id']}/{door}"
    body: dict[str, Any] = {
        "attacker_id": ids["Gunner"],
        "weapons": [0],
        "target_id": ids["A"],
        "situation": {"mode": "automatic", "distance": 10},
        "followers": [{"unit_id": ids["B"]}],
    }
    for bad in NOT_BOOLEANS:
        situation = body["situation"] | {"cover": bad}  # (a battle keeps Shaken itself)
        refused(api(member, "POST", url, json=body | {"situation": situation}), "situation.cover")
        followers = [{"unit_id": ids["B"], "cover": bad}]
        refused(api(member, "POST", url, json=body | {"followers": followers}), "followers.0.cover")
    for good in (True, False):
        situation = body["situation"] | {"cover": good}
        followers = [{"unit_id": ids["B"], "cover": good}]
        r = api(member, "POST", url, json=body | {"situation": situation, "followers": followers})
        assert r.status_code in (200, 201), r.text
        if door == "rolls":
            assert api(member, "DELETE", f"/api/v1/battles/{battle['id']}/rolls/last").is_success


# ------------------------------------------------------------------ the builder's API


def _new_army(member: Member, ruleset: str) -> int:
    r = api(
        member, "POST", "/api/v1/armies", json={"name": "S", "ruleset_id": ruleset, "budget": 100}
    )
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


DEGREES_UNIT = {"name": "Simo", "kind": "personnel", "degree": 3, "human": True, "weapons": []}
ROD = {"type": "dousing_rod", "real_ammo": True}


def test_the_builder_api_takes_only_true_and_false_for_a_unit(member: Member) -> None:
    army_id = _new_army(member, "degrees")
    units = f"/api/v1/armies/{army_id}/units"
    for bad in NOT_BOOLEANS:
        refused(api(member, "POST", units, json=DEGREES_UNIT | {"human": bad}), "human")
        body = DEGREES_UNIT | {"weapons": [ROD | {"real_ammo": bad}]}
        refused(api(member, "POST", units, json=body), "weapons.0.real_ammo")
    r = api(member, "POST", units, json=DEGREES_UNIT | {"weapons": [ROD]})
    assert r.status_code == 201, r.text
    unit = r.json()
    url = f"{units}/{unit['id']}"
    for bad in NOT_BOOLEANS:
        refused(api(member, "PATCH", url, json={"version": unit["version"], "human": bad}), "human")
    r = api(member, "PATCH", url, json={"version": unit["version"], "human": False})
    assert r.status_code == 200 and r.json()["human"] is False, r.text


def test_the_builder_api_takes_only_true_and_false_for_a_weapon(member: Member) -> None:
    army_id = _new_army(member, "d20")
    units = f"/api/v1/armies/{army_id}/units"
    r = api(member, "POST", units, json={"name": "G", "kind": "figurine", **STATS})
    assert r.status_code == 201, r.text
    unit = r.json()
    url = f"{units}/{unit['id']}"
    for bad in NOT_BOOLEANS:
        for door in ("weapons", "weapon-preview"):
            r = api(member, "POST", f"{url}/{door}", json=RIFLE | {"automatic": bad})
            refused(r, "automatic")
    r = api(member, "POST", f"{url}/weapons", json=RIFLE)
    assert r.status_code == 201, r.text
    weapon = r.json()
    for bad in NOT_BOOLEANS:
        patch = {"version": weapon["version"], "automatic": bad}
        refused(api(member, "PATCH", f"{url}/weapons/{weapon['id']}", json=patch), "automatic")
    patch = {"version": weapon["version"], "automatic": False}
    assert api(member, "PATCH", f"{url}/weapons/{weapon['id']}", json=patch).status_code == 200


@pytest.mark.parametrize("ruleset", ["brikwars", "d20", "degrees"])
def test_the_house_rules_api_takes_only_true_and_false(member: Member, ruleset: str) -> None:
    army_id = _new_army(member, ruleset)
    url = f"/api/v1/armies/{army_id}/house-rules"
    for bad in NOT_BOOLEANS:
        body = {"version": 1, "options": {"allow_over_budget": bad}}
        refused(api(member, "PUT", url, json=body), "allow_over_budget")
    r = api(member, "PUT", url, json={"version": 1, "options": {"allow_over_budget": True}})
    assert r.status_code == 200, r.text


def test_an_imported_document_takes_only_true_and_false(member: Member) -> None:
    for bad in NOT_BOOLEANS:
        document = {
            "format": FORMAT,
            "version": VERSION,
            "ruleset": "degrees",
            "rules_version": "Degrees ch. 9 with BrikForge RULINGS §2 (2026-12)",
            "name": "Import",
            "budget": 100,
            "notes": "",
            "house_rules": {},
            "units": [DEGREES_UNIT | {"human": bad}],
        }
        r = api(member, "POST", "/api/v1/armies/import", content=json.dumps(document))
        assert r.status_code == 422, r.text
        problem = r.json()["detail"][0]
        assert problem["field"] == "units[0].human", problem
        assert "must be true or false" in problem["reason"]


# ------------------------------------------------------------------ forms and query strings


def test_the_pages_forms_and_query_strings_still_take_a_ticked_box(member: Member) -> None:
    """A form's ticked box, and a query string's flag, are text: "on" or "1" is on."""
    army_id = _new_army(member, "degrees")
    r = member.htmx(f"/armies/{army_id}/units", DEGREES_UNIT | {"human": "on", "degree": "3"})
    assert r.status_code == 200, r.text[:500]
    unit = api(member, "GET", f"/api/v1/armies/{army_id}").json()["units"][0]
    assert unit["human"] is True
    r = member.htmx(f"/armies/{army_id}/units/{unit['id']}/weapons", ROD | {"real_ammo": "on"})
    assert r.status_code == 200, r.text[:500]
    unit = api(member, "GET", f"/api/v1/armies/{army_id}").json()["units"][0]
    assert unit["weapons"][0]["spec"]["real_ammo"] is True
    version = str(api(member, "GET", f"/api/v1/armies/{army_id}").json()["version"])
    form = {"version": version, "allow_over_budget": "on", "costs": ""}
    r = member.htmx(f"/armies/{army_id}/house-rules", form)
    assert r.status_code == 200, r.text[:500]
    house_rules = api(member, "GET", f"/api/v1/armies/{army_id}").json()["house_rules"]
    assert house_rules["allow_over_budget"] is True
    query = (
        "rules=d20&a.name=G&a.shot=8&a.weapons.0.type=gun&a.weapons.0.name=R"
        "&a.weapons.0.reach=60&a.weapons.0.power=6&a.weapons.0.automatic={on}&t.name=T&t.pd=20"
        "&f.0.name=U&f.0.pd=18&f.0.cover={on}&weapons=1&mode=automatic&distance=10"
    )
    for on in ("on", "1"):
        r = member.client.get(f"/api/v1/calculator/open?{query.format(on=on)}")
        assert r.status_code == 200, r.text
        assert r.json()["further_targets"] == ["U"]
