"""Clients and users for the web tests."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from fastapi.testclient import TestClient

from tests.conftest import CSRF_RE

_counter = itertools.count(1)
PASSWORD = "correct horse battery"


@dataclass
class Member:
    """A registered user with a logged-in browser-like client."""

    client: TestClient
    email: str
    csrf: str

    def form(self, url: str, data: dict[str, str] | None = None, **kw):  # type: ignore[no-untyped-def]
        """POST a page form with the CSRF token, as the browser would."""
        return self.client.post(url, data={"csrf_token": self.csrf, **(data or {})}, **kw)

    def htmx(self, url: str, data: dict[str, str] | None = None, **kw):  # type: ignore[no-untyped-def]
        """POST as htmx does: header token and HX-Request."""
        headers = {"HX-Request": "true", "X-CSRF-Token": self.csrf}
        return self.client.post(url, data=data or {}, headers=headers, **kw)


def page_csrf(client: TestClient, url: str = "/login") -> str:
    match = CSRF_RE.search(client.get(url).text)
    assert match, f"no CSRF token on {url}"
    return match.group(1)


def sign_up(client: TestClient, email: str | None = None, name: str = "Player") -> Member:
    email = email or f"player{next(_counter)}@example.com"
    token = page_csrf(client, "/register")
    r = client.post(
        "/register",
        data={"csrf_token": token, "email": email, "password": PASSWORD, "display_name": name},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    return Member(client=client, email=email, csrf=page_csrf(client, "/account"))


@pytest.fixture
def client(app) -> Iterator[TestClient]:  # type: ignore[no-untyped-def]
    with TestClient(app, base_url="http://testserver") as c:
        yield c


@pytest.fixture
def member(app) -> Iterator[Member]:  # type: ignore[no-untyped-def]
    with TestClient(app) as c:
        yield sign_up(c, name="Alice")


@pytest.fixture
def stranger(app) -> Iterator[Member]:  # type: ignore[no-untyped-def]
    with TestClient(app) as c:
        yield sign_up(c, name="Mallory")
