"""Every route, called as a visitor, a stranger and the owner.

The table must list every route the app serves: adding a route without saying
who may call it fails ``test_table_covers_every_route``.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.main import served_routes
from tests.web.conftest import Member, page_csrf, sign_up
from tests.web.test_armies import create

SECRET_NAME = "Secret Army Zeta"

# (method, path, who): "public" anyone; "user" any logged-in user;
# "owner" only the owner of {army_id} / {token_id} (others get 404).
ROUTES: list[tuple[str, str, str]] = [
    ("GET", "/", "public"),
    ("GET", "/healthz", "public"),
    ("GET", "/register", "public"),
    ("POST", "/register", "public"),
    ("GET", "/login", "public"),
    ("POST", "/login", "public"),
    ("POST", "/logout", "public"),
    ("GET", "/armies", "user"),
    ("POST", "/armies", "user"),
    ("GET", "/armies/{army_id}", "owner"),
    ("POST", "/armies/{army_id}", "owner"),
    ("GET", "/armies/{army_id}/delete", "owner"),
    ("POST", "/armies/{army_id}/delete", "owner"),
    ("GET", "/account", "user"),
    ("POST", "/account/tokens", "user"),
    ("POST", "/account/tokens/{token_id}/revoke", "owner"),
    ("POST", "/api/v1/auth/register", "public"),
    ("POST", "/api/v1/auth/login", "public"),
    ("POST", "/api/v1/auth/logout", "user"),
    ("GET", "/api/v1/me", "user"),
    ("GET", "/api/v1/tokens", "user"),
    ("POST", "/api/v1/tokens", "user"),
    ("DELETE", "/api/v1/tokens/{token_id}", "owner"),
    ("GET", "/api/v1/rulesets", "public"),
    ("GET", "/api/v1/armies", "user"),
    ("POST", "/api/v1/armies", "user"),
    ("GET", "/api/v1/armies/{army_id}", "owner"),
    ("PATCH", "/api/v1/armies/{army_id}", "owner"),
    ("DELETE", "/api/v1/armies/{army_id}", "owner"),
]

PROTECTED = [r for r in ROUTES if r[2] != "public"]
OWNED = [r for r in ROUTES if r[2] == "owner"]


def test_table_covers_every_route(app) -> None:  # type: ignore[no-untyped-def]
    assert served_routes() == {(m, p) for m, p, _ in ROUTES}
    # served_routes() really is what the app answers: each listed route resolves.
    client = TestClient(app)
    for method, path, _ in ROUTES:
        url = path.format(army_id=1, token_id=1)
        assert client.request(method, url, follow_redirects=False).status_code not in (404, 405)


def _body(method: str, path: str, version: int = 1) -> dict[str, object]:
    if path.endswith("{army_id}") and method in ("POST", "PATCH"):
        return {"version": version, "name": "Hijacked", "budget": 1, "notes": ""}
    if path.endswith("/armies"):
        return {"name": "New", "budget": 10}
    if path.endswith("/tokens"):
        return {"name": "t"}
    return {}


def _call(client: TestClient, csrf: str, method: str, path: str, **ids: int):  # type: ignore[no-untyped-def]
    url = path.format(**ids)
    body = _body(method, path)
    if url.startswith("/api/"):
        headers = {"X-CSRF-Token": csrf}
        if method in ("GET", "DELETE"):
            return client.request(method, url, headers=headers, follow_redirects=False)
        return client.request(method, url, json=body, headers=headers, follow_redirects=False)
    if method == "GET":
        return client.get(url, follow_redirects=False)
    data = {"csrf_token": csrf, **{k: str(v) for k, v in body.items()}}
    return client.post(url, data=data, follow_redirects=False)


@pytest.fixture
def owner_things(member: Member) -> dict[str, int]:
    army_id = create(member, SECRET_NAME)
    r = member.client.post(
        "/api/v1/tokens", json={"name": "mine"}, headers={"X-CSRF-Token": member.csrf}
    )
    return {"army_id": army_id, "token_id": r.json()["id"]}


@pytest.mark.parametrize(("method", "path", "who"), PROTECTED)
def test_visitors_are_sent_to_log_in(
    app,
    owner_things: dict[str, int],
    method: str,
    path: str,
    who: str,  # type: ignore[no-untyped-def]
) -> None:
    visitor = TestClient(app)
    csrf = page_csrf(visitor, "/login")
    r = _call(visitor, csrf, method, path, **owner_things)
    if path.startswith("/api/"):
        assert r.status_code == 401 and r.json() == {"detail": "not authenticated"}
    else:
        assert r.status_code == 303 and r.headers["location"].startswith("/login?next=")
    assert SECRET_NAME not in r.text


@pytest.mark.parametrize(("method", "path", "who"), OWNED)
def test_strangers_get_404_and_learn_nothing(
    app,
    member: Member,
    owner_things: dict[str, int],
    method: str,
    path: str,
    who: str,  # type: ignore[no-untyped-def]
) -> None:
    with TestClient(app) as c:
        stranger = sign_up(c, name="Mallory")
        r = _call(stranger.client, stranger.csrf, method, path, **owner_things)
    assert r.status_code == 404, (method, path, r.status_code)
    assert SECRET_NAME not in r.text and "Hijacked" not in r.text
    # ...and the owner's things are untouched.
    page = member.client.get(f"/armies/{owner_things['army_id']}")
    assert page.status_code == 200 and SECRET_NAME in page.text
    tokens = member.client.get("/api/v1/tokens").json()
    assert [t["id"] for t in tokens] == [owner_things["token_id"]]


@pytest.mark.parametrize(("method", "path", "who"), OWNED)
def test_owners_may(
    member: Member, owner_things: dict[str, int], method: str, path: str, who: str
) -> None:
    r = _call(member.client, member.csrf, method, path, **owner_things)
    assert r.status_code in (200, 204, 303), (method, path, r.status_code, r.text[:300])


def test_strangers_do_not_see_other_armies_in_lists(app, member: Member, owner_things) -> None:  # type: ignore[no-untyped-def]
    with TestClient(app) as c:
        stranger = sign_up(c, name="Mallory")
        assert SECRET_NAME not in stranger.client.get("/armies").text
        assert stranger.client.get("/api/v1/armies").json() == []
