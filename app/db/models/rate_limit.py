"""Token buckets shared by every app server: one row per bucket and client."""

from __future__ import annotations

from sqlalchemy import Float, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base


class RateLimitBucket(Base):
    """A client's bucket: tokens left when last drawn on, and when (the database's clock).

    Disposable state: on PostgreSQL the table is UNLOGGED (no WAL, emptied after a crash,
    which only ever errs towards serving). A row idle long enough to be full again is pruned.
    """

    __tablename__ = "rate_limit_bucket"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    tokens: Mapped[float] = mapped_column(Float)
    # How many the last draw took (a server may take several at once to spend locally).
    taken: Mapped[int] = mapped_column(Integer)
    # Seconds since the epoch by the database's clock, so servers' clocks need not agree.
    drawn_at: Mapped[float] = mapped_column(Float, index=True)
