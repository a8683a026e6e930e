"""Sign-up, log-in, throttling, sessions and CSRF."""

from __future__ import annotations

from datetime import timedelta
from itertools import pairwise

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db.base import utcnow
from app.db.models import LoginFailure, User
from tests.web.conftest import PASSWORD, Member, page_csrf, sign_up


def _register(client: TestClient, **fields: str):  # type: ignore[no-untyped-def]
    data = {"email": "new@example.com", "password": PASSWORD, "display_name": "New"} | fields
    return client.post(
        "/register",
        data={"csrf_token": page_csrf(client, "/register"), **data},
        headers={"HX-Request": "true"},
    )


def test_register_stores_an_argon2_hash_and_logs_in(client: TestClient, app) -> None:  # type: ignore[no-untyped-def]
    r = _register(client, email="Sam@Example.com")
    assert r.status_code == 204 and r.headers["HX-Redirect"] == "/armies"
    with app.state.sessionmaker() as s:
        user = s.scalar(select(User).where(User.email == "sam@example.com"))
    assert user is not None and user.password_hash.startswith("$argon2id$")
    assert PASSWORD not in user.password_hash
    page = client.get("/armies")
    assert page.status_code == 200 and "Log out" in page.text


def test_session_cookie_is_httponly_and_lax(client: TestClient) -> None:
    r = _register(client)
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie


def test_register_bad_inputs_are_422_with_the_field_inline(client: TestClient) -> None:
    cases = {
        "email": ({"email": "not-an-email"}, "Email is not a valid email address"),
        "password": ({"password": "short"}, "Password must be at least 8 characters"),
        "display_name": (
            {"display_name": "x" * 121},
            "Display name must be at most 120 characters",
        ),
    }
    for field, (bad, message) in cases.items():
        r = _register(client, **bad)
        assert r.status_code == 422, field
        assert message in r.text, (field, r.text)
        assert 'id="register-form"' in r.text and "<html" not in r.text  # a fragment
    r = _register(client, display_name="   ")
    assert r.status_code == 422 and "Display name must not be empty" in r.text


def test_duplicate_email_is_refused_and_saves_nothing(client: TestClient, app) -> None:  # type: ignore[no-untyped-def]
    assert _register(client, email="dup@example.com").status_code == 204
    other = TestClient(app)
    r = _register(other, email="DUP@example.com", display_name="Other")
    assert r.status_code == 422 and "Email is already registered" in r.text
    with app.state.sessionmaker() as s:
        assert len(s.scalars(select(User)).all()) == 1


def test_unknown_form_field_is_refused(client: TestClient) -> None:
    r = _register(client, is_admin="1")
    assert r.status_code == 422


def _login(client: TestClient, email: str, password: str):  # type: ignore[no-untyped-def]
    return client.post(
        "/login",
        data={"csrf_token": page_csrf(client), "email": email, "password": password, "next": ""},
        headers={"HX-Request": "true"},
    )


def test_login_and_logout(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    fresh = TestClient(app)
    r = _login(fresh, member.email, PASSWORD)
    assert r.status_code == 204 and r.headers["HX-Redirect"] == "/armies"
    assert fresh.get("/armies").status_code == 200
    token = page_csrf(fresh, "/armies")
    r = fresh.post("/logout", data={"csrf_token": token}, follow_redirects=False)
    assert r.status_code == 303
    assert fresh.get("/armies", follow_redirects=False).headers["location"].startswith("/login")


def test_wrong_password_says_so_without_saying_which(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    fresh = TestClient(app)
    wrong = _login(fresh, member.email, "wrong password")
    unknown = _login(fresh, "nobody@example.com", "wrong password")
    assert wrong.status_code == unknown.status_code == 401
    assert "Email or password is incorrect." in wrong.text
    assert "Email or password is incorrect." in unknown.text


def test_login_redirects_only_to_local_paths(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    for target, expected in (
        ("/armies/7", "/armies/7"),
        ("//evil.example", "/armies"),
        ("https://evil.example", "/armies"),
    ):
        fresh = TestClient(app)
        r = fresh.post(
            "/login",
            data={
                "csrf_token": page_csrf(fresh),
                "email": member.email,
                "password": PASSWORD,
                "next": target,
            },
            follow_redirects=False,
        )
        assert r.headers["location"] == expected


OFF_SITE_TARGETS = (
    "//evil.test",
    "/\\evil.test",
    "/\\evil.test/owned",
    "\\/evil.test",
    "/\t/evil.test",
    "/\n/evil.test",
    "/\r/evil.test",
    "/ /evil.test",
    "/\x00/evil.test",
    "/\x7f/evil.test",
    "/\u3000/evil.test",
    "https://evil.test",
    "http:/evil.test",
    "javascript:alert(1)",
    "evil.test",
    "/%09/evil.test".replace("%09", "\t"),  # what the query string decodes to
    "",
)


def test_safe_next_accepts_only_same_site_paths() -> None:
    from app.web.routes.auth import safe_next

    for target in OFF_SITE_TARGETS:
        assert safe_next(target) == "/armies", repr(target)
    for target in ("/armies/7", "/clubs?page=2", "/armies/7#units", "/a/%5Cb"):
        assert safe_next(target) == target


def test_login_next_from_the_query_string_never_leaves_the_site(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    # The query string is percent-decoded: /%5Cevil.test is /\evil.test to the browser.
    for raw in ("/%5Cevil.test/owned", "/%09/evil.test", "%2F%2Fevil.test", "/%5C%5Cevil.test"):
        r = member.client.get(f"/login?next={raw}", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/armies", raw
        fresh = TestClient(app)
        page = fresh.get(f"/login?next={raw}")
        r = fresh.post(
            "/login",
            data={
                "csrf_token": page_csrf(fresh),
                "email": member.email,
                "password": PASSWORD,
                "next": page.url.params["next"],
            },
            follow_redirects=False,
        )
        assert r.headers["location"] == "/armies", raw


def _more_failures(app, email: str, address: str, count: int) -> None:  # type: ignore[no-untyped-def]
    """Record ``count`` further failed logins, just now (an attacker's burst)."""
    with app.state.sessionmaker() as s:
        s.add_all(
            LoginFailure(email=email, client_address=address, created_at=utcnow())
            for _ in range(count)
        )
        s.commit()


def test_an_attacker_elsewhere_cannot_lock_the_owner_out(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    attacker = TestClient(app, client=("10.6.6.6", 50000))
    for _ in range(5):
        assert _login(attacker, member.email, "wrong password").status_code == 401
    _more_failures(app, member.email, "10.6.6.6", 15)  # 20 in all: the wait is at its cap
    r = _login(attacker, member.email, PASSWORD)  # even the right password waits, there
    assert r.status_code == 429 and "too many failed logins" in r.text
    assert int(r.headers["Retry-After"]) > 60
    owner = TestClient(app, client=("10.0.0.7", 50000))
    assert _login(owner, member.email, PASSWORD).status_code == 204
    # The owner's success does not reset the attacker's count.
    assert _login(attacker, member.email, "wrong password").status_code == 429


def test_backoff_doubles_per_failure_up_to_the_cap(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    """The wait after each further failure, read at the moment of that failure."""
    from app.services import accounts
    from app.settings import get_settings

    cap = get_settings().login_backoff_max_seconds
    start = utcnow()
    waits = []
    with app.state.sessionmaker() as s:
        for n in range(1, 18):
            moment = start + timedelta(hours=n)  # each failure well after the last wait
            s.add(LoginFailure(email=member.email, client_address="10.6.6.7", created_at=moment))
            s.flush()
            wait = accounts.login_wait(s, email=member.email, client_address="10.6.6.7", now=moment)
            waits.append(wait)
            later = moment + timedelta(seconds=wait)
            assert (
                accounts.login_wait(s, email=member.email, client_address="10.6.6.7", now=later)
                == 0
            )
            # Nobody else waits: another address, or another account from this one.
            assert (
                accounts.login_wait(s, email=member.email, client_address="10.0.0.7", now=moment)
                == 0
            )
            assert (
                accounts.login_wait(s, email="x@example.com", client_address="10.6.6.7", now=moment)
                == 0
            )
        s.rollback()
    assert waits[:4] == [0, 0, 0, 0]  # after five failures, the next try waits 2 s
    assert waits[4:9] == [2, 4, 8, 16, 32]
    assert waits[-1] == cap and all(a <= b for a, b in pairwise(waits))


def test_throttle_per_client_address_across_accounts(app) -> None:  # type: ignore[no-untyped-def]
    from app.settings import get_settings

    limit = get_settings().login_address_max_failures
    with TestClient(app) as c:
        victim = sign_up(c)
    sprayer = TestClient(app, client=("10.9.9.9", 1234))
    for i in range(limit):
        assert _login(sprayer, f"guess{i}@example.com", "nope nope").status_code == 401
    r = _login(sprayer, "another@example.com", "nope nope")
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    elsewhere = TestClient(app, client=("10.9.9.10", 1234))
    assert _login(elsewhere, victim.email, PASSWORD).status_code == 204


def test_x_forwarded_for_from_an_untrusted_peer_is_ignored(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    attacker = TestClient(app, client=("10.6.6.8", 50000))
    for i in range(5):
        r = client_post_login(attacker, member.email, {"X-Forwarded-For": f"192.0.2.{i}"})
        assert r.status_code == 401, i
    with app.state.sessionmaker() as s:
        assert set(s.scalars(select(LoginFailure.client_address))) == {"10.6.6.8"}
    spoofed = TestClient(app, client=("127.0.0.1", 50000))
    r = spoofed.post(
        "/api/v1/auth/login",
        json={"email": member.email, "password": PASSWORD},
        headers={"X-Forwarded-For": "198.51.100.1"},
    )
    assert r.status_code == 200
    sessions = spoofed.get("/api/v1/auth/sessions").json()
    assert [x["client_address"] for x in sessions if x["current"]] == ["127.0.0.1"]


def test_x_forwarded_for_from_a_trusted_proxy_is_the_client(member: Member) -> None:
    from app.main import create_app
    from app.settings import Settings

    proxied = create_app(Settings(trusted_proxies="10.0.0.1, 10.0.1.0/24"))
    with TestClient(proxied, client=("10.0.1.5", 4000)) as proxy:
        r = proxy.post(
            "/api/v1/auth/login",
            json={"email": member.email, "password": PASSWORD},
            headers={"X-Forwarded-For": "198.51.100.7"},
        )
        assert r.status_code == 200
        sessions = proxy.get("/api/v1/auth/sessions").json()
    assert [x["client_address"] for x in sessions if x["current"]] == ["198.51.100.7"]
    proxied.state.engine.dispose()


def client_post_login(client: TestClient, email: str, headers: dict[str, str]):  # type: ignore[no-untyped-def]
    return client.post(
        "/api/v1/auth/login", json={"email": email, "password": "wrong password"}, headers=headers
    )


def test_failures_under_the_limit_do_not_throttle(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    fresh = TestClient(app)
    for _ in range(4):
        assert _login(fresh, member.email, "wrong password").status_code == 401
    assert _login(fresh, member.email, PASSWORD).status_code == 204


def test_forms_without_csrf_token_are_refused(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    r = member.client.post("/armies", data={"name": "X", "budget": "10"})
    assert r.status_code == 403 and "CSRF" in r.text
    r = member.client.post("/armies", data={"name": "X", "budget": "10", "csrf_token": "forged"})
    assert r.status_code == 403
    r = member.client.post(
        "/armies",
        data={"name": "X", "budget": "10"},
        headers={"HX-Request": "true", "X-CSRF-Token": "forged"},
    )
    assert r.status_code == 403
    fresh = TestClient(app)
    assert (
        fresh.post("/login", data={"email": member.email, "password": PASSWORD}).status_code == 403
    )
    assert member.client.get("/armies").text.count("Army “X”") == 0


def _token(member: Member) -> str:
    r = member.client.post(
        "/api/v1/tokens", json={"name": "bot"}, headers={"X-CSRF-Token": member.csrf}
    )
    assert r.status_code == 201
    return str(r.json()["token"])


def test_a_junk_bearer_header_does_not_skip_the_csrf_check(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    junk = {"Authorization": "Bearer junk"}
    r = member.client.post("/armies", data={"name": "X", "budget": "10"}, headers=junk)
    assert r.status_code == 403 and "CSRF" in r.text
    r = member.client.post("/api/v1/armies", json={"name": "X", "budget": 10}, headers=junk)
    assert r.status_code in (401, 403)
    # A real token does not let a cookie-authenticated page form skip it either.
    real = {"Authorization": f"Bearer {_token(member)}"}
    r = member.client.post("/armies", data={"name": "X", "budget": "10"}, headers=real)
    assert r.status_code == 403
    assert member.client.get("/armies").text.count("Army “X”") == 0


def test_a_valid_bearer_token_without_a_cookie_needs_no_csrf_token(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    bot = TestClient(app)
    headers = {"Authorization": f"Bearer {_token(member)}"}
    r = bot.post("/api/v1/armies", json={"name": "By token", "budget": 10}, headers=headers)
    assert r.status_code == 201, r.text
    assert "brikforge_session" not in bot.cookies


def test_a_refused_csrf_check_leaves_the_session_alone(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    cookies = dict(member.client.cookies)
    r = member.client.post("/armies", data={"name": "X", "budget": "10"})
    assert r.status_code == 403 and "set-cookie" not in r.headers
    assert dict(member.client.cookies) == cookies
    assert page_csrf(member.client, "/armies") == member.csrf
    # A cross-site form POST arrives without the (SameSite=Lax) cookies: its answer must
    # not set any cookie, which would replace the victim's session in the browser.
    cross_site = TestClient(app)
    r = cross_site.post("/armies", data={"name": "X", "budget": "10"})
    assert r.status_code == 403 and "set-cookie" not in r.headers
    r = cross_site.post("/account/sessions/end-all", data={})
    assert r.status_code == 403 and "set-cookie" not in r.headers
    assert member.client.get("/armies").status_code == 200


def test_uvicorn_never_believes_proxy_headers_on_its_own() -> None:
    """uvicorn trusts X-Forwarded-For from 127.0.0.1 by default: every way we start it
    turns that off, so only TRUSTED_PROXIES (in the app) decides."""
    from app.settings import PROJECT_ROOT

    for name in ("Makefile", "Dockerfile"):
        text = (PROJECT_ROOT / name).read_text()
        starts = [line for line in text.splitlines() if "uvicorn app.main" in line]
        assert starts and all("--no-proxy-headers" in line for line in starts), name
        assert "--proxy-headers" not in text.replace("--no-proxy-headers", ""), name
