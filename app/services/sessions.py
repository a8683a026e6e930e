"""Server-side login sessions: started at log-in, listed, ended one by one or all at once.

The browser's cookie holds a random token; only its SHA-256 is stored, so the table
alone logs nobody in. A session ends when its row is deleted (log-out, "log out
everywhere", a password change) or when it expires.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Select, bindparam, delete, exists, select, update
from sqlalchemy.orm import Session, aliased

from app.db.base import utcnow
from app.db.models import Army, ArmyEditor, ClubMember, User, UserSession
from app.services import live
from app.services.errors import NotFound
from app.services.permissions import READER_RIGHTS
from app.settings import get_settings

# The account page's "last seen" is written at most this often per session.
TOUCH_INTERVAL = timedelta(minutes=1)
# Sessions kept per account: a new log-in past this ends the least recently seen one.
MAX_SESSIONS_PER_USER = 100


@dataclass(frozen=True)
class ActiveSession:
    """The session a request came with, and its user."""

    id: int
    user: User
    csrf_token: str
    last_seen_at: datetime

    @classmethod
    def of(cls, row: UserSession, user: User) -> ActiveSession:
        return cls(row.id, user, row.csrf_token, row.last_seen_at)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def start(
    session: Session, *, user: User, user_agent: str, client_address: str
) -> tuple[UserSession, str]:
    """A new session for ``user``; the token (for the cookie) is returned once."""
    now = utcnow()
    session.execute(delete(UserSession).where(UserSession.expires_at <= now))
    kept = session.scalars(
        select(UserSession.id)
        .where(UserSession.user_id == user.id)
        .order_by(UserSession.last_seen_at.desc(), UserSession.id.desc())
        .offset(MAX_SESSIONS_PER_USER - 1)
    ).all()
    if kept:
        session.execute(delete(UserSession).where(UserSession.id.in_(kept)))
    token = secrets.token_urlsafe(32)
    row = UserSession(
        token_hash=_digest(token),
        user_id=user.id,
        csrf_token=secrets.token_urlsafe(32),
        created_at=now,
        last_seen_at=now,
        expires_at=now + timedelta(seconds=get_settings().session_max_age_seconds),
        user_agent=_summary(user_agent, 200),
        client_address=_summary(client_address, 64),
    )
    session.add(row)
    session.flush()
    return row, token


def _summary(text: str, limit: int) -> str:
    """Printable characters only, cut to the column's length."""
    return "".join(c for c in text if c.isprintable())[:limit]


# The user as an entity, the session's own fields as plain columns: every request runs this,
# and loading a second entity cost more than the query. Built once: building and keying it
# anew on every request took about 0.4 ms, as much as the session and its query together.
_FIND = (
    select(
        User,
        UserSession.id,
        UserSession.csrf_token,
        UserSession.last_seen_at,
        UserSession.expires_at,
    )
    .join(User, User.id == UserSession.user_id)
    .where(UserSession.token_hash == bindparam("digest"))
)


# The same, with the army a page names (its path's ``army_id``), in the same round trip: the
# army page and every page under it read that army next, and ``by_id`` finds it in the session
# instead of querying. A calculation names two (the attacker's and the target's). With each
# army come the user's rights in it as a club reader (their role in its club, whether they are
# one of its chosen editors), which ``army_and_rights`` would otherwise ask for next. Loading an
# army grants nothing: the page's access check still decides, on these rights.
def _with_army(statement: Select[*tuple[Any, ...]], parameter: str) -> Select[*tuple[Any, ...]]:
    army, member = aliased(Army), aliased(ClubMember)
    editor = (
        exists()
        .where(ArmyEditor.army_id == army.id, ArmyEditor.user_id == User.id)
        .correlate(army, User)
    )
    return (
        statement.add_columns(army, member.role, editor)
        .outerjoin(army, army.id == bindparam(parameter))
        .outerjoin(member, (member.club_id == army.club_id) & (member.user_id == User.id))
    )


_FIND_WITH_ARMY = _with_army(_FIND, "army")
_FINDS = (_FIND, _FIND_WITH_ARMY, _with_army(_FIND_WITH_ARMY, "army2"))  # by the number of armies
MAX_PREFETCHED = len(_FINDS) - 1
_PREFETCHED = "prefetched armies"  # Session.info
_LOGIN_COLUMNS = len(_FIND.column_descriptions)  # then each army's (army, role, editor)


def find(session: Session, token: str, *, army_ids: Sequence[int] = ()) -> ActiveSession | None:
    """The live session this cookie token opens, or None (unknown, ended or expired).
    ``army_ids`` (at most two): armies the request reads next, loaded into ``session`` in the
    same query."""
    if not token or len(token) > 100:
        return None
    if len(army_ids) > MAX_PREFETCHED:
        raise ValueError(f"at most {MAX_PREFETCHED} armies come with the login")
    params = {"digest": _digest(token), **dict(zip(("army", "army2"), army_ids, strict=False))}
    found = session.execute(_FINDS[len(army_ids)], params).one_or_none()
    if found is None or found.expires_at <= utcnow():
        return None
    user, session_id, csrf_token, last_seen_at = found[:4]
    if army_ids:
        armies, roles, editors = (found[_LOGIN_COLUMNS + k :: 3] for k in range(3))
        # (the session's identity map holds its objects weakly: kept for the request)
        session.info[_PREFETCHED] = armies
        rights = session.info.setdefault(READER_RIGHTS, {})
        for army, role, editor in zip(armies, roles, editors, strict=True):
            if army is not None:
                rights[(army.id, user.id)] = (role, bool(editor))
    return ActiveSession(session_id, user, csrf_token, last_seen_at)


def touch_due(active: ActiveSession) -> bool:
    return utcnow() - active.last_seen_at >= TOUCH_INTERVAL


def touch(session: Session, *, session_id: int) -> None:
    """Record that the session was used now (a no-op if another request just did)."""
    now = utcnow()
    session.execute(
        update(UserSession)
        .where(UserSession.id == session_id, UserSession.last_seen_at <= now - TOUCH_INTERVAL)
        .values(last_seen_at=now)
    )


def list_sessions(session: Session, *, user: User) -> list[UserSession]:
    """The user's live sessions, most recently seen first."""
    return list(
        session.scalars(
            select(UserSession)
            .where(UserSession.user_id == user.id, UserSession.expires_at > utcnow())
            .order_by(UserSession.last_seen_at.desc(), UserSession.id.desc())
        )
    )


def end(session: Session, *, user: User, session_id: int) -> None:
    """End one of the user's sessions."""
    done = session.execute(
        delete(UserSession).where(UserSession.id == session_id, UserSession.user_id == user.id)
    )
    if not done.rowcount:  # type: ignore[attr-defined]
        raise NotFound("session")
    live.access_changed(session, user_id=user.id)  # its live streams end


def forget(session: Session, *, session_id: int) -> None:
    """End the session a browser is logged in with (log-out)."""
    user_id = session.execute(
        delete(UserSession).where(UserSession.id == session_id).returning(UserSession.user_id)
    ).scalar()
    if user_id is not None:
        live.access_changed(session, user_id=user_id)  # its live streams end


def end_all(session: Session, *, user: User, keep: int | None = None) -> int:
    """End every session of the user but ``keep``; returns how many ended."""
    query = delete(UserSession).where(UserSession.user_id == user.id)
    if keep is not None:
        query = query.where(UserSession.id != keep)
    live.access_changed(session, user_id=user.id)  # their live streams end
    return int(session.execute(query).rowcount)  # type: ignore[attr-defined]
