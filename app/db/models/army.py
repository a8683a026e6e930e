"""An army: a named roster under one ruleset, owned by one user."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.db.base import Base, TimestampMixin, UTCDateTime, utcnow

if TYPE_CHECKING:
    from app.db.models.unit import Unit
    from app.db.models.user import User


def new_rows_stamp() -> int:
    """A fresh army rows stamp (62 random bits: fits a signed BIGINT everywhere)."""
    return secrets.randbits(62)


class Army(TimestampMixin, Base):
    __tablename__ = "army"
    # A club's rosters are listed by name: the index hands them over in order, a page at a time.
    __table_args__ = (Index("ix_army_club_id_name", "club_id", "name", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    owner_id: Mapped[int] = mapped_column(
        ForeignKey("user_account.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(120))
    ruleset_id: Mapped[str] = mapped_column(String(32))
    budget: Mapped[int] = mapped_column(Integer)
    notes: Mapped[str] = mapped_column(Text, default="")
    # The rule options (house rules) the army is built under, as the ruleset's to_dict().
    house_rules: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict, server_default="{}")
    # Shared with one club (members read; organisers and chosen editors edit), or private.
    club_id: Mapped[int | None] = mapped_column(
        ForeignKey("club.id", ondelete="SET NULL"), index=True, default=None
    )
    # Optimistic locking: every UPDATE checks and bumps it (StaleDataError on a race).
    version: Mapped[int] = mapped_column(Integer, default=1)
    # The total cost as its ruleset computes it, kept by every recorded change (history.record)
    # so the club search filters by cost in SQL. A float: the exact cost is always computed
    # from the units for display; None until first computed (or under an unknown ruleset).
    cost: Mapped[float | None] = mapped_column(Float, default=None)
    # The same cost exactly, as text ("7/2"): a unit's change adds its difference to it
    # (history.record) without costing the other units. None until first computed.
    cost_exact: Mapped[str | None] = mapped_column(Text, default=None)
    # Drawn anew by every recorded change (history.record): the key under which each server
    # keeps the army's computed units (services.builder.stored_view). Random, not counted: a change
    # rolled back, or an id SQLite hands out again, never brings back a stamp that named
    # other units.
    rows_stamp: Mapped[int] = mapped_column(BigInteger, default=new_rows_stamp, server_default="0")

    owner: Mapped[User] = relationship(back_populates="armies", lazy="raise")
    units: Mapped[list[Unit]] = relationship(
        back_populates="army",
        lazy="raise",
        order_by="Unit.position",
        cascade="all, delete-orphan",
        passive_deletes=True,
    )

    __mapper_args__ = {"version_id_col": version}  # noqa: RUF012


class ArmyEditor(Base):
    """A club member the owner chose to let edit the army (organisers always may)."""

    __tablename__ = "army_editor"
    __table_args__ = (UniqueConstraint("army_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    army_id: Mapped[int] = mapped_column(ForeignKey("army.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(
        ForeignKey("user_account.id", ondelete="CASCADE"), index=True
    )


class ShareLink(Base):
    """A read-only link to an army; only the SHA-256 of its token is kept."""

    __tablename__ = "share_link"

    id: Mapped[int] = mapped_column(primary_key=True)
    army_id: Mapped[int] = mapped_column(ForeignKey("army.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)


class ArmyRevision(Base):
    """One saved change: who, when, what in words, and the army as it then stood."""

    __tablename__ = "army_revision"
    __table_args__ = (
        # Stored one way or the other, never both or neither.
        CheckConstraint("(snapshot_json IS NULL) <> (delta_json IS NULL)", name="one_form"),
        # An army's revisions in order: its newest, and a chain of changes, by range.
        Index("ix_army_revision_army_id_id", "army_id", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    army_id: Mapped[int] = mapped_column(ForeignKey("army.id", ondelete="CASCADE"))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("user_account.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    summary: Mapped[str] = mapped_column(String(500))
    # The army's version after this change: a stale edit finds the settings it was made
    # against here (its three-way merge base). None on revisions older than the column.
    army_version: Mapped[int | None] = mapped_column(Integer, default=None)
    # The army as it stood, stored as one of (``app.services.history`` rebuilds either):
    # - the whole export document as JSON text (an army's first revision, and again
    #   whenever the chain of changes since the last whole one grows long or heavy);
    # - the change from the revision ``parent_id`` (the settings if they changed, and the
    #   run of units replaced), on a chain that starts at the whole document of ``base_id``.
    # Plain ids, not foreign keys: a revision only ever goes with its whole army.
    snapshot_json: Mapped[str | None] = mapped_column(Text)
    delta_json: Mapped[str | None] = mapped_column(Text)
    # With a whole document written since: its units' lengths in characters, a JSON list,
    # so that a chain splits it into units without parsing it.
    unit_lengths: Mapped[str | None] = mapped_column(Text)
    parent_id: Mapped[int | None] = mapped_column(Integer)
    base_id: Mapped[int | None] = mapped_column(Integer)
    # The chain so far (0 and 0 on a whole document) and the size of this revision's
    # document: the next change decides from them whether to store itself or a whole
    # document, without rebuilding this one. None on revisions written before them.
    chain_changes: Mapped[int | None] = mapped_column(Integer)
    chain_bytes: Mapped[int | None] = mapped_column(Integer)
    doc_bytes: Mapped[int | None] = mapped_column(Integer)
