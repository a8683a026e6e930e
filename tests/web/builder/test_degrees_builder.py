"""A Degrees army through the builder's pages and its JSON API: create, add/edit/duplicate/
reorder units, weapons with the live preview, totals and findings, house rules, refusals that
name their field (nothing saved), the roster sheet, the text export and export/import."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from sqlalchemy import func, select

from app.db.models import Army, Unit, Weapon
from tests.web.conftest import Member

SIMO = {
    "name": "Simo",
    "kind": "personnel",
    "degree": 3,
    "human": True,
    "weapons": [{"type": "inter_offer"}, {"type": "dousing_rod", "real_ammo": True}],
}  # 3 + 4 + 5 = 12 DP


def api(member: Member, method: str, url: str, **kw: Any) -> Any:
    return member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)


def new_army(member: Member, budget: int = 100) -> int:
    r = api(
        member,
        "POST",
        "/api/v1/armies",
        json={"name": "Simos", "ruleset_id": "degrees", "budget": budget},
    )
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def add_unit(member: Member, army_id: int, body: dict[str, Any]) -> dict[str, Any]:
    r = api(member, "POST", f"/api/v1/armies/{army_id}/units", json=body)
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def army(member: Member, army_id: int) -> dict[str, Any]:
    r = api(member, "GET", f"/api/v1/armies/{army_id}")
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def counts(app: Any) -> tuple[int, int]:
    with app.state.sessionmaker() as s:
        return s.scalar(select(func.count(Unit.id))), s.scalar(select(func.count(Weapon.id)))


# ------------------------------------------------------------------------ creating


def test_the_create_army_page_offers_degrees_and_makes_a_degrees_army(member: Member) -> None:
    listing = member.client.get("/armies").text
    assert '<option value="degrees">Degrees</option>' in listing
    assert "CP in BrikWars, DP in Degrees, pts in D20 Power/Reach." in listing  # points
    r = member.form(
        "/armies",
        {"name": "Thin Blues", "budget": "40", "ruleset_id": "degrees"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    army_id = int(r.headers["location"].rsplit("/", 1)[1])
    page = member.client.get(f"/armies/{army_id}").text
    assert "0 DP</strong> of 40 DP" in page
    assert "a fresh unit has Armour and HP of its degree" in page  # the Degrees hint
    for label in ("Scale", "Degree (1–10)", "Front Armour", "Back-line Armour", "AP per round"):
        assert f">{label}" in page, label
    assert army(member, army_id)["ruleset_id"] == "degrees"


# ------------------------------------------------------------------------ pages


def test_units_through_the_pages_add_edit_duplicate_move_and_remove(
    member: Member, app: Any
) -> None:
    army_id = new_army(member, budget=30)
    r = member.htmx(
        f"/armies/{army_id}/units",
        {"name": "Thinny", "kind": "personnel", "degree": "2", "ap": "4", "human": "0"},
    )
    assert r.status_code == 200, r.text[:500]
    thinny = army(member, army_id)["units"][0]
    assert (thinny["degree"], thinny["armour"], thinny["hp"], thinny["ap"]) == (2, 2, 2, 4)
    assert thinny["human"] is False and thinny["cost"] == 2

    # a weapon through the add form, its preview first
    base = f"/armies/{army_id}/units/{thinny['id']}"
    preview = member.client.get(
        f"{base}/weapon-preview", params={"type": "p_gun"}, headers={"HX-Request": "true"}
    )
    assert preview.status_code == 200
    assert "Percussion gun (p-gun) 4°" in preview.text and "attack 3 AP" in preview.text
    assert "back line never" in preview.text and "4 DP" in preview.text
    r = member.htmx(f"{base}/weapons", {"type": "p_gun", "degree": "", "real_ammo": "0"})
    assert r.status_code == 200, r.text[:500]
    assert re.search(r'<strong id="total-cost">6 DP</strong>', r.text)  # 2 + 4
    assert 'hx-swap-oob="true"' in r.text

    # the unit's edit form: its fields pre-filled, then a change of AP that breaks the p-gun
    editor = member.client.get(f"{base}/editor", headers={"HX-Request": "true"}).text
    assert 'name="ap"' in editor and 'value="4"' in editor
    assert "Edit Thinny (scale, degree, Armour, HP, AP, OP, Human, senses)" in editor
    version = str(army(member, army_id)["units"][0]["version"])
    r = member.htmx(base, {"version": version, "name": "Thinny", "ap": "2", "human": "0"})
    assert r.status_code == 200, r.text[:500]
    assert 'data-code="ap_limit"' in r.text
    unit = army(member, army_id)["units"][0]
    assert unit["ap"] == 2 and unit["weapons"][0]["findings"][0]["code"] == "ap_limit"

    # a weapon's edit form: a lower max degree
    weapon = unit["weapons"][0]
    r = member.htmx(
        f"{base}/weapons/{weapon['id']}", {"version": str(weapon["version"]), "degree": "3"}
    )
    assert r.status_code == 200, r.text[:500]
    assert army(member, army_id)["units"][0]["cost"] == 5

    # duplicate, reorder, remove
    r = member.htmx(f"{base}/duplicate")
    assert r.status_code == 200
    names = [u["name"] for u in army(member, army_id)["units"]]
    assert names == ["Thinny", "Thinny (copy)"]
    copy = army(member, army_id)["units"][1]
    assert copy["weapons"][0]["degree"] == 3 and copy["cost"] == 5
    member.htmx(f"{base}/move", {"offset": "1"})
    assert [u["name"] for u in army(member, army_id)["units"]] == ["Thinny (copy)", "Thinny"]
    member.htmx(f"{base}/delete")
    assert [u["name"] for u in army(member, army_id)["units"]] == ["Thinny (copy)"]
    assert counts(app) == (1, 1)


def test_unticking_human_on_the_edit_form_clears_it(member: Member) -> None:
    """An unticked box is absent from a form: the hidden 0 before it says "off"."""
    army_id = new_army(member)
    simo = add_unit(member, army_id, SIMO)
    assert simo["human"] is True and simo["findings"] == [] and simo["cost"] == 12
    base = f"/armies/{army_id}/units/{simo['id']}"
    editor = member.client.get(f"{base}/editor", headers={"HX-Request": "true"}).text
    assert re.search(r'name="human" value="1" checked', editor)
    r = member.htmx(base, {"version": "1", "name": "Simo", "human": "0"})
    assert r.status_code == 200, r.text[:500]
    after = army(member, army_id)["units"][0]
    assert after["human"] is False
    assert [f["code"] for f in after["weapons"][1]["findings"]] == ["real_ammo"]
    # unticking real ammo on the weapon's form clears it too
    rod = after["weapons"][1]
    r = member.htmx(f"{base}/weapons/{rod['id']}", {"version": "1", "real_ammo": "0"})
    assert r.status_code == 200, r.text[:500]
    after = army(member, army_id)["units"][0]
    assert after["weapons"][1]["spec"] == {"degree": 4} and after["cost"] == 11


@pytest.mark.parametrize(
    ("form", "field", "reason"),
    [
        ({"degree": "11"}, "degree", "must be from 1 to 10"),
        ({"degree": "0"}, "degree", "must be from 1 to 10"),
        ({"armour": "-1"}, "armour", "must be from 0 to 30"),
        ({"back_armour": "-2"}, "back_armour", "must be from 0 to 30"),
        ({"hp": "-1"}, "hp", "must be from 1 to 30"),
        ({"ap": "-1"}, "ap", "must be from 0 to 12"),
        ({"kind": "galactic"}, "kind", "must be one of"),
        ({"senses": "Vision, smell"}, "senses", "'smell' is not a sense"),
    ],
)
def test_a_bad_unit_form_is_refused_inline_and_nothing_is_saved(
    member: Member, app: Any, form: dict[str, str], field: str, reason: str
) -> None:
    army_id = new_army(member)
    r = member.htmx(f"/armies/{army_id}/units", {"name": "Blob", **form})
    assert r.status_code == 422, r.text[:300]
    assert r.text.lstrip().startswith('<form id="add-unit-form"')
    assert re.search(rf'name="{field}"[^>]*aria-invalid="true"', r.text), r.text
    error = re.search(r'<p class="error" id="add-unit-form-[^"]*-err">([^<]*)</p>', r.text)
    assert error and reason in error.group(1).replace("&#39;", "'"), r.text
    assert 'value="Blob"' in r.text  # the input is kept
    assert counts(app) == (0, 0)


@pytest.mark.parametrize(
    ("form", "field"),
    [
        ({"type": "blaster"}, "type"),
        ({"type": "rifle", "degree": "11"}, "degree"),
        ({"type": "rifle", "degree": "-1"}, "degree"),
        ({"type": "rifle", "real_ammo": "1"}, "real_ammo"),  # not a dousing rod
    ],
)
def test_a_bad_weapon_form_is_refused_inline_and_nothing_is_saved(
    member: Member, app: Any, form: dict[str, str], field: str
) -> None:
    army_id = new_army(member)
    simo = add_unit(member, army_id, {"name": "Simo", "degree": 3})
    r = member.htmx(f"/armies/{army_id}/units/{simo['id']}/weapons", form)
    assert r.status_code == 422, r.text[:300]
    assert r.text.lstrip().startswith(f'<tbody id="unit-{simo["id"]}"')
    assert re.search(
        rf'<p class="error"( id="add-weapon-{simo["id"]}-[^"]*-err")?>[^<]*</p>', r.text
    )
    if field != "real_ammo":
        assert re.search(rf'name="{field}"[^>]*aria-invalid="true"', r.text), r.text
    else:
        assert "Real ammo: Rifle takes no real ammo" in r.text
    assert counts(app) == (1, 0)
    preview = member.client.get(
        f"/armies/{army_id}/units/{simo['id']}/weapon-preview",
        params=form,
        headers={"HX-Request": "true"},
    )
    assert preview.status_code == 200 and f'<span class="error">{field}:' in preview.text


def test_the_builder_page_shows_columns_findings_and_the_weapon_picker(member: Member) -> None:
    army_id = new_army(member, budget=10)
    simo = add_unit(member, army_id, SIMO)
    add_unit(
        member,
        army_id,
        {"name": "Tank", "kind": "vehicular", "degree": 5, "weapons": [{"type": "rifle"}]},
    )
    page = member.client.get(f"/armies/{army_id}").text
    for heading in ("Degree", "Armour (front + back)", "HP", "AP per round", "OP"):
        assert f">{heading}</a>" in page  # a rules word: a link to the glossary
    kinds = ('<td data-label="Kind">Personnel · Human</td>', '<td data-label="Kind">Vehicular</td>')
    assert all(kind in page for kind in kinds)
    assert '<td class="num unit-cost" data-label="Cost">12 DP</td>' in page
    assert 'data-code="scale"' in page and "a Vehicular unit carries Vehicular weapons" in page
    assert 'data-code="over_budget"' in page  # 12 + 8 = 20 DP over 10
    assert '<strong id="total-cost">20 DP</strong> of 10 DP' in page
    editor = member.client.get(
        f"/armies/{army_id}/units/{simo['id']}/editor", headers={"HX-Request": "true"}
    ).text
    assert '<optgroup label="Personnel (table 9.2)">' in editor
    assert '<option value="rifle">Rifle (3°, Classical ballistic)</option>' in editor
    # each weapon's own form has its type selected and its fields filled
    assert '<option value="dousing_rod" selected>' in editor
    assert re.search(r'name="real_ammo" value="1" checked', editor)
    for label in ("Weapon", "Max degree (1–10)", "Label"):
        assert f">{label}</label>" in editor, label


# ------------------------------------------------------------------------ the JSON API


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"degree": 0}, "degree"),
        ({"degree": 11}, "degree"),
        ({"armour": -1}, "armour"),
        ({"back_armour": -1}, "back_armour"),
        ({"hp": -3}, "hp"),
        ({"ap": -1}, "ap"),
        ({"op": -1}, "op"),
        ({"kind": "galactic"}, "kind"),
        ({"weapons": [{"type": "blaster"}]}, "weapons.0.type"),
        ({"weapons": [{"type": "rifle", "degree": 0}]}, "weapons.0.degree"),
        ({"weapons": [{"type": "rifle", "colour": "red"}]}, "weapons.0.colour"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_the_api_refuses_a_bad_unit_naming_the_field_and_saves_nothing(
    member: Member, app: Any, body: dict[str, Any], field: str
) -> None:
    army_id = new_army(member)
    r = api(member, "POST", f"/api/v1/armies/{army_id}/units", json={"name": "X", **body})
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["field"] == field
    assert army(member, army_id)["units"] == [] and counts(app) == (0, 0)


def test_the_api_refuses_bad_weapons_and_edits_by_field(member: Member, app: Any) -> None:
    army_id = new_army(member)
    simo = add_unit(member, army_id, SIMO)
    url = f"/api/v1/armies/{army_id}/units/{simo['id']}"
    for weapon, field in (
        ({"type": "blaster"}, "type"),
        ({"type": "rifle", "degree": 11}, "degree"),
        ({"type": "rifle", "real_ammo": True}, "real_ammo"),
    ):
        r = api(member, "POST", f"{url}/weapons", json=weapon)
        assert r.status_code == 422 and r.json()["detail"][0]["field"] == field, r.text
    for patch, field in (({"degree": 12}, "degree"), ({"kind": "galactic"}, "kind")):
        r = api(member, "PATCH", url, json={"version": 1, **patch})
        assert r.status_code == 422 and r.json()["detail"][0]["field"] == field, r.text
    rod = simo["weapons"][1]["id"]
    r = api(member, "PATCH", f"{url}/weapons/{rod}", json={"version": 1, "degree": -1})
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "degree"
    assert army(member, army_id)["units"] == [simo]
    assert counts(app) == (1, 2)


def test_the_api_builds_a_degrees_army_with_every_figure(member: Member) -> None:
    army_id = new_army(member, budget=20)
    simo = add_unit(member, army_id, SIMO)
    assert {k: simo[k] for k in ("scale", "degree", "armour", "hp", "ap", "op", "human")} == {
        "scale": "personnel",
        "degree": 3,
        "armour": 3,
        "hp": 3,
        "ap": 3,
        "op": 0,
        "human": True,
    }
    rod = simo["weapons"][1]
    assert (rod["name"], rod["degree"], rod["attack_degree"], rod["cost"]) == (
        "Dousing rod",
        4,
        5,
        5,
    )
    assert rod["weapon_type"] == "dousing_rod" and rod["attack_ap"] == 1 and rod["rules"]
    url = f"/api/v1/armies/{army_id}/units/{simo['id']}"
    added = api(member, "POST", f"{url}/weapons", json={"type": "v_main", "label": "borrowed"})
    assert added.status_code == 201, added.text
    [finding] = added.json()["findings"]
    assert (finding["code"], finding["severity"]) == ("higher_order", "warning")
    preview = api(member, "POST", f"{url}/weapon-preview", json={"type": "gas_gun", "degree": 5})
    assert preview.status_code == 200
    assert [f["code"] for f in preview.json()["findings"]] == ["gas_gun_max"]
    assert preview.json()["cost"] == 5 and counts_units(member, army_id) == 1
    dup = api(member, "POST", f"{url}/duplicate")
    assert dup.status_code == 201 and dup.json()["cost"] == 17
    r = api(member, "POST", f"{url}/move", json={"offset": 1})
    assert r.status_code == 200, r.text
    body = army(member, army_id)
    assert [u["name"] for u in body["units"]] == ["Simo (copy)", "Simo"]
    assert body["total_cost"] == 34
    assert [(f["code"], f["severity"]) for f in body["findings"] if f["unit"] is None] == [
        ("over_budget", "error")
    ]


def counts_units(member: Member, army_id: int) -> int:
    return len(army(member, army_id)["units"])


def test_house_rules_over_budget_space_and_costs(member: Member) -> None:
    army_id = new_army(member, budget=10)
    add_unit(member, army_id, SIMO)
    body = army(member, army_id)
    assert [(f["code"], f["severity"]) for f in body["findings"]] == [("over_budget", "error")]
    r = member.htmx(
        f"/armies/{army_id}/house-rules",
        {"version": str(body["version"]), "allow_over_budget": "on", "costs": ""},
    )
    assert r.status_code == 200, r.text[:300]
    body = army(member, army_id)
    assert body["house_rules"] == {
        "allow_over_budget": True,
        "in_space": False,
        "costs": "",
        "bloom_range": False,
        "reveal_once": False,
        "flashback_attack_ap": False,
        "nociception_at_hit": False,
        "no_gas_repair": False,
    }
    assert [(f["code"], f["severity"]) for f in body["findings"]] == [("over_budget", "warning")]
    r = api(
        member,
        "PUT",
        f"/api/v1/armies/{army_id}/house-rules",
        json={
            "version": body["version"],
            "options": {"in_space": True, "costs": "inter_offer = 1, dousing_rod = 2"},
        },
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["total_cost"] == 3 + 1 + 2
    found = [(f["code"], f["severity"], f["unit"], f["weapon"]) for f in body["findings"]]
    assert found == [("space_ballistic", "error", 0, 0), ("space_ballistic", "error", 0, 1)]
    assert "attacks at 5° with real ammo" in body["findings"][1]["message"]
    r = api(
        member,
        "PUT",
        f"/api/v1/armies/{army_id}/house-rules",
        json={"version": body["version"], "options": {"costs": "blaster = 3"}},
    )
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "costs"


# ------------------------------------------------------------------------ sheet and export


def test_the_roster_sheet_the_text_export_and_export_import(member: Member, app: Any) -> None:
    army_id = new_army(member)
    add_unit(member, army_id, SIMO)
    add_unit(member, army_id, {"name": "Thinny", "degree": 2, "weapons": [{"type": "p_gun"}]})
    sheet = member.client.get(f"/armies/{army_id}/print?cards=true")
    assert sheet.status_code == 200
    assert "Inter-offing rifle 4° — Inter-offer · Personnel · attack 1 AP" in sheet.text
    assert "Dousing rod 4° — Personnel · attack 1 AP · back line raw 1 · 5 DP" in sheet.text
    assert "<li>Percussion gun (p-gun) 4°: attack 3 AP, back line never</li>" in sheet.text
    assert "12 DP" in sheet.text and "18 DP" in sheet.text  # Simo; the army
    text = member.client.get(f"/armies/{army_id}/export.txt").text
    assert "1. Simo (Personnel · Human) · 3° · Armour 3 · HP 3 · AP 3 · OP 0 · 12 DP" in text
    assert "   - Dousing rod 4°: Personnel · 1 AP · back line raw 1 · 5 DP" in text
    assert "2. Thinny (Personnel)" in text and "Total: 18 DP" in text
    assert "— Degrees — 18 DP of 100 DP" in text.splitlines()[0]  # the budget in DP too
    exported = member.client.get(f"/armies/{army_id}/export.json")
    assert exported.status_code == 200
    doc = exported.json()
    assert doc["ruleset"] == "degrees" and doc["units"][0]["weapons"][1]["real_ammo"] is True
    r = member.form("/armies/import", {"document": json.dumps(doc)}, follow_redirects=False)
    assert r.status_code == 303, r.text[:500]
    again = int(r.headers["location"].rsplit("/", 1)[1])
    assert member.client.get(f"/armies/{again}/export.json").json()["units"] == doc["units"]
    bad = doc | {"units": [doc["units"][0] | {"degree": 11}]}
    with app.state.sessionmaker() as s:
        before = s.scalar(select(func.count(Army.id)))
    r = member.form("/armies/import", {"document": json.dumps(bad)})
    assert r.status_code == 422 and "units[0].degree" in r.text
    with app.state.sessionmaker() as s:
        assert s.scalar(select(func.count(Army.id))) == before


def _form_values(html: str, form_id: str) -> dict[str, str]:
    """The values a browser would send for the form ``form_id`` as rendered."""
    form = html.split(f'<form id="{form_id}"', 1)[1].split("</form>", 1)[0]
    values: dict[str, str] = {}
    for tag in re.findall(r"<input [^>]*>", form):
        name = re.search(r'name="([^"]*)"', tag)
        value = re.search(r'value="([^"]*)"', tag)
        if name is None or ('type="checkbox"' in tag and " checked" not in tag):
            continue
        values[name.group(1)] = value.group(1) if value else ""
    for name, body in re.findall(r'<select [^>]*name="([^"]*)"[^>]*>(.*?)</select>', form, re.S):
        chosen = re.search(r'<option value="([^"]*)" selected>', body)
        values[name] = chosen.group(1) if chosen else re.findall(r'value="([^"]*)"', body)[0]
    values.pop("csrf_token", None)
    return {k: v.replace("&#34;", '"').replace("&#39;", "'") for k, v in values.items()}


def test_the_edit_forms_as_rendered_save_the_unit_unchanged(member: Member) -> None:
    """Every field of the unit's and each weapon's edit form is filled from the unit (the
    senses with its whole order): saving them as they are changes nothing."""
    army_id = new_army(member)
    body = {
        **SIMO,
        "back_armour": 1,
        "hp": 5,
        "op": 2,
        "senses": "Audition, Vision, Analgesia, Nociception",
        "weapons": [*SIMO["weapons"], {"type": "gas_gun", "degree": 3, "label": 'the "left"'}],
    }
    simo = add_unit(member, army_id, body)
    base = f"/armies/{army_id}/units/{simo['id']}"
    editor = member.client.get(f"{base}/editor", headers={"HX-Request": "true"}).text
    unit_form = _form_values(editor, f"unit-form-{simo['id']}")
    assert unit_form["senses"].startswith("Audition, Vision, Analgesia, Nociception, Thermal")
    assert unit_form["human"] == "1" and unit_form["hp"] == "5"
    assert member.htmx(base, unit_form).status_code == 200
    for weapon in simo["weapons"]:
        form = _form_values(editor, f"weapon-form-{weapon['id']}")
        assert form["type"] == weapon["type"]
        assert member.htmx(f"{base}/weapons/{weapon['id']}", form).status_code == 200
    after = army(member, army_id)["units"][0]
    assert after["spec"] == simo["spec"] and after["senses"] == simo["senses"]
    assert [w["spec"] for w in after["weapons"]] == [w["spec"] for w in simo["weapons"]]
    assert after["weapons"][2]["spec"]["label"] == 'the "left"'


def test_more_than_six_least_weasels_a_ferret_is_an_army_error(member: Member) -> None:
    """9.5.3: "Ferrets are standard-issued six Least Weasels." The army's findings (counts
    included) say so, and the army page shows it."""
    army_id = new_army(member, budget=500)
    add_unit(
        member, army_id, {"name": "Ferret", "degree": 4, "weapons": [{"type": "least_weasel"}]}
    )
    add_unit(member, army_id, {"name": "Weasels", "kind": "least_weasel", "count": 6})
    assert [f["code"] for f in army(member, army_id)["findings"]] == []
    add_unit(member, army_id, {"name": "One more", "kind": "least_weasel"})
    codes = [(f["code"], f["severity"]) for f in army(member, army_id)["findings"]]
    assert codes == [("weasels_per_ferret", "error")]
    page = member.client.get(f"/armies/{army_id}").text
    assert "Ferrets are standard-issued six Least Weasels" in page


def test_the_forum_text_names_a_dampener_order_only_where_it_says_something(
    member: Member,
) -> None:
    """DB14: a Personnel unit's order (its own, else "the rules' order"); a Vehicular or Army
    unit's only when the player set one: no empty or idle "Senses" line under it."""
    army_id = new_army(member)
    add_unit(member, army_id, {"name": "Trooper", "kind": "personnel", "degree": 2})
    add_unit(member, army_id, {"name": "Fleet", "kind": "army", "degree": 5})
    add_unit(member, army_id, {"name": "Tank", "kind": "vehicular", "degree": 4})
    add_unit(
        member, army_id, {"name": "Walker", "kind": "vehicular", "degree": 4, "senses": "Audition"}
    )
    text = member.client.get(f"/armies/{army_id}/export.txt").text
    blocks = dict(
        (b.split(" (", 1)[0], b) for b in re.split(r"\n(?=\d+\. )", text.split("\n\n")[1])
    )
    strip = {name[3:]: block for name, block in blocks.items()}
    assert "Senses (dampener order): the rules' order" in strip["Trooper"]
    assert "Senses" not in strip["Fleet"] and "Senses" not in strip["Tank"]
    assert "Senses (dampener order): Audition, Vision" in strip["Walker"]
    assert not re.search(r"Senses \(dampener order\):\s*$", text, re.M)
    sheet = member.client.get(f"/armies/{army_id}/print").text
    assert sheet.count("Senses (dampener order)") == 2
