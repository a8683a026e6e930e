"""Issue 14 item 10: a unit stands for N identical figures (×N on cost, one line in the
builder, N units in a battle)."""

from __future__ import annotations

import json
import re

import pytest

from tests.web.builder.test_d20_builder import TROOPER as D20_TROOPER
from tests.web.builder.test_degrees_builder import SIMO
from tests.web.conftest import Member

# A BrikWars minifig with a 1" Gun: 4CP + 3CP = 7CP a figure (the export golden's Trooper).
TROOPER = {"name": "Trooper", "kind": "minifig", "weapons": [{"type": "gun", "size": 1}]}


def api(member: Member, method: str, url: str, **kw):  # type: ignore[no-untyped-def]
    return member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)


def make_army(member: Member, name: str = "Squads", budget: int = 100) -> int:
    r = api(member, "POST", "/api/v1/armies", json={"name": name, "budget": budget})
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def add(member: Member, army_id: int, body: dict) -> dict:  # type: ignore[type-arg]
    r = api(member, "POST", f"/api/v1/armies/{army_id}/units", json=body)
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def test_the_add_form_takes_a_count_and_the_row_shows_it(member: Member) -> None:
    army_id = make_army(member)
    page = member.client.get(f"/armies/{army_id}").text
    assert re.search(
        r'<input id="add-unit-form-count" name="count" type="text" value="1" inputmode="numeric"',
        page,
    )
    r = member.htmx(
        f"/armies/{army_id}/units",
        {"name": "Trooper", "kind": "minifig", "propulsion": "ground", "count": "3"},
    )
    assert r.status_code == 200, r.text
    assert '<span class="unit-count">×3</span>' in r.text
    per_figure = api(member, "GET", f"/api/v1/armies/{army_id}").json()["units"][0]["cost"]
    assert per_figure == 4
    assert "3 × 4CP = 12CP" in r.text  # per figure and total on the one line
    assert 'id="total-cost">12CP</strong>' in r.text
    assert "1 unit (3 figures)" in r.text
    history = member.client.get(f"/armies/{army_id}/history").text
    assert "added Trooper ×3, +12 CP" in history


def test_the_edit_form_changes_the_count_in_words(member: Member) -> None:
    army_id = make_army(member)
    unit = add(member, army_id, TROOPER)
    editor = member.client.get(f"/armies/{army_id}/units/{unit['id']}").text
    count = f'id="unit-form-{unit["id"]}-count" name="count" type="text" value="1" inputmode'
    assert count in editor
    r = member.htmx(
        f"/armies/{army_id}/units/{unit['id']}",
        {"version": str(unit["version"]), "count": "3"},
    )
    assert r.status_code == 200, r.text
    assert "3 × 7CP = 21CP" in r.text
    summary = api(member, "GET", f"/api/v1/armies/{army_id}/history").json()[0]["summary"]
    assert "count 1 → 3" in summary and "+14 CP" in summary


@pytest.mark.parametrize("count", ["0", "51", "2.5", "many"])
def test_a_count_out_of_bounds_is_refused_inline(member: Member, count: str) -> None:
    army_id = make_army(member)
    r = member.htmx(
        f"/armies/{army_id}/units", {"name": "Trooper", "kind": "minifig", "count": count}
    )
    assert r.status_code == 422
    assert "must be a whole number from 1 to 50" in r.text
    assert 'aria-describedby="add-unit-form-count-err"' in r.text
    assert r.text.count("must be a whole number from 1 to 50") == 1  # shown once, by the field
    assert api(member, "GET", f"/api/v1/armies/{army_id}").json()["units"] == []


def test_the_budget_check_counts_every_figure(member: Member) -> None:
    army_id = make_army(member, budget=20)
    add(member, army_id, TROOPER | {"count": 2})  # 14CP of 20CP
    army = api(member, "GET", f"/api/v1/armies/{army_id}").json()
    assert army["total_cost"] == 14 and army["figures"] == 2
    assert not [f for f in army["findings"] if f["code"] == "over_budget"]
    add(member, army_id, TROOPER | {"name": "Sentry"})  # 21CP of 20CP
    army = api(member, "GET", f"/api/v1/armies/{army_id}").json()
    assert army["total_cost"] == 21
    assert [f for f in army["findings"] if f["code"] == "over_budget"]
    listing = member.client.get("/armies").text
    assert "2 (3 figures)" in listing and "21CP" in listing


def test_the_api_takes_and_returns_the_count_within_bounds(member: Member) -> None:
    army_id = make_army(member)
    unit = add(member, army_id, TROOPER | {"count": 5})
    assert (unit["count"], unit["cost"], unit["total_cost"]) == (5, 7, 35)
    url = f"/api/v1/armies/{army_id}/units/{unit['id']}"
    r = api(member, "PATCH", url, json={"version": unit["version"], "count": 2})
    assert r.status_code == 200, r.text
    assert (r.json()["count"], r.json()["total_cost"]) == (2, 14)
    version = r.json()["version"]
    for bad in (0, 51, True, "x"):
        r = api(member, "PATCH", url, json={"version": version, "count": bad})
        assert r.status_code == 422 and "count" in r.text, bad
    assert add(member, army_id, TROOPER)["count"] == 1  # absent: one figure
    schema = member.client.get("/api/v1/openapi.json").json()["components"]["schemas"]
    count = schema["UnitIn"]["properties"]["count"]
    assert (count["minimum"], count["maximum"]) == (1, 50)


def test_a_stale_edit_merges_a_count_changed_elsewhere(member: Member) -> None:
    army_id = make_army(member)
    unit = add(member, army_id, TROOPER)
    url = f"/api/v1/armies/{army_id}/units/{unit['id']}"
    base = {"name": "Trooper", "kind": "minifig", **unit["spec"], "count": 1}
    r = api(member, "PATCH", url, json={"version": unit["version"], "count": 4})
    assert r.status_code == 200, r.text
    # Another tab, loaded before, renames the unit: the count set elsewhere stays.
    r = api(member, "PATCH", url, json={"version": unit["version"], "base": base, "name": "Grunt"})
    assert r.status_code == 200, r.text
    assert (r.json()["name"], r.json()["count"]) == ("Grunt", 4)
    # Both changed the count differently: a conflict naming it.
    r = api(member, "PATCH", url, json={"version": unit["version"], "base": base, "count": 2})
    assert r.status_code == 409 and "count" in r.text


def test_export_import_carries_the_count(member: Member) -> None:
    army_id = make_army(member)
    add(member, army_id, TROOPER | {"count": 3})
    add(member, army_id, TROOPER | {"name": "Captain"})
    doc = api(member, "GET", f"/api/v1/armies/{army_id}/export").json()
    assert doc["units"][0]["count"] == 3
    assert "count" not in doc["units"][1]  # one figure: as documents always were
    r = api(member, "POST", "/api/v1/armies/import", content=json.dumps(doc))
    assert r.status_code == 201, r.text
    copy = api(member, "GET", f"/api/v1/armies/{r.json()['id']}").json()
    assert [(u["name"], u["count"]) for u in copy["units"]] == [("Trooper", 3), ("Captain", 1)]
    assert copy["total_cost"] == 28


@pytest.mark.parametrize("count", [0, 51, "lots", True, None])
def test_an_import_with_a_bad_count_names_the_unit(member: Member, count: object) -> None:
    army_id = make_army(member)
    add(member, army_id, TROOPER)
    doc = api(member, "GET", f"/api/v1/armies/{army_id}/export").json()
    doc["units"][0]["count"] = count
    r = api(member, "POST", "/api/v1/armies/import", content=json.dumps(doc))
    assert r.status_code == 422
    assert "unit 1 'Trooper', Count: must be a whole number from 1 to 50" in r.text


def test_print_sheet_and_forum_text_show_the_count(member: Member) -> None:
    army_id = make_army(member)
    add(member, army_id, TROOPER | {"count": 3})
    sheet = member.client.get(f"/armies/{army_id}/print?cards=true").text
    assert "Trooper ×3" in sheet and "3 × 7CP = 21CP" in sheet
    assert "1 units (3 figures)" in sheet
    text = member.client.get(f"/armies/{army_id}/export.txt").text
    assert re.search(r"^1\. 3 × Trooper \(minifig\) .* = 21CP$", text, re.MULTILINE), text


def test_duplicate_and_fork_keep_the_count(member: Member) -> None:
    army_id = make_army(member)
    unit = add(member, army_id, TROOPER | {"count": 3})
    r = api(member, "POST", f"/api/v1/armies/{army_id}/units/{unit['id']}/duplicate")
    assert r.status_code == 201 and r.json()["count"] == 3
    fork = api(member, "POST", f"/api/v1/armies/{army_id}/fork")
    assert fork.status_code in (200, 201), fork.text
    assert [u["count"] for u in fork.json()["units"]] == [3, 3]


def test_a_battle_fields_each_figure_apart(member: Member) -> None:
    red = make_army(member, "Red")
    blue = make_army(member, "Blue")
    add(member, red, TROOPER | {"count": 3})
    add(member, blue, TROOPER | {"name": "Sentry"})
    r = api(member, "POST", "/api/v1/battles", json={"name": "Ford", "army_ids": [red, blue]})
    assert r.status_code == 201, r.text
    units = r.json()["units"]
    assert [u["name"] for u in units] == ["Trooper 1", "Trooper 2", "Trooper 3", "Sentry"]
    assert len({u["id"] for u in units}) == 4


def test_a_battle_counts_figures_against_its_bound(member: Member) -> None:
    red = make_army(member, "Red", budget=10_000)
    blue = make_army(member, "Blue")
    for _ in range(4):
        add(member, red, TROOPER | {"count": 50})
    add(member, blue, TROOPER)
    r = api(member, "POST", "/api/v1/battles", json={"name": "Horde", "army_ids": [red, blue]})
    assert r.status_code == 422
    assert "at most 200 units (these have 201 figures)" in r.text


def test_roll_it_in_the_calculator_expands_the_count(member: Member) -> None:
    """Roll it! copies both units into a new battle: each figure apart, the roll hits the
    first one, and the other figures keep their own damage state."""
    red = make_army(member, "Red")
    blue = make_army(member, "Blue")
    attacker = add(member, red, TROOPER | {"count": 2})
    target = add(member, blue, TROOPER | {"name": "Sentry", "count": 2})
    body = {
        "attacker": {"unit_id": attacker["id"], "weapon_ids": [attacker["weapons"][0]["id"]]},
        "target": {"unit_id": target["id"]},
        "situation": {"distance": 2},
    }
    states = {}
    for seed in range(1, 30):
        r = api(member, "POST", "/api/v1/calculator/battle", json=body | {"seed": seed})
        assert r.status_code == 201, r.text
        rolled = r.json()
        units = api(member, "GET", f"/api/v1/battles/{rolled['battle_id']}").json()["units"]
        assert [u["name"] for u in units] == ["Trooper 1", "Trooper 2", "Sentry 1", "Sentry 2"]
        by_name = {u["name"]: u for u in units}
        assert rolled["attacker_id"] == by_name["Trooper 1"]["id"]
        assert rolled["target_id"] == by_name["Sentry 1"]["id"]
        states = {name: u["state"] for name, u in by_name.items()}
        if states["Sentry 1"] != states["Sentry 2"]:
            break
    assert states["Sentry 1"] != states["Sentry 2"]  # a hit on one figure, not on both
    assert states["Sentry 2"] == states["Trooper 2"]  # the other figure is untouched


@pytest.mark.parametrize(("ruleset_id", "unit"), [("d20", D20_TROOPER), ("degrees", SIMO)])
def test_every_ruleset_counts_figures(member: Member, ruleset_id: str, unit: dict) -> None:  # type: ignore[type-arg]
    """The count is the builder's, not a ruleset's: D20 and Degrees units multiply too."""
    r = api(
        member,
        "POST",
        "/api/v1/armies",
        json={"name": "Many", "ruleset_id": ruleset_id, "budget": 1000},
    )
    army_id = r.json()["id"]
    added = add(member, army_id, unit | {"count": 3})
    assert added["total_cost"] == 3 * added["cost"] > 0
    army = api(member, "GET", f"/api/v1/armies/{army_id}").json()
    assert army["total_cost"] == added["total_cost"] and army["figures"] == 3
    page = member.client.get(f"/armies/{army_id}").text
    assert '<span class="unit-count">×3</span>' in page and "1 unit (3 figures)" in page
    other = api(
        member,
        "POST",
        "/api/v1/armies",
        json={"name": "One", "ruleset_id": ruleset_id, "budget": 1000},
    ).json()["id"]
    add(member, other, unit | {"name": "Lone"})
    r = api(member, "POST", "/api/v1/battles", json={"name": "B", "army_ids": [army_id, other]})
    assert r.status_code == 201, r.text
    names = [u["name"] for u in r.json()["units"]]
    assert names == [f"{unit['name']} {n}" for n in (1, 2, 3)] + ["Lone"]
