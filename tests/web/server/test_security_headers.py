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
