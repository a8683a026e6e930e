"""Engine and session factory; SQLite gets WAL and enforced foreign keys."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Connection, Engine, TextClause, create_engine, event, exc
from sqlalchemy.orm import ORMExecuteState, Session, sessionmaker

# A pooled connection idle this long is tested before use (the server may have restarted, or
# a firewall dropped it); one in steady use is not: a test on every checkout was a round trip
# on every request.
PING_AFTER_IDLE_SECONDS = 10.0


def make_engine(database_url: str, *, prepared_statements: bool = True, **kwargs: Any) -> Engine:
    """Create the engine for a URL; a SQLite file's folder is created if missing.

    ``prepared_statements=False`` stops psycopg preparing the queries it runs often, for a
    pooler that hands each transaction a different server connection (PgBouncer before
    1.21, or without ``max_prepared_statements``); SQLite ignores it.
    """
    if database_url.startswith("sqlite"):
        from pathlib import Path

        from sqlalchemy.engine import make_url

        db_path = make_url(database_url).database
        if db_path and db_path != ":memory:":
            Path(db_path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            database_url, connect_args={"check_same_thread": False, "timeout": 15}, **kwargs
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    if database_url.startswith("postgresql://"):
        database_url = database_url.replace("postgresql://", "postgresql+psycopg://", 1)
    if not prepared_statements:
        kwargs["connect_args"] = {**kwargs.get("connect_args", {}), "prepare_threshold": None}
    engine = create_engine(database_url, **kwargs)
    ping_when_idle(engine)
    return engine


def ping_when_idle(engine: Engine) -> None:
    """Test a connection on checkout only if it sat in the pool ``PING_AFTER_IDLE_SECONDS``
    or more; a dead one is replaced before the request sees it (the pool retries checkout on
    ``DisconnectionError``). A connection that dies while in steady use fails the statement
    that finds it, and the pool then drops every connection made before it."""

    def note(_dbapi_connection: Any, record: Any, *_: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    def ping(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        if time.monotonic() - record.info.get("idle_since", 0.0) < PING_AFTER_IDLE_SECONDS:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as err:
            raise exc.DisconnectionError(f"a pooled connection failed its test: {err}") from err

    event.listen(engine, "connect", note)
    event.listen(engine, "checkin", note)
    event.listen(engine, "checkout", ping)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


# Session.info key: the engine for a request's bookkeeping (``bookkeeping_bind``).
BOOKKEEPING = "brikforge.bookkeeping"


def make_sessionmaker(
    engine: Engine, *, bookkeeping: Engine | None = None
) -> sessionmaker[Session]:
    """Sessions on ``engine``; what they must commit on the side goes to ``bookkeeping``."""
    info = {BOOKKEEPING: bookkeeping} if bookkeeping is not None else {}
    return sessionmaker(bind=engine, expire_on_commit=False, autoflush=True, info=info)


def bookkeeping_bind(session: Session) -> Engine | Connection:
    """Where a record that must be committed on the side (a login try) is written: a pool
    of its own, never the one ``session`` holds a connection of. Taken from the same pool,
    requests that each held one connection and waited for a second emptied it: the pool
    waited 30 s, then answered 503."""
    return session.info.get(BOOKKEEPING) or session.get_bind()


# Session.info key: the session only reads (a GET's); a write through it raises.
READ_ONLY = "brikforge.read_only"


class WriteInReadOnlySession(RuntimeError):
    """A read-only session (a GET's) was asked to write: a bug, answered as a 500."""


def make_read_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    """Sessions for requests that only read (GET and HEAD).

    On PostgreSQL each statement commits by itself: no BEGIN and no COMMIT, two round trips
    of a page's five, and what the reads see is unchanged (under READ COMMITTED every
    statement takes a fresh snapshot, in a transaction or not). SQLite is left as it is: its
    driver begins no transaction for a read anyway. Either way a write through one raises
    ``WriteInReadOnlySession``: a GET changes nothing, and one that did would not be one
    transaction.
    """
    if engine.dialect.name == "postgresql":
        engine = engine.execution_options(isolation_level="AUTOCOMMIT")
    return sessionmaker(bind=engine, expire_on_commit=False, autoflush=True, info={READ_ONLY: True})


def make_live_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    """Read-only sessions for the live hub (``app.web.live``), on an engine of its own.

    On PostgreSQL each is one REPEATABLE READ transaction: a battle's log, version and units
    read in one snapshot (read one statement at a time, a commit between two of them made
    a battle's newest entry look taken back: a ``reload`` repeating its number). A read-only
    transaction never fails to serialize. SQLite: as ``make_read_sessionmaker``.
    """
    if engine.dialect.name == "postgresql":
        engine = engine.execution_options(isolation_level="REPEATABLE READ")
    return sessionmaker(bind=engine, expire_on_commit=False, autoflush=True, info={READ_ONLY: True})


def _is_read(state: ORMExecuteState) -> bool:
    statement = state.statement
    if isinstance(statement, TextClause):
        return statement.text.lstrip()[:6].upper() == "SELECT"
    return state.is_select


def _refuse_writes(state: ORMExecuteState) -> None:
    if state.session.info.get(READ_ONLY) and not _is_read(state):
        raise WriteInReadOnlySession(f"a read-only session was asked to run {state.statement}")


def _refuse_flushes(session: Session, *_: object) -> None:
    if session.info.get(READ_ONLY) and (session.new or session.dirty or session.deleted):
        raise WriteInReadOnlySession("a read-only session was asked to flush changes")


event.listen(Session, "do_orm_execute", _refuse_writes)
event.listen(Session, "before_flush", _refuse_flushes)
