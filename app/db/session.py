"""Engine and session factory; SQLite gets WAL and enforced foreign keys."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker


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
    return create_engine(database_url, pool_pre_ping=True, **kwargs)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(bind=engine, expire_on_commit=False, autoflush=True)
