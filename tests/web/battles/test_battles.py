"""Battle pages and their JSON twin: create, roll, undo, unit actions, refusals, sharing."""

from __future__ import annotations

import re

import pytest

from tests.web.conftest import Member

TANK = {
    "name": "Tank",
    "size": 4,
    "structure_level": 2,
    "weapons": [{"type": "gun", "size": 3}, {"type": "machinegun", "size": 2}],
}
WALKER = {"name": "Walker", "size": 3, "structure_level": 2}


def api(member: Member, method: str, url: str, **kw):  # type: ignore[no-untyped-def]
    return member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)


def _armies(member: Member) -> tuple[int, int]:
    red = api(member, "POST", "/api/v1/armies", json={"name": "Red", "budget": 100}).json()["id"]
    blue = api(member, "POST", "/api/v1/armies", json={"name": "Blue", "budget": 100}).json()["id"]
    api(member, "POST", f"/api/v1/armies/{red}/units", json=TANK)
    api(member, "POST", f"/api/v1/armies/{blue}/units", json=WALKER)
    return red, blue


@pytest.fixture
def battle(member: Member) -> dict[str, int]:
    red, blue = _armies(member)
    r = api(member, "POST", "/api/v1/battles", json={"name": "Ford", "army_ids": [red, blue]})
    assert r.status_code == 201, r.text
    body = r.json()
    ids = {u["name"]: u["id"] for u in body["units"]}
    return {"id": body["id"], "tank": ids["Tank"], "walker": ids["Walker"]}


def _form(battle: dict[str, int], **extra: str) -> dict[str, str]:
    return {
        "attacker_id": str(battle["tank"]),
        "target_id": str(battle["walker"]),
        "weapon.0": "on",
        "distance": "3",
        **extra,
    }


def test_new_battle_page_form_and_list(member: Member) -> None:
    red, blue = _armies(member)
    page = member.client.get("/battles")
    assert page.status_code == 200 and 'name="army.' in page.text
    r = member.form(
        "/battles",
        {"name": "Ford", f"army.{red}": "on", f"army.{blue}": "on"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    battle_page = member.client.get(r.headers["location"])
    assert battle_page.status_code == 200
    for text in ("Red", "Blue", "Tank", "Walker", "Roll it!", "Effective Size", "2d10"):
        assert text in battle_page.text
    assert "Ford" in member.client.get("/battles").text


def test_new_battle_needs_two_armies_inline(member: Member) -> None:
    red, _ = _armies(member)
    r = member.htmx("/battles", {"name": "Solo", f"army.{red}": "on"})
    assert r.status_code == 422
    assert 'id="new-battle"' in r.text and "two or more armies" in r.text


def test_roll_it_swaps_in_every_die_and_the_log_out_of_band(
    member: Member, battle: dict[str, int]
) -> None:
    r = member.htmx(f"/battles/{battle['id']}/rolls", _form(battle, seed="7"))
    assert r.status_code == 200, r.text
    assert r.text.lstrip().startswith('<div id="result"')
    assert 'id="log" class="card" aria-labelledby="log-h" hx-swap-oob="true"' in r.text
    assert 'id="units"' in r.text and 'id="odds"' in r.text
    entry = api(member, "GET", f"/api/v1/battles/{battle['id']}").json()["log"][0]
    for line in entry["dice"]:
        for die in line["dice"]:
            assert f"<td>{die['purpose']}" in r.text
    assert entry["seed"] == 7 and entry["summary"] in r.text.replace("&#34;", '"')


def test_a_plain_form_roll_redirects_to_the_result(member: Member, battle: dict[str, int]) -> None:
    r = member.form(f"/battles/{battle['id']}/rolls", _form(battle), follow_redirects=False)
    assert r.status_code == 303
    page = member.client.get(r.headers["location"])
    assert 'id="entry-1"' in page.text and "<h3>Result</h3>" in page.text
    # the log's entry alone has its id: a live event swaps the first of that id (an Undo)
    assert page.text.count('id="entry-1"') == 1 and 'id="result-1" data-seq="1"' in page.text


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"distance": "-1"}, "must be at least 0"),
        ({"weapon.0": ""}, "tick at least one weapon"),
        ({"weapon.5": "on"}, "no weapon 6"),
        ({"target_id": "999999"}, "is not a unit of this battle"),
        ({"target_id": ""}, "choose a unit"),
        ({"weapon.1": "on", "burst": "x"}, "burst"),
    ],
)
def test_bad_attacks_are_refused_inline_and_log_nothing(
    member: Member, battle: dict[str, int], change: dict[str, str], words: str
) -> None:
    r = member.htmx(f"/battles/{battle['id']}/rolls", _form(battle) | change)
    assert r.status_code == 422
    assert r.headers["HX-Retarget"] == "#attack-form"
    assert 'id="attack-form"' in r.text and words in r.text
    assert api(member, "GET", f"/api/v1/battles/{battle['id']}").json()["log"] == []


def test_the_odds_preview_follows_the_form(member: Member, battle: dict[str, int]) -> None:
    url = f"/battles/{battle['id']}/odds"
    hx = {"HX-Request": "true"}
    near = member.client.get(url, params=_form(battle, distance="2"), headers=hx)
    far = member.client.get(url, params=_form(battle, distance="40"), headers=hx)
    assert near.status_code == far.status_code == 200
    assert near.text.lstrip().startswith('<div id="odds"') and near.text != far.text
    refused = member.client.get(url, params=_form(battle, distance="-3"), headers=hx)
    assert refused.status_code == 200 and "Cannot roll this" in refused.text  # a preview
    assert re.search(r'<button[^>]*id="roll-it"[^>]*disabled', refused.text)
    swap = member.client.get(url, params={"form": "1", "attacker_id": battle["walker"]}, headers=hx)
    assert swap.text.lstrip().startswith("<form") and "has no weapons" in swap.text
    page = member.client.get(url, params=_form(battle))
    assert page.status_code == 200 and "<html" in page.text  # opened directly: the page


def test_query_parameters_preselect_attacker_target_and_weapons(
    member: Member, battle: dict[str, int]
) -> None:
    page = member.client.get(
        f"/battles/{battle['id']}",
        params={"attacker": battle["tank"], "target": battle["walker"], "weapons": "1"},
    ).text
    assert f'<option value="{battle["tank"]}" selected>Tank (Red)' in page
    assert f'<option value="{battle["walker"]}" selected>Walker (Blue)' in page
    assert 'name="weapon.1" checked' in page and 'name="weapon.0" checked' not in page
    assert "MachineGun" in page and "Cannot roll" not in page


def test_undo_and_unit_actions_by_htmx(member: Member, battle: dict[str, int]) -> None:
    base = f"/battles/{battle['id']}"
    member.htmx(f"{base}/rolls", _form(battle))
    r = member.htmx(f"{base}/undo", _form(battle))
    assert r.status_code == 200 and r.text.lstrip().startswith('<section id="units"')
    assert "Undone: #1 (logged as #2)." in r.text and 'id="odds"' in r.text
    # the log only grows: #1 stays, struck through, and the Undo button is gone
    assert 'data-undone-by="2"' in r.text and "(undone by <a" in r.text
    assert 'name="seq"' not in r.text  # (nothing stands to undo)
    again = member.htmx(f"{base}/undo")
    assert again.status_code == 422 and "nothing to undo" in again.text
    divert = member.htmx(f"{base}/units/{battle['tank']}/divert", _form(battle))
    assert divert.status_code == 200 and "1 turn of Power saved" in divert.text
    reload = member.htmx(f"{base}/units/{battle['tank']}/reload")
    assert reload.status_code == 422 and "no Inoperative weapon" in reload.text
    burning = member.htmx(f"{base}/units/{battle['walker']}/burning")
    assert burning.status_code == 422 and "not on Fire" in burning.text
    assert member.htmx(f"{base}/units/999999/divert").status_code == 404


def test_export_text_and_the_read_only_link(member: Member, battle: dict[str, int]) -> None:
    base = f"/battles/{battle['id']}"
    member.htmx(f"{base}/rolls", _form(battle, seed="5"))
    text = member.client.get(f"{base}/export.txt")
    assert text.status_code == 200 and text.headers["content-type"].startswith("text/plain")
    assert "Battle: Ford" in text.text and "#1 attack" in text.text
    made = member.form(f"{base}/links")
    link = re.search(r'<code id="new-link">([^<]+)</code>', made.text).group(1)
    shared = member.client.get(link.replace("http://testserver", ""))
    assert shared.status_code == 200 and "Walker" in shared.text
    assert "Roll it!" not in shared.text and "Undo" not in shared.text
    member.form(f"{base}/links/revoke")
    assert member.client.get(link.replace("http://testserver", "")).status_code == 404


def test_another_users_battle_is_not_found(
    member: Member, stranger: Member, battle: dict[str, int]
) -> None:
    base = f"/battles/{battle['id']}"
    assert stranger.client.get(base).status_code == 404
    assert stranger.htmx(f"{base}/rolls", _form(battle)).status_code == 404
    assert api(stranger, "GET", f"/api/v1{base}").status_code == 404
    assert "Ford" not in stranger.client.get("/battles").text


# ------------------------------------------------------------------------------ the API


def test_api_roll_undo_and_state(member: Member, battle: dict[str, int]) -> None:
    base = f"/api/v1/battles/{battle['id']}"
    body = {
        "attacker_id": battle["tank"],
        "weapons": [0],
        "target_id": battle["walker"],
        "situation": {"distance": 2},
        "seed": 3,
    }
    first = api(member, "POST", f"{base}/rolls", json=body)
    assert first.status_code == 201, first.text
    again = api(member, "POST", f"{base}/rolls", json=body).json()
    assert again["seq"] == 2 and again["dice"] != [] and again["odds"]["lines"]
    odds = api(member, "POST", f"{base}/odds", json={k: v for k, v in body.items() if k != "seed"})
    assert odds.status_code == 200 and odds.json()["odds"]["lines"][0]["targets"][0]["name"]
    undone = api(member, "DELETE", f"{base}/rolls/last")  # (the older form of POST .../undo)
    assert undone.status_code == 200 and undone.json()["seq"] == 2
    assert undone.json()["undone_by"] == 3
    detail = api(member, "GET", base).json()
    assert [(e["seq"], e["undone_by"]) for e in detail["log"]] == [(1, None), (2, 3), (3, None)]
    assert detail["last_seq"] == 3 and detail["undo_seq"] == 1
    walker = next(u for u in detail["units"] if u["id"] == battle["walker"])
    assert walker["state"] == first.json()["changes"][str(battle["walker"])]["after"] | {
        "size_damage": str(first.json()["changes"][str(battle["walker"])]["after"]["size_damage"])
    }
    export = api(member, "GET", f"{base}/export")
    assert export.status_code == 200 and "#1 attack" in export.text
    burning = api(member, "POST", f"{base}/units/{battle['walker']}/burning", json={"seed": 1})
    assert burning.status_code == 422 and burning.json()["detail"][0]["field"] == "unit"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"situation": {"distance": -1}}, "situation.distance"),
        ({"weapons": []}, "weapons"),
        ({"weapons": [9]}, "weapons"),
        ({"target_id": 999999}, "target_id"),
        ({"followers": [{"unit_id": 1, "distance": -2}]}, "followers.0.distance"),
        ({"situation": {"colour": "red"}}, "situation.colour"),
    ],
)
def test_api_bad_rolls_are_422_with_the_field(
    member: Member, battle: dict[str, int], body: dict[str, object], field: str
) -> None:
    base = f"/api/v1/battles/{battle['id']}"
    full = {"attacker_id": battle["tank"], "weapons": [0], "target_id": battle["walker"]} | body
    r = api(member, "POST", f"{base}/rolls", json=full)
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["field"] == field
    assert api(member, "GET", base).json()["log"] == []


def test_api_share_link(member: Member, battle: dict[str, int]) -> None:
    base = f"/api/v1/battles/{battle['id']}"
    made = api(member, "POST", f"{base}/share-link").json()
    assert api(member, "GET", f"/api/v1/battles/shared/{made['token']}").status_code == 200
    assert api(member, "DELETE", f"{base}/share-link").status_code == 204
    assert api(member, "GET", f"/api/v1/battles/shared/{made['token']}").status_code == 404


def test_api_battle_list_and_create_from_two_units(member: Member) -> None:
    red, _ = _armies(member)
    units = api(member, "GET", f"/api/v1/armies/{red}").json()
    unit_ids = [u["id"] for u in units["units"]]
    one_army = api(
        member,
        "POST",
        "/api/v1/battles",
        json={"name": "Duel", "army_ids": [red], "unit_ids": unit_ids + unit_ids[:1]},
    )
    assert one_army.status_code == 422  # one unit (listed twice) is not a battle
    listed = api(member, "GET", "/api/v1/battles").json()
    assert listed == []


def test_cover_and_aiming_reach_the_engine(member: Member, battle: dict[str, int]) -> None:
    base = f"/api/v1/battles/{battle['id']}/odds"
    body = {"attacker_id": battle["tank"], "weapons": [0], "target_id": battle["walker"]}

    def miss(**situation: object) -> float:
        r = api(member, "POST", base, json=body | {"situation": {"distance": 2, **situation}})
        assert r.status_code == 200, r.text
        return r.json()["odds"]["lines"][0]["targets"][0]["miss"]

    assert miss(small="1x1") > miss()
    assert miss(visible_size=1) > miss()
    page = member.client.get(
        f"/battles/{battle['id']}/odds", params=_form(battle, small="2x2", visible_size="1")
    )
    assert '<option value="2x2" selected>' in page.text


@pytest.mark.parametrize("door", ["odds", "rolls"])
def test_the_api_takes_only_true_and_false_as_booleans(
    member: Member, battle: dict[str, int], door: str
) -> None:
    url = f"/api/v1/battles/{battle['id']}/{door}"
    body = {
        "attacker_id": battle["tank"],
        "weapons": [0],
        "target_id": battle["walker"],
        "situation": {"distance": 2},
    }
    for bad in (0, 1, "yes", "true", "on", None):
        r = api(member, "POST", url, json=body | {"moved": bad})
        assert r.status_code == 422, (bad, r.text)
        assert r.json()["detail"][0]["field"] == "moved", bad
        r = api(member, "POST", url, json=body | {"situation": {"distance": 2, "charge": bad}})
        assert r.status_code == 422, (bad, r.text)
        assert r.json()["detail"][0]["field"] == "situation.charge", bad
    undo = f"/api/v1/battles/{battle['id']}/rolls/last"
    for good in (True, False):
        r = api(member, "POST", url, json=body | {"moved": good})
        assert r.status_code in (200, 201), (good, r.text)
        if door == "rolls":  # undone, so a destroyed walker does not refuse the next roll
            assert api(member, "DELETE", undo).status_code == 200
        situation = {"distance": 2, "charge": good}
        assert api(member, "POST", url, json=body | {"situation": situation}).status_code < 300
        if door == "rolls":
            assert api(member, "DELETE", undo).status_code == 200


def test_the_attack_forms_still_take_a_ticked_box(member: Member, battle: dict[str, int]) -> None:
    # a form's ticked box is text ("on"): read by the form's own reader, not the JSON models
    r = member.htmx(
        f"/battles/{battle['id']}/rolls", _form(battle, seed="7", moved="on", charge="on")
    )
    assert r.status_code == 200, r.text
