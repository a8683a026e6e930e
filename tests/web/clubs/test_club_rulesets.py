"""Issue 29 item 9: a club is every ruleset's. Its roster search has a ruleset picker and
filters by that ruleset's cost unit; its page pins house rules for each ruleset its members
play, by that ruleset's own fields (page and API); a wrong value is a 422 naming its field,
shown beside it. Each ruleset is reached through the registry only."""

from __future__ import annotations

import html
import re
from fractions import Fraction
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.db.models import Club
from app.rules.fields import format_field
from app.rules.registry import RULESETS, get_ruleset
from tests.web.builder.test_d20_builder import TROOPER as D20_TROOPER
from tests.web.builder.test_degrees_builder import SIMO
from tests.web.clubs.test_clubs import api, club_with
from tests.web.conftest import Member, sign_up

UNITS: dict[str, dict[str, Any]] = {
    "brikwars": {"name": "Trooper", "kind": "minifig"},
    "degrees": SIMO,
    "d20": D20_TROOPER,
}


def _army(who: Member, club_id: int | None, ruleset: str, name: str, units: int) -> dict[str, Any]:
    body = {"name": name, "ruleset_id": ruleset, "budget": 1000, "club_id": club_id}
    army = api(who, "POST", "/api/v1/armies", json=body).json()
    for _ in range(units):
        r = api(who, "POST", f"/api/v1/armies/{army['id']}/units", json=UNITS[ruleset])
        assert r.status_code == 201, r.text
    return api(who, "GET", f"/api/v1/armies/{army['id']}").json()  # type: ignore[no-any-return]


def _names(who: Member, club_id: int, **params: object) -> list[str]:
    r = api(who, "GET", f"/api/v1/clubs/{club_id}", params=params)
    assert r.status_code == 200, r.text
    return [x["name"] for x in r.json()["rosters"]]


def _page_names(page: str) -> list[str]:
    rosters = re.search(r'(?s)<div id="rosters">.*?</div>', page)
    assert rosters, page
    return re.findall(r'<a href="/armies/[0-9]+">([^<]*)</a>', rosters.group(0))


@pytest.mark.parametrize("ruleset_id", list(RULESETS))
def test_the_roster_search_filters_by_the_rulesets_own_cost(
    member: Member, stranger: Member, ruleset_id: str
) -> None:
    rules = get_ruleset(ruleset_id)
    club_id = club_with(member, stranger)
    small = _army(member, club_id, ruleset_id, "Small", 1)
    big = _army(stranger, club_id, ruleset_id, "Big", 3)
    lo, hi = small["total_cost"], big["total_cost"]  # as the engine costs them
    assert 0 < lo < hi
    # the one ruleset the members play is the search's own: its unit, its costs
    assert _names(member, club_id) == ["Big", "Small"]
    assert _names(member, club_id, min_cost=hi) == ["Big"]
    assert _names(member, club_id, max_cost=lo) == ["Small"]
    assert _names(member, club_id, ruleset=ruleset_id, min_cost=lo, max_cost=lo) == ["Small"]
    club = api(member, "GET", f"/api/v1/clubs/{club_id}", params={"min_cost": lo}).json()
    assert club["ruleset"] == ruleset_id and club["cost_unit"] == rules.cost_unit
    assert {r["ruleset"] for r in club["rosters"]} == {ruleset_id}
    # the page: the picker on the ruleset, the bounds in its unit, the same answer
    page = member.client.get(f"/clubs/{club_id}", params={"min_cost": str(hi)})
    assert page.status_code == 200
    assert re.search(rf'<option value="{ruleset_id}" selected>{rules.name} \(', page.text)
    assert f"in {rules.cost_unit}</span></legend>" in page.text
    assert "Cost from (CP)" not in page.text
    assert _page_names(page.text) == ["Big"]
    rosters = page.text.split('<div id="rosters">')[1].split("</table>")[0]
    assert rules.format_cost(Fraction(str(hi))) in rosters  # costs in the ruleset's own words
    fragment = member.client.get(
        f"/clubs/{club_id}",
        params={"ruleset": ruleset_id, "max_cost": str(lo)},
        headers={"HX-Request": "true", "HX-Target": "rosters"},
    )
    assert fragment.status_code == 200 and _page_names(fragment.text) == ["Small"]
    assert re.search(
        rf'<span id="q-cost-unit" hx-swap-oob="true">in {rules.cost_unit}<', fragment.text
    )


def test_a_mixed_club_picks_a_ruleset_before_a_cost(member: Member, stranger: Member) -> None:
    club_id = club_with(member, stranger)
    _army(member, club_id, "brikwars", "Bricks", 1)
    _army(stranger, club_id, "degrees", "Simos", 1)
    _army(stranger, club_id, "d20", "Genetics", 1)
    assert _names(member, club_id) == ["Bricks", "Genetics", "Simos"]
    assert _names(member, club_id, ruleset="degrees") == ["Simos"]
    assert _names(member, club_id, ruleset="d20", min_cost=0) == ["Genetics"]
    # a cost bound without a ruleset compares CP with DP: refused, by its field
    r = api(member, "GET", f"/api/v1/clubs/{club_id}", params={"min_cost": 1, "max_cost": 9})
    assert r.status_code == 422
    assert {d["field"] for d in r.json()["detail"]} == {"min_cost", "max_cost"}
    r = api(member, "GET", f"/api/v1/clubs/{club_id}", params={"ruleset": "chess"})
    assert r.status_code == 422 and [d["field"] for d in r.json()["detail"]] == ["ruleset"]
    page = member.client.get(f"/clubs/{club_id}", params={"min_cost": "5"})
    assert page.status_code == 422
    assert "Cost from: choose a ruleset first" in page.text
    assert re.search(r'id="q-min"[^>]*aria-invalid="true"', page.text)
    assert _page_names(page.text) == []
    # the page's picker lists every ruleset, by name and unit, and "All rulesets"
    for rules in RULESETS.values():
        assert f'<option value="{rules.id}">{rules.name} ({rules.cost_unit})</option>' in page.text
    assert "(choose a ruleset)" in page.text


@pytest.mark.parametrize("bad", ["abc", "1/0", "1e999"])
def test_a_bad_cost_is_a_422_named_beside_the_search(member: Member, bad: str) -> None:
    club_id = club_with(member)
    _army(member, club_id, "degrees", "Simos", 1)
    page = member.client.get(f"/clubs/{club_id}", params={"ruleset": "degrees", "max_cost": bad})
    assert page.status_code == 422
    errors = re.search(r'(?s)<div id="q-search-errors"[^>]*>(.*?)</div>', page.text)
    assert errors and 'data-field="max_cost"' in errors.group(1), page.text
    assert re.search(r'id="q-max"[^>]*aria-invalid="true"', page.text)
    fragment = member.client.get(
        f"/clubs/{club_id}",
        params={"ruleset": "degrees", "max_cost": bad},
        headers={"HX-Request": "true", "HX-Target": "rosters"},
    )
    assert fragment.status_code == 422
    assert re.search(r'<div id="q-search-errors"[^>]*hx-swap-oob="true"', fragment.text)
    assert 'data-field="max_cost"' in fragment.text
    r = api(member, "GET", f"/api/v1/clubs/{club_id}", params={"max_cost": bad})
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "max_cost"


SET_END = r'(?=<div class="house-rules-set"|<details|</section>|</details>|\Z)'


def _section(page: str, ruleset_id: str) -> str:
    start = f'<div class="house-rules-set" id="club-hr-{ruleset_id}">'
    match = re.search(rf"(?s){re.escape(start)}.*?</div>\s*{SET_END}", page)
    assert match, f"no house rules for {ruleset_id}"
    return match.group(0)


def _pinned_sets(page: str) -> list[str]:
    shown = page.split('id="club-hr-other"')[0]
    return re.findall(r'<div class="house-rules-set" id="club-hr-([a-z0-9_]+)">', shown)


def test_the_page_pins_house_rules_for_each_ruleset_the_members_play(  # type: ignore[no-untyped-def]
    app, member: Member, stranger: Member
) -> None:
    club_id = club_with(member, stranger)
    assert _pinned_sets(member.client.get(f"/clubs/{club_id}").text) == ["brikwars"]
    _army(member, None, "degrees", "Private Simos", 1)  # a member's army, shared or not
    _army(stranger, club_id, "d20", "Genetics", 1)
    page = member.client.get(f"/clubs/{club_id}").text
    assert _pinned_sets(page) == ["degrees", "d20"]
    for ruleset_id in ("degrees", "d20"):
        rules = get_ruleset(ruleset_id)
        section = _section(page, ruleset_id)
        assert f"<h3>{rules.name} " in section
        assert f'action="/clubs/{club_id}/house-rules/{ruleset_id}"' in section
        names = set(re.findall(r'name="([a-z_]+)"', section)) - {"csrf_token"}
        assert names == {f.name for f in rules.option_fields}, (ruleset_id, names)
        for f in rules.option_fields:
            control = re.search(
                rf'<(input|select) id="club-hr-{ruleset_id}-{f.name}"[^>]*>', section
            )
            assert control, f.name
            if f.kind == "whole":  # a whole number: a text input with a numeric keypad
                assert 'type="text" inputmode="numeric"' in control.group(0)
    # BrikWars' house rules are only one more ruleset, offered apart
    other = page.split('id="club-hr-other"')[1]
    assert 'id="club-hr-brikwars"' in other and "bonus_die" in other
    assert "bonus_die" not in page.split('id="club-hr-other"')[0].split('id="club-house-rules"')[1]


def test_pinning_d20_and_degrees_house_rules_by_the_page(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    club_id = club_with(member)
    _army(member, club_id, "d20", "Genetics", 1)
    r = member.form(
        f"/clubs/{club_id}/house-rules/d20",
        {"cover_bonus": "7", "naturals": "1", "margin_wounds": "0", "allow_over_budget": "0"},
    )
    assert r.status_code == 200 and "D20 Power/Reach house rules pinned" in r.text
    r = member.htmx(
        f"/clubs/{club_id}/house-rules/degrees",
        {"in_space": "1", "costs": "gamma_gun = 7", "allow_over_budget": "0"},
    )
    assert r.status_code == 200 and 'id="club-hr-degrees"' in r.text and "pinned" in r.text
    assert "<html" not in r.text  # the form's own fragment
    with app.state.sessionmaker() as s:
        stored = s.get(Club, club_id).house_rules
    assert stored["d20"]["cover_bonus"] == 7 and stored["d20"]["naturals"] is True
    assert stored["degrees"]["in_space"] is True and stored["degrees"]["costs"] == "gamma_gun = 7"
    # the page shows them, each in its own form; a new club army of that ruleset starts so
    page = member.client.get(f"/clubs/{club_id}").text
    assert _pinned_sets(page) == ["degrees", "d20"]
    assert re.search(r'id="club-hr-d20-cover_bonus"[^>]*value="7"', _section(page, "d20"))
    army = _army(member, club_id, "d20", "Second", 0)
    assert army["house_rules"]["cover_bonus"] == 7 and army["house_rules"]["naturals"] is True
    army = _army(member, club_id, "degrees", "Simos", 0)
    assert army["house_rules"]["in_space"] is True


@pytest.mark.parametrize("htmx", [False, True])
def test_a_wrong_house_rule_is_a_422_named_beside_its_field(
    app, member: Member, htmx: bool
) -> None:  # type: ignore[no-untyped-def]
    club_id = club_with(member)
    _army(member, club_id, "d20", "Genetics", 1)
    send = member.htmx if htmx else member.form
    r = send(f"/clubs/{club_id}/house-rules/d20", {"cover_bonus": "99", "naturals": "maybe"})
    assert r.status_code == 422
    section = _section(r.text, "d20")
    rules = get_ruleset("d20")
    for name in ("cover_bonus", "naturals"):
        label = next(f.label for f in rules.option_fields if f.name == name)
        assert re.search(rf'id="club-hr-d20-{name}"[^>]*aria-invalid="true"', section), name
        error = re.search(rf'<p class="error" id="club-hr-d20-{name}-err">([^<]*)</p>', section)
        assert error and html.unescape(error.group(1)).startswith(label), name
    assert 'value="99"' in section  # as typed
    r = send(f"/clubs/{club_id}/house-rules/degrees", {"costs": "nonsense = 7"})
    assert r.status_code == 422
    assert re.search(
        r'id="club-hr-degrees-costs"[^>]*aria-invalid="true"', _section(r.text, "degrees")
    )
    with app.state.sessionmaker() as s:
        assert s.get(Club, club_id).house_rules == {}


def test_house_rules_per_ruleset_by_the_api(app, member: Member, stranger: Member) -> None:  # type: ignore[no-untyped-def]
    club_id = club_with(member, stranger)
    _army(stranger, club_id, "degrees", "Simos", 1)
    pinned = api(
        member,
        "PUT",
        f"/api/v1/clubs/{club_id}/house-rules/degrees",
        json={"options": {"in_space": True}},
    )
    assert pinned.status_code == 200 and pinned.json()["in_space"] is True
    r = api(
        member,
        "PUT",
        f"/api/v1/clubs/{club_id}/house-rules/d20",
        json={"options": {"cover_bonus": 50, "naturals": "maybe", "bonus_die": "d6"}},
    )
    assert r.status_code == 422
    assert {d["field"] for d in r.json()["detail"]} == {"cover_bonus", "naturals", "bonus_die"}
    r = api(member, "PUT", f"/api/v1/clubs/{club_id}/house-rules/chess", json={"options": {}})
    assert r.status_code == 422
    club = api(stranger, "GET", f"/api/v1/clubs/{club_id}").json()
    by_id = {r["id"]: r for r in club["rulesets"]}
    assert list(by_id) == ["degrees"]  # the one ruleset played (and pinned)
    degrees = get_ruleset("degrees")
    assert by_id["degrees"]["cost_unit"] == degrees.cost_unit == "DP"
    assert by_id["degrees"]["house_rules"] == pinned.json()
    effective = by_id["degrees"]["effective_house_rules"]
    assert set(effective) == {f.name for f in degrees.option_fields}
    assert effective["in_space"] is True
    # a member (not an organiser) may read them, not pin them; a stranger sees no club
    r = api(stranger, "PUT", f"/api/v1/clubs/{club_id}/house-rules/degrees", json={"options": {}})
    assert r.status_code == 403
    with TestClient(app) as c:
        mallory = sign_up(c, name="Other")
        for ruleset in ("degrees", "chess"):
            r = api(
                mallory,
                "PUT",
                f"/api/v1/clubs/{club_id}/house-rules/{ruleset}",
                json={"options": {}},
            )
            assert r.status_code == 404, ruleset
            r = mallory.form(f"/clubs/{club_id}/house-rules/{ruleset}")
            assert r.status_code == 404, ruleset
        assert (
            api(mallory, "GET", f"/api/v1/clubs/{club_id}", params={"ruleset": "d20"}).status_code
            == 404
        )


def test_members_read_each_rulesets_house_rules_in_words(member: Member, stranger: Member) -> None:
    club_id = club_with(member, stranger)
    _army(stranger, club_id, "d20", "Genetics", 1)
    api(
        member,
        "PUT",
        f"/api/v1/clubs/{club_id}/house-rules/d20",
        json={"options": {"cover_bonus": 3}},
    )
    page = stranger.client.get(f"/clubs/{club_id}").text
    section = _section(page, "d20")
    assert "<form" not in section and 'id="club-hr-other"' not in page
    shown = dict(re.findall(r"<li>(.*?): <strong>(.*?)</strong></li>", section))
    rules = get_ruleset("d20")
    assert set(map(html.unescape, shown)) == {f.label for f in rules.option_fields}
    cover = next(f for f in rules.option_fields if f.name == "cover_bonus")
    assert shown[cover.label] == format_field(cover, 3)
