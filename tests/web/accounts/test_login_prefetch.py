"""A page under /armies/{army_id} reads its login and its army in one statement; the army
loaded with the login grants nothing: the page's own access check still decides."""

from __future__ import annotations

from app.web.inputs import MAX_ID
from tests.web.builder.test_builder import TANK, add_unit, count_queries, create
from tests.web.conftest import Member


def test_the_army_page_is_one_statement(member: Member, app) -> None:  # type: ignore[no-untyped-def]
    army_id = create(member, budget="10000")
    add_unit(member, army_id, TANK)
    assert member.client.get(f"/armies/{army_id}").status_code == 200  # (its units kept)
    with count_queries(app) as statements:
        page = member.client.get(f"/armies/{army_id}")
    assert page.status_code == 200 and "Tank" in page.text
    assert len(statements) == 1, statements
    assert "JOIN army" in statements[0] and "user_session" in statements[0]
    with count_queries(app) as api:
        assert member.client.get(f"/api/v1/armies/{army_id}").json()["id"] == army_id
    assert len(api) == 1 and "JOIN army" in api[0]


def test_another_players_army_is_still_not_found(member: Member, stranger: Member) -> None:
    army_id = create(member, name="Secret Column", budget="100")
    assert "Secret Column" in member.client.get(f"/armies/{army_id}").text
    for path in (f"/armies/{army_id}", f"/api/v1/armies/{army_id}", f"/armies/{army_id}/history"):
        r = stranger.client.get(path)
        assert r.status_code == 404, (path, r.status_code)
        assert "Secret Column" not in r.text  # loaded with the login, shown nowhere


def test_an_unknown_army_is_not_found(member: Member) -> None:
    for army_id in (987_654, MAX_ID):
        assert member.client.get(f"/armies/{army_id}").status_code == 404
    # past an Id's range: refused before any query (bound as it is, it would fail PostgreSQL's
    # integer column: a 500)
    assert member.client.get(f"/armies/{MAX_ID + 1}").status_code == 404


def _second_calculation(member: Member, app, tank: int, rex: int) -> list[str]:  # type: ignore[no-untyped-def]
    """The statements of a calculation after the same one at another distance (this server
    has seen both units' armies), which must show its odds."""
    url = f"/calculator?attacker={tank}&target={rex}&distance=4"
    htmx = {"HX-Request": "true"}
    assert member.client.get(url, headers=htmx).status_code == 200
    with count_queries(app) as statements:
        r = member.client.get(url.replace("distance=4", "distance=5"), headers=htmx)
    assert r.status_code == 200 and "data-p" in r.text and "Rex" in r.text
    return statements


def test_the_calculator_reads_the_attackers_army_with_the_login(member: Member, app) -> None:  # type: ignore[no-untyped-def]
    """Once this server has seen the attacking unit's army, a calculation reads it with the
    login: an attack within one army is one statement."""
    army_id = create(member, budget="10000")
    tank = add_unit(member, army_id, TANK)["id"]
    rex = add_unit(member, army_id, {**TANK, "name": "Rex"})["id"]
    statements = _second_calculation(member, app, tank, rex)
    assert len(statements) == 1 and statements[0].count("JOIN army") == 1, statements


def test_a_calculation_across_two_armies_reads_both_with_the_login(member: Member, app) -> None:  # type: ignore[no-untyped-def]
    """The attacker's army and the target's, as this server last saw them: one statement."""
    home = create(member, name="Home Guard", budget="10000")
    away = create(member, name="Far Raiders", budget="10000")
    tank = add_unit(member, home, TANK)["id"]
    rex = add_unit(member, away, {**TANK, "name": "Rex"})["id"]
    statements = _second_calculation(member, app, tank, rex)
    assert len(statements) == 1, statements
    assert statements[0].count("JOIN army") == 2 and "user_session" in statements[0]


def test_another_players_target_is_not_found_though_its_army_came_with_the_login(
    member: Member, stranger: Member
) -> None:
    army_id = create(member, name="Hidden Host", budget="10000")
    rex = add_unit(member, army_id, {**TANK, "name": "Rex"})["id"]
    assert member.client.get(f"/calculator?attacker={rex}&target={rex}").status_code == 200
    theirs = create(stranger, budget="10000")
    tank = add_unit(stranger, theirs, TANK)["id"]
    assert stranger.client.get(f"/calculator?attacker={tank}&target={tank}").status_code == 200
    r = stranger.client.get(f"/calculator?attacker={tank}&target={rex}")
    assert r.status_code == 404 and "There is nothing at this address" in r.text
    assert "Hidden Host" not in r.text and "Rex" not in r.text


def test_another_players_attacker_is_not_found_though_its_army_came_with_the_login(
    member: Member, stranger: Member
) -> None:
    """The hint names the army this server last saw the unit in, and the login loads it:
    another player's unit is still not found (the calculation's access check decides)."""
    army_id = create(member, budget="10000")
    tank = add_unit(member, army_id, TANK)["id"]
    assert member.client.get(f"/calculator?attacker={tank}&target={tank}").status_code == 200
    theirs = create(stranger, budget="100")
    target = add_unit(stranger, theirs, TANK)["id"]
    r = stranger.client.get(f"/calculator?attacker={tank}&target={target}")
    assert r.status_code == 404 and "There is nothing at this address" in r.text


def test_a_club_readers_rights_come_with_the_login(member: Member, stranger: Member, app) -> None:  # type: ignore[no-untyped-def]
    """A clubmate's army: the reader's role in the club and whether they are one of its chosen
    editors come in the login's statement, and decide the page as they did."""
    from tests.web.clubs.test_clubs import api, club_with

    club_id = club_with(member, stranger)
    body = {"name": "Club Column", "budget": 50, "club_id": club_id}
    army_id = api(member, "POST", "/api/v1/armies", json=body).json()["id"]
    url = f"/armies/{army_id}"
    assert stranger.client.get(url).status_code == 200
    with count_queries(app) as statements:
        page = stranger.client.get(url)
    assert page.status_code == 200 and "Club Column" in page.text
    assert 'id="add-unit-form"' not in page.text  # a reader: nothing to edit with
    assert len(statements) == 1 and "club_member" in statements[0], statements
    # Chosen as an editor: the page offers the editing forms, from the same one statement.
    reader = next(
        m["user_id"]
        for m in api(member, "GET", f"/api/v1/clubs/{club_id}").json()["members"]
        if m["role"] == "member"
    )
    sharing = {"club_id": club_id, "editor_ids": [reader]}
    assert api(member, "PUT", f"/api/v1/armies/{army_id}/sharing", json=sharing).status_code == 200
    with count_queries(app) as statements:
        page = stranger.client.get(url)
    assert page.status_code == 200 and 'id="add-unit-form"' in page.text
    assert len(statements) == 1, statements
    # Made private again: a 404, though the login still loads the army.
    api(member, "PUT", f"/api/v1/armies/{army_id}/sharing", json={"club_id": None})
    r = stranger.client.get(url)
    assert r.status_code == 404 and "Club Column" not in r.text
