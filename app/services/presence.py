"""Who has a battle open: each user's last sign of it (their live stream's heartbeat, or an
action) kept in the database, so every server answers alike. "Connected" is seen within two
heartbeats (``LIVE_HEARTBEAT_SECONDS``): one heartbeat missed is no disconnection."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from app.db.base import utcnow
from app.db.models import BattlePresence, User
from app.services import live
from app.settings import get_settings

HEARTBEATS = 2  # connected: seen within this many heartbeats


def touch(session: Session, battle_id: int, user_id: int, now: datetime | None = None) -> None:
    """Note that the user has the battle open now (one upsert, in the caller's transaction)."""
    now = now or utcnow()
    values = {"battle_id": battle_id, "user_id": user_id, "seen_at": now}
    if session.get_bind().dialect.name == "postgresql":
        pg = pg_insert(BattlePresence).values(values)
        session.execute(
            pg.on_conflict_do_update(
                index_elements=["battle_id", "user_id"], set_={"seen_at": pg.excluded.seen_at}
            )
        )
    elif session.get_bind().dialect.name == "sqlite":
        lite = sqlite_insert(BattlePresence).values(values)
        session.execute(
            lite.on_conflict_do_update(
                index_elements=["battle_id", "user_id"], set_={"seen_at": lite.excluded.seen_at}
            )
        )
    else:  # (no other database is supported; kept portable all the same)
        done = session.execute(
            update(BattlePresence)
            .where(BattlePresence.battle_id == battle_id, BattlePresence.user_id == user_id)
            .values(seen_at=now)
        )
        if not done.rowcount:  # type: ignore[attr-defined]
            session.add(BattlePresence(**values))


def window() -> timedelta:
    """How recent a sign must be for "connected"."""
    return timedelta(seconds=HEARTBEATS * get_settings().live_heartbeat_seconds)


def connected(
    session: Session, battle_ids: Iterable[int], now: datetime | None = None
) -> dict[int, list[tuple[int, str]]]:
    """Each battle's connected users as (user id, name), by name."""
    ids = set(battle_ids)
    if not ids:
        return {}
    since = (now or utcnow()) - window()
    rows = session.execute(
        select(BattlePresence.battle_id, User.id, User.display_name)
        .join(User, User.id == BattlePresence.user_id)
        .where(BattlePresence.battle_id.in_(ids), BattlePresence.seen_at >= since)
        .order_by(User.display_name, User.id)
    )
    out: dict[int, list[tuple[int, str]]] = {}
    for battle_id, user_id, name in rows:
        out.setdefault(battle_id, []).append((user_id, name))
    return out


def connected_to(session: Session, battle_id: int) -> tuple[tuple[int, str], ...]:
    """One battle's connected users (``connected``'s), as a page shows them."""
    return tuple(connected(session, [battle_id]).get(battle_id, ()))


def heartbeat(make_session: Callable[[], Session], battle_id: int, user_id: int) -> None:
    """A stream's heartbeat: the presence written in a short session of its own, committed
    and closed at once (run off the event loop). One who was not connected arrives: every
    page of the battle is told (``live.presence_changed``)."""
    with make_session() as session:
        now = utcnow()
        last = session.scalar(
            select(BattlePresence.seen_at).where(
                BattlePresence.battle_id == battle_id, BattlePresence.user_id == user_id
            )
        )
        if last is None or _aware(last) < now - window():
            live.presence_changed(session, battle_id)
        touch(session, battle_id, user_id, now)
        session.commit()


def _aware(moment: datetime) -> datetime:
    """(SQLite hands back naive UTC times.)"""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
