"""Issue 14 item 16: a battle's owner deletes it (units and log too); a club's owner deletes
the club (memberships, invitations and the club's sharing go; rosters stay their owners')."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db.models import ArmyEditor, BattleEntry, BattleUnit, ClubInvite, ClubMember
from tests.web.battles.test_battles import _armies, _form, api
from tests.web.clubs.test_clubs import club_with
from tests.web.conftest import Member, sign_up


def _count(app, model, **where) -> int:  # type: ignore[no-untyped-def]
    with app.state.sessionmaker() as s:
        query = select(func.count()).select_from(model)
        for column, value in where.items():
            query = query.where(getattr(model, column) == value)
        return s.scalar(query) or 0


def _battle(member: Member) -> dict[str, int]:
    red, blue = _armies(member)
    body = api(member, "POST", "/api/v1/battles", json={"name": "Ford", "army_ids": [red, blue]})
    ids = {u["name"]: u["id"] for u in body.json()["units"]}
    return {"id": body.json()["id"], "tank": ids["Tank"], "walker": ids["Walker"]}


def test_the_owner_deletes_a_battle_after_a_confirmation(
    app, member: Member, stranger: Member
) -> None:  # type: ignore[no-untyped-def]
    battle = _battle(member)
    bid = battle["id"]
    assert member.form(f"/battles/{bid}/rolls", _form(battle, seed="7")).status_code in (200, 303)
    assert _count(app, BattleEntry, battle_id=bid) == 1
    page = member.client.get(f"/battles/{bid}")
    assert f'href="/battles/{bid}/delete"' in page.text
    confirm = member.client.get(f"/battles/{bid}/delete")
    assert confirm.status_code == 200
    assert "Delete the battle “Ford”?" in confirm.text
    assert "2 units" in confirm.text and "1 entry" in confirm.text
    assert 'name="csrf_token"' in confirm.text
    # Somebody else's battle is not found; without the CSRF token nothing happens.
    assert stranger.client.get(f"/battles/{bid}/delete").status_code == 404
    assert stranger.form(f"/battles/{bid}/delete").status_code == 404
    assert member.client.post(f"/battles/{bid}/delete").status_code == 403
    assert member.client.get(f"/battles/{bid}").status_code == 200

    r = member.form(f"/battles/{bid}/delete", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/battles"
    listing = member.client.get("/battles")
    assert "Battle “Ford” deleted." in listing.text and f'href="/battles/{bid}"' not in listing.text
    assert member.client.get(f"/battles/{bid}").status_code == 404
    assert _count(app, BattleEntry, battle_id=bid) == 0
    assert _count(app, BattleUnit, battle_id=bid) == 0
    # The armies it was made from stay.
    assert len(api(member, "GET", "/api/v1/armies").json()) == 2


def test_the_battle_api_twin(app, member: Member, stranger: Member) -> None:  # type: ignore[no-untyped-def]
    bid = _battle(member)["id"]
    assert api(stranger, "DELETE", f"/api/v1/battles/{bid}").status_code == 404
    assert api(member, "DELETE", f"/api/v1/battles/{bid}").status_code == 204
    assert api(member, "GET", f"/api/v1/battles/{bid}").status_code == 404
    assert api(member, "DELETE", f"/api/v1/battles/{bid}").status_code == 404
    assert _count(app, BattleUnit, battle_id=bid) == 0


def _shared_club(app, owner: Member, member: Member) -> tuple[int, int, int]:  # type: ignore[no-untyped-def]
    """A club with a member, an open invitation and each one's roster shared with it (the
    member chosen as an editor of the owner's)."""
    club_id = club_with(owner, member)
    api(owner, "POST", f"/api/v1/clubs/{club_id}/invites")
    mine = api(owner, "POST", "/api/v1/armies", json={"name": "Owner's", "budget": 50}).json()
    theirs = api(member, "POST", "/api/v1/armies", json={"name": "Member's", "budget": 50}).json()
    member_id = next(
        m["user_id"]
        for m in api(owner, "GET", f"/api/v1/clubs/{club_id}").json()["members"]
        if m["role"] == "member"
    )
    r = api(
        owner,
        "PUT",
        f"/api/v1/armies/{mine['id']}/sharing",
        json={"club_id": club_id, "editor_ids": [member_id]},
    )
    assert r.status_code == 200, r.text
    r = api(member, "PUT", f"/api/v1/armies/{theirs['id']}/sharing", json={"club_id": club_id})
    assert r.status_code == 200, r.text
    return club_id, mine["id"], theirs["id"]


def test_the_owner_deletes_a_club_rosters_stay_with_their_owners(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    with TestClient(app) as c:
        other = sign_up(c, name="Carol")
        club_id, mine, theirs = _shared_club(app, member, other)
        assert _count(app, ArmyEditor) == 1
        club_page = member.client.get(f"/clubs/{club_id}")
        assert f'href="/clubs/{club_id}/delete"' in club_page.text
        assert f'href="/clubs/{club_id}/delete"' not in other.client.get(f"/clubs/{club_id}").text
        # Only the owner: a member is refused, and nothing goes.
        assert other.client.get(f"/clubs/{club_id}/delete").status_code == 403
        assert other.form(f"/clubs/{club_id}/delete").status_code == 403
        assert api(other, "DELETE", f"/api/v1/clubs/{club_id}").status_code == 403
        assert member.client.post(f"/clubs/{club_id}/delete").status_code == 403  # no CSRF
        confirm = member.client.get(f"/clubs/{club_id}/delete")
        assert confirm.status_code == 200
        text = confirm.text
        assert "Delete the club “Brick Club”?" in text
        assert "2 memberships" in text and "2 open invitation links" in text
        assert "2 rosters" in text and "stay with their owners" in text

        r = member.form(f"/clubs/{club_id}/delete", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/clubs"
        assert "Club “Brick Club” deleted." in member.client.get("/clubs").text
        assert member.client.get(f"/clubs/{club_id}").status_code == 404
        assert other.client.get(f"/clubs/{club_id}").status_code == 404
        assert _count(app, ClubMember, club_id=club_id) == 0
        assert _count(app, ClubInvite, club_id=club_id) == 0
        assert _count(app, ArmyEditor) == 0
        # Each roster stays its owner's, private now.
        assert api(member, "GET", f"/api/v1/armies/{mine}").status_code == 200
        assert api(other, "GET", f"/api/v1/armies/{theirs}").status_code == 200
        assert api(other, "GET", f"/api/v1/armies/{mine}").status_code == 404
        assert api(member, "GET", f"/api/v1/armies/{mine}/sharing").json()["club_id"] is None


def test_the_club_api_twin(app, member: Member, stranger: Member) -> None:  # type: ignore[no-untyped-def]
    club_id = club_with(member)
    assert api(stranger, "DELETE", f"/api/v1/clubs/{club_id}").status_code == 404
    assert api(member, "DELETE", f"/api/v1/clubs/{club_id}").status_code == 204
    assert api(member, "GET", f"/api/v1/clubs/{club_id}").status_code == 404
    assert api(member, "GET", "/api/v1/clubs").json() == []
