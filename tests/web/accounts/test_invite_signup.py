"""Issue 14 item 1: an invitation survives signing up (or logging in) first."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import unquote

from fastapi.testclient import TestClient

from tests.web.conftest import PASSWORD, Member, page_csrf, sign_up


def _invite(owner: Member, club_name: str) -> str:
    headers = {"X-CSRF-Token": owner.csrf}
    club = owner.client.post("/api/v1/clubs", json={"name": club_name}, headers=headers).json()
    invite = owner.client.post(f"/api/v1/clubs/{club['id']}/invites", headers=headers).json()
    return f"/clubs/join/{invite['token']}"


def _href(page: str, text: str) -> str:
    """The target of the page's own link (after the navigation's) with this text."""
    match = re.search(rf'(?s)<main.*<a href="([^"]*)">{text}</a>', page)
    assert match, f"no link {text!r}"
    return unescape(match.group(1))


def test_an_invitee_who_must_sign_up_first_lands_on_join_the_club(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    join_path = _invite(member, "Brick Club")
    with TestClient(app) as visitor:
        login = visitor.get(join_path)  # anonymous: sent to log in, the invitation in next
        assert login.url.path == "/login"
        assert unquote(login.url.params["next"]) == join_path
        register_url = _href(login.text, "Create an account")
        assert register_url.startswith("/register?next=")
        page = visitor.get(register_url)
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
        assert signed_up.url.path == join_path
        assert "Join “Brick Club”?" in signed_up.text
        assert "Join the club" in signed_up.text


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
        sign_up(c, name="Bob")
        page = c.get(join_path)
        assert page.status_code == 200
        assert "Join “Brick Club”?" in page.text
        assert 'action="/clubs/join/' in page.text


def test_the_navigations_sign_up_and_log_in_carry_the_invitation_too(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    join_path = _invite(member, "Nav Club")
    with TestClient(app) as visitor:
        login = visitor.get(join_path)
        nav = re.search(r'(?s)<nav class="wrap nav".*?</nav>', login.text)
        assert nav, login.text
        links = {unescape(h) for h in re.findall(r'href="([^"]*)"', nav.group(0))}
        assert {f"/register?next={join_path}", f"/login?next={join_path}"} <= {
            unquote(h) for h in links
        }, links
    with TestClient(app) as visitor:  # plain pages keep plain links
        nav = re.search(r'(?s)<nav class="wrap nav".*?</nav>', visitor.get("/").text)
        assert nav and 'href="/register"' in nav.group(0) and 'href="/login"' in nav.group(0)
