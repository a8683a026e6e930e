"""Issue 14, items 4, 6 and 12: reopening the invitations address, error pages that know who
is logged in, house rules in words for club members, and cost and units on the armies list."""

from __future__ import annotations

import html
import re
from fractions import Fraction

from fastapi.testclient import TestClient

from app.rules.registry import get_ruleset
from tests.web.builder.test_builder import TANK, add_unit, count_queries
from tests.web.clubs.test_clubs import api, club_with
from tests.web.conftest import Member


def test_a_get_of_the_invitations_address_shows_the_clubs_invitations(
    app, member: Member, stranger: Member
) -> None:  # type: ignore[no-untyped-def]
    club_id = club_with(member, stranger)
    made = member.client.post(
        f"/clubs/{club_id}/invites", data={"csrf_token": member.csrf}, follow_redirects=False
    )
    assert made.status_code == 200 and "Invitation link" in made.text
    again = member.client.get(f"/clubs/{club_id}/invites")  # a reload of that page
    assert again.status_code == 200
    assert 'id="invites"' in again.text and "Revoke" in again.text
    assert "shown only now" not in again.text  # the link itself is never shown again
    # a plain member may see the club, but there are no invitations to show them
    seen = stranger.client.get(f"/clubs/{club_id}/invites")
    assert seen.status_code == 200 and 'id="invites"' not in seen.text
    with TestClient(app) as c:
        from tests.web.conftest import sign_up

        outsider = sign_up(c, name="Outsider")
        assert outsider.client.get(f"/clubs/{club_id}/invites").status_code == 404
    anonymous = TestClient(app).get(f"/clubs/{club_id}/invites", follow_redirects=False)
    assert anonymous.status_code == 303 and anonymous.headers["location"].startswith("/login")


def _nav(html: str) -> str:
    found = re.search(r'<nav class="wrap nav".*?</nav>', html, re.S)
    assert found
    return found.group(0)


def test_error_pages_show_the_real_login_state(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    for response in (
        member.client.get("/no/such/page"),  # 404 without a route
        member.client.put("/login"),  # 405
        member.client.get("/armies/not-a-number"),  # 404 from a bad path value
    ):
        assert response.status_code in (404, 405), response.url
        nav = _nav(response.text)
        assert "Log out" in nav and "/account" in nav, response.url
        assert "Sign up" not in nav and "Log in" not in nav
    anonymous = TestClient(app).get("/no/such/page")
    assert anonymous.status_code == 404 and "Sign up" in _nav(anonymous.text)


def test_club_members_see_house_rules_in_words(member: Member, stranger: Member) -> None:
    club_id = club_with(member, stranger)
    page = stranger.client.get(f"/clubs/{club_id}")
    assert page.status_code == 200
    section = re.search(r'id="club-house-rules".*?</section>', page.text, re.S)
    assert section
    shown = re.findall(r"<li>(.*?): <strong>(.*?)</strong></li>", section.group(0))
    assert shown
    values = [value for _, value in shown]
    assert "True" not in values and "False" not in values, values
    fields = get_ruleset("brikwars").option_fields
    assert len(shown) == len(fields)
    for field, (label, value) in zip(fields, shown, strict=True):
        assert html.unescape(label) == field.label
        if field.kind == "flag":
            assert value in ("Yes", "No"), (label, value)
        elif field.choices:  # a choice by its label, not its stored value
            assert value in [text for _, text in field.choices], (label, value)


def _army(member: Member, name: str) -> int:
    body = {"name": name, "ruleset_id": "brikwars", "budget": 100}
    r = api(member, "POST", "/api/v1/armies", json=body)
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def test_the_armies_list_shows_each_armys_cost_and_unit_count(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    army_id = _army(member, "Red Bricks")
    for _ in range(2):
        add_unit(member, army_id, TANK)
    total = api(member, "GET", f"/api/v1/armies/{army_id}").json()["total_cost"]
    page = member.client.get("/armies")
    row = re.search(rf'<tr>\s*<td><a href="/armies/{army_id}">.*?</tr>', page.text, re.S)
    assert row, page.text
    cells = [c.strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row.group(0), re.S)]
    headers = re.findall(r"<th\b[^>]*>(.*?)</th>", page.text)
    assert "Cost" in headers and "Units" in headers, headers
    assert cells[headers.index("Units")] == "2"
    assert total > 0
    assert cells[headers.index("Cost")] == get_ruleset("brikwars").format_cost(Fraction(str(total)))
    # one query for every army's rows, however many armies there are
    with count_queries(app) as one:
        member.client.get("/armies")
    for name in ("Blue Bricks", "Green Bricks", "Grey Bricks"):
        add_unit(member, _army(member, name), TANK)
    with count_queries(app) as four:
        member.client.get("/armies")
    assert len(four) == len(one), four
