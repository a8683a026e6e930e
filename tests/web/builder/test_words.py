"""Issue 14, item 14: the words the product uses. History names only what changed, in words;
the revision view keeps weapon names' case; Out of Range says how far beyond the Range; turns
are singular or plural; error messages read as sentences; one weapon-name format everywhere."""

from __future__ import annotations

import html
from fractions import Fraction

from fastapi.testclient import TestClient

from app.rules.brikwars import unit_from_dict
from app.rules.brikwars.turn import Turn, TurnSituation
from app.rules.brikwars.units import WeaponSpec
from app.rules.brikwars.validation import validate_unit
from tests.web.builder.test_builder import TANK, add_unit, api
from tests.web.conftest import Member


def _army(member: Member) -> int:
    r = api(member, "POST", "/api/v1/armies", json={"name": "Words", "budget": 500})
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def _summaries(member: Member, army_id: int) -> list[str]:
    return [r["summary"] for r in api(member, "GET", f"/api/v1/armies/{army_id}/history").json()]


def test_a_rename_from_the_unit_form_is_recorded_as_a_rename(member: Member) -> None:
    army_id = _army(member)
    tank = add_unit(member, army_id, TANK)
    # the edit form posts every field, as shown: only the name differs
    form = {
        "version": "1",
        "name": "Tank Mk II",
        "kind": "creation",
        "size": "3",
        "structure_level": "2",
        "propulsion": "ground",
        "move": "4",
        "mind_die": "6",
        "size_damage": "0",
        "specialties._present": "1",
    }
    r = member.htmx(f"/armies/{army_id}/units/{tank['id']}", form)
    assert r.status_code == 200, r.text
    assert _summaries(member, army_id)[0] == "renamed 'Tank' to 'Tank Mk II', +0 CP"
    form = {**form, "version": "2", "move": "5"}
    member.htmx(f"/armies/{army_id}/units/{tank['id']}", form)
    assert _summaries(member, army_id)[0].startswith('changed Tank Mk II: Move 4" → 5", +')


def test_an_ammo_change_says_what_changed(member: Member) -> None:
    army_id = _army(member)
    tank = add_unit(
        member,
        army_id,
        {**TANK, "weapons": [{"type": "cannon", "size": 3, "ammo": {"xsize": 2}}]},
    )
    weapon = tank["weapons"][0]
    r = api(
        member,
        "PATCH",
        f"/api/v1/armies/{army_id}/units/{tank['id']}/weapons/{weapon['id']}",
        json={"version": weapon["version"], "ammo": {"xsize": 1}},
    )
    assert r.status_code == 200, r.text
    summary = _summaries(member, army_id)[0]
    assert summary.startswith('changed 3" Cannon on Tank: Ammo X2 → X1, -'), summary
    r = api(
        member,
        "PATCH",
        f"/api/v1/armies/{army_id}/units/{tank['id']}/weapons/{weapon['id']}",
        json={"version": weapon["version"] + 1, "type": "gun", "size": 3, "ammo": None},
    )
    assert r.status_code == 200, r.text
    assert _summaries(member, army_id)[0].startswith('changed 3" Cannon on Tank to 3" Gun, ')


def test_the_revision_view_keeps_the_weapon_names_case(member: Member) -> None:
    army_id = _army(member)
    add_unit(member, army_id, {**TANK, "weapons": [{"type": "machinegun", "size": 2}]})
    revision = api(member, "GET", f"/api/v1/armies/{army_id}/history").json()[0]
    page = member.client.get(f"/armies/{army_id}/history/{revision['id']}")
    assert page.status_code == 200
    assert '2" MachineGun' in html.unescape(page.text)
    assert "machinegun" not in page.text


def test_out_of_range_says_how_far_beyond_the_range() -> None:
    # a 3" Gun reaches 14" (4 × S + 2): at 20" it is 6" beyond its Range
    turn = Turn(
        unit_from_dict(TANK), (0,), unit_from_dict(TANK), TurnSituation(distance=Fraction(20))
    )
    steps = {s.label: s.value for s in turn.lines()[0].steps}
    assert steps['Out of Range: at 20", 6" beyond its Range'] == "-6"
    assert not any(label.startswith('Out of Range (6")') for label in steps)


def test_one_turn_is_singular() -> None:
    # a 3" Gun needs 3" of Power and a 1" Creation has 2": it diverts for one turn, a 5" Gun two
    unit = unit_from_dict(
        {
            "name": "Cart",
            "kind": "creation",
            "size": 1,
            "structure_level": 1,
            "weapons": [{"type": "gun", "size": 3}, {"type": "gun", "size": 5}],
        }
    )
    messages = [f.message for f in validate_unit(unit) if "Divert All Power" in f.message]
    assert len(messages) == 2 and not any("turn(s)" in m for m in messages), messages
    assert "for 1 turn first" in messages[0] and "for 2 turns first" in messages[1]


def test_a_wrong_login_reads_as_a_sentence(app) -> None:  # type: ignore[no-untyped-def]
    with TestClient(app) as c:
        page = c.get("/login")
        token = page.text.split('name="csrf_token" value="')[1].split('"')[0]
        r = c.post(
            "/login",
            data={"email": "nobody@example.com", "password": "wrong-password", "csrf_token": token},
        )
    assert "Email or password is incorrect." in r.text
    assert "email or password is incorrect" not in r.text


def test_a_required_field_error_reads_as_a_sentence(member: Member) -> None:
    army_id = _army(member)
    r = member.htmx(f"/armies/{army_id}/units", {"name": "", "kind": "minifig"})
    assert r.status_code == 422
    assert "Name is required" in r.text and "Name: is required" not in r.text


def test_one_weapon_name_format_everywhere(member: Member) -> None:
    from app.rules.brikwars import units

    weapon_name = units.weapon_name
    assert weapon_name(WeaponSpec("gun", size=3)) == '3" Gun'
    assert weapon_name(WeaponSpec("gun", size=3, label="coax")) == '3" Gun (coax)'
    army_id = _army(member)
    tank = add_unit(member, army_id, {**TANK, "weapons": []})
    r = api(
        member,
        "POST",
        f"/api/v1/armies/{army_id}/units/{tank['id']}/weapons",
        json={"type": "gun", "size": 3},
    )
    assert r.status_code == 201, r.text
    pages = {
        "builder": member.client.get(f"/armies/{army_id}").text,
        "print": member.client.get(f"/armies/{army_id}/print").text,
        "forum text": member.client.get(f"/armies/{army_id}/export.txt").text,
        "history": member.client.get(f"/armies/{army_id}/history").text,
    }
    for where, text in pages.items():
        text = html.unescape(text)
        assert '3" Gun' in text, where
        assert 'Gun 3"' not in text, where


def test_the_stale_unit_message_says_it_once(member: Member) -> None:
    army_id = _army(member)
    tank = add_unit(member, army_id, TANK)
    url = f"/armies/{army_id}/units/{tank['id']}"
    assert member.htmx(url, {"version": "1", "name": "Tank Mk II"}).status_code == 200
    second = member.htmx(url, {"version": "1", "name": "Tank from tab two"})
    assert second.status_code == 409
    banner = second.text.split('class="error banner" role="alert">')[1].split("</p>")[0]
    assert banner.startswith("This unit was changed in another tab or by someone else")
    assert banner.count("changed") == 1 and banner.count("reload") == 1
    assert "renamed &#39;Tank&#39; to &#39;Tank Mk II&#39;" in banner
    assert "reload (latest" not in banner and "; reload" not in banner
