"""A request never waits for a second connection from the pool it holds one of (issue 15).

The saved calculator's rate limit draws on a shared bucket in the database while the request's
own session holds a connection; taken from the same pool, that deadlocked a loaded worker as
soon as every connection was held by a request waiting for another (30 s, then a 500). A
login try (recorded and committed on the side before the password is checked) did the same.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.settings import get_settings
from tests.web.conftest import PASSWORD, sign_up


@pytest.fixture
def one_connection_app(migrated: str) -> Iterator[Any]:
    """The app with one connection in the requests' pool, and none more at a peak."""
    from app.main import create_app

    settings = get_settings().model_copy(
        update={"database_pool_size": 1, "database_max_overflow": 0}
    )
    app = create_app(settings)
    try:
        yield app
    finally:
        app.state.engine.dispose()
        app.state.bookkeeping_engine.dispose()


def test_a_request_holding_the_only_connection_still_draws_its_rate_limit(
    one_connection_app: Any,
) -> None:
    with TestClient(one_connection_app) as client:
        member = sign_up(client)
        # the login lookup opens the request's transaction on the pool's one connection;
        # the rate limit's draw then needs a connection of its own
        r = member.client.get("/calculator?distance=3")
        assert r.status_code == 200, r.text[:300]
        assert one_connection_app.state.engine.pool.size() == 1


def test_a_request_holding_the_only_connection_still_records_a_login_try(
    one_connection_app: Any,
) -> None:
    with TestClient(one_connection_app) as client:
        member = sign_up(client)
        # the login lookup holds the one connection; checking the current password records
        # the try first, committed on the side
        r = member.form(
            "/account/password",
            {"current_password": PASSWORD, "new_password": "another long password"},
            follow_redirects=False,
        )
        assert r.status_code == 303, r.text[:300]
