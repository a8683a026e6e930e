"""Army pages: create, list, edit inline, stale saves, delete."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db.models import Army
from tests.web.conftest import Member


def create(member: Member, name: str = "Red Legion", budget: str = "200", notes: str = "") -> int:
    r = member.form(
        "/armies", {"name": name, "budget": budget, "notes": notes}, follow_redirects=False
    )
    assert r.status_code == 303, r.text
    return int(r.headers["location"].rsplit("/", 1)[1])


def version_on_page(html: str) -> int:
    match = re.search(r'name="version" value="(\d+)"', html)
    assert match
    return int(match.group(1))


def test_create_lists_and_shows_an_army(member: Member) -> None:
    army_id = create(member, "Red <Legion>", "150", "Bring dice")
    listing = member.client.get("/armies").text
    assert f'href="/armies/{army_id}"' in listing and "Red &lt;Legion&gt;" in listing
    page = member.client.get(f"/armies/{army_id}")
    assert page.status_code == 200
    assert "Red &lt;Legion&gt;" in page.text and "<Legion>" not in page.text  # autoescaped
    assert ">150</strong> CP" in page.text and "Bring dice" in page.text
    assert "HX-Request" in page.headers["vary"]


def test_create_by_htmx_navigates_to_the_army(member: Member) -> None:
    r = member.htmx("/armies", {"name": "Blue", "budget": "10"})
    assert r.status_code == 204 and re.fullmatch(r"/armies/\d+", r.headers["HX-Redirect"])


def test_bad_army_inputs_are_422_inline_and_save_nothing(member: Member, app) -> None:  # type: ignore[no-untyped-def]
    cases = [
        ({"name": "", "budget": "10"}, "Name must not be empty"),
        ({"name": "x" * 121, "budget": "10"}, "Name must be at most 120 characters"),
        ({"name": "A", "budget": "0"}, "Budget must be greater than 0"),
        ({"name": "A", "budget": "-5"}, "Budget must be greater than 0"),
        ({"name": "A", "budget": "lots"}, "Budget must be a whole number"),
        ({"name": "A", "budget": ""}, "Budget must be a whole number"),
        ({"name": "A", "budget": "10", "ruleset_id": "chess"}, "Rules is an unknown ruleset"),
    ]
    for data, message in cases:
        r = member.htmx("/armies", data)
        assert r.status_code == 422, data
        assert message in r.text, (data, r.text[:500])
        assert 'id="new-army"' in r.text and "<html" not in r.text
    r = member.htmx("/armies", {"name": "A", "budget": "10", "colour": "red"})
    assert r.status_code == 422
    with app.state.sessionmaker() as s:
        assert s.scalars(select(Army)).all() == []


def test_bad_input_without_htmx_gets_the_whole_page_with_the_message(member: Member) -> None:
    r = member.form("/armies", {"name": "A", "budget": "abc"})
    assert r.status_code == 422 and "<html" in r.text
    assert "Budget must be a whole number" in r.text


def test_rename_inline_swaps_the_army_block(member: Member) -> None:
    army_id = create(member)
    page = member.client.get(f"/armies/{army_id}").text
    v = version_on_page(page)
    r = member.htmx(
        f"/armies/{army_id}", {"version": str(v), "name": "Renamed", "budget": "300", "notes": "n"}
    )
    assert r.status_code == 200
    # the page's new title first (htmx sets it), then the army's block
    assert r.text.lstrip().startswith('<title>Renamed · BrikForge</title>\n<section id="army"')
    assert '<h1 id="army-name">Renamed</h1>' in r.text
    assert 'hx-swap-oob="true"' in r.text and "Saved." in r.text
    assert version_on_page(r.text) == v + 1
    assert ">300</strong> CP" in member.client.get(f"/armies/{army_id}").text


def test_stale_save_is_409_and_keeps_the_users_edits(member: Member) -> None:
    army_id = create(member)
    v = version_on_page(member.client.get(f"/armies/{army_id}").text)
    first = member.htmx(
        f"/armies/{army_id}",
        {"version": str(v), "name": "From tab one", "budget": "200", "notes": ""},
    )
    assert first.status_code == 200
    second = member.htmx(
        f"/armies/{army_id}",
        {"version": str(v), "name": "From tab two", "budget": "200", "notes": ""},
    )
    assert second.status_code == 409
    banner = second.text.split('class="error banner" role="alert">')[1].split("</div>")[0]
    assert "This army was changed in another tab or by someone else (latest change:" in banner
    assert banner.count("reload") == 1  # said once (issue 14 item 14)
    assert 'value="From tab two"' in second.text  # the losing edit is not thrown away
    assert "From tab one" in member.client.get(f"/armies/{army_id}").text
    # The refused form now carries the current version: saving it again re-applies the edit.
    again = member.htmx(
        f"/armies/{army_id}",
        {
            "version": str(version_on_page(second.text)),
            "name": "From tab two",
            "budget": "200",
            "notes": "",
        },
    )
    assert again.status_code == 200
    assert "From tab two" in member.client.get(f"/armies/{army_id}").text


def test_update_with_bad_budget_is_422_and_changes_nothing(member: Member) -> None:
    army_id = create(member, budget="200")
    v = version_on_page(member.client.get(f"/armies/{army_id}").text)
    r = member.htmx(
        f"/armies/{army_id}", {"version": str(v), "name": "X", "budget": "-1", "notes": ""}
    )
    assert r.status_code == 422 and "Budget (CP) must be greater than 0" in r.text
    page = member.client.get(f"/armies/{army_id}").text
    assert ">200</strong> CP" in page and version_on_page(page) == v


def test_delete_asks_first_then_deletes(member: Member, app) -> None:  # type: ignore[no-untyped-def]
    army_id = create(member, "Doomed")
    confirm = member.client.get(f"/armies/{army_id}/delete")
    assert confirm.status_code == 200 and "Delete “Doomed”?" in confirm.text
    with app.state.sessionmaker() as s:
        assert s.get(Army, army_id) is not None
    r = member.htmx(f"/armies/{army_id}/delete")
    assert r.status_code == 204 and r.headers["HX-Redirect"] == "/armies"
    assert "Army “Doomed” deleted." in member.client.get("/armies").text
    assert member.client.get(f"/armies/{army_id}").status_code == 404


def test_history_restore_gets_a_full_page(member: Member) -> None:
    army_id = create(member)
    r = member.client.get(
        f"/armies/{army_id}", headers={"HX-Request": "true", "HX-History-Restore-Request": "true"}
    )
    assert "<html" in r.text


def test_unknown_page_is_a_404_page(client: TestClient) -> None:
    r = client.get("/no/such/page")
    assert r.status_code == 404 and "Not found" in r.text
