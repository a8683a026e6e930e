"""The request's database session keeps a route's writes only when it answers below 400."""

from __future__ import annotations

from collections.abc import Iterator

import anyio.to_thread
import pytest
from fastapi import APIRouter, FastAPI, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from starlette.routing import BaseRoute

from app.db.base import utcnow
from app.db.models import LoginFailure
from app.web.deps import SessionDep, SessionRoute, get_session


def _write(session: SessionDep) -> None:
    session.add(LoginFailure(email="x@example.com", client_address="test", created_at=utcnow()))
    session.flush()


@pytest.fixture
def probe(app) -> Iterator[tuple[TestClient, FastAPI]]:  # type: ignore[no-untyped-def]
    """A small app on the test database whose routes write a row, then answer."""
    router = APIRouter(route_class=SessionRoute)

    @router.post("/{status:int}")
    def answer(session: SessionDep, status: int) -> Response:
        _write(session)
        return Response(status_code=status)

    @router.post("/raise")
    def fail(session: SessionDep) -> Response:
        _write(session)
        raise RuntimeError("after a flush")

    probe_app = FastAPI()
    probe_app.state.sessionmaker = app.state.sessionmaker
    probe_app.include_router(router)
    with TestClient(probe_app, raise_server_exceptions=False) as client:
        yield client, app


def _rows(app) -> int:  # type: ignore[no-untyped-def]
    with app.state.sessionmaker() as s:
        return s.scalar(select(func.count()).select_from(LoginFailure)) or 0


@pytest.mark.parametrize("status", [400, 404, 409, 422, 429])
def test_an_error_answer_after_a_flush_leaves_nothing_written(probe, status) -> None:  # type: ignore[no-untyped-def]
    client, app = probe
    assert client.post(f"/{status}").status_code == status
    assert _rows(app) == 0


def test_an_exception_after_a_flush_leaves_nothing_written(probe) -> None:  # type: ignore[no-untyped-def]
    client, app = probe
    assert client.post("/raise").status_code == 500
    assert _rows(app) == 0


@pytest.mark.parametrize("status", [200, 201, 204, 303])
def test_a_successful_answer_commits(probe, status) -> None:  # type: ignore[no-untyped-def]
    client, app = probe
    assert client.post(f"/{status}").status_code == status
    assert _rows(app) == 1


def _uses_session(dependant: Dependant) -> bool:
    return any(d.call is get_session or _uses_session(d) for d in dependant.dependencies)


def _api_routes(routes: list[BaseRoute]) -> Iterator[tuple[APIRoute, Dependant]]:
    """Each route as served: with the dependencies its router was included with (a page
    router's CSRF check reads the login, and so the session)."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route, route.dependant
        candidates = getattr(route, "effective_candidates", None)  # an included router
        if callable(candidates):
            for served in candidates():
                yield served.original_route, served.dependant


def test_every_route_with_a_session_opens_it_and_decides_its_fate_by_its_answer(app) -> None:  # type: ignore[no-untyped-def]
    """``SessionRoute`` opens the session its dependencies read (``get_session``)."""
    routes = [r for r, dependant in _api_routes(app.routes) if _uses_session(dependant)]
    assert len(routes) > 50
    assert "/docs" in {r.path for r in routes}  # (by its router's CSRF check alone)
    assert [r.path for r in routes if not isinstance(r, SessionRoute)] == []


@pytest.fixture
def async_probe(app) -> Iterator[tuple[TestClient, FastAPI]]:  # type: ignore[no-untyped-def]
    """Async routes: their session is left open by the route and finished by the dependency."""
    router = APIRouter(route_class=SessionRoute)

    @router.post("/async/{status:int}")
    async def answer(session: SessionDep, status: int) -> Response:
        await run_in_threadpool(_write, session)
        return Response(status_code=status)

    probe_app = FastAPI()
    probe_app.state.sessionmaker = app.state.sessionmaker
    probe_app.include_router(router)
    with TestClient(probe_app, raise_server_exceptions=False) as client:
        yield client, app


@pytest.mark.parametrize(("status", "kept"), [(201, 1), (422, 0)])
def test_an_async_route_s_session_is_finished_by_its_answer(async_probe, status, kept) -> None:  # type: ignore[no-untyped-def]
    client, app = async_probe
    assert client.post(f"/async/{status}").status_code == status
    assert _rows(app) == kept


def test_a_page_takes_one_trip_to_the_thread_pool_and_a_change_two(member, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Each trip is a thread switch and two hand-overs of the GIL, a tenth of a page's CPU
    under load. A page looks its login up in the route's own trip, which also ends the
    request's transaction; a change checks its login (and CSRF token) before the route."""
    r = member.client.post(
        "/api/v1/armies",
        json={"name": "Trips", "budget": 100},
        headers={"X-CSRF-Token": member.csrf},
    )
    assert r.status_code == 201, r.text
    army = r.json()["id"]
    trips = []
    real = anyio.to_thread.run_sync

    async def counted(func, *args, **kwargs):  # type: ignore[no-untyped-def]
        trips.append(getattr(func, "__name__", repr(func)))
        return await real(func, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    assert member.client.get(f"/armies/{army}").status_code == 200
    assert len(trips) == 1, trips
    trips.clear()
    fields = {"name": "Trips II", "budget": "100", "version": str(r.json()["version"])}
    saved = member.form(f"/armies/{army}", fields)
    assert saved.status_code == 200 and "Trips II" in saved.text
    assert len(trips) == 2, trips


def test_a_page_closes_its_read_session_without_a_commit(member, app, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A GET only reads (its session refuses writes): it is closed, its connection back in the
    pool, without a commit's bookkeeping. A change still commits."""
    from sqlalchemy.orm import Session

    commits: list[bool] = []
    real = Session.commit

    def counted(self: Session) -> None:
        commits.append(bool(self.info.get("brikforge.read_only")))
        real(self)

    monkeypatch.setattr(Session, "commit", counted)
    r = member.client.post(
        "/api/v1/armies",
        json={"name": "Reads", "budget": 100},
        headers={"X-CSRF-Token": member.csrf},
    )
    assert r.status_code == 201 and commits == [False]
    commits.clear()
    pool = app.state.read_sessionmaker.kw["bind"].pool
    for path in (f"/armies/{r.json()['id']}", "/armies", f"/api/v1/armies/{r.json()['id']}"):
        assert member.client.get(path).status_code == 200, path
        assert pool.checkedout() == 0, path
    assert commits == []
