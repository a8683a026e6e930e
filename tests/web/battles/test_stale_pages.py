"""Issue 31 on the web: Undo is an entry of its own, shown struck through on the page, in the
JSON and in the text (P20-P23), and an action from a page that is behind is a 409 naming the
newer entry and who made it, the page keeping the player's inputs (P24)."""

from __future__ import annotations

import re

import pytest

from tests.web.battles.test_battles import TANK, WALKER, _form, api
from tests.web.conftest import Member


@pytest.fixture
def battle(member: Member) -> dict[str, int]:
    """Red's Tank and Tank 2 against Blue's Walker."""
    red = api(member, "POST", "/api/v1/armies", json={"name": "Red", "budget": 200}).json()["id"]
    blue = api(member, "POST", "/api/v1/armies", json={"name": "Blue", "budget": 100}).json()["id"]
    api(member, "POST", f"/api/v1/armies/{red}/units", json=TANK)
    api(member, "POST", f"/api/v1/armies/{red}/units", json=TANK | {"name": "Tank 2"})
    api(member, "POST", f"/api/v1/armies/{blue}/units", json=WALKER)
    r = api(member, "POST", "/api/v1/battles", json={"name": "Ford", "army_ids": [red, blue]})
    assert r.status_code == 201, r.text
    ids = {u["name"]: u["id"] for u in r.json()["units"]}
    return {
        "id": r.json()["id"],
        "tank": ids["Tank"],
        "tank2": ids["Tank 2"],
        "walker": ids["Walker"],
    }


def _roll(member: Member, battle: dict[str, int], attacker: str = "tank", **extra: object):  # type: ignore[no-untyped-def]
    body = {
        "attacker_id": battle[attacker],
        "weapons": [0],
        "target_id": battle["walker"],
        "situation": {"distance": 2},
        "seed": 3,
        **extra,
    }
    return api(member, "POST", f"/api/v1/battles/{battle['id']}/rolls", json=body)


def test_api_undo_is_an_entry_and_the_undone_one_stays(
    member: Member, battle: dict[str, int]
) -> None:
    base = f"/api/v1/battles/{battle['id']}"
    first = _roll(member, battle).json()
    undo = api(member, "POST", f"{base}/undo")
    assert undo.status_code == 201, undo.text
    assert undo.json()["kind"] == "undo" and undo.json()["seq"] == 2
    assert undo.json()["request"] == {"undoes": 1} and undo.json()["undone_by"] is None
    again = _roll(member, battle).json()
    assert again["seq"] == 3 and again["dice"] == first["dice"]
    detail = api(member, "GET", base).json()
    assert [(e["seq"], e["undone_by"]) for e in detail["log"]] == [(1, 2), (2, None), (3, None)]
    assert detail["undo_seq"] == 3
    no_redo = api(member, "POST", f"{base}/undo", json={"seq": 2})
    assert no_redo.status_code == 422
    assert no_redo.json()["detail"][0]["field"] == "seq"
    assert "an undo is not undone" in no_redo.json()["detail"][0]["reason"]
    text = api(member, "GET", f"{base}/export").text
    assert "#1 attack (" in text and "(undone by #2)\n[s]Tank attacks Walker" in text
    spec = member.client.get("/api/v1/openapi.json").json()
    post = spec["paths"]["/api/v1/battles/{battle_id}/undo"]["post"]
    assert "201" in post["responses"] and "409" in post["responses"]
    assert spec["paths"]["/api/v1/battles/{battle_id}/rolls/last"]["delete"]["deprecated"]


def test_the_page_strikes_an_undone_entry_through(member: Member, battle: dict[str, int]) -> None:
    _roll(member, battle)
    r = member.form(f"/battles/{battle['id']}/undo", {"seq": "1"}, follow_redirects=False)
    assert r.status_code == 303
    page = member.client.get(f"/battles/{battle['id']}").text
    entry = re.search(r'<article class="entry undone" id="entry-1".*?</summary>', page, re.S)
    assert entry, page
    assert "<del>Tank attacks Walker" in entry.group(0)
    assert '(undone by <a href="#entry-2">#2</a>)' in entry.group(0)
    assert 'id="entry-2" data-seq="2" data-kind="undo">' in page
    assert "Undo #1: Tank attacks Walker" in page
    assert 'name="seen" id="seen" value="2"' in page


def test_api_stale_roll_is_a_409_naming_the_entry_and_who(
    member: Member, battle: dict[str, int]
) -> None:
    assert _roll(member, battle, seen=0).status_code == 201  # (up to date: nothing newer)
    stale = _roll(member, battle, attacker="tank2", seen=0)
    assert stale.status_code == 409, stale.text
    body = stale.json()
    name = member.client.get("/api/v1/me").json()["display_name"]
    assert body["entry"] == 1 and body["by"] == name and body["detail"][0]["field"] == "seen"
    assert body["detail"][0]["reason"] == (
        f"{name} rolled #1 on Walker since you loaded this page: check the new odds and roll again"
    )
    # Tank 2 did not change since the page loaded: its action applies
    divert = api(
        member, "POST", f"/api/v1/battles/{battle['id']}/units/{battle['tank2']}/divert",
        json={"seen": 0},
    )  # fmt: skip
    assert divert.status_code == 201, divert.text
    assert _roll(member, battle, attacker="tank2", seen=2).status_code == 201
    bad = _roll(member, battle, seen=-1)
    assert bad.status_code == 422 and bad.json()["detail"][0]["field"] == "seen"


def test_a_stale_page_gets_the_new_state_and_keeps_the_inputs(
    member: Member, battle: dict[str, int]
) -> None:
    _roll(member, battle)  # another device rolled #1 after this page loaded (seen 0)
    sent = _form(battle, seen="0", distance="7", seed="11") | {
        "attacker_id": str(battle["tank2"]),
        "weapon.1": "on",
    }
    r = member.htmx(f"/battles/{battle['id']}/rolls", sent)
    assert r.status_code == 409, r.text
    assert r.headers["HX-Retarget"] == "#attack-form" and r.headers["HX-Reswap"] == "outerHTML"
    assert r.text.lstrip().startswith('<form id="attack-form"')
    assert (
        "rolled #1 on Walker since you loaded this page: check the new odds and roll again"
        in r.text
    )
    form = r.text[: r.text.index("</form>")]
    assert 'name="seen" id="seen" value="1"' in form  # the page now shows #1
    assert re.search(r'name="distance"[^>]*value="7"', form), form
    assert re.search(r'name="weapon\.1"[^>]*checked', form), form
    assert f'<option value="{battle["tank2"]}" selected' in form
    # the units and the log as they now stand, out of band
    assert '<section id="units"' in r.text and 'id="entry-1"' in r.text
    assert 'id="log" class="card" aria-labelledby="log-h" hx-swap-oob="true"' in r.text
    log = api(member, "GET", f"/api/v1/battles/{battle['id']}").json()["log"]
    assert [e["seq"] for e in log] == [1]  # nothing was rolled
    again = member.htmx(f"/battles/{battle['id']}/rolls", sent | {"seen": "1"})
    assert again.status_code == 200 and 'id="entry-2"' in again.text


def test_a_stale_undo_button_undoes_what_it_named(member: Member, battle: dict[str, int]) -> None:
    base = f"/battles/{battle['id']}"
    _roll(member, battle)
    _roll(member, battle, attacker="tank2")  # #2, after the page showed "Undo #1"
    r = member.htmx(f"{base}/undo", _form(battle, seq="1", seen="1"))
    assert r.status_code == 409 and "rolled #2 on Walker since you loaded this page" in r.text
    r = member.htmx(f"{base}/undo", _form(battle, seq="1", seen="2"))
    assert r.status_code == 422 and "#2 changed the same units since #1: undo #2 first" in r.text
    r = member.htmx(f"{base}/undo", _form(battle, seq="2", seen="2"))
    assert r.status_code == 200 and "Undone: #2 (logged as #3)." in r.text
