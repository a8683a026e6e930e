"""Issue 31 deliverable 1 through the pages and the JSON API: the host's Players panel, the
invitation link (shown once; signing up through it keeps it), the army picker, acting only
for one's own side, removing a player, club members' invitations on the battles list."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import unquote

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db.models import BattleInvite
from app.services.tokens import digest
from tests.web.battles.test_battles import TANK, WALKER, api
from tests.web.conftest import PASSWORD, Member, page_csrf, sign_up

PRIVATE = {"cache-control": "no-store", "referrer-policy": "no-referrer"}


def _battle(host: Member) -> dict[str, int]:
    ids = []
    for name, unit in (("Red", TANK), ("Blue", WALKER)):
        army = api(host, "POST", "/api/v1/armies", json={"name": name, "budget": 100}).json()
        api(host, "POST", f"/api/v1/armies/{army['id']}/units", json=unit)
        ids.append(army["id"])
    body = api(host, "POST", "/api/v1/battles", json={"name": "Ford", "army_ids": ids}).json()
    units = {u["name"]: u["id"] for u in body["units"]}
    return {"id": body["id"], "tank": units["Tank"], "walker": units["Walker"]}


def _link(host: Member, battle_id: int) -> str:
    """An invitation link made on the battle page (htmx): its path."""
    r = host.client.post(
        f"/battles/{battle_id}/invites",
        data={"csrf_token": host.csrf},
        headers={"HX-Request": "true", "HX-Target": "players"},
    )
    assert r.status_code == 200, r.text
    assert 'id="players"' in r.text and "it is shown only once" in r.text
    match = re.search(r'<code id="new-invite">([^<]+)</code>', r.text)
    assert match
    return "/" + unescape(match.group(1)).split("/", 3)[3]


def _href(page: str, text: str) -> str:
    match = re.search(rf'(?s)<main.*<a [^>]*href="([^"]*)"[^>]*>{text}</a>', page)
    assert match, f"no link {text!r}"
    return unescape(match.group(1))


def test_the_host_makes_a_link_shown_once_and_kept_hashed(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    battle = _battle(member)
    page = member.client.get(f"/battles/{battle['id']}")
    assert 'id="players"' in page.text and "Invite a player" in page.text
    assert "Played by you (the host)" in page.text and "Played by the host" not in page.text
    path = _link(member, battle["id"])
    token = path.rsplit("/", 1)[1]
    assert path == f"/battles/join/{token}"
    again = member.client.get(f"/battles/{battle['id']}")
    assert token not in again.text and "Open invitations" in again.text
    with app.state.sessionmaker() as s:
        hashes = s.scalars(select(BattleInvite.token_hash)).all()
    assert digest(token) in hashes and token not in hashes


def test_signing_up_through_the_link_keeps_it_then_joins_with_an_own_army(
    app,  # type: ignore[no-untyped-def]
    member: Member,
) -> None:
    battle = _battle(member)
    path = _link(member, battle["id"])
    with TestClient(app) as visitor:
        landing = visitor.get(path)
        assert landing.status_code == 200
        for name, value in PRIVATE.items():
            assert landing.headers[name] == value
        assert "Alice invites you to play in Ford" in landing.text
        assert 'action="/battles/join/' not in landing.text  # no picker before logging in
        register_url = _href(landing.text, "Sign up and join")
        assert unquote(register_url) == f"/register?next={path}"
        page = visitor.get(register_url)
        assert page.headers["cache-control"] == "no-store"
        signed_up = visitor.post(
            "/register",
            data={
                "csrf_token": page_csrf(visitor, register_url),
                "email": "bob@example.com",
                "password": PASSWORD,
                "display_name": "Bob",
                "next": path,
            },
        )
        # back on the invitation, logged in: no army of BrikWars yet, a way to build one
        assert signed_up.status_code == 200 and signed_up.url.path == path
        assert 'id="no-army"' in signed_up.text and 'href="/armies"' in signed_up.text
        bob = Member(visitor, "bob@example.com", page_csrf(visitor, path))
        green = api(bob, "POST", "/api/v1/armies", json={"name": "Green", "budget": 100}).json()
        api(bob, "POST", f"/api/v1/armies/{green['id']}/units", json=TANK)
        d20 = api(
            bob,
            "POST",
            "/api/v1/armies",
            json={"name": "Other", "budget": 100, "ruleset_id": "d20"},
        ).json()
        picker = visitor.get(path)
        assert f'value="{green["id"]}"' in picker.text and "Other" not in picker.text
        for army_id in (d20["id"], battle["tank"], 99999):
            refused = bob.form(path, {"army_id": str(army_id)})
            assert refused.status_code == 422
            assert "choose one of your own BrikWars armies" in refused.text
        joined = bob.form(path, {"army_id": str(green["id"])}, follow_redirects=False)
        assert (
            joined.status_code == 303 and joined.headers["location"] == f"/battles/{battle['id']}"
        )
        page = visitor.get(f"/battles/{battle['id']}")
        assert page.status_code == 200 and "Played by Bob (you)" in page.text
        assert "Played by Alice (the host)" in page.text  # the sides Bob does not play
        # the attacker picker offers Bob's own units; no End battle, no sharing, no invite panel
        picker_html = page.text.split('id="f-attacker"', 1)[1].split("</select>", 1)[0]
        assert "Tank (Green)" in picker_html and "Tank (Red)" not in picker_html
        assert 'id="end-battle"' not in page.text and 'id="share"' not in page.text
        assert "Invite a player" not in page.text
        refused = bob.form(
            f"/battles/{battle['id']}/rolls",
            {"attacker_id": str(battle["tank"]), "target_id": str(battle["walker"]),
             "weapon.0": "on", "distance": "3"},
        )  # fmt: skip
        assert refused.status_code == 422 and "Tank is on Red&#39;s side" in refused.text
        listed = visitor.get("/battles")
        assert "Ford" in listed.text and "<td>player</td>" in listed.text
        # the link again: already playing
        assert "You play in this battle already" in visitor.get(path).text
    # the host sees Bob's side
    assert "Played by Bob" in member.client.get(f"/battles/{battle['id']}").text


def test_a_dead_link_is_one_generic_page(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    battle = _battle(member)
    path = _link(member, battle["id"])
    with app.state.sessionmaker() as s:
        invite = s.scalars(select(BattleInvite)).all()[-1]
        invite_id = invite.id
    api(member, "DELETE", f"/api/v1/battles/{battle['id']}/invites/{invite_id}")
    with TestClient(app) as visitor:
        for dead in (path, "/battles/join/nope", "/battles/join/" + "x" * 80):
            page = visitor.get(dead)
            assert page.status_code == 404 and "This invitation link does not work" in page.text
            assert "Ford" not in page.text and "Alice" not in page.text
            assert page.headers["cache-control"] == "no-store"


def test_the_host_removes_a_player_who_then_finds_nothing(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    battle = _battle(member)
    token = api(member, "POST", f"/api/v1/battles/{battle['id']}/invites").json()["token"]
    with TestClient(app) as c:
        bob = sign_up(c, name="Bob")
        army = api(bob, "POST", "/api/v1/armies", json={"name": "Green", "budget": 100}).json()
        api(bob, "POST", f"/api/v1/armies/{army['id']}/units", json=WALKER)
        joined = api(
            bob, "POST", "/api/v1/battles/join", json={"token": token, "army_id": army["id"]}
        )
        assert joined.status_code == 201, joined.text
        body = joined.json()
        assert body["role"] == "player"
        assert [(s["name"], s["player"], s["yours"]) for s in body["sides"]] == [
            ("Red", None, False),
            ("Blue", None, False),
            ("Green", "Bob", True),
        ]
        side = body["sides"][-1]["id"]
        assert body["log"][-1]["kind"] == "join"
        # a player's undo: the join is passed by (joins are never undone), so nothing is left
        undo = api(bob, "DELETE", f"/api/v1/battles/{battle['id']}/rolls/last")
        assert undo.status_code == 422 and "nothing to undo" in undo.text
        confirm = member.client.get(f"/battles/{battle['id']}/sides/{side}/remove")
        assert confirm.status_code == 200 and "Remove Bob from “Ford”?" in confirm.text
        removed = member.form(
            f"/battles/{battle['id']}/sides/{side}/remove", {}, follow_redirects=False
        )
        assert removed.status_code == 303
        for url in (f"/battles/{battle['id']}", f"/api/v1/battles/{battle['id']}"):
            assert bob.client.get(url).status_code == 404
        sides = api(member, "GET", f"/api/v1/battles/{battle['id']}/sides").json()
        shown = {k: sides[-1][k] for k in ("id", "name", "player", "yours")}
        assert shown == {"id": side, "name": "Green", "player": None, "yours": True}


def test_a_club_member_accepts_from_the_battles_list(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    battle = _battle(member)
    club = api(member, "POST", "/api/v1/clubs", json={"name": "Brick Club"}).json()
    token = api(member, "POST", f"/api/v1/clubs/{club['id']}/invites").json()["token"]
    with TestClient(app) as c:
        carol = sign_up(c, name="Carol")
        api(carol, "POST", "/api/v1/clubs/join", json={"token": token})
        army = api(carol, "POST", "/api/v1/armies", json={"name": "Teal", "budget": 100}).json()
        api(carol, "POST", f"/api/v1/armies/{army['id']}/units", json=WALKER)
        assert api(member, "GET", f"/api/v1/battles/{battle['id']}/invitable").json() == [
            {"user_id": api(carol, "GET", "/api/v1/me").json()["id"], "name": "Carol"}
        ]
        page = member.client.get(f"/battles/{battle['id']}")
        assert 'id="invite-member"' in page.text and ">Carol</option>" in page.text
        option = re.search(r'<option value="(\d+)">Carol</option>', page.text)
        assert option
        sent = member.form(
            f"/battles/{battle['id']}/invites/member", {"user_id": option.group(1)},
            follow_redirects=False,
        )  # fmt: skip
        assert sent.status_code == 303
        listed = carol.client.get("/battles")
        assert 'id="invitations"' in listed.text and "Ford" in listed.text
        invite = api(carol, "GET", "/api/v1/battles/invitations").json()
        assert [(i["battle"], i["inviter"]) for i in invite] == [("Ford", "Alice")]
        accepted = carol.form(
            f"/battles/invitations/{invite[0]['id']}/accept", {"army_id": str(army["id"])},
            follow_redirects=False,
        )  # fmt: skip
        assert accepted.status_code == 303
        assert accepted.headers["location"] == f"/battles/{battle['id']}"
        assert "Played by Carol (you)" in carol.client.get(f"/battles/{battle['id']}").text
        assert api(carol, "GET", "/api/v1/battles/invitations").json() == []
