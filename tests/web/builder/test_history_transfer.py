"""Revisions in words, restore, export/import round trips and hostile imports."""

from __future__ import annotations

import json

import pytest

from tests.web.conftest import Member

TANK = {
    "name": "Tank",
    "size": 3,
    "structure_level": 2,
    "move": 4,
    "mind_die": 6,
    "weapons": [
        {"type": "cannon", "size": 3, "ammo": {"xsize": 2, "rounds": 2}},
        {"type": "gun", "size": "1.5", "label": "coax"},
    ],
}


def api(member: Member, method: str, url: str, **kw):  # type: ignore[no-untyped-def]
    return member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)


def army_with_tank(member: Member) -> tuple[int, dict]:  # type: ignore[type-arg]
    army = api(member, "POST", "/api/v1/armies", json={"name": "History", "budget": 100}).json()
    unit = api(member, "POST", f"/api/v1/armies/{army['id']}/units", json=TANK).json()
    return army["id"], unit


def test_every_change_is_a_revision_in_words(member: Member) -> None:
    army_id, unit = army_with_tank(member)
    r = api(
        member,
        "POST",
        f"/api/v1/armies/{army_id}/units/{unit['id']}/weapons",
        json={"type": "gun", "size": 3},
    )
    assert r.status_code == 201, r.text
    api(member, "PATCH", f"/api/v1/armies/{army_id}", json={"version": 1, "budget": 120})
    revisions = api(member, "GET", f"/api/v1/armies/{army_id}/history").json()
    summaries = [r["summary"] for r in revisions]
    assert summaries[0] == "budget 100 → 120 CP"
    assert summaries[1] == 'added 3" Gun to Tank, +9 CP'
    assert summaries[2].startswith("added Tank, +")
    assert summaries[-1] == "created the army"
    assert all(r["by"] == "Alice" for r in revisions)
    page = member.client.get(f"/armies/{army_id}/history")
    assert "added 3&#34; Gun to Tank, +9 CP" in page.text


def test_restore_an_old_revision_as_a_new_one(member: Member) -> None:
    army_id, unit = army_with_tank(member)
    before = api(member, "GET", f"/api/v1/armies/{army_id}").json()
    api(member, "DELETE", f"/api/v1/armies/{army_id}/units/{unit['id']}")
    assert api(member, "GET", f"/api/v1/armies/{army_id}").json()["units"] == []
    revisions = api(member, "GET", f"/api/v1/armies/{army_id}/history").json()
    assert revisions[0]["summary"].startswith("removed Tank, -")
    with_tank = revisions[1]
    snapshot = api(member, "GET", f"/api/v1/armies/{army_id}/history/{with_tank['id']}").json()
    assert [u["name"] for u in snapshot["snapshot"]["units"]] == ["Tank"]
    restored = api(
        member, "POST", f"/api/v1/armies/{army_id}/history/{with_tank['id']}/restore"
    ).json()
    assert restored["total_cost"] == before["total_cost"]
    assert [w["name"] for w in restored["units"][0]["weapons"]] == ["Cannon", "Gun"]
    history = api(member, "GET", f"/api/v1/armies/{army_id}/history").json()
    assert history[0]["summary"].startswith("restored the revision of")
    assert len(history) == len(revisions) + 1  # nothing was thrown away


def test_export_import_round_trip_gives_an_equal_army(member: Member) -> None:
    army_id, _ = army_with_tank(member)
    api(
        member,
        "POST",
        f"/api/v1/armies/{army_id}/units",
        json={"name": "Trooper", "kind": "minifig"},
    )
    doc = api(member, "GET", f"/api/v1/armies/{army_id}/export").json()
    assert doc["format"] == "brikforge-army" and doc["version"] == 2
    assert doc["ruleset"] == "brikwars" and doc["house_rules"]["bonus_die"] == "same"
    r = api(member, "POST", "/api/v1/armies/import", content=json.dumps(doc))
    assert r.status_code == 201, r.text
    copy = r.json()
    assert copy["name"] == "History (2)"  # the user already has a "History"
    assert api(member, "GET", f"/api/v1/armies/{copy['id']}/export").json() == {
        **doc,
        "name": "History (2)",
    }
    original = api(member, "GET", f"/api/v1/armies/{army_id}").json()

    def strip(units):
        return [
            (u["name"], u["cost"], u["armor"], [w["stats"] for w in u["weapons"]]) for u in units
        ]

    assert strip(copy["units"]) == strip(original["units"])
    text = member.client.get(f"/armies/{army_id}/export.txt").text
    assert text.startswith("History — BrikWars — ")
    assert '   - 1.5" Gun (coax): Use 4' in text and "Total: " in text


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d.update(version=99), "version"),
        (lambda d: d.update(format="other"), "format"),
        (lambda d: d["units"][1]["weapons"][0].update(size=0), "units[1].weapons[0].size"),
        (lambda d: d["units"][0].update(kind="dragon"), "units[0].kind"),
        (
            lambda d: d["units"][1]["weapons"].append(
                {"type": "gun", "ammo": {"xsize": 1}, "size": 1}
            ),
            "units[1].weapons[2].ammo",
        ),
        (lambda d: d.update(budget=-3), "budget"),
        (lambda d: d.update(hacker=True), "hacker"),
    ],
)
def test_bad_documents_are_refused_by_path_and_create_nothing(
    member: Member, mutate, field
) -> None:  # type: ignore[no-untyped-def]
    army_id, _ = army_with_tank(member)
    api(member, "POST", f"/api/v1/armies/{army_id}/units", json={"name": "T", "kind": "minifig"})
    doc = api(member, "GET", f"/api/v1/armies/{army_id}/export").json()
    doc["units"] = [doc["units"][1], doc["units"][0]]
    mutate(doc)
    r = api(member, "POST", "/api/v1/armies/import", content=json.dumps(doc))
    assert r.status_code == 422
    assert field in [p["field"] for p in r.json()["detail"]], r.json()
    assert len(api(member, "GET", "/api/v1/armies").json()) == 1


def test_every_problem_is_listed_at_once(member: Member) -> None:
    doc = {
        "format": "brikforge-army",
        "version": 1,
        "ruleset": "brikwars",
        "name": "X",
        "budget": 10,
        "units": [
            {"name": "A", "size": -1, "structure_level": 1},
            {"name": "B", "kind": "minifig", "weapons": [{"type": "laser"}]},
        ],
    }
    r = api(member, "POST", "/api/v1/armies/import", content=json.dumps(doc))
    fields = [p["field"] for p in r.json()["detail"]]
    assert fields == ["units[0].size", "units[1].weapons[0].type"]


def test_hostile_imports_are_refused_cleanly(member: Member) -> None:
    big = b'{"format": "brikforge-army", "junk": "' + b"x" * 10_000_000 + b'"}'
    r = api(member, "POST", "/api/v1/armies/import", content=big)
    assert r.status_code == 422 and "larger than 1000 kB" in r.text
    many = {
        "format": "brikforge-army",
        "version": 1,
        "ruleset": "brikwars",
        "name": "Horde",
        "budget": 10,
        "units": [{"name": "T", "kind": "minifig"}] * 10_000,
    }
    r = api(member, "POST", "/api/v1/armies/import", content=json.dumps(many))
    assert r.status_code == 422 and "more than 1000 units" in r.text
    deep = "[" * 100_000 + "]" * 100_000
    r = api(member, "POST", "/api/v1/armies/import", content=deep)
    assert r.status_code == 422
    r = api(member, "POST", "/api/v1/armies/import", content=b"\xff\xfe not json")
    assert r.status_code == 422 and "not valid JSON" in r.text
    assert api(member, "GET", "/api/v1/armies").json() == []


def test_import_page_lists_problems_inline(member: Member) -> None:
    r = member.client.post(
        "/armies/import", data={"csrf_token": member.csrf, "document": '{"format": "nope"}'}
    )
    assert r.status_code == 422 and "<code>format</code>" in r.text
    doc = {
        "format": "brikforge-army",
        "version": 1,
        "ruleset": "brikwars",
        "name": "Pasted",
        "budget": 10,
        "units": [{"name": "T", "kind": "minifig"}],
    }
    r = member.client.post(
        "/armies/import",
        data={"csrf_token": member.csrf, "document": json.dumps(doc)},
        follow_redirects=False,
    )
    assert r.status_code == 303
    assert "Pasted" in member.client.get(r.headers["location"]).text


def test_print_sheet_has_every_stat_line(member: Member) -> None:
    army_id, _ = army_with_tank(member)
    sheet = member.client.get(f"/armies/{army_id}/print")
    assert sheet.status_code == 200 and "print.css" in sheet.text
    assert "Tank" in sheet.text and "3&#34; Cannon" in sheet.text and "Total" in sheet.text
    cards = member.client.get(f"/armies/{army_id}/print", params={"cards": "true"})
    assert 'class="cards"' in cards.text


def test_export_file_is_named_after_the_army(member: Member) -> None:
    army_id, _ = army_with_tank(member)
    api(member, "PATCH", f"/api/v1/armies/{army_id}", json={"version": 1, "name": "Iron Bricks!"})
    r = member.client.get(f"/armies/{army_id}/export.json")
    assert r.headers["content-disposition"] == 'attachment; filename="iron-bricks.json"'
    api(member, "PATCH", f"/api/v1/armies/{army_id}", json={"version": 2, "name": "«★»"})
    r = member.client.get(f"/armies/{army_id}/export.json")
    assert r.headers["content-disposition"] == f'attachment; filename="army-{army_id}.json"'


def test_an_imported_army_with_a_taken_name_gets_a_suffix(member: Member) -> None:
    army_id, _ = army_with_tank(member)
    doc = api(member, "GET", f"/api/v1/armies/{army_id}/export").json()
    names = []
    for _ in range(2):
        r = api(member, "POST", "/api/v1/armies/import", content=json.dumps(doc))
        assert r.status_code == 201, r.text
        names.append(r.json()["name"])
    assert names == ["History (2)", "History (3)"]


def test_an_empty_import_says_what_to_do(member: Member) -> None:
    r = api(member, "POST", "/api/v1/armies/import", content=b"  \n")
    assert r.status_code == 422
    assert r.json()["detail"] == [
        {
            "field": "document",
            "reason": "is empty: choose an exported army file (.json) or paste its text",
        }
    ]
    r = member.client.post("/armies/import", data={"csrf_token": member.csrf, "document": ""})
    assert r.status_code == 422
    assert "choose an exported army file (.json) or paste its text" in r.text
    assert "not valid JSON" not in r.text


def test_import_problems_name_the_unit_and_weapon_from_one(member: Member) -> None:
    doc = {
        "format": "brikforge-army",
        "version": 1,
        "ruleset": "brikwars",
        "name": "X",
        "budget": 10,
        "units": [
            {"name": "Rex", "kind": "minifig", "weapons": [{"type": "laser"}]},
            {"name": "Sky Hawk", "size": -1, "structure_level": 1},
        ],
    }
    r = api(member, "POST", "/api/v1/armies/import", content=json.dumps(doc))
    detail = r.json()["detail"]
    assert [p["field"] for p in detail] == ["units[0].weapons[0].type", "units[1].size"]
    assert detail[0]["reason"].startswith("unit 1 'Rex', weapon 1, Type: ")
    assert detail[1]["reason"].startswith("unit 2 'Sky Hawk', Size: ")
    page = member.client.post(
        "/armies/import", data={"csrf_token": member.csrf, "document": json.dumps(doc)}
    )
    assert "unit 2 &#39;Sky Hawk&#39;, Size: " in page.text
