"""How much one account may create: armies, battles, clubs, API tokens, links, invitations,
units in an army.

Each create use case asks ``ensure_room`` first; past the limit it raises
``QuotaExceeded`` (a 422 naming the limit, shown in place like any field error).
The limits are settings (``MAX_*``). The count and the insert after it are one step: the
owner's row (the account, the army, the club) is locked first, so two requests racing for the
last place (through two app servers, say) queue, and the second sees the first's row.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session
from sqlalchemy.sql import ColumnElement

from app.db.base import utcnow
from app.db.models import (
    ApiToken,
    Army,
    Battle,
    Club,
    ClubInvite,
    ClubMember,
    ShareLink,
    Unit,
    User,
)
from app.services.army_rows import MAX_UNITS
from app.services.errors import QuotaExceeded
from app.settings import get_settings


def _ensure(
    session: Session,
    model: type,
    where: list[ColumnElement[bool]],
    *,
    owner: tuple[Any, int],
    limit: int,
    field: str,
    what: str,
) -> None:
    _lock(session, *owner)
    count = session.scalar(select(func.count()).select_from(model).where(*where)) or 0
    if count >= limit:
        raise QuotaExceeded(field, what, limit)


def _lock(session: Session, key: Any, value: int) -> None:
    """Lock the owner's row (``key`` is its id column) until the transaction ends."""
    if session.get_bind().dialect.name == "postgresql":
        # FOR NO KEY UPDATE: rows referencing the owner can still be inserted meanwhile.
        session.execute(select(key).where(key == value).with_for_update(key_share=True))
        return
    # SQLite locks the whole database for the first write; a write that changes nothing
    # (the timestamps that bump themselves on update are set to themselves) takes it.
    table = key.table
    same = {c: c for c in (key, *(c for c in table.c if c.onupdate is not None))}
    session.execute(update(table).where(key == value).values(same))


def armies(session: Session, *, user: User) -> None:
    limit = get_settings().max_armies_per_user
    where = [Army.owner_id == user.id]
    _ensure(
        session, Army, where, owner=(User.id, user.id), limit=limit, field="armies", what="armies"
    )


def battles(session: Session, *, user: User) -> None:
    limit = get_settings().max_battles_per_user
    where = [Battle.owner_id == user.id]
    owner = (User.id, user.id)
    _ensure(session, Battle, where, owner=owner, limit=limit, field="battles", what="battles")


def clubs(session: Session, *, user: User) -> None:
    """Clubs the user owns (founded, or handed over to them)."""
    where = [ClubMember.user_id == user.id, ClubMember.role == "owner"]
    limit = get_settings().max_clubs_per_user
    owner = (User.id, user.id)
    _ensure(
        session,
        ClubMember,
        where,
        owner=owner,
        limit=limit,
        field="clubs",
        what="clubs of your own",
    )


def api_tokens(session: Session, *, user: User) -> None:
    limit = get_settings().max_api_tokens_per_user
    where = [ApiToken.user_id == user.id]
    owner = (User.id, user.id)
    _ensure(session, ApiToken, where, owner=owner, limit=limit, field="name", what="API tokens")


def share_links(session: Session, *, army_id: int) -> None:
    """Live (unrevoked) read-only links of one army."""
    where = [ShareLink.army_id == army_id, ShareLink.revoked_at.is_(None)]
    limit = get_settings().max_share_links_per_army
    what = "live links to this army"
    _ensure(
        session, ShareLink, where, owner=(Army.id, army_id), limit=limit, field="links", what=what
    )


def invitations(session: Session, *, club_id: int) -> None:
    """Open (unrevoked, unexpired) invitations of one club."""
    where = [
        ClubInvite.club_id == club_id,
        ClubInvite.revoked_at.is_(None),
        ClubInvite.expires_at > utcnow(),
    ]
    limit = get_settings().max_open_invitations_per_club
    _ensure(
        session,
        ClubInvite,
        where,
        owner=(Club.id, club_id),
        limit=limit,
        field="invitations",
        what="open invitations to this club",
    )


def units(session: Session, *, army_id: int) -> None:
    """Units of one army (asked under the army's lock, so racing adds cannot pass it)."""
    where = [Unit.army_id == army_id]
    _ensure(
        session,
        Unit,
        where,
        owner=(Army.id, army_id),
        limit=MAX_UNITS,
        field="units",
        what="units in this army",
    )
