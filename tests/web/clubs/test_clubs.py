"""Clubs and sharing end to end: invitations, roles, club rosters, links, forks, search."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db.models import Club, ClubInvite
from tests.web.conftest import Member, sign_up


def api(member: Member, method: str, url: str, **kw):  # type: ignore[no-untyped-def]
    return member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)


def club_with(owner: Member, *others: Member) -> int:
    club = api(owner, "POST", "/api/v1/clubs", json={"name": "Brick Club"}).json()
    for other in others:
        token = api(owner, "POST", f"/api/v1/clubs/{club['id']}/invites").json()["token"]
        assert api(other, "POST", "/api/v1/clubs/join", json={"token": token}).status_code == 200
    return club["id"]


def test_invitation_links_are_long_hashed_expiring_and_revocable(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    club_id = club_with(member)
    invite = api(member, "POST", f"/api/v1/clubs/{club_id}/invites").json()
    token = invite["token"]
    assert len(token) >= 32 and invite["url"].endswith(f"/clubs/join/{token}")  # 192 bits
    with app.state.sessionmaker() as s:
        stored = s.scalars(select(ClubInvite.token_hash)).all()
    assert token not in stored and all(len(h) == 64 for h in stored)
    with TestClient(app) as c:
        guest = sign_up(c, name="Guest")
        page = guest.client.get(f"/clubs/join/{token}")
        assert page.status_code == 200 and "Alice invites you to Brick Club" in page.text
        assert (
            api(member, "DELETE", f"/api/v1/clubs/{club_id}/invites/{invite['id']}").status_code
            == 204
        )
        assert guest.client.get(f"/clubs/join/{token}").status_code == 404
        r = api(guest, "POST", "/api/v1/clubs/join", json={"token": token})
        assert r.status_code == 404
    with app.state.sessionmaker() as s:
        from datetime import UTC, datetime, timedelta

        fresh = api(member, "POST", f"/api/v1/clubs/{club_id}/invites").json()
        row = s.get(ClubInvite, fresh["id"])
        row.expires_at = datetime.now(UTC) - timedelta(seconds=1)
        s.commit()
    with TestClient(app) as c:
        late = sign_up(c, name="Late")
        assert (
            api(late, "POST", "/api/v1/clubs/join", json={"token": fresh["token"]}).status_code
            == 404
        )


def test_roles_transfer_and_leaving(app, member: Member, stranger: Member) -> None:  # type: ignore[no-untyped-def]
    club_id = club_with(member, stranger)
    detail = api(member, "GET", f"/api/v1/clubs/{club_id}").json()
    roles = {m["display_name"]: m["role"] for m in detail["members"]}
    assert roles == {"Alice": "owner", "Mallory": "member"}
    bob_id = next(m["user_id"] for m in detail["members"] if m["role"] == "member")
    assert api(stranger, "POST", f"/api/v1/clubs/{club_id}/invites").status_code == 403
    assert (
        api(
            member, "PATCH", f"/api/v1/clubs/{club_id}/members/{bob_id}", json={"role": "organiser"}
        ).status_code
        == 204
    )
    assert api(stranger, "POST", f"/api/v1/clubs/{club_id}/invites").status_code == 201
    r = api(member, "POST", f"/api/v1/clubs/{club_id}/leave")
    assert r.status_code == 422 and "transfer the ownership" in r.text
    assert (
        api(
            member, "POST", f"/api/v1/clubs/{club_id}/transfer", json={"member_id": bob_id}
        ).status_code
        == 204
    )
    roles = {
        m["display_name"]: m["role"]
        for m in api(member, "GET", f"/api/v1/clubs/{club_id}").json()["members"]
    }
    assert roles == {"Alice": "organiser", "Mallory": "owner"}
    assert api(member, "POST", f"/api/v1/clubs/{club_id}/leave").status_code == 204
    assert api(member, "GET", f"/api/v1/clubs/{club_id}").status_code == 404


def test_shared_roster_read_fork_and_edit_rights(app, member: Member, stranger: Member) -> None:  # type: ignore[no-untyped-def]
    club_id = club_with(member, stranger)
    army = api(
        member,
        "POST",
        "/api/v1/armies",
        json={"name": "Shared Legion", "budget": 50, "club_id": club_id},
    ).json()
    unit = api(
        member,
        "POST",
        f"/api/v1/armies/{army['id']}/units",
        json={"name": "Trooper", "kind": "minifig"},
    ).json()
    # A member reads it, cannot change it, and can fork a copy of their own.
    assert api(stranger, "GET", f"/api/v1/armies/{army['id']}").json()["total_cost"] == 4
    r = api(
        stranger,
        "PATCH",
        f"/api/v1/armies/{army['id']}/units/{unit['id']}",
        json={"version": 1, "name": "Mine now"},
    )
    assert r.status_code == 403
    fork = api(stranger, "POST", f"/api/v1/armies/{army['id']}/fork").json()
    assert fork["name"] == "Shared Legion (fork)" and fork["total_cost"] == 4
    api(
        stranger,
        "POST",
        f"/api/v1/armies/{fork['id']}/units",
        json={"name": "Extra", "kind": "hero"},
    )
    assert api(member, "GET", f"/api/v1/armies/{army['id']}").json()["total_cost"] == 4
    # Chosen as an editor, the member may edit the original.
    mallory = next(
        m["user_id"]
        for m in api(member, "GET", f"/api/v1/clubs/{club_id}").json()["members"]
        if m["role"] == "member"
    )
    r = api(
        member,
        "PUT",
        f"/api/v1/armies/{army['id']}/sharing",
        json={"club_id": club_id, "editor_ids": [mallory]},
    )
    assert r.status_code == 200 and r.json()["editor_ids"] == [mallory]
    r = api(
        stranger,
        "PATCH",
        f"/api/v1/armies/{army['id']}/units/{unit['id']}",
        json={"version": 1, "name": "Sergeant"},
    )
    assert r.status_code == 200
    assert api(stranger, "DELETE", f"/api/v1/armies/{army['id']}").status_code == 403
    # Made private again: the member sees nothing at all.
    api(member, "PUT", f"/api/v1/armies/{army['id']}/sharing", json={"club_id": None})
    assert api(stranger, "GET", f"/api/v1/armies/{army['id']}").status_code == 404


def test_new_club_armies_start_with_the_pinned_house_rules(member: Member) -> None:
    club_id = club_with(member)
    r = api(
        member,
        "PUT",
        f"/api/v1/clubs/{club_id}/house-rules",
        json={"options": {"allow_over_budget": True, "bonus_die": "d6"}},
    )
    assert r.status_code == 200
    army = api(
        member,
        "POST",
        "/api/v1/armies",
        json={"name": "Club army", "budget": 5, "club_id": club_id},
    ).json()
    rules = api(member, "GET", f"/api/v1/armies/{army['id']}").json()["house_rules"]
    assert rules["allow_over_budget"] is True and rules["bonus_die"] == "d6"
    private = api(member, "POST", "/api/v1/armies", json={"name": "Mine", "budget": 5}).json()
    assert (
        api(member, "GET", f"/api/v1/armies/{private['id']}").json()["house_rules"]["bonus_die"]
        == "same"
    )


def test_house_rules_are_kept_per_ruleset(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    """The club keeps {ruleset: options}; the page and the API show the BrikWars ones as
    before, pinning them leaves another ruleset's alone, and a new army takes its own."""
    club_id = club_with(member)
    with app.state.sessionmaker() as session:
        club = session.get(Club, club_id)
        club.house_rules = {"degrees": {"heroic": True}}
        session.commit()
    assert api(member, "GET", f"/api/v1/clubs/{club_id}").json()["house_rules"] == {}
    pinned = api(
        member,
        "PUT",
        f"/api/v1/clubs/{club_id}/house-rules",
        json={"options": {"bonus_die": "d6"}},
    ).json()
    assert pinned["bonus_die"] == "d6" and "degrees" not in pinned
    assert api(member, "GET", f"/api/v1/clubs/{club_id}").json()["house_rules"] == pinned
    with app.state.sessionmaker() as session:
        stored = session.get(Club, club_id).house_rules
    assert stored == {"degrees": {"heroic": True}, "brikwars": pinned}
    army = api(
        member,
        "POST",
        "/api/v1/armies",
        json={"name": "Club army", "budget": 5, "club_id": club_id},
    ).json()
    assert api(member, "GET", f"/api/v1/armies/{army['id']}").json()["house_rules"] == pinned
    page = member.client.get(f"/clubs/{club_id}").text
    assert re.search(r'<option value="d6"\s+selected', page)


def test_share_links_read_without_account_and_revoke(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    army = api(member, "POST", "/api/v1/armies", json={"name": "Linked", "budget": 9}).json()
    link = api(member, "POST", f"/api/v1/armies/{army['id']}/share-links").json()
    assert len(link["token"]) >= 32
    anonymous = TestClient(app)
    page = anonymous.get(f"/shared/{link['token']}")
    assert page.status_code == 200 and "Linked" in page.text
    assert 'id="add-unit-form"' not in page.text  # read only: no editing controls at all
    assert f'action="/armies/{army["id"]}' not in page.text
    assert anonymous.get(f"/api/v1/shared/{link['token']}").json()["name"] == "Linked"
    assert anonymous.get(f"/api/v1/armies/{army['id']}").status_code == 401
    api(member, "DELETE", f"/api/v1/armies/{army['id']}/share-links/{link['id']}")
    assert anonymous.get(f"/shared/{link['token']}").status_code == 404


def test_club_roster_search_by_name_owner_and_cost(app, member: Member, stranger: Member) -> None:  # type: ignore[no-untyped-def]
    club_id = club_with(member, stranger)
    for who, name, troopers in (
        (member, "Red Alpha", 1),
        (member, "Red Beta", 5),
        (stranger, "Blue Gamma", 3),
    ):
        army = api(
            who, "POST", "/api/v1/armies", json={"name": name, "budget": 100, "club_id": club_id}
        ).json()
        for _ in range(troopers):
            api(
                who,
                "POST",
                f"/api/v1/armies/{army['id']}/units",
                json={"name": "T", "kind": "minifig"},
            )

    def names(**params: object) -> list[str]:
        r = api(member, "GET", f"/api/v1/clubs/{club_id}", params=params)
        return [x["name"] for x in r.json()["rosters"]]

    assert names() == ["Blue Gamma", "Red Alpha", "Red Beta"]
    assert names(name="red") == ["Red Alpha", "Red Beta"]
    assert names(owner="mall") == ["Blue Gamma"]
    assert names(min_cost=8, max_cost=12) == ["Blue Gamma"]  # 3 troopers = 12CP
    assert names(page=2, page_size=2) == ["Red Beta"]
    assert names(name="%") == []  # LIKE wildcards are literal
    page = member.client.get(f"/clubs/{club_id}", params={"owner": "alice"})
    assert "Red Alpha" in page.text and "Blue Gamma" not in page.text
    assert re.search(r"2 rosters · page 1 of 1", page.text)


def test_club_page_queries_do_not_grow_with_rosters(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    from tests.web.builder.test_builder import count_queries

    club_id = club_with(member)

    def add_roster(i: int) -> None:
        army = api(
            member,
            "POST",
            "/api/v1/armies",
            json={"name": f"R{i}", "budget": 10, "club_id": club_id},
        ).json()
        api(
            member,
            "POST",
            f"/api/v1/armies/{army['id']}/units",
            json={"name": "T", "kind": "minifig", "weapons": [{"type": "hand_weapon"}]},
        )

    add_roster(0)
    with count_queries(app) as few:
        member.client.get(f"/clubs/{club_id}")
    for i in range(1, 7):
        add_roster(i)
    with count_queries(app) as many:
        page = member.client.get(f"/clubs/{club_id}")
    assert "R6" in page.text
    assert len(many) == len(few), many
