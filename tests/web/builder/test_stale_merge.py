"""A stale save re-applies only the fields its form changed, on top of the version that won.

Two tabs (two clients of one player) load the same army, unit or weapon; the first saves,
then the second saves its stale form: fields only it changed are merged in, a field both
changed is a conflict shown with both values (page) or listed (API, 409).
"""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser

import pytest
from fastapi.testclient import TestClient

from tests.web.conftest import PASSWORD, Member, page_csrf


class _Form(HTMLParser):
    """The fields a browser would submit from the form with id ``form_id``."""

    def __init__(self, form_id: str) -> None:
        super().__init__()
        self.form_id, self.inside, self.fields = form_id, False, {}
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.inside = a.get("id") == self.form_id
        if not self.inside or ("name" not in a and tag in ("input", "select", "textarea")):
            return
        if tag == "input":
            if a.get("type") in ("checkbox", "radio") and "checked" not in a:
                return
            if a.get("type") == "submit":
                return
            self.fields[a["name"]] = a.get("value", "")
        elif tag == "select":
            self._select = a["name"]
            self.fields.setdefault(a["name"], "")
        elif tag == "option" and self._select and "selected" in a:
            self.fields[self._select] = a.get("value", "")
        elif tag == "textarea":
            self._textarea = a["name"]
            self.fields[a["name"]] = ""

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self.fields[self._textarea] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False
        elif tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None


def form_fields(html: str, form_id: str) -> dict[str, str]:
    parser = _Form(form_id)
    parser.feed(html)
    assert parser.fields, f"no form {form_id}"
    return parser.fields


@pytest.fixture
def second_tab(app, member: Member) -> Iterator[Member]:  # type: ignore[no-untyped-def]
    """The same player in another browser tab (its own client, logged in)."""
    with TestClient(app) as c:
        token = page_csrf(c, "/login")
        r = c.post(
            "/login",
            data={"csrf_token": token, "email": member.email, "password": PASSWORD},
            follow_redirects=False,
        )
        assert r.status_code == 303, r.text
        yield Member(client=c, email=member.email, csrf=page_csrf(c, "/account"))


def api(member: Member, method: str, url: str, **kw):  # type: ignore[no-untyped-def]
    return member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)


def make_army(member: Member) -> int:
    r = api(member, "POST", "/api/v1/armies", json={"name": "Legion", "budget": 170})
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def army(member: Member, army_id: int) -> dict:  # type: ignore[type-arg]
    return api(member, "GET", f"/api/v1/armies/{army_id}").json()  # type: ignore[no-any-return]


# ------------------------------------------------------------------------------ army page


def test_stale_notes_edit_keeps_the_budget_set_in_another_tab(
    member: Member, second_tab: Member
) -> None:
    """Issue 10 item 15: tab 1 sets the budget 170 → 180; tab 2 edits only the notes."""
    army_id = make_army(member)
    tab1 = form_fields(member.client.get(f"/armies/{army_id}").text, "army-form")
    tab2 = form_fields(second_tab.client.get(f"/armies/{army_id}").text, "army-form")
    assert tab2["budget"] == "170"
    r = member.htmx(f"/armies/{army_id}", {**tab1, "budget": "180"})
    assert r.status_code == 200
    r = second_tab.htmx(f"/armies/{army_id}", {**tab2, "notes": "Hold the bridge"})
    assert r.status_code == 200, r.text
    assert "merged with a change made elsewhere" in r.text
    saved = army(member, army_id)
    assert (saved["budget"], saved["notes"]) == (180, "Hold the bridge")
    history = member.client.get(f"/armies/{army_id}/history").text
    assert "changed the notes (merged with a change made elsewhere)" in history
    assert "180 → 170" not in history


def test_a_field_both_tabs_changed_is_a_conflict_to_choose(
    member: Member, second_tab: Member
) -> None:
    army_id = make_army(member)
    tab1 = form_fields(member.client.get(f"/armies/{army_id}").text, "army-form")
    tab2 = form_fields(second_tab.client.get(f"/armies/{army_id}").text, "army-form")
    member.htmx(f"/armies/{army_id}", {**tab1, "budget": "180"})
    r = second_tab.htmx(f"/armies/{army_id}", {**tab2, "budget": "190", "notes": "mine"})
    assert r.status_code == 409
    assert 'data-field="budget"' in r.text
    assert '<span class="mine">190</span>' in r.text
    assert '<span class="theirs">180</span>' in r.text
    assert army(member, army_id)["notes"] == ""  # nothing saved from the conflicting form
    # Choose the other tab's budget: the notes still go in, against the new version.
    again = form_fields(r.text, "army-form")
    assert again["budget"] == "190" and again["resolve.budget"] == "mine"
    r = second_tab.htmx(f"/armies/{army_id}", {**again, "resolve.budget": "theirs"})
    assert r.status_code == 200, r.text
    saved = army(member, army_id)
    assert (saved["budget"], saved["notes"]) == (180, "mine")
    # Or keep mine.
    tab2 = form_fields(second_tab.client.get(f"/armies/{army_id}").text, "army-form")
    member.htmx(
        f"/armies/{army_id}",
        {**form_fields(member.client.get(f"/armies/{army_id}").text, "army-form"), "budget": "200"},
    )
    r = second_tab.htmx(f"/armies/{army_id}", {**tab2, "budget": "210"})
    assert r.status_code == 409
    r = second_tab.htmx(f"/armies/{army_id}", form_fields(r.text, "army-form"))
    assert r.status_code == 200 and army(member, army_id)["budget"] == 210


# ------------------------------------------------------------------------------ army API


def test_a_stale_patch_of_the_notes_merges_and_a_conflict_lists_the_field(
    member: Member,
) -> None:
    army_id = make_army(member)
    url = f"/api/v1/armies/{army_id}"
    assert api(member, "PATCH", url, json={"version": 1, "budget": 180}).status_code == 200
    r = api(member, "PATCH", url, json={"version": 1, "notes": "Hold the bridge"})
    assert r.status_code == 200, r.text
    assert (r.json()["budget"], r.json()["notes"]) == (180, "Hold the bridge")
    # Sending the loaded budget back changes nothing; another budget is a conflict.
    assert api(member, "PATCH", url, json={"version": 1, "budget": 170}).json()["budget"] == 180
    r = api(member, "PATCH", url, json={"version": 1, "budget": 175})
    assert r.status_code == 409
    body = r.json()
    assert body["detail"] == [{"field": "budget", "reason": "changed elsewhere to 180"}]
    assert body["current_version"] == 3
    assert body["conflicts"] == [{"field": "budget", "mine": 175, "theirs": 180}]
    # A base sent by the client is used as is.
    r = api(
        member,
        "PATCH",
        url,
        json={"version": 1, "name": "Legio", "base": {"name": "Legion", "budget": 170}},
    )
    assert r.status_code == 200 and r.json()["name"] == "Legio" and r.json()["budget"] == 180


# ------------------------------------------------------------------------------ units


TANK = {
    "name": "Tank",
    "kind": "creation",
    "size": 3,
    "structure_level": 2,
    "move": 4,
    "weapons": [{"type": "gun", "size": 3}],
}


def _unit_page(m: Member, army_id: int, unit_id: int) -> str:
    return m.client.get(f"/armies/{army_id}/units/{unit_id}").text


def test_stale_unit_form_merges_and_shows_a_conflict(member: Member, second_tab: Member) -> None:
    army_id = make_army(member)
    tank = api(member, "POST", f"/api/v1/armies/{army_id}/units", json=TANK).json()
    url = f"/armies/{army_id}/units/{tank['id']}"
    form_id = f"unit-form-{tank['id']}"
    tab1 = form_fields(_unit_page(member, army_id, tank["id"]), form_id)
    tab2 = form_fields(_unit_page(second_tab, army_id, tank["id"]), form_id)
    assert member.htmx(url, {**tab1, "name": "Tank Mk II"}).status_code == 200
    r = second_tab.htmx(url, {**tab2, "move": "5"})
    assert r.status_code == 200, r.text
    unit = army(member, army_id)["units"][0]
    assert (unit["name"], unit["spec"]["move"]) == ("Tank Mk II", 5)
    # Both change the Size: a conflict with both values, then "keep theirs".
    tab1 = form_fields(_unit_page(member, army_id, tank["id"]), form_id)
    tab2 = form_fields(_unit_page(second_tab, army_id, tank["id"]), form_id)
    assert member.htmx(url, {**tab1, "size": "4"}).status_code == 200
    r = second_tab.htmx(url, {**tab2, "size": "2", "name": "Tankette"})
    assert r.status_code == 409
    assert 'data-field="size"' in r.text
    assert '<span class="mine">2</span>' in r.text and '<span class="theirs">4</span>' in r.text
    again = form_fields(r.text, form_id)
    r = second_tab.htmx(url, {**again, "resolve.size": "theirs"})
    assert r.status_code == 200, r.text
    unit = army(member, army_id)["units"][0]
    assert (unit["name"], unit["spec"]["size"]) == ("Tankette", 4)


def test_stale_unit_patch_merges_with_its_base(member: Member) -> None:
    army_id = make_army(member)
    tank = api(member, "POST", f"/api/v1/armies/{army_id}/units", json=TANK).json()
    url = f"/api/v1/armies/{army_id}/units/{tank['id']}"
    base = {"name": tank["name"], "kind": tank["kind"], **tank["spec"]}
    assert api(member, "PATCH", url, json={"version": 1, "name": "Mk II"}).status_code == 200
    r = api(member, "PATCH", url, json={"version": 1, "move": 5, "base": base})
    assert r.status_code == 200, r.text
    assert (r.json()["name"], r.json()["spec"]["move"]) == ("Mk II", 5)
    r = api(member, "PATCH", url, json={"version": 1, "name": "Mk III", "base": base})
    assert r.status_code == 409
    assert r.json()["detail"] == [{"field": "name", "reason": "changed elsewhere to Mk II"}]
    # Without its base a stale PATCH of a unit is refused as before.
    assert api(member, "PATCH", url, json={"version": 1, "move": 6}).status_code == 409


# ------------------------------------------------------------------------------ weapons


def test_stale_weapon_form_and_patch_merge(member: Member, second_tab: Member) -> None:
    army_id = make_army(member)
    tank = api(member, "POST", f"/api/v1/armies/{army_id}/units", json=TANK).json()
    weapon = tank["weapons"][0]
    url = f"/armies/{army_id}/units/{tank['id']}/weapons/{weapon['id']}"
    form_id = f"weapon-form-{weapon['id']}"
    tab1 = form_fields(_unit_page(member, army_id, tank["id"]), form_id)
    tab2 = form_fields(_unit_page(second_tab, army_id, tank["id"]), form_id)
    assert member.htmx(url, {**tab1, "size": "2"}).status_code == 200
    r = second_tab.htmx(url, {**tab2, "label": "left"})
    assert r.status_code == 200, r.text
    saved = army(member, army_id)["units"][0]["weapons"][0]
    assert (saved["spec"]["size"], saved["spec"]["label"]) == (2, "left")
    # Both change the size.
    tab1 = form_fields(_unit_page(member, army_id, tank["id"]), form_id)
    tab2 = form_fields(_unit_page(second_tab, army_id, tank["id"]), form_id)
    assert member.htmx(url, {**tab1, "size": "1"}).status_code == 200
    r = second_tab.htmx(url, {**tab2, "size": "3"})
    assert r.status_code == 409
    assert '<span class="mine">3</span>' in r.text and '<span class="theirs">1</span>' in r.text
    # The API twin: a stale PATCH with its base merges; a conflict lists the field.
    api_url = f"/api/v1/armies/{army_id}/units/{tank['id']}/weapons/{weapon['id']}"
    current = army(member, army_id)["units"][0]["weapons"][0]
    base = {"type": current["type"], **current["spec"]}
    version = current["version"]
    assert api(member, "PATCH", api_url, json={"version": version, "size": 2}).status_code == 200
    r = api(member, "PATCH", api_url, json={"version": version, "label": "right", "base": base})
    assert r.status_code == 200, r.text
    assert (r.json()["spec"]["size"], r.json()["spec"]["label"]) == (2, "right")
    r = api(member, "PATCH", api_url, json={"version": version, "size": 3, "base": base})
    assert r.status_code == 409
    assert r.json()["detail"] == [{"field": "size", "reason": "changed elsewhere to 2"}]


# ------------------------------------------------------------------------------ the merge


def test_three_way_merge_field_by_field() -> None:
    from app.services.errors import FieldConflict
    from app.services.merge import three_way

    base = {"name": "A", "size": 3, "ammo": {"xsize": 1}, "label": "x"}
    theirs = {"name": "B", "size": 3, "ammo": {"xsize": 2}, "label": "x"}
    # Only I changed size and removed the label; both set ammo alike; they renamed it.
    mine = {"name": "A", "size": 4, "ammo": {"xsize": 2}}
    assert three_way(base, mine, theirs) == (
        {"name": "B", "size": 4, "ammo": {"xsize": 2}},
        (),
    )
    # Both changed the name differently: a conflict, with both values.
    assert three_way(base, {**base, "name": "C"}, theirs)[1] == (FieldConflict("name", "C", "B"),)
    # A textarea comes back with CRLF line breaks: not a change.
    notes = {"notes": "a\nb", "budget": 1}
    assert three_way(notes, {"notes": "a\r\nb", "budget": 1}, {"notes": "c", "budget": 1}) == (
        {"notes": "c", "budget": 1},
        (),
    )
