"""The calculator page: saved units, live odds, Power findings, the URL as the state."""

from __future__ import annotations

import re
from fractions import Fraction
from urllib.parse import parse_qsl, urlsplit

import pytest

from app.rules.brikwars import unit_from_dict
from app.rules.brikwars.turn import Turn, TurnSituation
from app.services.calculator import CalcRequest, Follower, Loadout
from app.web.calculator_query import Params, parse, to_query
from tests.web.conftest import Member

REX = {
    "name": "Scorpiosaurus Rex",
    "kind": "creation",
    "size": 3,
    "structure_level": 1,
    "weapons": [
        {"type": "melee_weapon", "size": 5, "label": "stinger"},
        {"type": "melee_weapon", "size": 1, "label": "left claw"},
        {"type": "melee_weapon", "size": 1, "label": "right claw"},
    ],
}
TANK = {
    "name": "Tank",
    "kind": "creation",
    "size": 4,
    "structure_level": 2,
    "weapons": [{"type": "gun", "size": 3}, {"type": "machinegun", "size": 2}],
}


def api(member: Member, method: str, url: str, **kw):  # type: ignore[no-untyped-def]
    return member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)


@pytest.fixture
def armies(member: Member) -> dict[str, dict]:
    army = api(member, "POST", "/api/v1/armies", json={"name": "Monsters", "budget": 500}).json()
    rex = api(member, "POST", f"/api/v1/armies/{army['id']}/units", json=REX).json()
    tank = api(member, "POST", f"/api/v1/armies/{army['id']}/units", json=TANK).json()
    minifig = api(
        member,
        "POST",
        f"/api/v1/armies/{army['id']}/units",
        json={"name": "Pvt", "kind": "minifig"},
    ).json()
    return {"army": army, "rex": rex, "tank": tank, "minifig": minifig}


def _p(html: str, name: str, nth: int = 0) -> float:
    found = re.findall(rf'data-name="{name}" data-p="([0-9.e-]+)"', html)
    return float(found[nth])


def test_attack_with_this_links_open_the_calculator(member: Member, armies) -> None:
    page = member.client.get(f"/armies/{armies['army']['id']}")
    assert f'href="/calculator?attacker={armies["rex"]["id"]}"' in page.text
    assert f'href="/calculator?target={armies["tank"]["id"]}"' in page.text
    first = member.client.get(f"/calculator?attacker={armies['rex']['id']}")
    assert first.status_code == 200
    assert "Pick an attacking unit and a target" in first.text
    # the first weapon is preselected, and the URL says so
    assert f'name="weapons" value="{armies["rex"]["weapons"][0]["id"]}" checked' in first.text


def test_the_odds_shown_are_the_engines(member: Member, armies) -> None:
    tank, target = armies["tank"], armies["rex"]
    gun = tank["weapons"][0]["id"]
    url = f"/calculator?attacker={tank['id']}&weapons={gun}&target={target['id']}&distance=16"
    html = member.client.get(url).text
    engine = Turn(
        unit_from_dict(TANK), (0,), unit_from_dict(REX), TurnSituation(distance=Fraction(16))
    ).odds()
    main = engine.lines[0].main
    for name in ("miss", "no_effect", "something_bad", "size_damage", "destroyed"):
        assert _p(html, name) == pytest.approx(getattr(main, name), abs=1e-9)
    assert '<svg class="chart"' in html and "Out of Range" in html
    near = member.client.get(url.replace("distance=16", "distance=4")).text
    assert _p(near, "miss") < _p(html, "miss")  # 2" out of range is harder to hit


def test_power_is_enforced_with_the_reason(member: Member, armies) -> None:
    rex = armies["rex"]
    ids = [w["id"] for w in rex["weapons"]]
    query = f"attacker={rex['id']}&target={armies['tank']['id']}&" + "&".join(
        f"weapons={i}" for i in ids
    )
    html = member.client.get(f"/calculator?{query}").text
    assert "Not enough Power this turn" in html
    assert "7&#34;" in html or '7"' in html  # "need 7" of Power"
    assert 'data-name="miss"' not in html  # no odds for a turn that cannot happen
    two = member.client.get(
        f"/calculator?attacker={rex['id']}&target={armies['tank']['id']}"
        f"&weapons={ids[0]}&weapons={ids[1]}"
    ).text
    assert "Not enough Power" not in two and 'data-name="miss"' in two


def test_htmx_gets_the_calculator_block_and_the_url_to_push(member: Member, armies) -> None:
    url = f"/calculator?attacker={armies['tank']['id']}&target={armies['minifig']['id']}&distance=3"
    r = member.client.get(url, headers={"HX-Request": "true"})
    assert r.status_code == 200
    assert r.text.lstrip().startswith('<section id="results"')  # typing swaps the results only
    assert 'name="distance"' not in r.text
    pushed = r.headers["HX-Push-Url"]
    assert "weapons=" in pushed and "distance=3" in pushed and "full" not in pushed
    full = member.client.get(url + "&full=1", headers={"HX-Request": "true"})
    assert full.text.lstrip().startswith('<div id="calculator"')  # a unit picker: everything


def test_bad_inputs_are_named_in_place(member: Member, armies) -> None:
    url = f"/calculator?attacker={armies['tank']['id']}&target={armies['minifig']['id']}"
    r = member.client.get(url + "&distance=-2&arc=lots")
    assert r.status_code == 422
    assert "Distance" in r.text and "must be from 0 to 1000 inches" in r.text
    assert "needs a whole number" in r.text
    assert 'data-name="miss"' in r.text  # the rest still computes
    # htmx's live answer: the same, but a 200 (a browser logs every 4xx to the console)
    live = member.client.get(url + "&distance=-2&arc=lots", headers={"HX-Request": "true"})
    assert live.status_code == 200 and "must be from 0 to 1000 inches" in live.text


def test_another_users_units_are_not_found(member: Member, stranger: Member, armies) -> None:
    r = stranger.client.get(f"/calculator?attacker={armies['tank']['id']}")
    assert r.status_code == 404 and "Tank" not in r.text
    r = stranger.client.get(f"/calculator?target={armies['rex']['id']}")
    assert r.status_code == 404


def test_compare_two_loadouts_with_cost(member: Member, armies) -> None:
    tank, rex = armies["tank"], armies["rex"]
    url = (
        f"/calculator?attacker={tank['id']}&weapons={tank['weapons'][0]['id']}"
        f"&target={armies['minifig']['id']}&distance=4"
        f"&compare={rex['id']}&compare_weapons={rex['weapons'][1]['id']}"
    )
    html = member.client.get(url).text
    assert html.count('class="card loadout"') == 2
    assert html.count('data-name="per_10_cp"') == 2


@pytest.mark.parametrize(
    "request_",
    [
        CalcRequest(),
        CalcRequest(
            attacker=Loadout(3, (7, 9)),
            target_id=4,
            situation=TurnSituation(
                distance=Fraction(5, 2),
                height=Fraction(1, 3),
                visible_sections=2,
                visible_size=Fraction(4),
                small="2x2",
                firing_blind=True,
                gunnery_support=2,
                homing_in=1,
                charge=True,
                arc=3,
                burst=0,
                combined=True,
                divert_turns=1,
                teamwork=Fraction(3, 2),
            ),
            followers=(Follower(5, Fraction(6), 1, None), Follower(6, None, 0, Fraction(3))),
            compare=Loadout(8, (11,)),
            bonus_die="d6",
            allies=(12, 13),
            ally_weapons=(14,),
        ),
    ],
)
def test_the_url_round_trips(request_: CalcRequest) -> None:
    query = to_query(request_)
    again, errors = parse(Params(parse_qsl(urlsplit("/calculator?" + query).query, True)))
    assert errors == {}
    assert again == request_


def test_a_shared_url_reproduces_the_page(member: Member, armies) -> None:
    url = f"/calculator?attacker={armies['tank']['id']}&target={armies['rex']['id']}&distance=7"
    first = member.client.get(url, headers={"HX-Request": "true"})
    shared = member.client.get(first.headers["HX-Push-Url"])
    assert _p(shared.text, "miss") == _p(first.text, "miss")
    assert _p(shared.text, "destroyed") == _p(first.text, "destroyed")


def test_a_combined_attack_with_another_unit(member: Member, armies) -> None:
    tank, rex = armies["tank"], armies["rex"]
    url = (
        f"/calculator?attacker={tank['id']}&weapons={tank['weapons'][0]['id']}"
        f"&target={armies['minifig']['id']}&distance=2&ally={rex['id']}"
        f"&ally_weapons={rex['weapons'][1]['id']}"
    )
    html = member.client.get(url).text
    assert 'data-kind="combined"' in html
    assert "Scorpiosaurus Rex&#39;s 1&#34; Melee Weapon (left claw)" in html


def test_roll_it_starts_a_battle_with_the_odds_shown(member: Member, armies) -> None:
    tank, rex = armies["tank"], armies["rex"]
    query = (
        f"attacker={tank['id']}&weapons={tank['weapons'][0]['id']}&target={rex['id']}&distance=2"
    )
    shown = member.client.get(f"/calculator?{query}").text
    r = member.client.post(
        "/calculator/roll", data={"query": query, "csrf_token": member.csrf}, follow_redirects=False
    )
    assert r.status_code == 303
    location = r.headers["location"]
    assert re.match(r"/battles/\d+\?attacker=\d+&target=\d+&weapons=0&roll=1&distance=2", location)
    battle_id = int(location.split("/")[2].split("?")[0])
    battle = api(member, "GET", f"/api/v1/battles/{battle_id}").json()
    assert [u["name"] for u in battle["units"]] == ["Tank", "Scorpiosaurus Rex"]
    assert [w["name"] for w in battle["units"][1]["weapons"]][:2] == [
        '5" Melee Weapon (stinger)',  # its label once
        '1" Melee Weapon (left claw)',
    ]
    (entry,) = battle["log"]
    logged = entry["odds"]["lines"][0]["targets"][0]
    assert logged["miss"] == pytest.approx(_p(shown, "miss"), abs=1e-9)
    assert logged["size_damage"] == pytest.approx(_p(shown, "size_damage"), abs=1e-9)
    assert entry["dice"][0]["dice"][0]["purpose"] == "action"  # line 1, its first die
    page = member.client.get(location)
    assert page.status_code == 200 and 'data-seq="1"' in page.text


def test_roll_it_refuses_a_turn_over_power_and_starts_nothing(member: Member, armies) -> None:
    rex = armies["rex"]
    weapons = "&".join(f"weapons={w['id']}" for w in rex["weapons"])
    query = f"attacker={rex['id']}&{weapons}&target={armies['tank']['id']}"
    r = member.client.post("/calculator/roll", data={"query": query, "csrf_token": member.csrf})
    assert r.status_code == 422
    assert "Cannot roll this" in r.text and "Fire fewer weapons" in r.text
    assert api(member, "GET", "/api/v1/battles").json() == []


def test_roll_in_battle_over_json_repeats_with_a_seed(member: Member, armies) -> None:
    tank, rex = armies["tank"], armies["rex"]
    body = {
        "attacker": {"unit_id": tank["id"], "weapon_ids": [tank["weapons"][0]["id"]]},
        "target": {"unit_id": rex["id"]},
        "situation": {"distance": 3},
        "seed": 4242,
    }
    first = api(member, "POST", "/api/v1/calculator/battle", json=body)
    second = api(member, "POST", "/api/v1/calculator/battle", json=body)
    assert first.status_code == second.status_code == 201
    a, b = first.json(), second.json()
    assert a["battle_id"] != b["battle_id"] and a["seq"] == b["seq"] == 1
    logs = [
        api(member, "GET", f"/api/v1/battles/{x['battle_id']}").json()["log"][0] for x in (a, b)
    ]
    faces = [[(d["purpose"], d["natural"]) for d in log["dice"][0]["dice"]] for log in logs]
    assert faces[0] == faces[1] and logs[0]["seed"] == 4242


def test_a_club_members_pickers_offer_the_club_rosters(
    member: Member, stranger: Member, armies
) -> None:
    from tests.web.clubs.test_clubs import club_with

    club_id = club_with(member, stranger)
    army_id = armies["army"]["id"]
    assert "Monsters" not in stranger.client.get("/calculator").text
    api(member, "PUT", f"/api/v1/armies/{army_id}/sharing", json={"club_id": club_id})
    page = stranger.client.get("/calculator").text
    assert '<optgroup label="Monsters">' in page and "Scorpiosaurus Rex (creation)" in page


def test_an_input_change_reads_no_picker_units(app, member: Member, armies) -> None:  # type: ignore[no-untyped-def]
    """htmx asks for the results alone as an input changes: the pickers' units (all the
    offered armies' units) are read only when the pickers are drawn."""
    from tests.web.builder.test_builder import count_queries

    tank, target = armies["tank"], armies["rex"]
    url = f"/calculator?attacker={tank['id']}&target={target['id']}&distance=4"
    pickers = "unit.army_id, unit.id, unit.name, unit.kind"
    with count_queries(app) as statements:
        r = member.client.get(url, headers={"HX-Request": "true"})
    assert r.status_code == 200 and "data-p" in r.text
    assert not [s for s in statements if pickers in s]
    with count_queries(app) as statements:
        page = member.client.get(url)
    assert page.status_code == 200 and "Rex" in page.text
    assert [s for s in statements if pickers in s]


def test_an_input_change_reads_no_picker_armies(member: Member, armies, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The results an input change asks for draw no pickers: the armies they offer are not
    read (a tenth of the fragment's work under load); a unit picker's ``full`` answer and
    the whole page still offer every army."""
    from app.services import battles

    read = []
    real = battles.armies_for_battle
    monkeypatch.setattr(
        battles, "armies_for_battle", lambda *a, **k: read.append(1) or real(*a, **k)
    )
    query = f"attacker={armies['tank']['id']}&target={armies['rex']['id']}&distance=5"
    htmx = {"HX-Request": "true"}
    results = member.client.get(f"/calculator?{query}", headers=htmx)
    assert results.status_code == 200
    assert "data-p=" in results.text
    picker = '<optgroup label="Monsters">'
    assert picker not in results.text and read == []
    full = member.client.get(f"/calculator?{query}&full=1", headers=htmx)
    assert picker in full.text and len(read) == 1
    page = member.client.get(f"/calculator?{query}")
    assert picker in page.text and len(read) == 2
    # the same odds either way
    assert _p(results.text, "any_destroying") == _p(page.text, "any_destroying")


def test_a_calculation_learns_where_all_its_armys_units_are(member: Member, armies) -> None:  # type: ignore[no-untyped-def]
    """A unit the server has no hint for is looked up once, and its army's other units are
    hinted with it: the next calculation naming one of them reads its army with the login."""
    from app.services import calculator_units

    calculator_units._ARMY_OF.cache_clear()
    query = f"attacker={armies['tank']['id']}&distance=5"
    assert member.client.get(f"/calculator?{query}", headers={"HX-Request": "true"}).is_success
    for unit in ("rex", "tank", "minifig"):
        assert calculator_units._ARMY_OF.get(armies[unit]["id"]) == armies["army"]["id"], unit


def test_which_army_a_unit_is_in_is_a_hint_the_armys_own_view_confirms(
    member: Member, stranger: Member, armies
) -> None:  # type: ignore[no-untyped-def]
    """The calculator remembers which army each unit is in (one query fewer per unit), but a
    wrong memory (an id SQLite handed out again, an army gone or another player's) changes
    nothing: the unit's own army answers, with the viewer's rights."""
    from app.services import calculator_units

    query = f"attacker={armies['tank']['id']}&target={armies['rex']['id']}&distance=5"
    htmx = {"HX-Request": "true"}
    right = member.client.get(f"/calculator?{query}", headers=htmx)
    assert right.status_code == 200 and "data-p=" in right.text
    assert calculator_units._ARMY_OF.get(armies["tank"]["id"]) == armies["army"]["id"]
    theirs = api(stranger, "POST", "/api/v1/armies", json={"name": "Theirs", "budget": 9}).json()
    gone = api(member, "POST", "/api/v1/armies", json={"name": "Gone", "budget": 9}).json()
    assert api(member, "DELETE", f"/api/v1/armies/{gone['id']}").status_code == 204
    empty = api(member, "POST", "/api/v1/armies", json={"name": "Empty", "budget": 9}).json()
    for wrong in (theirs["id"], gone["id"], empty["id"]):
        for unit in ("tank", "rex"):
            calculator_units._ARMY_OF.put(armies[unit]["id"], wrong)
        again = member.client.get(f"/calculator?{query}", headers=htmx)
        assert again.status_code == 200, wrong
        assert _p(again.text, "any_destroying") == _p(right.text, "any_destroying")
        assert calculator_units._ARMY_OF.get(armies["tank"]["id"]) == armies["army"]["id"]
    # and another player's unit stays out of reach, hint or not
    calculator_units._ARMY_OF.put(armies["tank"]["id"], armies["army"]["id"])
    assert stranger.client.get(f"/calculator?{query}", headers=htmx).status_code == 404
