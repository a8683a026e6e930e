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

# (method, path, who, body): who is "public" (anyone), "user" (any logged-in user) or
# "owner" (only the owner of the army/unit/weapon/token in the path; others get 404).
# Page bodies are sent as forms (dotted names), API bodies as JSON.
UNIT = {"name": "Hijacked", "kind": "creation", "size": 2, "structure_level": 1}
WEAPON = {"type": "gun", "size": 1}
ATTACK = {"damage": {"dice": 1, "sides": 6}, "armor": {"fixed": 4}}
ROUTES: list[tuple[str, str, str, dict[str, object]]] = [
    ("GET", "/", "public", {}),
    ("GET", "/healthz", "public", {}),
    ("GET", "/register", "public", {}),
    ("POST", "/register", "public", {}),
    ("GET", "/login", "public", {}),
    ("POST", "/login", "public", {}),
    ("POST", "/logout", "public", {}),
    ("GET", "/armies", "user", {}),
    ("POST", "/armies", "user", {"name": "New", "budget": 10}),
    ("GET", "/armies/{army_id}", "owner", {}),
    ("POST", "/armies/{army_id}", "owner", {"version": 1, "name": "Hijacked", "budget": 1}),
    ("GET", "/armies/{army_id}/delete", "owner", {}),
    ("POST", "/armies/{army_id}/delete", "owner", {}),
    ("POST", "/armies/{army_id}/units", "owner", UNIT),
    ("GET", "/armies/{army_id}/units/{unit_id}", "owner", {}),
    ("GET", "/armies/{army_id}/units/{unit_id}/editor", "owner", {}),
    ("POST", "/armies/{army_id}/units/{unit_id}", "owner", {"version": 1, "name": "Hijacked"}),
    ("POST", "/armies/{army_id}/units/{unit_id}/duplicate", "owner", {}),
    ("POST", "/armies/{army_id}/units/{unit_id}/move", "owner", {"offset": 1}),
    ("POST", "/armies/{army_id}/units/{unit_id}/delete", "owner", {}),
    ("POST", "/armies/{army_id}/units/{unit_id}/weapons", "owner", WEAPON),
    (
        "POST",
        "/armies/{army_id}/units/{unit_id}/weapons/{weapon_id}",
        "owner",
        {"version": 1, "label": "Hijacked"},
    ),
    ("POST", "/armies/{army_id}/units/{unit_id}/weapons/{weapon_id}/delete", "owner", {}),
    ("GET", "/armies/{army_id}/units/{unit_id}/weapon-preview", "owner", {}),
    ("POST", "/armies/{army_id}/house-rules", "owner", {"version": 1}),
    ("GET", "/account", "user", {}),
    ("POST", "/account/tokens", "user", {"name": "t"}),
    ("POST", "/account/tokens/{token_id}/revoke", "owner", {}),
    ("POST", "/api/v1/auth/register", "public", {}),
    ("POST", "/api/v1/auth/login", "public", {}),
    ("POST", "/api/v1/auth/logout", "user", {}),
    ("GET", "/api/v1/me", "user", {}),
    ("GET", "/api/v1/tokens", "user", {}),
    ("POST", "/api/v1/tokens", "user", {"name": "t"}),
    ("DELETE", "/api/v1/tokens/{token_id}", "owner", {}),
    ("GET", "/api/v1/rulesets", "public", {}),
    ("POST", "/api/v1/brikwars/weapon-stats", "public", WEAPON),
    ("GET", "/api/v1/brikwars/catalogue", "public", {}),
    ("POST", "/api/v1/brikwars/odds", "public", ATTACK),
    ("POST", "/api/v1/brikwars/roll", "public", {**ATTACK, "seed": 1}),
    ("POST", "/api/v1/brikwars/explosion-odds", "public", {"dice": 1, "armor": {"fixed": 4}}),
    ("GET", "/api/v1/armies", "user", {}),
    ("POST", "/api/v1/armies", "user", {"name": "New", "budget": 10}),
    ("GET", "/api/v1/armies/{army_id}", "owner", {}),
    ("PATCH", "/api/v1/armies/{army_id}", "owner", {"version": 1, "name": "Hijacked"}),
    ("DELETE", "/api/v1/armies/{army_id}", "owner", {}),
    ("PUT", "/api/v1/armies/{army_id}/house-rules", "owner", {"version": 1, "options": {}}),
    ("POST", "/api/v1/armies/{army_id}/units", "owner", UNIT),
    ("GET", "/api/v1/armies/{army_id}/units/{unit_id}", "owner", {}),
    (
        "PATCH",
        "/api/v1/armies/{army_id}/units/{unit_id}",
        "owner",
        {"version": 1, "name": "Hijacked"},
    ),
    ("DELETE", "/api/v1/armies/{army_id}/units/{unit_id}", "owner", {}),
    ("POST", "/api/v1/armies/{army_id}/units/{unit_id}/duplicate", "owner", {}),
    ("POST", "/api/v1/armies/{army_id}/units/{unit_id}/move", "owner", {"offset": 1}),
    ("POST", "/api/v1/armies/{army_id}/units/{unit_id}/weapons", "owner", WEAPON),
    (
        "PATCH",
        "/api/v1/armies/{army_id}/units/{unit_id}/weapons/{weapon_id}",
        "owner",
        {"version": 1, "label": "Hijacked"},
    ),
    ("DELETE", "/api/v1/armies/{army_id}/units/{unit_id}/weapons/{weapon_id}", "owner", {}),
    ("POST", "/api/v1/armies/{army_id}/units/{unit_id}/weapon-preview", "owner", WEAPON),
]

PROTECTED = [r for r in ROUTES if r[2] != "public"]
OWNED = [r for r in ROUTES if r[2] == "owner"]
IDS = {"army_id": 1, "unit_id": 1, "weapon_id": 1, "token_id": 1}


def test_table_covers_every_route(app) -> None:  # type: ignore[no-untyped-def]
    assert served_routes() == {(m, p) for m, p, _, _ in ROUTES}
    # served_routes() really is what the app answers: each listed route resolves.
    client = TestClient(app)
    for method, path, _, _ in ROUTES:
        url = path.format(**IDS)
        assert client.request(method, url, follow_redirects=False).status_code not in (404, 405)


def _call(
    client: TestClient,
    csrf: str,
    method: str,
    path: str,
    body: dict[str, object],
    ids: dict[str, int],
):  # type: ignore[no-untyped-def]
    url = path.format(**ids)
    if url.startswith("/api/"):
        headers = {"X-CSRF-Token": csrf}
        if method in ("GET", "DELETE"):
            return client.request(method, url, headers=headers, follow_redirects=False)
        return client.request(method, url, json=body, headers=headers, follow_redirects=False)
    if method == "GET":
        return client.get(url, params={k: str(v) for k, v in body.items()}, follow_redirects=False)
    data = {"csrf_token": csrf, **{k: str(v) for k, v in body.items()}}
    return client.post(url, data=data, follow_redirects=False)


@pytest.fixture
def owner_things(member: Member) -> dict[str, int]:
    army_id = create(member, SECRET_NAME)
    api = {"headers": {"X-CSRF-Token": member.csrf}}
    token = member.client.post("/api/v1/tokens", json={"name": "mine"}, **api).json()
    unit = member.client.post(
        f"/api/v1/armies/{army_id}/units",
        json={
            "name": "Secret Tank",
            "size": 3,
            "structure_level": 2,
            "weapons": [{"type": "gun", "size": 2}],
        },
        **api,
    ).json()
    return {
        "army_id": army_id,
        "token_id": token["id"],
        "unit_id": unit["id"],
        "weapon_id": unit["weapons"][0]["id"],
    }


@pytest.mark.parametrize(("method", "path", "who", "body"), PROTECTED)
def test_visitors_are_sent_to_log_in(
    app, owner_things: dict[str, int], method: str, path: str, who: str, body: dict
) -> None:
    visitor = TestClient(app)
    csrf = page_csrf(visitor, "/login")
    r = _call(visitor, csrf, method, path, body, owner_things)
    if path.startswith("/api/"):
        assert r.status_code == 401 and r.json() == {"detail": "not authenticated"}
    else:
        assert r.status_code == 303 and r.headers["location"].startswith("/login?next=")
    assert SECRET_NAME not in r.text


@pytest.mark.parametrize(("method", "path", "who", "body"), OWNED)
def test_strangers_get_404_and_learn_nothing(
    app,
    member: Member,
    owner_things: dict[str, int],
    method: str,
    path: str,
    who: str,
    body: dict,
) -> None:
    with TestClient(app) as c:
        stranger = sign_up(c, name="Mallory")
        # The stranger has an army of their own: "not yours" must look like "not there".
        stranger.client.post(
            "/api/v1/armies",
            json={"name": "Mine", "budget": 5},
            headers={"X-CSRF-Token": stranger.csrf},
        )
        r = _call(stranger.client, stranger.csrf, method, path, body, owner_things)
    assert r.status_code == 404, (method, path, r.status_code)
    for secret in (SECRET_NAME, "Secret Tank", "Hijacked"):
        assert secret not in r.text
    # ...and the owner's things are untouched.
    army = member.client.get(f"/api/v1/armies/{owner_things['army_id']}").json()
    assert army["name"] == SECRET_NAME and army["version"] == 1
    units = [(u["name"], u["version"], len(u["weapons"])) for u in army["units"]]
    assert units == [("Secret Tank", 1, 1)]
    assert "label" not in army["units"][0]["weapons"][0]["spec"]
    tokens = member.client.get("/api/v1/tokens").json()
    assert [t["id"] for t in tokens] == [owner_things["token_id"]]


@pytest.mark.parametrize(("method", "path", "who", "body"), OWNED)
def test_owners_may(
    member: Member, owner_things: dict[str, int], method: str, path: str, who: str, body: dict
) -> None:
    r = _call(member.client, member.csrf, method, path, body, owner_things)
    assert r.status_code in (200, 201, 204, 303), (method, path, r.status_code, r.text[:300])


def test_strangers_do_not_see_other_armies_in_lists(app, member: Member, owner_things) -> None:  # type: ignore[no-untyped-def]
    with TestClient(app) as c:
        stranger = sign_up(c, name="Mallory")
        assert SECRET_NAME not in stranger.client.get("/armies").text
        assert stranger.client.get("/api/v1/armies").json() == []
