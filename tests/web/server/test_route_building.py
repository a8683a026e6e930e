"""Every route is built when the app is, not by the first request that reaches it."""

from __future__ import annotations

from typing import Any

import fastapi.routing
import pytest
from fastapi.testclient import TestClient

from app.main import build_routes, create_app
from app.settings import get_settings


def test_no_request_builds_a_route(monkeypatch: pytest.MonkeyPatch) -> None:
    """Building a router's routes held the event loop 80-150 ms on the first request after
    a start (FastAPI builds them lazily): /healthz waited behind it."""
    app = create_app(get_settings())
    built: list[str] = []
    real = fastapi.routing._populate_api_route_state

    def counting(route: Any, path: str, *args: Any, **kwargs: Any) -> Any:
        built.append(path)
        return real(route, path, *args, **kwargs)

    monkeypatch.setattr(fastapi.routing, "_populate_api_route_state", counting)
    with TestClient(app) as client:
        for path in ("/healthz", "/login", "/api/v1/brikwars/catalogue", "/api/v1/rulesets"):
            assert client.get(path).status_code == 200
        assert client.get("/api/v1/armies").status_code == 401
    assert built == []
    build_routes(app.router.routes)  # and building again is free
    assert built == []


def test_the_start_up_heap_is_out_of_the_collectors_reach() -> None:
    """A full garbage collection walked every object start-up made (some 200,000: tens of
    ms, hundreds on a busy machine) and stalled every request in flight on that worker."""
    import gc

    create_app(get_settings())
    assert gc.get_freeze_count() > 50_000  # frozen: a full collection walks only the rest
    # and a young collection waits for 20,000 new objects, not 700 (a request's temporaries
    # are gone by then, rather than walked and promoted)
    assert gc.get_threshold() == (20_000, 50, 20)
