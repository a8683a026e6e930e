"""A D20 army through the builder's pages and its JSON API: create, add/edit/duplicate/
reorder figurines, weapons with the live preview, the army's own weapons added again, totals
and findings, refusals that name their field (nothing saved), the roster sheet, the text
export and export/import."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from sqlalchemy import func, select

from app.db.models import Army, Unit, Weapon
from tests.web.conftest import Member

RIFLE = {"type": "gun", "name": "Assault rifle", "reach": 60, "power": 6, "automatic": True}
TROOPER = {
    "name": "Trooper",
    "kind": "su",
    "shot": 12,
    "hth": 8,
    "pd": 14,
    "evasion": 3,
    "dexterity": 5,
    "cp": 3,
    "points": 10,
    "weapons": [
        {**RIFLE, "points": 4},
        {"type": "hth", "name": "Knife", "power": 3, "points": 1},
        {"type": "defensive_grenade", "points": 2},
    ],
}  # 10 + 4 + 1 + 2 = 17 pts


def api(member: Member, method: str, url: str, **kw: Any) -> Any:
    return member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)


def new_army(member: Member, budget: int = 100) -> int:
    r = api(
        member,
        "POST",
        "/api/v1/armies",
        json={"name": "Genetics", "ruleset_id": "d20", "budget": budget},
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


def editor(member: Member, army_id: int, unit_id: int) -> str:
    r = member.client.get(
        f"/armies/{army_id}/units/{unit_id}/editor", headers={"HX-Request": "true"}
    )
    assert r.status_code == 200
    return r.text


# ------------------------------------------------------------------------ creating


def test_the_create_army_page_offers_d20_and_makes_a_d20_army(member: Member) -> None:
    listing = member.client.get("/armies").text
    assert '<option value="d20">D20 Power/Reach</option>' in listing
    assert "pts in D20 Power/Reach" in listing  # the budget's points, by rules
    r = member.form(
        "/armies",
        {"name": "Genetics", "budget": "40", "ruleset_id": "d20"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    army_id = int(r.headers["location"].rsplit("/", 1)[1])
    page = member.client.get(f"/armies/{army_id}").text
    assert "0 pts</strong> of 40 pts" in page
    assert "No figurines yet" in page and "the text gives no costs" in page  # the D20 hint
    for label in (
        "Name",
        "Figurine or SU",
        "Points (its own, weapons apart)",
        "Shot (0–40)",
        "HtH (0–40)",
        "Physical Defense (0–40)",
        "Evasion (0–40)",
        "Dexterity (0–40)",
        "Constitution Points (1–20)",
    ):
        assert f">{label}</label>" in page, label
    assert army(member, army_id)["ruleset_id"] == "d20"


# ------------------------------------------------------------------------ pages


def test_figurines_through_the_pages_add_edit_duplicate_move_and_remove(
    member: Member, app: Any
) -> None:
    army_id = new_army(member, budget=30)
    r = member.htmx(
        f"/armies/{army_id}/units",
        {"name": "Chronos", "kind": "figurine", "shot": "9", "pd": "18", "cp": "2", "points": "6"},
    )
    assert r.status_code == 200, r.text[:500]
    chronos = army(member, army_id)["units"][0]
    assert (chronos["shot"], chronos["pd"], chronos["cp"], chronos["su"]) == (9, 18, 2, False)
    assert chronos["kind"] == "figurine" and chronos["cost"] == 6

    # a gun through the add form, its preview first
    base = f"/armies/{army_id}/units/{chronos['id']}"
    gun = {"type": "gun", "name": "Psy rifle", "reach": "40", "power": "5", "points": "3"}
    preview = member.client.get(
        f"{base}/weapon-preview", params={**gun, "automatic": "1"}, headers={"HX-Request": "true"}
    )
    assert preview.status_code == 200
    text = " ".join(preview.text.split())
    assert "<strong>Psy rifle</strong> (Gun) · Reach 40 cm · P5 · automatic · 3 pts" in text
    r = member.htmx(f"{base}/weapons", {**gun, "automatic": "0"})
    assert r.status_code == 200, r.text[:500]
    assert re.search(r'<strong id="total-cost">9 pts</strong>', r.text)  # 6 + 3
    assert 'hx-swap-oob="true"' in r.text

    # the figurine's edit form, pre-filled; made an SU
    page = editor(member, army_id, chronos["id"])
    assert 'name="pd"' in page and 'value="18"' in page
    assert "Edit Chronos (SU, Shot, HtH, PD, Evasion, Dexterity, CP, points)" in page
    version = str(army(member, army_id)["units"][0]["version"])
    form = {"name": "Chronos", "kind": "su", "shot": "9", "pd": "18", "cp": "2", "points": "6"}
    r = member.htmx(base, {"version": version, **form, "evasion": "4"})
    assert r.status_code == 200, r.text[:500]
    unit = army(member, army_id)["units"][0]
    assert (unit["su"], unit["evasion"], unit["pd"]) == (True, 4, 18)

    # a weapon's edit form: more Power
    weapon = unit["weapons"][0]
    r = member.htmx(
        f"{base}/weapons/{weapon['id']}",
        {"version": str(weapon["version"]), "type": "gun", "name": "Psy rifle", "power": "7"},
    )
    assert r.status_code == 200, r.text[:500]
    assert army(member, army_id)["units"][0]["weapons"][0]["power"] == 7

    # duplicate, reorder, remove
    r = member.htmx(f"{base}/duplicate")
    assert r.status_code == 200
    names = [u["name"] for u in army(member, army_id)["units"]]
    assert names == ["Chronos", "Chronos (copy)"]
    copy = army(member, army_id)["units"][1]
    assert copy["weapons"][0]["power"] == 7 and copy["cost"] == 9 and copy["su"] is True
    member.htmx(f"{base}/move", {"offset": "1"})
    assert [u["name"] for u in army(member, army_id)["units"]] == ["Chronos (copy)", "Chronos"]
    member.htmx(f"{base}/delete")
    assert [u["name"] for u in army(member, army_id)["units"]] == ["Chronos (copy)"]
    assert counts(app) == (1, 1)


def test_the_builder_page_shows_columns_findings_and_totals(member: Member) -> None:
    army_id = new_army(member, budget=20)
    add_unit(member, army_id, TROOPER)
    add_unit(
        member,
        army_id,
        {
            "name": "Grunt",
            "points": 5,
            "weapons": [RIFLE, {"type": "gun", "name": "Pistol", "reach": 25, "power": 4}],
        },
    )
    plain = add_unit(member, army_id, {"name": "Rookie", "weapons": [{"type": "searing_grenade"}]})
    page = member.client.get(f"/armies/{army_id}").text
    for heading in ("Shot", "HtH", "PD", "Evasion", "Dex"):
        assert f">{heading}</a>" in page, heading  # a rules word: a link to the glossary
    assert ">CP</a>" in page and ">Own pts</th>" not in page  # in the cost, and the editor
    assert '<td data-label="Kind">SU</td>' in page and '<td data-label="Kind">Figurine</td>' in page
    assert '<td class="num unit-cost" data-label="Cost">17 pts</td>' in page
    for heading in ("Reach (cm)", "Power", "Radius"):
        assert f">{heading}</a>" in page, heading
    assert ">Notes</th>" in page  # a plain word
    assert (
        '<td data-label="Power">P25</td><td data-label="Radius">r10</td>'
        '<td data-label="Notes">cover protects, SU only</td>'
    ) in page
    # a grenade on a non-SU: an error; a second ranged weapon: a warning; over budget
    assert 'data-code="su_only"' in page and "only SUs carry grenades" in page
    assert 'data-code="one_target"' in page and "shoots one target per turn" in page
    assert page.count('<p class="meta one-target">') == 1  # under the Grunt's two guns
    assert 'data-code="over_budget"' in page  # 17 + 5 = 22 pts over 20
    assert '<strong id="total-cost">22 pts</strong> of 20 pts' in page
    assert [f["code"] for f in plain["weapons"][0]["findings"]] == ["su_only"]
    body = army(member, army_id)
    assert body["total_cost"] == 22
    assert [(f["code"], f["severity"]) for f in body["findings"]] == [
        ("over_budget", "error"),
        ("one_target", "warning"),
        ("su_only", "error"),
    ]


def test_the_weapon_forms_show_only_the_fields_of_the_chosen_weapon(member: Member) -> None:
    army_id = new_army(member)
    su = add_unit(member, army_id, TROOPER)
    page = editor(member, army_id, su["id"])
    # the add form: every field, labelled, with the picker grouped
    add = page.split(f'<form id="add-weapon-{su["id"]}"', 1)[1].split("</form>", 1)[0]
    for label in ("Weapon or equipment", "Name", "Reach (cm, guns)", "Power", "Points", "Label"):
        assert f">{label}</label>" in add, label
    assert '<optgroup label="Grenades (SUs only)">' in add
    assert '<option value="typhoon_charge">Typhoon-type charge (P35/r30)</option>' in add
    forms = {
        w["type"]: page.split(f'<form id="weapon-form-{w["id"]}"', 1)[1].split("</form>", 1)[0]
        for w in su["weapons"]
    }
    gun, knife, grenade = forms["gun"], forms["hth"], forms["defensive_grenade"]
    for name in ("name", "reach", "power", "automatic"):
        assert f'name="{name}"' in gun, name
    assert re.search(r'name="automatic" value="1" checked', gun)
    assert 'name="power"' in knife and 'name="reach"' not in knife
    assert 'name="automatic"' not in knife
    for name in ("name", "reach", "power", "automatic"):
        assert f'name="{name}"' not in grenade, name
    assert '<option value="defensive_grenade" selected>' in grenade
    for form in forms.values():
        for name in ("points", "label", "notes"):
            assert f'name="{name}"' in form


def test_the_armys_own_weapons_are_offered_again_in_one_step(member: Member) -> None:
    army_id = new_army(member)
    add_unit(member, army_id, TROOPER)
    rookie = add_unit(member, army_id, {"name": "Rookie"})
    # the figurine's own page (the army at hand) lists the army's guns and blades
    page = member.client.get(f"/armies/{army_id}/units/{rookie['id']}").text
    add = page.split(f'<form id="add-weapon-{rookie["id"]}"', 1)[1].split("</form>", 1)[0]
    assert "This army's own weapons, to add again as they are:" in add
    buttons = re.findall(r"<button [^>]*hx-vals='([^']*)'[^>]*>([^<]*)</button>", add)
    assert [text for _, text in buttons] == [
        "Assault rifle (Reach 60 cm, P6, automatic, 4 pts)",
        "Knife (hand-to-hand, P3, 1 pts)",
    ]  # the grenade is the text's equipment, not the army's own
    assert f'hx-post="/armies/{army_id}/units/{rookie["id"]}/weapons"' in add
    # what a button sends (its values over the form's) adds the same weapon
    vals = json.loads(html.unescape(buttons[0][0]))
    r = member.htmx(f"/armies/{army_id}/units/{rookie['id']}/weapons", vals)
    assert r.status_code == 200, r.text[:500]
    [weapon] = army(member, army_id)["units"][1]["weapons"]
    assert (weapon["name"], weapon["reach"], weapon["power"], weapon["automatic"]) == (
        "Assault rifle",
        60,
        6,
        True,
    )
    assert weapon["cost"] == 4
    # an edit form offers nothing of the kind
    edit = page.split('<form id="weapon-form-', 1)
    assert len(edit) == 1 or "to add again" not in edit[1]


@pytest.mark.parametrize(
    ("form", "field", "reason"),
    [
        ({"shot": "41"}, "shot", "must be from 0 to 40"),
        ({"pd": "-1"}, "pd", "must be from 0 to 40"),
        ({"evasion": "99"}, "evasion", "must be from 0 to 40"),
        ({"dexterity": "41"}, "dexterity", "must be from 0 to 40"),
        ({"cp": "0"}, "cp", "must be from 1 to 20"),
        ({"cp": "21"}, "cp", "must be from 1 to 20"),
        ({"points": "-3"}, "points", "must be from 0"),
        ({"kind": "hero"}, "kind", "must be one of"),
    ],
)
def test_a_bad_figurine_form_is_refused_inline_and_nothing_is_saved(
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
        ({"type": "laser"}, "type"),
        ({"type": "gun", "name": "G", "reach": "10", "power": "-1"}, "power"),
        ({"type": "gun", "name": "G", "reach": "-1", "power": "2"}, "reach"),
        ({"type": "gun", "name": "G", "power": "2"}, "reach"),
        ({"type": "gun", "reach": "10", "power": "2"}, "name"),
        ({"type": "hth", "name": "K", "power": "2", "automatic": "1"}, "automatic"),
        ({"type": "defensive_grenade", "power": "30"}, "power"),
    ],
)
def test_a_bad_weapon_form_is_refused_inline_and_nothing_is_saved(
    member: Member, app: Any, form: dict[str, str], field: str
) -> None:
    army_id = new_army(member)
    su = add_unit(member, army_id, {"name": "SU", "kind": "su"})
    r = member.htmx(f"/armies/{army_id}/units/{su['id']}/weapons", form)
    assert r.status_code == 422, r.text[:300]
    assert r.text.lstrip().startswith(f'<tbody id="unit-{su["id"]}"')
    if field == "automatic":
        assert re.search(r'name="automatic" value="1"[^>]*aria-invalid="true"', r.text), r.text
    else:
        assert re.search(rf'name="{field}"[^>]*aria-invalid="true"', r.text), r.text
    assert counts(app) == (1, 0)
    preview = member.client.get(
        f"/armies/{army_id}/units/{su['id']}/weapon-preview",
        params=form,
        headers={"HX-Request": "true"},
    )
    assert preview.status_code == 200 and f'<span class="error">{field}:' in preview.text


# ------------------------------------------------------------------------ the JSON API


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"shot": 41}, "shot"),
        ({"hth": -1}, "hth"),
        ({"pd": 41}, "pd"),
        ({"cp": 0}, "cp"),
        ({"cp": 21}, "cp"),
        ({"kind": "hero"}, "kind"),
        ({"weapons": [{"type": "laser"}]}, "weapons.0.type"),
        ({"weapons": [{"type": "gun", "name": "G", "reach": 9, "power": -1}]}, "weapons.0.power"),
        ({"weapons": [{"type": "gun", "name": "G", "reach": -9, "power": 1}]}, "weapons.0.reach"),
        (
            {"weapons": [{"type": "hth", "name": "K", "power": 1, "colour": "red"}]},
            "weapons.0.colour",
        ),
        ({"colour": "red"}, "colour"),
    ],
)
def test_the_api_refuses_a_bad_figurine_naming_the_field_and_saves_nothing(
    member: Member, app: Any, body: dict[str, Any], field: str
) -> None:
    army_id = new_army(member)
    r = api(member, "POST", f"/api/v1/armies/{army_id}/units", json={"name": "X", **body})
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["field"] == field
    assert army(member, army_id)["units"] == [] and counts(app) == (0, 0)


def test_the_api_refuses_bad_weapons_and_edits_by_field(member: Member, app: Any) -> None:
    army_id = new_army(member)
    trooper = add_unit(member, army_id, TROOPER)
    url = f"/api/v1/armies/{army_id}/units/{trooper['id']}"
    for weapon, field in (
        ({"type": "laser"}, "type"),
        ({"type": "gun", "name": "G", "reach": 10, "power": -2}, "power"),
        ({"type": "hth", "name": "K", "power": 2, "reach": -1}, "reach"),
        ({"type": "searing_grenade", "reach": 30}, "reach"),
    ):
        r = api(member, "POST", f"{url}/weapons", json=weapon)
        assert r.status_code == 422 and r.json()["detail"][0]["field"] == field, r.text
    for patch, field in (({"cp": 0}, "cp"), ({"evasion": 41}, "evasion"), ({"kind": "x"}, "kind")):
        r = api(member, "PATCH", url, json={"version": 1, **patch})
        assert r.status_code == 422 and r.json()["detail"][0]["field"] == field, r.text
    rifle = trooper["weapons"][0]["id"]
    r = api(member, "PATCH", f"{url}/weapons/{rifle}", json={"version": 1, "power": -1})
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "power"
    assert army(member, army_id)["units"] == [trooper]
    assert counts(app) == (1, 3)


def test_the_api_builds_a_d20_army_with_every_figure(member: Member) -> None:
    army_id = new_army(member, budget=30)
    trooper = add_unit(member, army_id, TROOPER)
    own = ("su", "shot", "hth", "pd", "evasion", "dexterity", "cp", "points")
    assert {k: trooper[k] for k in own} == {
        "su": True,
        "shot": 12,
        "hth": 8,
        "pd": 14,
        "evasion": 3,
        "dexterity": 5,
        "cp": 3,
        "points": 10,
    }
    assert trooper["kind"] == "su" and trooper["cost"] == 17 and trooper["findings"] == []
    grenade = trooper["weapons"][2]
    assert (grenade["name"], grenade["power"], grenade["power_text"], grenade["radius"]) == (
        "Defensive Grenade",
        25,
        "P25",
        10,
    )
    assert grenade["category"] == "grenade" and grenade["cost"] == 2
    assert grenade["spec"] == {"points": 2}  # the text's figures are not stored again
    url = f"/api/v1/armies/{army_id}/units/{trooper['id']}"
    pistol = {"type": "gun", "name": "Pistol", "reach": 25, "power": 4, "points": 1}
    added = api(member, "POST", f"{url}/weapons", json=pistol)
    assert added.status_code == 201, added.text
    [finding] = added.json()["findings"]
    assert (finding["code"], finding["severity"]) == ("one_target", "warning")
    preview = api(member, "POST", f"{url}/weapon-preview", json={"type": "flaming_grenade"})
    assert preview.status_code == 200
    assert preview.json()["power_text"] == "F15" and preview.json()["findings"] == []
    assert len(army(member, army_id)["units"][0]["weapons"]) == 4  # the preview saved nothing
    dup = api(member, "POST", f"{url}/duplicate")
    assert dup.status_code == 201 and dup.json()["cost"] == 18
    r = api(member, "POST", f"{url}/move", json={"offset": 1})
    assert r.status_code == 200, r.text
    body = army(member, army_id)
    assert [u["name"] for u in body["units"]] == ["Trooper (copy)", "Trooper"]
    assert body["total_cost"] == 36
    assert [(f["code"], f["severity"]) for f in body["findings"] if f["unit"] is None] == [
        ("over_budget", "error")
    ]


def test_house_rule_over_budget_is_a_warning(member: Member) -> None:
    army_id = new_army(member, budget=10)
    add_unit(member, army_id, TROOPER)
    body = army(member, army_id)
    assert [(f["code"], f["severity"]) for f in body["findings"]] == [("over_budget", "error")]
    assert body["findings"][0]["message"] == (
        "The army costs 17 pts, over its budget of 10 pts by 7 pts."
    )
    r = api(
        member,
        "PUT",
        f"/api/v1/armies/{army_id}/house-rules",
        json={"version": body["version"], "options": {"allow_over_budget": True}},
    )
    assert r.status_code == 200, r.text
    assert [(f["code"], f["severity"]) for f in r.json()["findings"]] == [
        ("over_budget", "warning")
    ]


# ------------------------------------------------------------------------ sheet and export


def test_the_roster_sheet_the_text_export_and_export_import(member: Member, app: Any) -> None:
    army_id = new_army(member)
    add_unit(member, army_id, TROOPER)
    add_unit(
        member,
        army_id,
        {"name": "Sapper", "points": 3, "weapons": [{"type": "hurricane_charge", "points": 2}]},
    )
    sheet = member.client.get(f"/armies/{army_id}/print?cards=true")
    assert sheet.status_code == 200
    assert "Assault rifle — Reach 60 cm · P6 · automatic · 4 pts" in sheet.text
    assert "Defensive Grenade — Reach 20 cm · P25/r10 · cover protects · SU only · 2 pts" in (
        sheet.text
    )
    assert "<li>Knife: hand-to-hand, P3</li>" in sheet.text
    assert (
        "<li>Hurricane-type charge: placed, P15/r10, cover protects, timer 1-20 turns, DL 15 "
        "to defuse</li>"
    ) in sheet.text
    assert "17 pts" in sheet.text and "22 pts" in sheet.text  # the Trooper; the army
    text = member.client.get(f"/armies/{army_id}/export.txt").text
    assert "1. Trooper (SU) · Shot 12 · HtH 8 · PD 14 · Evasion 3 · Dex 5 · CP 3 · 17 pts" in text
    assert "   - Knife: hand-to-hand · P3 · 1 pts" in text
    assert "2. Sapper (Figurine)" in text and "Total: 22 pts" in text
    assert "— D20 Power/Reach — 22 pts of 100 pts" in text.splitlines()[0]
    exported = member.client.get(f"/armies/{army_id}/export.json")
    assert exported.status_code == 200
    doc = exported.json()
    assert doc["ruleset"] == "d20" and doc["units"][0]["weapons"][0]["automatic"] is True
    r = member.form("/armies/import", {"document": json.dumps(doc)}, follow_redirects=False)
    assert r.status_code == 303, r.text[:500]
    again = int(r.headers["location"].rsplit("/", 1)[1])
    assert member.client.get(f"/armies/{again}/export.json").json()["units"] == doc["units"]
    bad = doc | {"units": [doc["units"][0] | {"cp": 0}]}
    with app.state.sessionmaker() as s:
        before = s.scalar(select(func.count(Army.id)))
    r = member.form("/armies/import", {"document": json.dumps(bad)})
    assert r.status_code == 422 and "units[0].cp" in r.text
    with app.state.sessionmaker() as s:
        assert s.scalar(select(func.count(Army.id))) == before


def _form_values(page: str, form_id: str) -> dict[str, str]:
    """The values a browser would send for the form ``form_id`` as rendered."""
    form = page.split(f'<form id="{form_id}"', 1)[1].split("</form>", 1)[0]
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
    return {k: html.unescape(v) for k, v in values.items()}


def test_the_edit_forms_as_rendered_save_the_figurine_unchanged(member: Member) -> None:
    army_id = new_army(member)
    body = {
        **TROOPER,
        "weapons": [
            *TROOPER["weapons"],
            {"type": "typhoon_charge", "label": 'the "big" one', "notes": "for the bridge"},
        ],
    }
    trooper = add_unit(member, army_id, body)
    base = f"/armies/{army_id}/units/{trooper['id']}"
    page = editor(member, army_id, trooper["id"])
    unit_form = _form_values(page, f"unit-form-{trooper['id']}")
    assert unit_form["kind"] == "su" and unit_form["cp"] == "3"
    assert member.htmx(base, unit_form).status_code == 200
    for weapon in trooper["weapons"]:
        form = _form_values(page, f"weapon-form-{weapon['id']}")
        assert form["type"] == weapon["type"]
        r = member.htmx(f"{base}/weapons/{weapon['id']}", form)
        assert r.status_code == 200, r.text[:400]
    after = army(member, army_id)["units"][0]
    assert after["spec"] == trooper["spec"]
    assert [w["spec"] for w in after["weapons"]] == [w["spec"] for w in trooper["weapons"]]
    assert after["weapons"][3]["spec"]["label"] == 'the "big" one'


def test_unticking_automatic_fire_on_the_edit_form_clears_it(member: Member) -> None:
    """An unticked box is absent from a form: the hidden 0 before it says "off"."""
    army_id = new_army(member)
    trooper = add_unit(member, army_id, TROOPER)
    rifle = trooper["weapons"][0]
    assert rifle["automatic"] is True
    base = f"/armies/{army_id}/units/{trooper['id']}"
    page = editor(member, army_id, trooper["id"])
    form = _form_values(page, f"weapon-form-{rifle['id']}")
    assert form["automatic"] == "1"
    r = member.htmx(f"{base}/weapons/{rifle['id']}", {**form, "automatic": "0"})
    assert r.status_code == 200, r.text[:400]
    after = army(member, army_id)["units"][0]["weapons"][0]
    assert after["automatic"] is False and "automatic" not in after["spec"]
    assert after["rules"] == []


def test_making_a_figurine_an_su_through_the_api_keeps_its_stats(member: Member) -> None:
    """A new kind keeps the fields the ruleset takes for it (the shared service used to
    reset a unit to the new kind's defaults: Shot 9 -> 0, PD 18 -> 10)."""
    army_id = new_army(member)
    trooper = add_unit(member, army_id, TROOPER | {"kind": "figurine"})
    assert trooper["kind"] == "figurine"
    url = f"/api/v1/armies/{army_id}/units/{trooper['id']}"
    r = api(member, "PATCH", url, json={"version": trooper["version"], "kind": "su"})
    assert r.status_code == 200, r.text
    (unit,) = army(member, army_id)["units"]
    assert unit["kind"] == "su"
    for key in ("shot", "hth", "pd", "evasion", "dexterity", "cp", "points"):
        assert unit[key] == trooper[key], key


@pytest.mark.parametrize("kind", ["gun", "hth", "defensive_grenade", "typhoon_charge"])
def test_the_weapon_preview_counts_the_points_typed(member: Member, kind: str) -> None:
    """Issue 29: the live preview's cost is the Points typed (as the saved weapon's is), for
    a weapon of each category; the API's preview alike."""
    army_id = new_army(member)
    su = add_unit(member, army_id, {**TROOPER, "weapons": []})
    own = {"name": "Own", "reach": "40", "power": "5"} if kind in ("gun", "hth") else {}
    if kind == "hth":
        own.pop("reach")
    url = f"/armies/{army_id}/units/{su['id']}/weapon-preview"
    for points in ("0", "1", "12"):
        form = {"type": kind, **own, "points": points, "automatic": "0", "label": "", "notes": ""}
        text = " ".join(
            member.client.get(url, params=form, headers={"HX-Request": "true"}).text.split()
        )
        assert f"· {points} pts" in text, text
        body = {k: v for k, v in form.items() if v not in ("", "0") or k == "points"}
        r = api(member, "POST", f"/api/v1{url}", json={**body, "points": int(points)})
        assert r.status_code == 200 and r.json()["cost"] == int(points), r.text
