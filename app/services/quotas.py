"""How much one account may create: armies, battles, clubs, API tokens, links, invitations,
units in an army, and the rows it may hold (units, weapons, battle log entries).

Each create use case asks ``ensure_room`` first; past the limit it raises
``QuotaExceeded`` (a 422 naming the limit, shown in place like any field error).
The limits are settings (``MAX_*``). The count and the insert after it are one step: the
owner's row (the account, the army, the club) is locked first, so two requests racing for the
last place (through two app servers, say) queue, and the second sees the first's row.

Rows are too many to count at each insert: the account keeps them as counters
(``User.held_*``), which ``rows`` checks and moves in the same transaction as the insert or
delete it is called for, under the same lock on the account's row.
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
    BattleInvite,
    Club,
    ClubInvite,
    ClubMember,
    ShareLink,
    Unit,
    User,
)
from app.services.army_rows import KEEPS_ROWS, MAX_UNITS
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


MAX_BATTLE_INVITATIONS = 20  # open invitations of one battle (links and club members')


def battle_invitations(session: Session, *, battle_id: int) -> None:
    """Open (unrevoked, unexpired) invitations of one battle."""
    where = [
        BattleInvite.battle_id == battle_id,
        BattleInvite.revoked_at.is_(None),
        BattleInvite.expires_at > utcnow(),
    ]
    _ensure(
        session,
        BattleInvite,
        where,
        owner=(Battle.id, battle_id),
        limit=MAX_BATTLE_INVITATIONS,
        field="invitations",
        what="open invitations to this battle",
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


def rows(
    session: Session, *, owner_id: int, units: int = 0, weapons: int = 0, entries: int = 0
) -> None:
    """Count rows in (positive) or out (negative) of account ``owner_id``'s counters: the owner
    of the army the units and weapons are in, of the battle the log entries are in.

    Call it before writing the rows: past a limit it raises QuotaExceeded naming the quota
    (``units``, ``weapons``, ``entries``) and nothing has moved. The account's row stays
    locked to the end of the transaction, so racing writers queue.
    """
    if not (units or weapons or entries):
        return
    if units > 0 or weapons > 0 or entries > 0:
        held = _locked_counters(session, owner_id)
        settings = get_settings()
        for field, what, have, more, limit in (
            ("units", "units", held[0], units, settings.max_units_per_user),
            ("weapons", "weapons", held[1], weapons, settings.max_weapons_per_user),
            ("entries", "battle log entries", held[2], entries, settings.max_log_entries_per_user),
        ):
            if more > 0 and have + more > limit:
                reason = f"an account may hold at most {limit} {what}; it holds {have}"
                if more > 1:
                    reason += f" and this would add {more}"
                raise QuotaExceeded(field, what, limit, reason=reason)
    table = User.metadata.tables[User.__tablename__]
    moved = {
        table.c[name]: table.c[name] + delta
        for name, delta in (
            ("held_units", units),
            ("held_weapons", weapons),
            ("held_entries", entries),
        )
        if delta
    }
    # Its own timestamps left as they are: no one changed the account.
    moved.update({c: c for c in table.c if c.onupdate is not None})
    session.execute(
        update(table).where(table.c.id == owner_id).values(moved).execution_options(**KEEPS_ROWS)
    )


def _locked_counters(session: Session, owner_id: int) -> tuple[int, int, int]:
    counters = select(User.held_units, User.held_weapons, User.held_entries).where(
        User.id == owner_id
    )
    if session.get_bind().dialect.name == "postgresql":
        found = session.execute(counters.with_for_update(key_share=True)).one()
    else:
        _lock(session, User.id, owner_id)
        found = session.execute(counters).one()
    return found[0], found[1], found[2]
