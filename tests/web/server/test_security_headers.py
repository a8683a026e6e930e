"""Security headers on every answer, and templates the Content-Security-Policy allows."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.settings import PROJECT_ROOT
from tests.web.conftest import Member

HEADERS = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
}


def _assert_headers(r, where: str) -> None:  # type: ignore[no-untyped-def]
    for name, value in HEADERS.items():
        assert r.headers.get(name) == value, (where, name)
    csp = r.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp, where
    assert "default-src 'self'" in csp and "script-src 'self';" in csp, where
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp, where


def test_pages_api_static_and_errors_carry_the_headers(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    visitor = TestClient(app)
    for client, method, url in (
        (visitor, "GET", "/"),
        (visitor, "GET", "/login"),
        (member.client, "GET", "/armies"),
        (member.client, "POST", "/armies"),  # refused by CSRF: an error page
        (visitor, "GET", "/no/such/page"),
        (visitor, "GET", "/api/v1/me"),  # a 401
        (member.client, "GET", "/api/v1/me"),
        (visitor, "GET", "/api/v1/brikwars/catalogue"),  # stateless calculators
        (visitor, "GET", "/static/css/app.css"),
        (visitor, "GET", "/static/vendor/htmx/htmx.min.js"),
        (visitor, "GET", "/api/v1/openapi.json"),
    ):
        r = client.request(method, url, follow_redirects=False)
        assert r.status_code < 500, url
        _assert_headers(r, url)


def test_the_api_docs_keep_the_apps_policy(app) -> None:  # type: ignore[no-untyped-def]
    r = TestClient(app).get("/docs")
    assert r.status_code == 200
    _assert_headers(r, "/docs")
    assert "http" not in r.headers["content-security-policy"]  # Swagger UI is the app's own


INLINE = re.compile(
    r"<script(?![^>]*\bsrc=)[^>]*>|<style\b|\sstyle=|\son[a-z]+=|javascript:", re.IGNORECASE
)


def test_templates_have_no_inline_scripts_handlers_or_styles() -> None:
    offenders = []
    for path in sorted((PROJECT_ROOT / "templates").rglob("*.html")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if INLINE.search(line):
                offenders.append(f"{path.relative_to(PROJECT_ROOT)}:{number}")
    assert offenders == []
    base = (PROJECT_ROOT / "templates" / "base.html").read_text()
    assert '"includeIndicatorStyles": false' in base  # htmx would inject a <style>


def test_logged_in_answers_and_the_api_are_kept_in_no_cache(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    csrf = {"X-CSRF-Token": member.csrf}
    army = member.client.post("/api/v1/armies", json={"name": "A", "budget": 100}, headers=csrf)
    army_id = army.json()["id"]
    assert army.headers["cache-control"] == "no-store"  # an API write
    token = member.client.post(f"/api/v1/armies/{army_id}/share-links", headers=csrf).json()
    visitor = TestClient(app)
    for client, method, url, headers in (
        (member.client, "GET", "/armies", {}),  # a logged-in page
        (member.client, "GET", f"/armies/{army_id}", {}),
        (member.client, "GET", "/", {}),  # a public page, seen logged in
        (member.client, "GET", f"/shared/{token['token']}", {}),
        (member.client, "GET", "/no/such/page", {}),  # an error page
        (member.client, "GET", "/armies", {"HX-Request": "true"}),  # an htmx fragment
        (member.client, "POST", "/armies", {"HX-Request": "true"}),  # refused by CSRF
        (member.client, "GET", "/api/v1/me", {}),
        (member.client, "GET", f"/api/v1/armies/{army_id}", {}),
        (visitor, "GET", "/api/v1/me", {}),  # the API, not logged in: a 401
        (visitor, "GET", "/api/v1/rulesets", {}),  # the public, stateless API
        (visitor, "GET", "/api/v1/brikwars/catalogue", {}),
        (visitor, "GET", "/api/v1/openapi.json", {}),
        (visitor, "GET", "/login", {}),  # sets the visitor's form cookie (its CSRF token)
    ):
        r = client.request(method, url, headers=headers, follow_redirects=False)
        assert r.status_code < 500, url
        assert r.headers.get("cache-control") == "no-store", (method, url, headers)


def test_visitors_pages_and_static_files_keep_their_caching(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    csrf = {"X-CSRF-Token": member.csrf}
    army_id = member.client.post(
        "/api/v1/armies", json={"name": "A", "budget": 100}, headers=csrf
    ).json()["id"]
    token = member.client.post(f"/api/v1/armies/{army_id}/share-links", headers=csrf).json()
    for client in (TestClient(app), member.client):
        css = client.get("/static/css/app.css")
        assert css.status_code == 200 and "cache-control" not in css.headers
        assert "etag" in css.headers or "last-modified" in css.headers
        icon = client.get("/favicon.ico")  # a route's own value wins
        assert icon.headers["cache-control"] == "public, max-age=86400"
    visitor = TestClient(app)
    first = visitor.get("/")  # sets the visitor's form cookie: kept in no cache
    assert first.headers["set-cookie"] and first.headers["cache-control"] == "no-store"
    for url in ("/", "/calculator"):  # then the same for every visitor: left cacheable
        page = visitor.get(url)
        assert page.status_code == 200 and "set-cookie" not in page.headers, url
        assert "cache-control" not in page.headers, url
    shared = visitor.get(f"/shared/{token['token']}")  # revocable: only the browser keeps it
    assert shared.status_code == 200 and shared.headers["cache-control"] == "private, no-cache"
