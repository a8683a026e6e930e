"""Issue 14, items 8 and 9: the builder's forms show only the fields the chosen kind and type
use, weapons are named in their editors' headings, a minifig's weapons are held, armour is
not offered as a weapon to fire, and an orange figure always has a finding that explains it."""

from __future__ import annotations

import re

from tests.web.builder.test_armies import create
from tests.web.builder.test_builder import add_unit
from tests.web.conftest import Member


def _row(html: str, unit_id: int) -> str:
    found = re.search(rf'<tbody id="unit-{unit_id}".*?</tbody>', html, re.S)
    assert found, html[:500]
    return found.group(0)


def test_a_minifigs_gun_and_melee_weapon_are_hand_held(member: Member) -> None:
    army_id = create(member)
    pvt = add_unit(
        member,
        army_id,
        {
            "name": "Pvt",
            "kind": "minifig",
            "weapons": [{"type": "gun", "size": 1}, {"type": "melee_weapon", "size": 1}],
        },
    )
    row = _row(member.client.get(f"/armies/{army_id}").text, pvt["id"])
    weapons = re.findall(r'<tr id="weapon-\d+"[^>]*><td[^>]*>[^<]*</td><td[^>]*>([^<]*)</td>', row)
    assert weapons == ["hand held · short", "hand held · short"], row
    assert ">mounted<" not in row  # (the Mount heading's glossary tip may say "mounted")


def test_armour_is_not_a_weapon_to_fire(member: Member) -> None:
    army_id = create(member)
    tank = add_unit(
        member,
        army_id,
        {
            "name": "Tank",
            "size": 3,
            "structure_level": 2,
            "weapons": [{"type": "gun", "size": 3}, {"type": "armor_plating", "size": 1}],
        },
    )
    gun, plating = (w["id"] for w in tank["weapons"])
    page = member.client.get(f"/armies/{army_id}/units/{tank['id']}").text
    usable = re.search(r"Usable together in one turn[^<]*", page)
    assert usable and "Gun" in usable.group(0) and "Armor Plating" not in usable.group(0)
    calc = member.client.get(f"/calculator?attacker={tank['id']}").text
    assert f'name="weapons" value="{gun}"' in calc
    assert f'name="weapons" value="{plating}"' not in calc


def test_a_heros_power_is_orange_only_with_a_finding(member: Member) -> None:
    army_id = create(member)
    hero = add_unit(
        member,
        army_id,
        {
            "name": "Hero",
            "kind": "hero",
            "weapons": [{"type": "long_ranged_weapon"}, {"type": "heavy_weapon"}],
        },
    )
    row = _row(member.client.get(f"/armies/{army_id}").text, hero["id"])
    assert "3/2&#34;" in row or '3/2"' in row
    assert 'class="num warn"' not in row and 'class="warn' not in row


def _form(html: str, form_id: str) -> str:
    found = re.search(rf'<form id="{form_id}".*?</form>', html, re.S)
    assert found, f"no form {form_id}"
    return found.group(0)


def _names(html: str) -> set[str]:
    return set(re.findall(r'<(?:input|select)[^>]* name="([^"]+)"', html))


CREATION_ONLY = {"size", "structure_level", "propulsion", "size_damage"}


def test_a_minifig_is_not_asked_for_a_creations_fields(member: Member) -> None:
    army_id = create(member)
    add = _form(member.client.get(f"/armies/{army_id}").text, "add-unit-form")
    assert "<legend>Creation" not in add  # the add form starts on a minifig
    assert {"name", "kind", "move", "mind_die"} <= _names(add)
    assert not CREATION_ONLY & _names(add)
    pvt = add_unit(member, army_id, {"name": "Pvt", "kind": "minifig"})
    tank = add_unit(member, army_id, {"name": "Tank", "size": 3, "structure_level": 2})
    edit = _form(
        member.client.get(f"/armies/{army_id}/units/{pvt['id']}").text, f"unit-form-{pvt['id']}"
    )
    assert not CREATION_ONLY & _names(edit) and "move" in _names(edit)
    edit = _form(
        member.client.get(f"/armies/{army_id}/units/{tank['id']}").text, f"unit-form-{tank['id']}"
    )
    assert _names(edit) >= CREATION_ONLY


def test_choosing_another_kind_fetches_its_fields_and_keeps_what_was_typed(
    member: Member,
) -> None:
    army_id = create(member)
    url = f"/armies/{army_id}/units/new"
    swap = member.client.get(
        url,
        params={"name": "Blob", "kind": "creation", "move": "4"},
        headers={"HX-Request": "true"},
    )
    assert swap.status_code == 200
    fields = re.search(r'<div id="add-unit-form-fields".*', swap.text, re.S)
    assert fields and CREATION_ONLY - {"size_damage"} <= _names(fields.group(0))
    assert 'value="Blob"' in swap.text and 'name="move" type="text" value="4"' in swap.text
    back = member.client.get(
        url, params={"name": "Blob", "kind": "minifig"}, headers={"HX-Request": "true"}
    )
    assert not CREATION_ONLY & _names(back.text) and 'value="Blob"' in back.text
    # the Kind picker says where to fetch them
    page = member.client.get(f"/armies/{army_id}").text
    kind = re.search(r'<select id="add-unit-form-kind"[^>]*>', page)
    assert kind and f'hx-get="{url}"' in kind.group(0) and "#add-unit-form-fields" in kind.group(0)
    # the same address opened directly is the army page with the form so filled
    full = member.client.get(url, params={"name": "Blob", "kind": "creation"})
    assert full.status_code == 200 and "<html" in full.text
    assert "structure_level" in _names(_form(full.text, "add-unit-form"))
    # an edit form: the unit's editor again, that form with the typed values
    pvt = add_unit(member, army_id, {"name": "Pvt", "kind": "minifig"})
    editor = member.client.get(
        f"/armies/{army_id}/units/{pvt['id']}/editor",
        params={"form": f"unit-form-{pvt['id']}", "name": "Walker", "kind": "creation"},
        headers={"HX-Request": "true"},
    )
    edit = _form(editor.text, f"unit-form-{pvt['id']}")
    assert _names(edit) >= CREATION_ONLY and 'value="Walker"' in edit


def test_without_javascript_a_new_kind_is_shown_with_its_fields_on_submit(
    member: Member,
) -> None:
    army_id = create(member)
    r = member.htmx(f"/armies/{army_id}/units", {"name": "Blob", "kind": "creation", "move": "4"})
    assert r.status_code == 422
    assert {"size", "structure_level", "propulsion"} <= _names(r.text)
    assert 'value="Blob"' in r.text


def test_a_weapon_form_shows_only_its_types_fields(member: Member) -> None:
    army_id = create(member)
    tank = add_unit(
        member,
        army_id,
        {
            "name": "Tank",
            "size": 4,
            "structure_level": 2,
            "weapons": [
                {"type": "gun", "size": 3, "label": "Left arm"},
                {"type": "gun", "size": 2, "label": "Right arm"},
                {"type": "cannon", "size": 3, "ammo": {"xsize": 2}},
            ],
        },
    )
    left, _, cannon = (w["id"] for w in tank["weapons"])
    page = member.client.get(f"/armies/{army_id}/units/{tank['id']}").text
    gun = _names(_form(page, f"weapon-form-{left}"))
    assert {"type", "size", "mount", "label"} <= gun
    assert not {n for n in gun if n.startswith(("ammo", "payload"))} and "xsize" not in gun
    shell = _names(_form(page, f"weapon-form-{cannon}"))
    assert "ammo.xsize" in shell and not {n for n in shell if n.startswith("payload")}
    # the two guns are told apart by their size and label
    headings = re.findall(
        r'<details class="weapon-editor"[^>]*>\s*<summary>([^<]*)</summary>', page
    )
    assert len(set(headings)) == 3, headings
    # (the builder table's name of the weapon, whatever its format)
    assert all(part in headings[0] for part in ("Edit", "Gun", "3&#34;", "Left arm")), headings
    assert all(part in headings[1] for part in ("Edit", "Gun", "2&#34;", "Right arm")), headings
    # a new type fetches its fields: a Launcher's Payload, the label typed kept
    editor = member.client.get(
        f"/armies/{army_id}/units/{tank['id']}/editor",
        params={
            "form": f"weapon-form-{left}",
            "type": "launcher",
            "size": "3",
            "label": "Left arm",
        },
        headers={"HX-Request": "true"},
    )
    fields = re.search(rf'<div id="weapon-form-{left}-fields".*?</details>', editor.text, re.S)
    assert fields and "payload.per_launch" in _names(fields.group(0))
    assert "ammo.xsize" not in _names(fields.group(0)) and 'value="Left arm"' in fields.group(0)


def test_the_api_says_which_fields_each_kind_and_type_takes(client) -> None:  # type: ignore[no-untyped-def]
    brikwars = client.get("/api/v1/rulesets/brikwars").json()
    assert brikwars["unit_fields_by_kind"]["size"] == ["creation"]
    assert brikwars["weapon_fields_by_type"]["ammo.xsize"] == ["bazooka", "cannon"]
    assert "gun" in brikwars["weapon_fields_by_type"]["size"]


def test_a_minifigs_weapon_form_does_not_offer_mounted(member: Member) -> None:
    """Ruling 19: a minifig holds its weapons, so its Mount picker leaves "mounted" to
    Creations (hand-held and the turrets it may work stay)."""
    army_id = create(member)
    pvt = add_unit(member, army_id, {"name": "Pvt", "kind": "minifig"})
    tank = add_unit(member, army_id, {"name": "Tank", "size": 3, "structure_level": 2})

    def mounts(unit_id: int) -> list[str]:
        page = member.client.get(f"/armies/{army_id}/units/{unit_id}").text
        form = _form(page, f"add-weapon-{unit_id}")
        picker = re.search(r'<select id="add-weapon-\d+-mount".*?</select>', form, re.S)
        assert picker, form
        return re.findall(r'<option value="([^"]*)"', picker.group(0))

    assert "mounted" not in mounts(pvt["id"]) and "hand_held" in mounts(pvt["id"])
    assert "mounted" in mounts(tank["id"])
