"""Token buckets in the database: one limit held across every app server and worker.

``take`` is one statement: an upsert that refills the client's bucket by the time since it
was last drawn on, takes up to ``want`` whole tokens, and returns the row only when it took
at least one (``ON CONFLICT ... DO UPDATE ... WHERE``: an empty bucket is left as it is).
Time is the database's clock, so app servers' clocks need not agree. On PostgreSQL the
upsert's row lock orders two servers' draws on one bucket; SQLite has one writer at a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from sqlalchemy import (
    Connection,
    Delete,
    Float,
    Insert,
    Integer,
    Select,
    bindparam,
    delete,
    func,
    select,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql import ColumnElement

from app.db.models import RateLimitBucket

_T = RateLimitBucket.__table__.c


@dataclass(frozen=True)
class Draw:
    """Tokens taken (0: the bucket is empty) and, when none were, seconds until one is back."""

    taken: int
    wait: float = 0.0


def take(connection: Connection, *, key: str, per_minute: int, burst: int, want: int = 1) -> Draw:
    """Take up to ``want`` tokens of ``key``'s bucket (``burst`` at most, ``per_minute`` back
    a minute); none when it holds less than one whole token."""
    rate = per_minute / 60.0
    params = {"key": key, "rate": rate, "burst": float(max(1, burst)), "want": max(1, want)}
    statements = _statements(connection.dialect.name)
    taken = connection.execute(statements.take, params).scalar()
    if taken is not None:
        return Draw(int(taken))
    tokens: float = connection.execute(statements.level, params).scalar_one()
    return Draw(0, (1.0 - tokens) / rate if rate > 0 else 60.0)


def prune(connection: Connection, *, idle_seconds: float) -> int:
    """Forget buckets untouched this long (full again: the same as no row); how many went."""
    statements = _statements(connection.dialect.name)
    done = connection.execute(statements.prune, {"idle": idle_seconds})
    return int(done.rowcount)


class _Statements:
    """The three statements of one dialect, built once (their compiled forms are cached)."""

    def __init__(self, dialect: str) -> None:
        least: Any
        greatest: Any
        insert: Any
        if dialect == "postgresql":
            now: ColumnElement[Any] = func.extract("epoch", func.statement_timestamp())
            least, greatest, insert = func.least, func.greatest, postgresql.insert
        else:  # SQLite: 'now' is fixed for the whole statement, like statement_timestamp()
            now = (func.julianday("now") - 2440587.5) * 86400.0
            least, greatest, insert = func.min, func.max, sqlite.insert
        now = now.cast(Float)
        rate, burst = bindparam("rate", type_=Float), bindparam("burst", type_=Float)
        want = bindparam("want", type_=Integer)
        level = least(burst, _T.tokens + greatest(0.0, now - _T.drawn_at) * rate)
        whole = func.floor(level) if dialect == "postgresql" else level.cast(Integer)
        taken = least(want, whole)
        first = least(want, burst.cast(Integer))
        upsert = insert(RateLimitBucket).values(
            key=bindparam("key"), tokens=burst - first, taken=first, drawn_at=now
        )
        self.take: Insert = upsert.on_conflict_do_update(
            index_elements=[_T.key],
            set_={"tokens": level - taken, "taken": taken, "drawn_at": now},
            where=level >= 1.0,
        ).returning(_T.taken)
        self.level: Select[Any] = select(level).where(_T.key == bindparam("key"))
        self.prune: Delete = delete(RateLimitBucket).where(
            _T.drawn_at < now - bindparam("idle", type_=Float)
        )


@cache
def _statements(dialect: str) -> _Statements:
    return _Statements(dialect)
