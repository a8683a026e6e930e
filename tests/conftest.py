"""Test set-up shared by every suite.

The database is the one ``DATABASE_URL`` names (a throw-away copy of it, in
fact): a temporary SQLite file by default, or a fresh database created on the
PostgreSQL server that URL points at, dropped when the run ends. Its schema is
made by running the Alembic migrations, never by ``create_all``.
"""

from __future__ import annotations

import os
import re
import secrets
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

_TMP = Path(tempfile.mkdtemp(prefix="brikforge-test-"))
_BASE_URL = os.environ.get("DATABASE_URL", "")


def _throwaway_database_url() -> str:
    if not _BASE_URL.startswith("postgresql"):
        return f"sqlite:///{_TMP / 'test.db'}"
    url = make_url(_BASE_URL).set(drivername="postgresql+psycopg")
    name = f"brikforge_test_{secrets.token_hex(4)}"
    admin = create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return url.set(database=name).render_as_string(hide_password=False)


TEST_DATABASE_URL = _throwaway_database_url()
_EXTRA_DATABASES: list[str] = []


def another_database_url() -> str:
    """One more empty throw-away database on the same engine (dropped at the end)."""
    if not TEST_DATABASE_URL.startswith("postgresql"):
        return f"sqlite:///{_TMP / f'extra-{secrets.token_hex(4)}.db'}"
    url = make_url(TEST_DATABASE_URL)
    name = f"{url.database}_x{secrets.token_hex(3)}"
    admin = create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    _EXTRA_DATABASES.append(name)
    return url.set(database=name).render_as_string(hide_password=False)


# The app and Alembic read the environment through get_settings(): point them at the
# throw-away database and make argon2 cheap (the production cost is tested separately).
os.environ["DATABASE_URL"] = TEST_DATABASE_URL
os.environ["SECRET_KEY"] = "test-secret-key-not-for-production"
os.environ["ARGON2_MEMORY_KIB"] = "1024"
os.environ["ARGON2_TIME_COST"] = "1"
# The suite's own calculator traffic is not abuse, and a busy machine is not a stuck worker:
# the tests of the limits and the deadline set their own.
os.environ["CALC_RATE_PER_MINUTE"] = "1000000"
os.environ["CALC_RATE_BURST"] = "1000000"
os.environ["CALC_DEADLINE_SECONDS"] = "300"
os.environ["BUSY_PAUSE_SECONDS"] = "0"  # (its own test sets it: a refusal answers at once)
# A live stream in the suite's app ends once it has sent what it owes (TestClient reads an
# answer whole); the tests that watch one stay open set their own.
os.environ["LIVE_STREAM_SECONDS"] = "0"
# "Connected" is seen within two heartbeats: a busy CI machine taking more than 30 s between a
# test's action and its read must not see the player drop out (the tests of the window set
# their own).
os.environ["LIVE_HEARTBEAT_SECONDS"] = "300"  # (the most the settings take)

from app.settings import get_settings  # noqa: E402

get_settings.cache_clear()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Drop the throw-away PostgreSQL database."""
    if not TEST_DATABASE_URL.startswith("postgresql"):
        return
    url = make_url(TEST_DATABASE_URL)
    from app.db.session import make_engine

    admin = make_engine(
        url.set(database="postgres").render_as_string(hide_password=False),
        isolation_level="AUTOCOMMIT",
    )
    with admin.connect() as conn:
        for name in [url.database, *_EXTRA_DATABASES]:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def alembic_config(database_url: str = TEST_DATABASE_URL):  # type: ignore[no-untyped-def]
    from alembic.config import Config

    root = Path(__file__).resolve().parent.parent
    cfg = Config(toml_file=str(root / "pyproject.toml"))
    cfg.attributes["database_url"] = database_url
    return cfg


@pytest.fixture(scope="session")
def migrated() -> str:
    """The test database, upgraded to the newest migration."""
    from alembic import command

    command.upgrade(alembic_config(), "head")
    return TEST_DATABASE_URL


@pytest.fixture(scope="session")
def app(migrated: str):  # type: ignore[no-untyped-def]
    from app.main import create_app
    from app.services import compute

    application = create_app(get_settings())
    compute.get_pool().wait_ready()  # worker start-up is not part of any request
    yield application
    application.state.engine.dispose()
    application.state.bookkeeping_engine.dispose()


@pytest.fixture(autouse=True)
def _clean_tables(request: pytest.FixtureRequest) -> Iterator[None]:
    """Empty every table after a test that used the app."""
    engine = request.getfixturevalue("app").state.engine if "app" in request.fixturenames else None
    yield
    if engine is None:
        return
    from app.db.base import Base

    with engine.begin() as conn:
        for table in reversed(Base.metadata.sorted_tables):
            conn.execute(table.delete())


CSRF_RE = re.compile(r'name="csrf_token" value="([^"]+)"')


@pytest.fixture(scope="session")
def live_server(app) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """The app served by uvicorn on a free loopback port, in a thread."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("live server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


def run_coroutine(coro: Any) -> Any:
    """Run a coroutine to its end in a thread of its own: the browser tests' Playwright (sync
    API) leaves an event loop running in this thread, where ``asyncio.run`` refuses."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
