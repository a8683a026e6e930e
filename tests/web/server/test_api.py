"""The JSON API: tokens, armies, error shapes, CSRF for cookie callers, 409s."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.web.conftest import PASSWORD, Member


def _token(member: Member) -> str:
    r = member.client.post(
        "/api/v1/tokens", json={"name": "bot"}, headers={"X-CSRF-Token": member.csrf}
    )
    assert r.status_code == 201
    return r.json()["token"]


def test_register_login_me_over_json(app) -> None:  # type: ignore[no-untyped-def]
    c = TestClient(app)
    r = c.post(
        "/api/v1/auth/register",
        json={"email": "api@example.com", "password": PASSWORD, "display_name": "Api"},
    )
    assert r.status_code == 201 and r.json()["user"]["email"] == "api@example.com"
    assert c.get("/api/v1/me").json()["display_name"] == "Api"
    fresh = TestClient(app)
    r = fresh.post("/api/v1/auth/login", json={"email": "API@example.com", "password": PASSWORD})
    assert r.status_code == 200
    csrf = r.json()["csrf_token"]
    assert fresh.post("/api/v1/auth/logout").status_code == 403  # cookie caller needs the token
    assert fresh.post("/api/v1/auth/logout", headers={"X-CSRF-Token": csrf}).status_code == 204
    assert fresh.get("/api/v1/me").status_code == 401


def test_api_login_failures_are_401_then_429(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    c = TestClient(app)
    for _ in range(5):
        r = c.post("/api/v1/auth/login", json={"email": member.email, "password": "wrong!!!"})
        assert r.status_code == 401 and r.json() == {
            "detail": [{"field": "password", "reason": "Email or password is incorrect."}]
        }
    r = c.post("/api/v1/auth/login", json={"email": member.email, "password": PASSWORD})
    assert r.status_code == 429 and "Retry-After" in r.headers


def test_bearer_token_crud_without_csrf(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    bot = TestClient(app, headers={"Authorization": f"Bearer {_token(member)}"})
    r = bot.post("/api/v1/armies", json={"name": "Bots", "budget": 100, "notes": "x"})
    assert r.status_code == 201
    army = r.json()
    assert army["name"] == "Bots" and army["ruleset_id"] == "brikwars" and army["version"] == 1
    assert [a["id"] for a in bot.get("/api/v1/armies").json()] == [army["id"]]
    r = bot.patch(f"/api/v1/armies/{army['id']}", json={"version": 1, "budget": 150})
    assert r.status_code == 200 and r.json()["budget"] == 150 and r.json()["version"] == 2
    assert r.json()["name"] == "Bots"
    assert bot.get(f"/api/v1/armies/{army['id']}").json()["budget"] == 150
    assert bot.delete(f"/api/v1/armies/{army['id']}").status_code == 204
    assert bot.get(f"/api/v1/armies/{army['id']}").status_code == 404


def test_revoked_and_forged_tokens_are_401(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    token = _token(member)
    bot = TestClient(app, headers={"Authorization": f"Bearer {token}"})
    token_id = bot.get("/api/v1/tokens").json()[0]["id"]
    assert "token" not in bot.get("/api/v1/tokens").json()[0]  # never shown again
    assert bot.delete(f"/api/v1/tokens/{token_id}").status_code == 204
    assert bot.get("/api/v1/me").status_code == 401
    forged = TestClient(app, headers={"Authorization": "Bearer bf_forged"})
    assert forged.get("/api/v1/me").status_code == 401


def test_api_errors_name_the_field_and_reason(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    bot = TestClient(app, headers={"Authorization": f"Bearer {_token(member)}"})
    cases = [
        ({"name": "", "budget": 5}, "name", "must not be empty"),
        ({"name": "x" * 121, "budget": 5}, "name", "must be at most 120 characters"),
        ({"name": "A", "budget": 0}, "budget", "must be greater than 0"),
        ({"name": "A", "budget": "ten"}, "budget", "must be a whole number"),
        ({"name": "A"}, "budget", "is required"),
        ({"name": "A", "budget": 5, "colour": "red"}, "colour", "is not a known field"),
        ({"name": "A", "budget": 5, "ruleset_id": "chess"}, "ruleset_id", "is an unknown ruleset"),
    ]
    for body, field, reason in cases:
        r = bot.post("/api/v1/armies", json=body)
        assert r.status_code == 422, body
        detail = r.json()["detail"]
        assert any(d["field"] == field and d["reason"].startswith(reason) for d in detail), detail
    assert bot.get("/api/v1/armies").json() == []
    r = TestClient(app).post(
        "/api/v1/auth/register",
        json={"email": member.email, "password": PASSWORD, "display_name": "B"},
    )
    assert r.status_code == 422
    assert r.json()["detail"] == [{"field": "email", "reason": "is already registered"}]


def test_stale_api_update_is_409(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    bot = TestClient(app, headers={"Authorization": f"Bearer {_token(member)}"})
    army = bot.post("/api/v1/armies", json={"name": "A", "budget": 5}).json()
    assert (
        bot.patch(f"/api/v1/armies/{army['id']}", json={"version": 1, "name": "B"}).status_code
        == 200
    )
    r = bot.patch(f"/api/v1/armies/{army['id']}", json={"version": 1, "name": "C"})
    assert r.status_code == 409
    body = r.json()
    # Both renamed it: the field is listed (item 15's merge applies everything else).
    assert body["detail"] == [{"field": "name", "reason": "changed elsewhere to B"}]
    assert body["current_version"] == 2
    assert body["latest_change"].endswith("renamed “A” to “B”")  # the winning change, named
    assert bot.get(f"/api/v1/armies/{army['id']}").json()["name"] == "B"


def test_openapi_lists_the_api(client: TestClient) -> None:
    spec = client.get("/api/v1/openapi.json").json()
    assert "/api/v1/armies/{army_id}" in spec["paths"]
    assert "/armies" not in spec["paths"]  # pages are not part of the API
    assert client.get("/docs").status_code == 200
