"""A GET's login is looked up in the route's own thread (``deps.LATER_LOGIN``): one trip to
the thread pool instead of two, and every answer still knows who is logged in."""

from __future__ import annotations

import anyio.to_thread
import pytest
from fastapi.testclient import TestClient

from tests.web.conftest import CSRF_RE, Member, sign_up


@pytest.fixture
def army(member: Member) -> int:
    r = member.client.post(
        "/api/v1/armies", json={"name": "Trips", "budget": 9}, headers={"X-CSRF-Token": member.csrf}
    )
    return int(r.json()["id"])


def _trips(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = anyio.to_thread.run_sync

    async def counted(func, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(getattr(func, "__name__", repr(func)))
        return await real(func, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    return seen


LOGGED_IN = 'action="/logout"'  # the navigation's "Log out" form


@pytest.mark.parametrize("path", ["/armies/{army}", "/armies", "/api/v1/armies/{army}"])
def test_a_logged_in_get_looks_its_login_up_in_the_routes_own_trip(
    member: Member, army: int, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    trips = _trips(monkeypatch)
    r = member.client.get(path.format(army=army))
    assert r.status_code == 200 and "Trips" in r.text
    assert "_find_login" not in trips, trips
    if not path.startswith("/api/"):  # one trip, and the page is the member's (their token)
        assert len(trips) == 1, trips
        assert LOGGED_IN in r.text and set(CSRF_RE.findall(r.text)) == {member.csrf}


def test_a_post_still_checks_its_login_before_the_route(member: Member, army: int) -> None:
    r = member.client.post(
        f"/armies/{army}", data={"name": "Renamed", "budget": "9", "version": "999"}
    )
    assert r.status_code == 403  # no CSRF token: refused before the route, login known


def test_an_error_before_the_route_still_knows_who_is_logged_in(
    member: Member, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.services.errors import RateLimited
    from app.web import ratelimit

    class Refusing:
        async def take(self, address: str) -> None:
            raise RateLimited(7)

    monkeypatch.setattr(ratelimit, "_calculator_limit", lambda request: Refusing())
    r = member.client.get("/calculator?distance=3")  # refused by a dependency: the route never ran
    assert r.status_code == 429 and r.headers["retry-after"] == "7"
    assert LOGGED_IN in r.text and set(CSRF_RE.findall(r.text)) == {member.csrf}


def test_an_ended_login_is_sent_to_log_in(app, member: Member, army: int) -> None:  # type: ignore[no-untyped-def]
    with TestClient(app) as other:
        other.cookies.update(member.client.cookies)
        assert other.get(f"/armies/{army}").status_code == 200
        assert member.client.post("/logout", data={"csrf_token": member.csrf}).status_code in (
            200,
            303,
        )
        page = other.get(f"/armies/{army}", follow_redirects=False)
        assert page.status_code == 303 and page.headers["location"].startswith("/login")
        assert other.get(f"/api/v1/armies/{army}").status_code == 401
        home = other.get("/")
        assert home.status_code == 200 and LOGGED_IN not in home.text


def test_a_visitor_page_shows_the_member_who_is_logged_in(app) -> None:  # type: ignore[no-untyped-def]
    with TestClient(app) as c:
        member = sign_up(c, name="Zelda")
        for path in ("/", "/glossary", "/calculator/open"):
            r = member.client.get(path)
            assert r.status_code == 200 and LOGGED_IN in r.text, path
            assert set(CSRF_RE.findall(r.text)) == {member.csrf}, path


def _calls(dependant) -> set:  # type: ignore[no-untyped-def]
    out = set()
    for sub in dependant.dependencies:
        out.add(sub.call)
        out |= _calls(sub)
    return out


def test_only_the_login_dependencies_ever_see_a_placeholder(app) -> None:  # type: ignore[no-untyped-def]
    """A dependency that needs the login before the route would get a ``LATER_*``
    placeholder on a GET: only those that pass it on to the route (or, as the CSRF check,
    never read it on a GET) may depend on the login."""
    from fastapi.routing import APIRoute

    from app.web import deps
    from app.web.csrf import csrf_protect, page_csrf_protect

    passing_on = {
        deps.optional_user,
        deps.current_user,
        deps.api_user,
        csrf_protect,
        page_csrf_protect,
    }

    def needs_login(dependant) -> bool:  # type: ignore[no-untyped-def]
        return any(
            sub.call is deps.login_session or needs_login(sub) for sub in dependant.dependencies
        )

    def routes(items):  # type: ignore[no-untyped-def]
        for item in items:
            if isinstance(item, APIRoute):
                yield item
            inner = getattr(item, "original_router", None) or item
            if inner is not item or hasattr(item, "routes"):
                yield from routes(getattr(inner, "routes", []))

    checked = 0
    for route in routes(app.router.routes):
        stack = list(route.dependant.dependencies)
        while stack:
            dep = stack.pop()
            stack.extend(dep.dependencies)
            if dep.call is not deps.login_session and needs_login(dep):
                assert dep.call in passing_on, (route.path, dep.call)
                checked += 1
    assert checked > 100  # (every page and API route was walked)
