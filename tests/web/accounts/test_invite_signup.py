"""Issue 14 item 1 and issue 29 item 4: an invitation opened while logged out lands on a page
that names the club and who invites; its Sign up and Log in keep the invitation and join the
club on the way; a dead link (unknown, expired, revoked) gets one page that tells nothing."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from html import unescape
from urllib.parse import unquote

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db.models import ClubInvite, ClubMember, User
from tests.conftest import CSRF_RE
from tests.web.conftest import PASSWORD, Member, page_csrf, sign_up

PRIVATE = {"cache-control": "no-store", "referrer-policy": "no-referrer"}


def _invite(owner: Member, club_name: str) -> str:
    headers = {"X-CSRF-Token": owner.csrf}
    club = owner.client.post("/api/v1/clubs", json={"name": club_name}, headers=headers).json()
    invite = owner.client.post(f"/api/v1/clubs/{club['id']}/invites", headers=headers).json()
    return f"/clubs/join/{invite['token']}"


def _href(page: str, text: str) -> str:
    """The target of the page's own link (after the navigation's) with this text."""
    match = re.search(rf'(?s)<main.*<a [^>]*href="([^"]*)"[^>]*>{text}</a>', page)
    assert match, f"no link {text!r}"
    return unescape(match.group(1))


def _private(response) -> None:  # type: ignore[no-untyped-def]
    for name, value in PRIVATE.items():
        assert response.headers.get(name) == value, (name, response.headers.get(name))


def _members(app, club_name: str) -> set[str]:  # type: ignore[no-untyped-def]
    from app.db.models import Club

    with app.state.sessionmaker() as s:
        return set(
            s.scalars(
                select(User.display_name)
                .join(ClubMember, ClubMember.user_id == User.id)
                .join(Club, Club.id == ClubMember.club_id)
                .where(Club.name == club_name)
            )
        )


def test_the_landing_page_names_the_club_and_who_invites(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    join_path = _invite(member, "Tuesday Brick Club")  # the member fixture is Alice
    with TestClient(app) as visitor:
        page = visitor.get(join_path, follow_redirects=False)
        assert page.status_code == 200
        _private(page)
        assert "Alice invites you to Tuesday Brick Club" in page.text
        assert 'action="/clubs/join/' not in page.text  # no Join button before logging in
        assert unquote(_href(page.text, "Sign up and join")) == f"/register?next={join_path}"
        assert unquote(_href(page.text, "Log in and join")) == f"/login?next={join_path}"


def test_signing_up_through_the_invitation_joins_the_club(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    join_path = _invite(member, "Tuesday Brick Club")
    with TestClient(app) as visitor:
        landing = visitor.get(join_path)
        register_url = _href(landing.text, "Sign up and join")
        page = visitor.get(register_url)
        _private(page)
        assert "Alice invites you to <strong>Tuesday Brick Club</strong>" in page.text
        assert "Sign up and join" in page.text
        field = re.search(r'<input type="hidden" name="next" value="([^"]*)">', page.text)
        assert field and unescape(field.group(1)) == join_path
        assert unquote(_href(page.text, "Log in")) == f"/login?next={join_path}"
        token = page_csrf(visitor, register_url)
        signed_up = visitor.post(
            "/register",
            data={
                "csrf_token": token,
                "email": "invitee@example.com",
                "password": PASSWORD,
                "display_name": "Invitee",
                "next": join_path,
            },
        )
        assert signed_up.status_code == 200
        assert re.fullmatch(r"/clubs/[0-9]+", signed_up.url.path), signed_up.url
        assert "You joined Tuesday Brick Club" in signed_up.text
        assert '<h1 id="club-name">Tuesday Brick Club</h1>' in signed_up.text
    assert _members(app, "Tuesday Brick Club") == {"Alice", "Invitee"}


def test_logging_in_through_the_invitation_joins_the_club(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    join_path = _invite(member, "Tuesday Brick Club")
    with TestClient(app) as c:
        bob = sign_up(c, email="bob@example.com", name="Bob")
        bob.form("/logout")
    assert _members(app, "Tuesday Brick Club") == {"Alice"}
    with TestClient(app) as visitor:
        login_url = _href(visitor.get(join_path).text, "Log in and join")
        page = visitor.get(login_url)
        _private(page)
        assert "Alice invites you to <strong>Tuesday Brick Club</strong>" in page.text
        assert "Log in and join" in page.text
        logged_in = visitor.post(
            "/login",
            data={
                "csrf_token": page_csrf(visitor, login_url),
                "email": "bob@example.com",
                "password": PASSWORD,
                "next": join_path,
            },
        )
        assert logged_in.status_code == 200
        assert re.fullmatch(r"/clubs/[0-9]+", logged_in.url.path), logged_in.url
        assert "You joined Tuesday Brick Club" in logged_in.text
        # the link again, now a member: no second Join, a way into the club
        again = visitor.get(join_path)
        assert "already a member" in again.text and 'action="/clubs/join/' not in again.text
    assert _members(app, "Tuesday Brick Club") == {"Alice", "Bob"}


def test_a_bad_sign_up_keeps_the_invitation_in_the_form(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    join_path = _invite(member, "Brick Club")
    with TestClient(app) as visitor:
        token = page_csrf(visitor, "/register")
        r = visitor.post(
            "/register",
            data={
                "csrf_token": token,
                "email": "nope",
                "password": PASSWORD,
                "display_name": "I",
                "next": join_path,
            },
        )
        assert r.status_code == 422
        assert f'name="next" value="{join_path}"' in r.text
        _private(r)


def _dead_links(app, owner: Member) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """An unknown, an expired and a revoked invitation of the club 'Secret Garden'."""
    headers = {"X-CSRF-Token": owner.csrf}
    club = owner.client.post(
        "/api/v1/clubs", json={"name": "Secret Garden"}, headers=headers
    ).json()
    made = [
        owner.client.post(f"/api/v1/clubs/{club['id']}/invites", headers=headers).json()
        for _ in range(2)
    ]
    with app.state.sessionmaker() as s:
        s.get(ClubInvite, made[0]["id"]).expires_at = datetime.now(UTC) - timedelta(seconds=1)
        s.commit()
    revoked = owner.client.delete(
        f"/api/v1/clubs/{club['id']}/invites/{made[1]['id']}", headers=headers
    )
    assert revoked.status_code == 204
    return {
        "unknown": "A" * 32,
        "expired": made[0]["token"],
        "revoked": made[1]["token"],
        "not a token": "%00%3Cb%3E",
    }


def test_unknown_expired_and_revoked_links_get_one_page(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    dead = _dead_links(app, member)
    with TestClient(app) as visitor, TestClient(app) as c:
        player = sign_up(c, name="Player")
        for who in (visitor, player.client):
            answers = {kind: who.get(f"/clubs/join/{token}") for kind, token in dead.items()}
            statuses = {kind: r.status_code for kind, r in answers.items()}
            assert set(statuses.values()) == {404}, statuses
            bodies = {
                kind: re.sub(r'"X-CSRF-Token": "[^"]*"', "", CSRF_RE.sub("", r.text))
                for kind, r in answers.items()
            }
            assert len(set(bodies.values())) == 1, bodies
            for r in answers.values():
                _private(r)
                assert "This invitation link does not work" in r.text
                for secret in ("Secret Garden", "Alice"):
                    assert secret not in r.text
            # joining by a dead link: the same page, nobody joins
            refused = player.form(f"/clubs/join/{dead['revoked']}")
            assert refused.status_code == 404 and "Secret Garden" not in refused.text
        # the log-in and sign-up forms on the way to a dead link name nothing either
        for path in ("/login", "/register"):
            for token in dead.values():
                r = visitor.get(path, params={"next": f"/clubs/join/{token}"})
                assert r.status_code == 200 and "invites you" not in r.text
                assert "Secret Garden" not in r.text and "Alice" not in r.text
    assert _members(app, "Secret Garden") == {"Alice"}


def test_an_invitation_that_dies_before_the_log_in_joins_nothing(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    join_path = _invite(member, "Brick Club")
    with TestClient(app) as visitor:
        csrf = page_csrf(visitor, f"/register?next={join_path}")
        with app.state.sessionmaker() as s:
            for invite in s.scalars(select(ClubInvite)):
                invite.revoked_at = datetime.now(UTC)
            s.commit()
        r = visitor.post(
            "/register",
            data={
                "csrf_token": csrf,
                "email": "late@example.com",
                "password": PASSWORD,
                "display_name": "Late",
                "next": join_path,
            },
        )
        assert r.status_code == 404 and "This invitation link does not work" in r.text
    assert _members(app, "Brick Club") == {"Alice"}


def test_sign_up_never_follows_next_off_the_site(app) -> None:  # type: ignore[no-untyped-def]
    for target in ("https://evil.example/", "//evil.example/", "/\\evil.example", "javascript:x"):
        with TestClient(app) as visitor:
            page = visitor.get("/register", params={"next": target})
            assert 'name="next" value=""' in page.text
            assert "evil" not in page.text
            r = visitor.post(
                "/register",
                data={
                    "csrf_token": page_csrf(visitor, "/register"),
                    "email": f"p{abs(hash(target))}@example.com",
                    "password": PASSWORD,
                    "display_name": "P",
                    "next": target,
                },
                follow_redirects=False,
            )
            assert r.status_code == 303
            assert r.headers["location"] == "/armies"


def test_a_logged_in_player_following_an_invitation_sees_join_the_club(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    join_path = _invite(member, "Brick Club")
    with TestClient(app) as c:
        bob = sign_up(c, name="Bob")
        page = c.get(join_path)
        assert page.status_code == 200
        _private(page)
        assert "Alice invites you to Brick Club" in page.text
        assert f'action="{join_path}"' in page.text
        joined = bob.form(join_path)
        assert joined.status_code == 200 and "Welcome to Brick Club!" in joined.text
    assert _members(app, "Brick Club") == {"Alice", "Bob"}


def test_the_navigations_sign_up_and_log_in_carry_the_invitation_too(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    join_path = _invite(member, "Nav Club")
    with TestClient(app) as visitor:
        landing = visitor.get(join_path)
        nav = re.search(r'(?s)<nav class="wrap nav".*?</nav>', landing.text)
        assert nav, landing.text
        links = {unescape(h) for h in re.findall(r'href="([^"]*)"', nav.group(0))}
        assert {f"/register?next={join_path}", f"/login?next={join_path}"} <= {
            unquote(h) for h in links
        }, links
    with TestClient(app) as visitor:  # plain pages keep plain links
        nav = re.search(r'(?s)<nav class="wrap nav".*?</nav>', visitor.get("/").text)
        assert nav and 'href="/register"' in nav.group(0) and 'href="/login"' in nav.group(0)
