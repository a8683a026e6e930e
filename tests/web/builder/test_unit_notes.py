"""Issue 26: every unit has notes, whatever its ruleset (the builder's, not the ruleset's):
typed in the unit forms, shown under the unit, carried by the API, the export (version 2),
the print sheet, the forum text, revisions, duplicates and forks."""

from __future__ import annotations

import json
import re

import pytest

from tests.web.builder.test_d20_builder import TROOPER as D20_TROOPER
from tests.web.builder.test_degrees_builder import SIMO
from tests.web.builder.test_unit_count import TROOPER, add, api, make_army
from tests.web.conftest import Member

NOTES = "Holds the <bridge> & waits\nfor the flare"
SHOWN = "Holds the &lt;bridge&gt; &amp; waits\nfor the flare"


def units(member: Member, army_id: int) -> list[dict]:  # type: ignore[type-arg]
    return api(member, "GET", f"/api/v1/armies/{army_id}").json()["units"]  # type: ignore[no-any-return]


def summaries(member: Member, army_id: int) -> list[str]:
    history = api(member, "GET", f"/api/v1/armies/{army_id}/history").json()
    return [h["summary"] for h in history]


# ------------------------------------------------------------------------ the builder page


def test_the_add_form_has_a_labelled_notes_box_that_works_without_javascript(
    member: Member,
) -> None:
    army_id = make_army(member)
    page = member.client.get(f"/armies/{army_id}").text
    assert '<label for="add-unit-form-notes">Notes' in page
    assert re.search(r'<textarea id="add-unit-form-notes" name="notes"[^>]*></textarea>', page)
    # a plain form POST (no htmx): 303 to the unit's page, which shows the notes escaped
    r = member.form(
        f"/armies/{army_id}/units",
        {"name": "Trooper", "kind": "minifig", "count": "1", "notes": NOTES.replace("\n", "\r\n")},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    page = member.client.get(r.headers["location"]).text
    assert f'<p class="notes unit-notes">{SHOWN}</p>' in page
    assert "<bridge>" not in page
    assert units(member, army_id)[0]["notes"] == NOTES  # CRLF read as one break


def test_a_unit_without_notes_shows_none(member: Member) -> None:
    army_id = make_army(member)
    add(member, army_id, TROOPER)
    page = member.client.get(f"/armies/{army_id}").text
    assert "unit-notes" not in page


def test_the_edit_form_changes_and_clears_the_notes_in_words(member: Member) -> None:
    army_id = make_army(member)
    unit = add(member, army_id, TROOPER)
    url = f"/armies/{army_id}/units/{unit['id']}"
    editor = member.client.get(url).text
    assert f'<label for="unit-form-{unit["id"]}-notes">Notes' in editor
    r = member.htmx(url, {"version": str(unit["version"]), "notes": NOTES})
    assert r.status_code == 200, r.text
    assert SHOWN in r.text
    assert summaries(member, army_id)[0] == "changed Trooper: notes added, +0 CP"
    version = units(member, army_id)[0]["version"]
    r = member.htmx(url, {"version": str(version), "notes": "Guards the flag"})
    assert r.status_code == 200, r.text
    assert "Guards the flag" in r.text and SHOWN not in r.text
    assert summaries(member, army_id)[0] == "changed Trooper: notes changed, +0 CP"
    version = units(member, army_id)[0]["version"]
    r = member.htmx(url, {"version": str(version), "notes": ""})  # an emptied box clears them
    assert r.status_code == 200, r.text
    assert units(member, army_id)[0]["notes"] == ""
    assert summaries(member, army_id)[0] == "changed Trooper: notes removed, +0 CP"


def test_notes_past_the_bound_are_refused_inline_naming_the_field(member: Member) -> None:
    army_id = make_army(member)
    r = member.htmx(
        f"/armies/{army_id}/units", {"name": "Trooper", "kind": "minifig", "notes": "x" * 2001}
    )
    assert r.status_code == 422
    assert 'aria-describedby="add-unit-form-notes-err"' in r.text
    assert r.text.count("must be text of at most 2000 characters") == 1  # by the field
    assert units(member, army_id) == []
    r = member.htmx(
        f"/armies/{army_id}/units", {"name": "Trooper", "kind": "minifig", "notes": "x" * 2000}
    )
    assert r.status_code == 200, r.text
    assert units(member, army_id)[0]["notes"] == "x" * 2000


# ------------------------------------------------------------------------ the JSON API


@pytest.mark.parametrize(
    ("ruleset_id", "body"),
    [("brikwars", TROOPER), ("d20", D20_TROOPER), ("degrees", SIMO)],
    ids=["brikwars", "d20", "degrees"],
)
def test_the_api_takes_and_returns_notes_in_every_ruleset(
    member: Member,
    ruleset_id: str,
    body: dict,  # type: ignore[type-arg]
) -> None:
    r = api(
        member,
        "POST",
        "/api/v1/armies",
        json={"name": "Notes", "budget": 1000, "ruleset_id": ruleset_id},
    )
    assert r.status_code == 201, r.text
    army_id = r.json()["id"]
    unit = add(member, army_id, body | {"notes": NOTES})
    assert unit["notes"] == NOTES and "notes" not in unit["spec"]
    url = f"/api/v1/armies/{army_id}/units/{unit['id']}"
    r = api(member, "PATCH", url, json={"version": unit["version"], "notes": "Flank left"})
    assert r.status_code == 200, r.text
    assert r.json()["notes"] == "Flank left"
    r = api(member, "PATCH", url, json={"version": r.json()["version"], "name": "Renamed"})
    assert r.json()["notes"] == "Flank left"  # absent: unchanged
    assert add(member, army_id, body)["notes"] == ""  # absent: none


def test_the_api_refuses_notes_past_the_bound_with_a_422_naming_notes(member: Member) -> None:
    army_id = make_army(member)
    r = api(member, "POST", f"/api/v1/armies/{army_id}/units", json=TROOPER | {"notes": "x" * 2001})
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "notes", r.text
    unit = add(member, army_id, TROOPER)
    url = f"/api/v1/armies/{army_id}/units/{unit['id']}"
    for bad in ("x" * 2001, 5, "bell\x07"):
        r = api(member, "PATCH", url, json={"version": unit["version"], "notes": bad})
        assert r.status_code == 422, bad
        assert [p["field"] for p in r.json()["detail"]] == ["notes"], r.text
    schema = member.client.get("/api/v1/openapi.json").json()["components"]["schemas"]
    assert schema["UnitIn"]["properties"]["notes"]["maxLength"] == 2000
    assert units(member, army_id)[0]["notes"] == ""


def test_a_stale_edit_merges_notes_changed_elsewhere(member: Member) -> None:
    army_id = make_army(member)
    unit = add(member, army_id, TROOPER)
    url = f"/api/v1/armies/{army_id}/units/{unit['id']}"
    base = {"name": "Trooper", "kind": "minifig", **unit["spec"], "count": 1, "notes": ""}
    r = api(member, "PATCH", url, json={"version": unit["version"], "notes": "Mine"})
    assert r.status_code == 200, r.text
    # another tab, loaded before, renames the unit: the notes written elsewhere stay
    r = api(member, "PATCH", url, json={"version": unit["version"], "base": base, "name": "Grunt"})
    assert r.status_code == 200, r.text
    assert (r.json()["name"], r.json()["notes"]) == ("Grunt", "Mine")
    # both changed the notes differently: a conflict naming them
    r = api(member, "PATCH", url, json={"version": unit["version"], "base": base, "notes": "No"})
    assert r.status_code == 409 and "notes" in r.text


# ------------------------------------------------------------------------ export and import


def test_export_carries_notes_and_import_gives_an_equal_export(member: Member) -> None:
    army_id = make_army(member)
    add(member, army_id, TROOPER | {"notes": NOTES, "count": 2})
    add(member, army_id, TROOPER | {"name": "Captain"})
    doc = api(member, "GET", f"/api/v1/armies/{army_id}/export").json()
    assert doc["version"] == 2
    assert [u["notes"] for u in doc["units"]] == [NOTES, ""]
    r = api(member, "POST", "/api/v1/armies/import", content=json.dumps(doc))
    assert r.status_code == 201, r.text
    again = api(member, "GET", f"/api/v1/armies/{r.json()['id']}/export").json()
    assert again == doc | {"name": "Squads (2)"}


def test_a_version_1_document_is_still_read_and_its_units_have_no_notes(member: Member) -> None:
    old = {
        "format": "brikforge-army",
        "version": 1,
        "ruleset": "brikwars",
        "name": "Old",
        "budget": 100,
        "notes": "army notes were always there",
        "units": [TROOPER | {"count": 2}, {"name": "Sentry", "kind": "minifig"}],
    }
    r = api(member, "POST", "/api/v1/armies/import", content=json.dumps(old))
    assert r.status_code == 201, r.text
    army_id = r.json()["id"]
    assert [(u["name"], u["count"], u["notes"]) for u in units(member, army_id)] == [
        ("Trooper", 2, ""),
        ("Sentry", 1, ""),
    ]
    doc = api(member, "GET", f"/api/v1/armies/{army_id}/export").json()
    assert doc["version"] == 2 and doc["notes"] == old["notes"]
    assert [u["notes"] for u in doc["units"]] == ["", ""]
    # version 1 had no unit notes: one there is an unknown field of the unit
    old["units"] = [TROOPER | {"notes": "new"}]
    r = api(member, "POST", "/api/v1/armies/import", content=json.dumps(old))
    assert r.status_code == 422 and "units[0].notes" in r.text


@pytest.mark.parametrize(
    ("notes", "reason"),
    [
        ("x" * 2001, "must be text of at most 2000 characters"),
        (7, "must be text of at most 2000 characters"),
        ("bell\x07", "must not contain control characters"),
    ],
)
def test_an_import_with_bad_notes_names_the_unit(
    member: Member, notes: object, reason: str
) -> None:
    army_id = make_army(member)
    add(member, army_id, TROOPER)
    doc = api(member, "GET", f"/api/v1/armies/{army_id}/export").json()
    doc["units"][0]["notes"] = notes
    r = api(member, "POST", "/api/v1/armies/import", content=json.dumps(doc))
    assert r.status_code == 422
    assert r.json()["detail"][0]["field"] == "units[0].notes"
    assert "unit 1 'Trooper', Notes: " + reason in r.text
    assert len(api(member, "GET", "/api/v1/armies").json()) == 1


def test_an_unknown_version_names_those_read(member: Member) -> None:
    doc = {"format": "brikforge-army", "version": 3, "ruleset": "brikwars", "name": "X"}
    r = api(member, "POST", "/api/v1/armies/import", content=json.dumps(doc | {"budget": 10}))
    assert r.status_code == 422
    assert "must be 1 or 2 (this BrikForge writes version 2)" in r.text


# ------------------------------------------------------------------------ sheet and text


def test_print_sheet_and_forum_text_show_notes_where_there_are_some(member: Member) -> None:
    army_id = make_army(member)
    add(member, army_id, TROOPER | {"notes": NOTES})
    add(member, army_id, TROOPER | {"name": "Captain"})
    sheet = member.client.get(f"/armies/{army_id}/print?cards=true").text
    assert f'<tr class="unit-notes"><td colspan="6">{SHOWN}</td></tr>' in sheet
    assert f'<p class="unit-notes">{SHOWN}</p>' in sheet
    assert sheet.count("unit-notes") == 2  # the Captain has none
    text = member.client.get(f"/armies/{army_id}/export.txt").text
    assert "   Notes: Holds the <bridge> & waits\n   for the flare\n2. Captain" in text
    assert text.count("Notes:") == 1


# ------------------------------------------------------------------------ history and copies


def test_a_revision_keeps_the_notes_and_a_restore_brings_them_back(member: Member) -> None:
    army_id = make_army(member)
    unit = add(member, army_id, TROOPER | {"notes": NOTES})
    url = f"/api/v1/armies/{army_id}/units/{unit['id']}"
    r = api(member, "PATCH", url, json={"version": unit["version"], "notes": ""})
    assert r.status_code == 200, r.text
    history = api(member, "GET", f"/api/v1/armies/{army_id}/history").json()
    assert history[0]["summary"] == "changed Trooper: notes removed, +0 CP"
    added = history[1]
    page = member.client.get(f"/armies/{army_id}/history/{added['id']}").text
    assert SHOWN in page
    assert "<td>1&#34; Gun</td>" in page  # its weapons still named by the ruleset
    r = member.form(f"/armies/{army_id}/history/{added['id']}/restore", follow_redirects=False)
    assert r.status_code == 303, r.text
    assert units(member, army_id)[0]["notes"] == NOTES


def test_duplicate_fork_and_battles_with_notes(member: Member) -> None:
    army_id = make_army(member, "Red")
    unit = add(member, army_id, TROOPER | {"notes": NOTES})
    r = api(member, "POST", f"/api/v1/armies/{army_id}/units/{unit['id']}/duplicate")
    assert r.status_code == 201 and r.json()["notes"] == NOTES
    fork = api(member, "POST", f"/api/v1/armies/{army_id}/fork")
    assert fork.status_code in (200, 201), fork.text
    assert [u["notes"] for u in fork.json()["units"]] == [NOTES, NOTES]
    # a battle copies what the ruleset reads of each unit: the notes never reach it
    r = api(member, "POST", "/api/v1/battles", json={"name": "Ford", "army_ids": [army_id]})
    assert r.status_code == 422  # one army: the ruleset's reason, not a notes error
    blue = make_army(member, "Blue")
    add(member, blue, TROOPER | {"name": "Sentry", "notes": "Sleeps"})
    r = api(member, "POST", "/api/v1/battles", json={"name": "Ford", "army_ids": [army_id, blue]})
    assert r.status_code == 201, r.text
    assert [u["name"] for u in r.json()["units"]] == ["Trooper", "Trooper (copy)", "Sentry"]
