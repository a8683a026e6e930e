"""The engine's settings for running behind a connection pooler, and the app's pools."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from sqlalchemy import event, text

from app.db import session as session_module
from app.db.session import make_engine
from tests.conftest import TEST_DATABASE_URL


def _prepared_after_repeats(url: str, *, prepared_statements: bool) -> int:
    """Run one query ten times on one connection; how many statements the server kept."""
    engine = make_engine(url, prepared_statements=prepared_statements)
    try:
        with engine.connect() as conn:
            for _ in range(10):
                conn.execute(text("SELECT count(*) FROM user_account")).scalar_one()
            if engine.dialect.name != "postgresql":
                return 0  # SQLite: in process, nothing kept on a server
            return int(conn.execute(text("SELECT count(*) FROM pg_prepared_statements")).scalar())
    finally:
        engine.dispose()


def test_prepared_statements_can_be_turned_off_for_a_transaction_pooler(migrated: str) -> None:
    # PgBouncer in transaction mode (before 1.21) hands the next transaction another server
    # connection, where a statement psycopg prepared on this one does not exist.
    assert _prepared_after_repeats(migrated, prepared_statements=False) == 0
    on = _prepared_after_repeats(migrated, prepared_statements=True)
    assert on == (1 if migrated.startswith("postgresql") else 0)


def test_a_connection_is_tested_only_after_sitting_idle(migrated: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    engine = make_engine(migrated)
    tested = []
    real = engine.dialect.do_ping
    monkeypatch.setattr(engine.dialect, "do_ping", lambda c: tested.append(c) or real(c))
    try:
        for _ in range(5):  # in steady use: no test, no extra round trip
            with engine.connect() as conn:
                conn.execute(text("SELECT 1"))
        assert tested == []
        monkeypatch.setattr(session_module, "PING_AFTER_IDLE_SECONDS", 0.0)
        with engine.connect() as conn:  # idle "long enough": tested first (a server's)
            conn.execute(text("SELECT 1"))
        assert len(tested) == (1 if engine.dialect.name == "postgresql" else 0)
    finally:
        engine.dispose()


@pytest.mark.skipif(not TEST_DATABASE_URL.startswith("postgresql"), reason="a server to restart")
def test_a_pooled_connection_the_server_dropped_is_replaced_before_use(
    migrated: str, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    engine = make_engine(migrated)
    admin = make_engine(migrated)
    try:
        with engine.connect() as conn:
            pid = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
        with admin.connect() as other:  # as a restart or an idle timeout would
            other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        monkeypatch.setattr(session_module, "PING_AFTER_IDLE_SECONDS", 0.0)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT pg_backend_pid()")).scalar_one() != pid
    finally:
        engine.dispose()
        admin.dispose()


def test_a_busy_pool_opens_no_connection_past_its_size(app: Any) -> None:
    # A connection opened past the pool's size at a peak is closed as soon as it comes back:
    # under sustained load that was a new PostgreSQL server process every dozen requests.
    # Past its size, a request waits for a pooled connection instead.
    for engine in (app.state.engine, app.state.bookkeeping_engine):
        opened: list[object] = []

        def count(*_: object, opened: list[object] = opened) -> None:
            opened.append(None)

        def work(engine: Any = engine) -> None:
            for _ in range(15):
                with engine.connect() as conn:
                    conn.execute(text("SELECT 1"))
                    time.sleep(0.002)  # held a while, as a request holds it

        already = engine.pool.checkedin()
        event.listen(engine, "connect", count)
        try:
            threads = [threading.Thread(target=work) for _ in range(3 * engine.pool.size())]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        finally:
            event.remove(engine, "connect", count)
        assert already + len(opened) <= engine.pool.size()
        assert engine.pool.checkedout() == 0
