"""Battles: units of several armies brought together, their state, and the log of every roll.

A battle keeps COPIES of its units (``spec_json``: the engine's ``unit_to_dict``) and of their
armies' house rules, so editing a roster later never rewrites a battle's history. Each log
entry keeps what was asked, the odds it had, every die, and the state of each unit it changed
before and after, so Undo restores exactly; an Undo is an entry of its own, the entry it
undid is kept and marked (``undone_by_seq``), so the log only grows.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.db.base import Base, TimestampMixin, UTCDateTime, utcnow


class Battle(TimestampMixin, Base):
    __tablename__ = "battle"

    id: Mapped[int] = mapped_column(primary_key=True)
    owner_id: Mapped[int] = mapped_column(
        ForeignKey("user_account.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(120))
    # The rule system every unit of the battle was built under (one per battle).
    ruleset_id: Mapped[str] = mapped_column(String(40))
    # The read-only link: only the SHA-256 of its token (None: not shared, or revoked).
    share_token_hash: Mapped[str | None] = mapped_column(String(64), unique=True, default=None)
    # Bumped by every action as its first write: the lock that orders concurrent rolls.
    version: Mapped[int] = mapped_column(Integer, default=1)
    # "open", or "ended" by the End battle action (its log entry: Undo reopens the battle).
    # An ended battle takes no attack or action until then.
    status: Mapped[str] = mapped_column(String(8), default="open", server_default="open")

    units: Mapped[list[BattleUnit]] = relationship(
        back_populates="battle",
        lazy="raise",
        order_by="BattleUnit.position",
        cascade="all, delete-orphan",
        passive_deletes=True,
    )


class BattleUnit(Base):
    """A copy of a roster unit in a battle, with its state."""

    __tablename__ = "battle_unit"

    id: Mapped[int] = mapped_column(primary_key=True)
    battle_id: Mapped[int] = mapped_column(ForeignKey("battle.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    side: Mapped[str] = mapped_column(String(120))
    # Where the copy came from (kept for links; None once the army or unit is deleted).
    army_id: Mapped[int | None] = mapped_column(
        ForeignKey("army.id", ondelete="SET NULL"), index=True, default=None
    )
    unit_id: Mapped[int | None] = mapped_column(
        ForeignKey("unit.id", ondelete="SET NULL"), index=True, default=None
    )
    name: Mapped[str] = mapped_column(String(120))
    spec_json: Mapped[str] = mapped_column(Text)
    options_json: Mapped[str] = mapped_column(Text)
    # The unit's state in the battle, as its ruleset's engine writes it (BrikWars:
    # ``battle_state.state_to_dict``). Unit ids inside it are plain ids of this battle's units.
    state: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)

    battle: Mapped[Battle] = relationship(back_populates="units", lazy="raise")

    @property
    def spec(self) -> dict[str, Any]:
        return json.loads(self.spec_json)  # type: ignore[no-any-return]

    @property
    def options(self) -> dict[str, Any]:
        return json.loads(self.options_json)  # type: ignore[no-any-return]


class BattleEntry(Base):
    """One logged action (an attack, a Burning Roll, a Reload, a Divert All Power)."""

    __tablename__ = "battle_entry"
    __table_args__ = (UniqueConstraint("battle_id", "seq"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    # (no index of its own: the unique (battle_id, seq) serves lookups by battle)
    battle_id: Mapped[int] = mapped_column(ForeignKey("battle.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    actor_id: Mapped[int | None] = mapped_column(
        ForeignKey("user_account.id", ondelete="SET NULL"), default=None
    )
    kind: Mapped[str] = mapped_column(String(16))
    seed: Mapped[int | None] = mapped_column(BigInteger, default=None)
    summary: Mapped[str] = mapped_column(String(500))
    # JSON texts: what was asked, the odds it had, every die, and the state changes.
    request_json: Mapped[str] = mapped_column(Text, default="{}")
    odds_json: Mapped[str] = mapped_column(Text, default="null")
    dice_json: Mapped[str] = mapped_column(Text, default="[]")
    changes_json: Mapped[str] = mapped_column(Text, default="{}")
    # The number of the undo entry that took this one back (None: it stands). The log only
    # grows: an undone entry stays, shown struck through (ruling P20).
    undone_by_seq: Mapped[int | None] = mapped_column(Integer, default=None)

    @property
    def request(self) -> dict[str, Any]:
        return json.loads(self.request_json)  # type: ignore[no-any-return]

    @property
    def odds(self) -> Any:
        return json.loads(self.odds_json)

    @property
    def dice(self) -> list[dict[str, Any]]:
        return json.loads(self.dice_json)  # type: ignore[no-any-return]

    @property
    def changes(self) -> dict[str, dict[str, Any]]:
        return json.loads(self.changes_json)  # type: ignore[no-any-return]
