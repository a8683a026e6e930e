"""Issue 14 item 3: /docs works without internet (Swagger UI is served by the app), and
there is a favicon."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

REFERENCE = re.compile(r"""(?:src|href)=["']([^"']+)["']""")


def test_docs_reference_only_the_apps_own_files_and_they_are_served(app) -> None:  # type: ignore[no-untyped-def]
    client = TestClient(app)
    page = client.get("/docs")
    assert page.status_code == 200
    assert "swagger-ui" in page.text
    refs = REFERENCE.findall(page.text)
    assert refs, page.text
    for ref in refs:
        assert ref.startswith("/") and not ref.startswith("//"), ref  # nothing from elsewhere
        asset = client.get(ref)
        assert asset.status_code == 200, ref
    assert "/static/vendor/swagger-ui/swagger-ui-bundle.js" in refs
    assert "/static/vendor/swagger-ui/swagger-ui.css" in refs
    assert "http://" not in page.text and "https://" not in page.text
    assert "<script>" not in page.text  # the start-up is a file: the CSP forbids inline script


def test_the_vendored_swagger_ui_carries_its_licence(app) -> None:  # type: ignore[no-untyped-def]
    client = TestClient(app)
    licence = client.get("/static/vendor/swagger-ui/LICENSE")
    assert licence.status_code == 200 and "Apache License" in licence.text


def test_favicon(app, member) -> None:  # type: ignore[no-untyped-def]
    client = TestClient(app)
    icon = client.get("/favicon.ico", follow_redirects=True)
    assert icon.status_code == 200
    assert icon.headers["content-type"].startswith("image/")
    assert "<svg" in icon.text
    page = member.client.get("/armies")
    assert '<link rel="icon" href="/static/favicon.svg"' in page.text
    assert client.get("/static/favicon.svg").status_code == 200
