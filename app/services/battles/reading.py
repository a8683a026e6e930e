"""Reading battles (the host's and their players'): the user's list, one battle as it
stands, and its forum text."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import Battle, BattleSide, User
from app.rules.registry import get_ruleset
from app.rules.ruleset import Ruleset
from app.services.battles import text
from app.services.battles.views import LOG_WINDOW, BattleView, LogEntry, log_entry, view_of
from app.services.permissions import battle_access, battle_for


def list_battles(session: Session, *, user: User) -> list[Battle]:
    """The battles the user hosts or plays a side in, most recently active first."""
    played = select(BattleSide.battle_id).where(BattleSide.player_id == user.id)
    query = (
        select(Battle)
        .where((Battle.owner_id == user.id) | Battle.id.in_(played))
        .order_by(Battle.updated_at.desc(), Battle.id.desc())
    )
    return list(session.scalars(query))


def battle_view(
    session: Session,
    *,
    user: User,
    battle_id: int,
    before: int | None = None,
    limit: int | None = LOG_WINDOW,
    public: bool = False,
) -> BattleView:
    """A battle the user hosts or plays in: units by side with their state and players, and a
    window of the log (the ``limit`` newest entries numbered below ``before``; ``limit=None``:
    the whole log). ``public``: the state as others see it (the forum export: a secret stays
    secret)."""
    battle, viewer = battle_access(session, user=user, battle_id=battle_id)
    return view_of(
        session, battle, before=before, limit=limit, public=public, viewer=viewer, user_id=user.id
    )


def battle_entry(session: Session, *, user: User, battle_id: int, seq: int) -> LogEntry | None:
    """One entry of the log of a battle of the user's, by its number."""
    return log_entry(session, battle_for(session, user=user, battle_id=battle_id), seq)


def ruleset_of(session: Session, *, user: User, battle_id: int) -> Ruleset:
    """The ruleset a battle of the user's is fought under."""
    return get_ruleset(battle_for(session, user=user, battle_id=battle_id).ruleset_id)


def export_text(view: BattleView) -> str:
    """The battle as plain text for a forum post (see ``text.export_text``)."""
    return text.export_text(view)
