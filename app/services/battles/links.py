"""A battle's read-only link (the host's to make and revoke): made, revoked, and followed by
spectators."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import Battle, User
from app.services import live
from app.services.battles.views import LOG_WINDOW, BattleView, view_of
from app.services.errors import NotFound
from app.services.permissions import SPECTATOR, battle_for
from app.services.tokens import digest, new_token


def share_link(session: Session, *, user: User, battle_id: int) -> str:
    """A fresh read-only link token (shown once; an earlier link stops working)."""
    battle = battle_for(session, user=user, battle_id=battle_id, host=True)
    token, hashed = new_token()
    battle.share_token_hash = hashed
    live.access_changed(session, battle_id=battle.id)  # the old link's streams end
    session.flush()
    return token


def revoke_link(session: Session, *, user: User, battle_id: int) -> None:
    """The read-only link stops working at once."""
    battle_for(session, user=user, battle_id=battle_id, host=True).share_token_hash = None
    live.access_changed(session, battle_id=battle_id)  # its streams end, on every server
    session.flush()


def linked_view(
    session: Session, *, token: str, before: int | None = None, limit: int | None = LOG_WINDOW
) -> BattleView:
    """The battle behind a live read-only link (unknown or revoked: NotFound), with a window
    of its log as ``battle_view`` has it, its units' state as others see it (public)."""
    battle = session.scalar(select(Battle).where(Battle.share_token_hash == digest(token)))
    if battle is None:
        raise NotFound("battle")
    return view_of(session, battle, before=before, limit=limit, public=True, viewer=SPECTATOR)
