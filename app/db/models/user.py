"""Accounts, personal API tokens and the login-failure log used for throttling."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.db.base import Base, TimestampMixin, UTCDateTime, utcnow

if TYPE_CHECKING:
    from app.db.models.army import Army


class User(TimestampMixin, Base):
    __tablename__ = "user_account"

    id: Mapped[int] = mapped_column(primary_key=True)
    # Stored lower-cased so uniqueness is case-insensitive on both databases.
    email: Mapped[str] = mapped_column(String(254), unique=True)
    display_name: Mapped[str] = mapped_column(String(120))
    password_hash: Mapped[str] = mapped_column(String(255))
    # The rows the account holds, kept by ``quotas.rows`` in the same transaction as each
    # insert and delete (no COUNT over the account's armies): its armies' units and their
    # weapons, and its battles' log entries (whoever wrote them).
    held_units: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    held_weapons: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    held_entries: Mapped[int] = mapped_column(Integer, default=0, server_default="0")

    armies: Mapped[list[Army]] = relationship(
        back_populates="owner", lazy="raise", cascade="all, delete-orphan", passive_deletes=True
    )
    api_tokens: Mapped[list[ApiToken]] = relationship(
        back_populates="user", lazy="raise", cascade="all, delete-orphan", passive_deletes=True
    )


class ApiToken(Base):
    """A personal token for the JSON API; only its SHA-256 is kept."""

    __tablename__ = "api_token"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(
        ForeignKey("user_account.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(120))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)

    user: Mapped[User] = relationship(back_populates="api_tokens", lazy="raise")


class LoginFailure(Base):
    """One failed login; rows older than the throttling window are pruned."""

    __tablename__ = "login_failure"
    __table_args__ = (
        Index("ix_login_failure_email_created_at", "email", "created_at"),
        Index("ix_login_failure_client_address_created_at", "client_address", "created_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(254))
    client_address: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class UserSession(Base):
    """A logged-in browser: the cookie holds a random token, only its SHA-256 is kept.

    Deleting the row logs that browser out (logout, "log out everywhere", a password
    change); a row past ``expires_at`` is refused.
    """

    __tablename__ = "user_session"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(
        ForeignKey("user_account.id", ondelete="CASCADE"), index=True
    )
    csrf_token: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)
    # What the account page shows to tell sessions apart (truncated on the way in).
    user_agent: Mapped[str] = mapped_column(String(200), default="")
    client_address: Mapped[str] = mapped_column(String(64), default="")


class SignupAttempt(Base):
    """One sign-up from a client address; rows older than the throttling window are pruned."""

    __tablename__ = "signup_attempt"
    __table_args__ = (
        Index("ix_signup_attempt_client_address_created_at", "client_address", "created_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    client_address: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
