"""Server-side sessions: revocable, listed, ended by log-out and a password change."""

from __future__ import annotations

from datetime import timedelta

from fastapi.testclient import TestClient
from sqlalchemy import select, update

from app.db.base import utcnow
from app.db.models import UserSession
from tests.web.conftest import PASSWORD, Member, page_csrf

COOKIE = "brikforge_session"


def _logged_in(client: TestClient) -> bool:
    return client.get("/armies", follow_redirects=False).status_code == 200


def _second_browser(app, member: Member, agent: str = "Second browser") -> Member:  # type: ignore[no-untyped-def]
    client = TestClient(app, headers={"User-Agent": agent})
    r = client.post(
        "/login",
        data={"csrf_token": page_csrf(client), "email": member.email, "password": PASSWORD},
        follow_redirects=False,
    )
    assert r.status_code == 303
    return Member(client=client, email=member.email, csrf=page_csrf(client, "/account"))


def _copy(app, member: Member) -> TestClient:  # type: ignore[no-untyped-def]
    thief = TestClient(app)
    thief.cookies.set(COOKIE, member.client.cookies[COOKIE])
    return thief


def test_the_cookie_holds_only_a_random_token(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    token = member.client.cookies[COOKIE]
    assert "." not in token and len(token) == 43  # 32 random bytes, nothing signed or encoded
    with app.state.sessionmaker() as s:
        rows = s.scalars(select(UserSession)).all()
    assert len(rows) == 1 and token not in (rows[0].token_hash, rows[0].csrf_token)


def test_a_copied_cookie_stops_working_at_logout(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    thief = _copy(app, member)
    assert _logged_in(thief)
    r = member.form("/logout", follow_redirects=False)
    assert r.status_code == 303 and f"{COOKIE}=; Max-Age=0" in r.headers["set-cookie"]
    assert not _logged_in(thief)
    assert not _logged_in(member.client)
    assert thief.get("/api/v1/me").status_code == 401


def test_api_logout_ends_the_session_server_side(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    thief = _copy(app, member)
    r = member.client.post("/api/v1/auth/logout", headers={"X-CSRF-Token": member.csrf})
    assert r.status_code == 204
    assert thief.get("/api/v1/me").status_code == 401


def test_log_out_everywhere_else_and_everywhere(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    second = _second_browser(app, member)
    third = _second_browser(app, member, "Third browser")
    r = member.form("/account/sessions/end-others")
    assert r.status_code == 200 and "Logged out everywhere else (2 sessions)" in r.text
    assert _logged_in(member.client)
    assert not _logged_in(second.client) and not _logged_in(third.client)

    second = _second_browser(app, member)
    r = member.form("/account/sessions/end-all", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/login"
    assert not _logged_in(member.client) and not _logged_in(second.client)


def test_the_account_page_lists_sessions_and_ends_one(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    second = _second_browser(app, member, "Firefox on a tablet")
    page = member.client.get("/account")
    assert page.status_code == 200
    assert "Firefox on a tablet" in page.text and page.text.count("(this one)") == 1
    with app.state.sessionmaker() as s:
        other = s.scalar(select(UserSession).where(UserSession.user_agent == "Firefox on a tablet"))
    assert other is not None
    r = member.htmx(f"/account/sessions/{other.id}/end")
    assert r.status_code == 200 and 'id="sessions"' in r.text and "<html" not in r.text
    assert "Firefox on a tablet" not in r.text
    assert not _logged_in(second.client) and _logged_in(member.client)
    # Someone else's session is not yours to end.
    assert second.client.get("/account", follow_redirects=False).status_code == 303
    mine = member.client.get("/api/v1/auth/sessions").json()
    assert [s["current"] for s in mine] == [True]
    stranger = _second_browser(app, _other_member(app))
    r = stranger.form(f"/account/sessions/{mine[0]['id']}/end")
    assert r.status_code == 404
    assert _logged_in(member.client)


def _other_member(app) -> Member:  # type: ignore[no-untyped-def]
    from tests.web.conftest import sign_up

    return sign_up(TestClient(app), name="Other")


def test_ending_this_session_from_the_list_logs_out(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    (mine,) = member.client.get("/api/v1/auth/sessions").json()
    r = member.form(f"/account/sessions/{mine['id']}/end", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/login"
    assert not _logged_in(member.client)


def test_password_change_ends_every_other_session(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    second = _second_browser(app, member)
    thief = _copy(app, second)
    r = member.htmx(
        "/account/password", {"current_password": "not it at all", "new_password": "n" * 12}
    )
    assert r.status_code == 422 and "Current password is not your password" in r.text
    assert 'id="password"' in r.text and "<html" not in r.text
    assert _logged_in(second.client)
    r = member.form(
        "/account/password",
        {"current_password": PASSWORD, "new_password": "a brand new secret"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    assert "1 other session ended" in member.client.get("/account").text
    assert _logged_in(member.client)
    assert not _logged_in(second.client) and not _logged_in(thief)
    fresh = TestClient(app)
    r = fresh.post(
        "/api/v1/auth/login", json={"email": member.email, "password": "a brand new secret"}
    )
    assert r.status_code == 200


def test_password_change_over_the_api(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    second = _second_browser(app, member)
    headers = {"X-CSRF-Token": member.csrf}
    bad = {"current_password": "wrong wrong", "new_password": "n" * 12}
    r = member.client.post("/api/v1/auth/password", json=bad, headers=headers)
    assert r.status_code == 422
    assert r.json()["detail"][0]["field"] == "current_password"
    short = {"current_password": PASSWORD, "new_password": "short"}
    assert (
        member.client.post("/api/v1/auth/password", json=short, headers=headers).status_code == 422
    )
    good = {"current_password": PASSWORD, "new_password": "n" * 12}
    r = member.client.post("/api/v1/auth/password", json=good, headers=headers)
    assert r.status_code == 204
    assert _logged_in(member.client) and not _logged_in(second.client)


def test_an_expired_session_is_refused(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    with app.state.sessionmaker() as s:
        s.execute(update(UserSession).values(expires_at=utcnow() - timedelta(seconds=1)))
        s.commit()
    assert not _logged_in(member.client)
    assert member.client.get("/api/v1/me").status_code == 401


def test_sessions_expire_after_the_configured_age(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    from app.settings import get_settings

    with app.state.sessionmaker() as s:
        row = s.scalars(select(UserSession)).one()
    age = row.expires_at - row.created_at
    assert age == timedelta(seconds=get_settings().session_max_age_seconds)


def test_last_seen_is_written_at_most_once_a_minute(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    def last_seen():  # type: ignore[no-untyped-def]
        with app.state.sessionmaker() as s:
            return s.scalars(select(UserSession.last_seen_at)).one()

    first = last_seen()
    member.client.get("/armies")
    assert last_seen() == first  # seen a moment ago: no write
    old = utcnow() - timedelta(minutes=5)
    with app.state.sessionmaker() as s:
        s.execute(update(UserSession).values(last_seen_at=old))
        s.commit()
    member.client.get("/armies")
    touched = last_seen()
    assert touched > old + timedelta(minutes=4)
    member.client.get("/armies")
    assert last_seen() == touched


def test_guessing_the_current_password_backs_off_like_a_login(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    """A stolen session must not become a fast oracle for the password: wrong current
    passwords count as failed logins of the account from that address (5, then a wait)."""
    thief = _copy(app, member)
    thief_csrf = page_csrf(thief, "/account")
    headers = {"X-CSRF-Token": thief_csrf}
    for guess in range(5):
        body = {"current_password": f"guess number {guess}", "new_password": "n" * 12}
        r = thief.post("/api/v1/auth/password", json=body, headers=headers)
        assert r.status_code == 422
    body = {"current_password": PASSWORD, "new_password": "n" * 12}
    r = thief.post("/api/v1/auth/password", json=body, headers=headers)
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    assert r.json()["detail"][0]["field"] == "current_password"
    # the right password was not even checked: it still is the password
    r = member.htmx("/account/password", {"current_password": PASSWORD, "new_password": "m" * 12})
    assert r.status_code == 429 and "too many wrong passwords" in r.text
    assert 'id="password"' in r.text and "Retry-After" in r.headers
    # one throttle: a login of the account from that address waits too
    fresh = TestClient(app)
    r = fresh.post("/api/v1/auth/login", json={"email": member.email, "password": PASSWORD})
    assert r.status_code == 429
