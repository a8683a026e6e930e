"""One error shape for the API, a health check that tells the truth, no plain-text 500s."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import get_settings
from app.web.openapi import ErrorBody
from tests.conftest import run_coroutine
from tests.web.conftest import Member

UNREACHABLE = "postgresql://postgres@127.0.0.1:1/nowhere"  # nothing listens on port 1


@pytest.fixture
def database_down():  # type: ignore[no-untyped-def]
    settings = get_settings().model_copy(update={"database_url": UNREACHABLE})
    app = create_app(settings)
    yield TestClient(app, raise_server_exceptions=False)
    app.state.engine.dispose()


def test_healthz_answers_get_and_head(app) -> None:  # type: ignore[no-untyped-def]
    client = TestClient(app)
    r = client.get("/healthz")
    assert r.status_code == 200 and r.json() == {"status": "ok"}
    head = client.head("/healthz")
    assert head.status_code == 200 and head.content == b""


def test_healthz_is_a_503_with_a_reason_while_the_database_is_down(database_down) -> None:  # type: ignore[no-untyped-def]
    r = database_down.get("/healthz")
    assert r.status_code == 503 and r.headers["retry-after"] == "5"
    body = r.json()
    assert body["status"] == "unavailable"
    assert body["detail"][0]["field"] == "database"
    assert "unreachable" in body["detail"][0]["reason"]
    assert database_down.head("/healthz").status_code == 503


def test_api_errors_stay_json_while_the_database_is_down(database_down) -> None:  # type: ignore[no-untyped-def]
    r = database_down.get("/api/v1/me", headers={"Authorization": "Bearer bf_whatever"})
    assert r.status_code == 503 and r.headers["content-type"] == "application/json"
    assert ErrorBody.model_validate(r.json()).detail[0].field == "database"
    page = database_down.get("/shared/some-link")  # a page that must read the database
    assert page.status_code == 503 and page.headers["content-type"].startswith("text/html")
    assert "unavailable" in page.text


def test_a_405_names_the_allowed_methods(app) -> None:  # type: ignore[no-untyped-def]
    r = TestClient(app).put("/api/v1/brikwars/odds", json={})
    assert r.status_code == 405 and r.headers["allow"] == "POST"
    assert ErrorBody.model_validate(r.json()).detail[0].field == "method"
    page = TestClient(app).put("/login")
    assert page.status_code == 405 and page.headers["allow"] == "GET, POST"


def test_a_405_names_every_method_of_the_path_whichever_route_declares_it(
    app, member: Member
) -> None:  # type: ignore[no-untyped-def]
    # GET and POST /armies are two routes each (a page, the API): Starlette's own 405 named
    # the methods of the first route whose path matched only (GET)
    csrf = {"X-CSRF-Token": member.csrf}
    for url in ("/api/v1/armies", "/armies"):
        for method in ("DELETE", "PATCH", "PUT"):
            r = member.client.request(method, url, headers=csrf)
            assert r.status_code == 405, (method, url)
            assert r.headers["allow"] == "GET, POST", (method, url)
    army = member.client.post(
        "/api/v1/armies", json={"name": "A", "budget": 100}, headers=csrf
    ).json()["id"]
    r = member.client.put(f"/api/v1/armies/{army}", headers=csrf)  # PATCH and DELETE: two routes
    assert r.status_code == 405
    allowed = set(r.headers["allow"].split(", "))
    assert {"PATCH", "DELETE"} <= allowed and "PUT" not in allowed
    r = TestClient(app).put("/static/css/app.css")  # a mount: no routes of methods to name
    assert r.status_code == 405 and "PUT" not in r.headers.get("allow", "")


def test_every_api_error_has_the_documented_shape(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    anonymous = TestClient(app)
    answers = [
        anonymous.get("/api/v1/me"),  # 401
        member.client.get("/api/v1/armies/999999"),  # 404
        anonymous.post("/api/v1/brikwars/odds", json={"damage": {}}),  # request 422
        anonymous.post(  # a rules 422 (the engine's InvalidInput)
            "/api/v1/brikwars/explosion-odds",
            json={"dice": 2, "variant": "nonsense", "armor": {"fixed": 2}},
        ),
        anonymous.post(  # a login failure
            "/api/v1/auth/login", json={"email": member.email, "password": "not it at all"}
        ),
    ]
    assert [r.status_code for r in answers] == [401, 404, 422, 422, 401]
    for r in answers:
        body = ErrorBody.model_validate(r.json())
        assert body.detail and all(item.field and item.reason for item in body.detail), r.json()


def test_the_openapi_documents_the_error_shape_on_every_operation(app) -> None:  # type: ignore[no-untyped-def]
    doc = TestClient(app).get("/api/v1/openapi.json").json()
    assert "HTTPValidationError" not in doc["components"]["schemas"]
    for path, operations in doc["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            for status in ("422", "429", "503"):
                schema = responses[status]["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/ErrorBody"}, (method, path)
            if not path.startswith(("/api/v1/brikwars/", "/api/v1/rulesets")):
                assert {"401", "403", "404", "409"} <= set(responses), (method, path)
    export = doc["paths"]["/api/v1/armies/{army_id}/export"]["get"]["responses"]["200"]
    assert set(export["content"]) == {"application/json", "text/plain"}


def test_an_unreadable_body_is_a_422_not_a_400(app) -> None:  # type: ignore[no-untyped-def]
    r = TestClient(app).post(
        "/api/v1/brikwars/odds",
        content=b"\xff\xfe\x00",
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 422
    assert ErrorBody.model_validate(r.json()).detail[0].field == "body"


def test_a_fixed_path_beside_an_id_path_answers_405_not_422(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    # /clubs/join must not be read as /clubs/{club_id} with the id "join"
    r = member.client.get("/api/v1/clubs/join")
    assert r.status_code == 405 and r.headers["allow"] == "POST"
    r = member.client.patch("/api/v1/armies/import", headers={"X-CSRF-Token": member.csrf})
    assert r.status_code == 405 and r.headers["allow"] == "POST"


def test_a_client_gone_while_its_form_is_read_is_no_server_error(app) -> None:  # type: ignore[no-untyped-def]
    """A browser that aborts a form post (a closed tab) while the form is being read: the
    request ends quietly, not as a 500 with a traceback in the log."""
    sent: list[dict[str, object]] = []

    async def receive() -> dict[str, object]:
        return {"type": "http.disconnect"}

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/login",
        "raw_path": b"/login",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"testserver"),
            (b"content-type", b"application/x-www-form-urlencoded"),
            (b"content-length", b"40"),
        ],
        "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80),
    }
    run_coroutine(app(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    assert start["status"] != 500
