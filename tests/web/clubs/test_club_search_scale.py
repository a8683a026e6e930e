"""A club of many rosters (issue 15 item 4): the search filters, counts and pages in SQL, and
costs only the rosters it shows; the cost it filters on follows every change to an army."""

from __future__ import annotations

import json

from sqlalchemy import event, select

from app.db.models import Army
from tests.web.clubs.test_clubs import api, club_with
from tests.web.conftest import Member

TROOPER = {"name": "T", "kind": "minifig", "weapons": [{"type": "hand_weapon"}]}


def _stored_cost(app, army_id: int) -> float | None:  # type: ignore[no-untyped-def]
    with app.state.sessionmaker() as session:
        return session.scalar(select(Army.cost).where(Army.id == army_id))


def _api_cost(member: Member, army_id: int) -> float:
    return float(api(member, "GET", f"/api/v1/armies/{army_id}").json()["total_cost"])


def test_the_club_page_reads_the_units_of_the_shown_rosters_only(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    club_id = club_with(member)
    for i in range(25):
        body = {"name": f"R{i:02d}", "budget": 10, "club_id": club_id}
        army = api(member, "POST", "/api/v1/armies", json=body).json()
        if i % 5 == 0:
            api(member, "POST", f"/api/v1/armies/{army['id']}/units", json=TROOPER)
    read: list[int] = []

    def unit_reads(conn, cursor, statement, parameters, *args):  # type: ignore[no-untyped-def]
        if "FROM unit WHERE army_id IN" in statement:
            read.append(len(parameters))

    event.listen(app.state.engine, "before_cursor_execute", unit_reads)
    try:
        page = member.client.get(f"/clubs/{club_id}")
        second = member.client.get(f"/clubs/{club_id}", params={"page": 2})
    finally:
        event.remove(app.state.engine, "before_cursor_execute", unit_reads)
    assert "25 rosters · page 1 of 2" in page.text and "R19" in page.text
    assert "R20" not in page.text and "R24" in second.text
    assert read == [20, 5]  # the units of the page's 20 rosters, then of page 2's five


def test_the_stored_cost_follows_every_change(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    army = api(member, "POST", "/api/v1/armies", json={"name": "Host", "budget": 100}).json()
    base = f"/api/v1/armies/{army['id']}"
    assert _stored_cost(app, army["id"]) == 0
    unit = api(member, "POST", f"{base}/units", json=TROOPER).json()
    tank = {"name": "Tank", "size": 4, "structure_level": 2, "weapons": [{"type": "gun"}]}
    api(member, "POST", f"{base}/units", json=tank)
    assert _stored_cost(app, army["id"]) == _api_cost(member, army["id"]) > 0
    patch = {"version": unit["version"], "count": 4}
    assert api(member, "PATCH", f"{base}/units/{unit['id']}", json=patch).status_code == 200
    assert _stored_cost(app, army["id"]) == _api_cost(member, army["id"])
    history = api(member, "GET", f"{base}/history").json()
    first_unit = history[-2]["id"]  # the revision after the trooper was added
    restored = api(member, "POST", f"{base}/history/{first_unit}/restore")
    assert restored.status_code == 200, restored.text
    assert _stored_cost(app, army["id"]) == _api_cost(member, army["id"])
    exported = api(member, "GET", f"{base}/export").json()
    imported = api(member, "POST", "/api/v1/armies/import", content=json.dumps(exported)).json()
    assert _stored_cost(app, imported["id"]) == _api_cost(member, army["id"])


def test_the_cost_filter_sees_an_edit_at_once_and_pages_bound(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    club_id = club_with(member)
    body = {"name": "Grows", "budget": 100, "club_id": club_id}
    army = api(member, "POST", "/api/v1/armies", json=body).json()

    def names(**params: object) -> list[str]:
        r = api(member, "GET", f"/api/v1/clubs/{club_id}", params=params)
        assert r.status_code == 200, r.text
        return [x["name"] for x in r.json()["rosters"]]

    assert names(min_cost=1) == [] and names(max_cost=0) == ["Grows"]
    api(member, "POST", f"/api/v1/armies/{army['id']}/units", json=TROOPER)
    assert names(min_cost=1) == ["Grows"] and names(max_cost=0) == []
    assert names(page=10**15) == []  # far past the end: empty, not a database error
    page = member.client.get(f"/clubs/{club_id}", params={"page": 99})
    assert page.status_code == 200 and "No rosters on page 99: there is 1 page" in page.text


def test_an_army_holds_at_most_as_many_units_as_an_import_takes(member: Member) -> None:
    """1,000 units, the import's bound, is the builder's too: the benchmarked scale."""
    from app.services.army_rows import MAX_UNITS

    doc = {
        "format": "brikforge-army",
        "version": 1,
        "ruleset": "brikwars",
        "name": "Full",
        "budget": 1_000_000,
        "units": [{"name": f"T{i}", "kind": "minifig"} for i in range(MAX_UNITS)],
    }
    r = api(member, "POST", "/api/v1/armies/import", content=json.dumps(doc))
    assert r.status_code == 201, r.text[:300]
    army = r.json()
    base = f"/api/v1/armies/{army['id']}"
    more = api(member, "POST", f"{base}/units", json=TROOPER)
    assert more.status_code == 422 and "1000 units in this army" in more.text
    copy = api(member, "POST", f"{base}/units/{army['units'][0]['id']}/duplicate")
    assert copy.status_code == 422
    assert len(api(member, "GET", base).json()["units"]) == MAX_UNITS
