"""Clubs: members with roles, invitations by link, and the rosters shared with them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.db.base import Base, TimestampMixin, UTCDateTime, utcnow

ROLES = ("owner", "organiser", "member")


class Club(TimestampMixin, Base):
    __tablename__ = "club"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    # House rules pinned by the organisers, by ruleset id ({"brikwars": options}): a new army
    # of the club starts with those of its own ruleset.
    house_rules: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict, server_default="{}")

    members: Mapped[list[ClubMember]] = relationship(
        back_populates="club", lazy="raise", cascade="all, delete-orphan", passive_deletes=True
    )


class ClubMember(Base):
    __tablename__ = "club_member"
    __table_args__ = (UniqueConstraint("club_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    club_id: Mapped[int] = mapped_column(ForeignKey("club.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(
        ForeignKey("user_account.id", ondelete="CASCADE"), index=True
    )
    role: Mapped[str] = mapped_column(String(16))
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    club: Mapped[Club] = relationship(back_populates="members", lazy="raise")


class ClubInvite(Base):
    """An invitation link; only the SHA-256 of its token is kept."""

    __tablename__ = "club_invite"

    id: Mapped[int] = mapped_column(primary_key=True)
    club_id: Mapped[int] = mapped_column(ForeignKey("club.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("user_account.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
