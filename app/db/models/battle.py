"""Battles: units of several armies brought together, their state, and the log of every roll.

A battle has sides (``BattleSide``): each one army's units, played by a player or, when it has
none, by the battle's owner (the host, who may play every side). Players join by an invitation
(``BattleInvite``: a link, or one to a club member).

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
    # "free" (anyone acts for their side) or "turns" (sides in order, ``turn_side_id``'s now;
    # ``round`` counts from 1 when turns begin, 0 before). Changed only by logged entries
    # (End turn, the host's mode), which keep them before and after for Undo.
    mode: Mapped[str] = mapped_column(String(8), default="free", server_default="free")
    round: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # (no foreign key: see the turns migration; a side goes only with its battle)
    turn_side_id: Mapped[int | None] = mapped_column(Integer, default=None)

    sides: Mapped[list[BattleSide]] = relationship(
        lazy="raise",
        order_by="BattleSide.position",
        cascade="all, delete-orphan",
        passive_deletes=True,
    )
    units: Mapped[list[BattleUnit]] = relationship(
        back_populates="battle",
        lazy="raise",
        order_by="BattleUnit.position",
        cascade="all, delete-orphan",
        passive_deletes=True,
    )


class BattleSide(Base):
    """One side of a battle: one army's units, and who plays it."""

    __tablename__ = "battle_side"
    __table_args__ = (UniqueConstraint("battle_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    # (no index of its own: the unique (battle_id, position) serves lookups by battle)
    battle_id: Mapped[int] = mapped_column(ForeignKey("battle.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(120))
    # The player who acts for it; None: the host (the battle's owner) plays it. A removed
    # player's side stays, None again.
    player_id: Mapped[int | None] = mapped_column(
        ForeignKey("user_account.id", ondelete="SET NULL"), index=True, default=None
    )
    # The army its units were copied from (None once that army is deleted, or for a side of
    # units picked from several armies).
    army_id: Mapped[int | None] = mapped_column(
        ForeignKey("army.id", ondelete="SET NULL"), index=True, default=None
    )
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class BattleInvite(Base):
    """An invitation to play a side: a link (only the SHA-256 of its token is kept), or one
    to a club member (``invited_user_id``, no token), who accepts it from their battles."""

    __tablename__ = "battle_invite"

    id: Mapped[int] = mapped_column(primary_key=True)
    battle_id: Mapped[int] = mapped_column(ForeignKey("battle.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), unique=True, default=None)
    invited_user_id: Mapped[int | None] = mapped_column(
        ForeignKey("user_account.id", ondelete="CASCADE"), index=True, default=None
    )
    created_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("user_account.id", ondelete="SET NULL"), default=None
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)


class BattleUnit(Base):
    """A copy of a roster unit in a battle, with its state."""

    __tablename__ = "battle_unit"

    id: Mapped[int] = mapped_column(primary_key=True)
    battle_id: Mapped[int] = mapped_column(ForeignKey("battle.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    side_id: Mapped[int] = mapped_column(
        ForeignKey("battle_side.id", ondelete="CASCADE"), index=True
    )
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
    # The side credited with putting it out (the score: ruling P33), set each time an entry
    # puts it out; None when its own side or nobody did. Read only while it is out.
    out_by_side_id: Mapped[int | None] = mapped_column(Integer, default=None)

    battle: Mapped[Battle] = relationship(back_populates="units", lazy="raise")
    # Read with the unit (one join): its name is the unit's side as rulesets see it.
    battle_side: Mapped[BattleSide] = relationship(lazy="joined", innerjoin=True)

    @property
    def side(self) -> str:
        """Its side's name (``Fighter.side``: D20's traps and Degrees' weasels ask it)."""
        return self.battle_side.name

    @property
    def spec(self) -> dict[str, Any]:
        return json.loads(self.spec_json)  # type: ignore[no-any-return]

    @property
    def options(self) -> dict[str, Any]:
        return json.loads(self.options_json)  # type: ignore[no-any-return]


class BattlePresence(Base):
    """When a user last showed they have the battle open (their live stream's heartbeat, or
    an action): "connected" is seen within two heartbeats, on whichever server."""

    __tablename__ = "battle_presence"

    battle_id: Mapped[int] = mapped_column(
        ForeignKey("battle.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(
        ForeignKey("user_account.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    seen_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


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
