"""Few heavy requests at once per server process and per account (issue 30 F2, F3).

Why: an army's exports, printable sheet, history and page cost in proportion to its size,
and an import to its document's. One account's 20 parallel exports of a legal 1,000-unit army
(1.6 s each) held every reading slot of a process: other users waited 12-14 s for the log-in
page. 20 parallel 875 kB imports ran 17 s each and added 0.9 GB.

A request is heavy when its army has at least ``Settings.heavy_army_rows`` rows (units plus
weapons, counted by the indexes) or its import at least ``heavy_import_bytes``. It then gives
its reading slot back (``work_slots.step_out``: light pages never wait behind it) and takes a
turn of this process's heavy gate (``KeyedGate``): ``heavy_slots`` at once,
``heavy_slots_per_account`` for one account, a short bounded line, then ``HeavyBusy`` (503
with Retry-After). The web layer holds the turn until the answer is sent, a streamed export's
last byte included (``app.web.heavy``).
"""

from __future__ import annotations

from functools import lru_cache

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db.models import Army, Unit, Weapon
from app.services import builder
from app.services.errors import HeavyBusy
from app.services.keyed_gate import KeyedGate
from app.settings import get_settings

OWN_LINE_REASON = (
    "your account already has as many large exports, imports or army pages under way as "
    "it may; try again once they are done"
)


def _busy(retry_after: int, reason: str | None) -> HeavyBusy:
    return HeavyBusy(retry_after, reason)


@lru_cache
def _gate(permits: int, per_key: int, wait_seconds: float, queue: int, key_queue: int) -> KeyedGate:
    return KeyedGate(
        permits,
        wait_seconds,
        queue,
        busy=_busy,
        per_key=per_key,
        key_queue=key_queue,
        own_line_reason=OWN_LINE_REASON,
    )


def gate() -> KeyedGate:
    """This process's gate, as the settings shape it."""
    settings = get_settings()
    return _gate(
        settings.heavy_slots,
        settings.heavy_slots_per_account,
        settings.heavy_wait_seconds,
        settings.heavy_queue,
        settings.heavy_queue_per_account,
    )


def army_rows(session: Session, army_id: int) -> int:
    """The army's units and weapons: from this server's kept units when it has them (the
    army page of an unchanged army reads nothing more), else two index counts."""
    army = session.get(Army, army_id)  # (the login's prefetch brought it, most often)
    kept = builder.kept_row_count(session, army) if army is not None else None
    if kept is not None:
        return kept
    units = select(func.count()).select_from(Unit).where(Unit.army_id == army_id)
    weapons = (
        select(func.count())
        .select_from(Weapon)
        .join(Unit, Unit.id == Weapon.unit_id)
        .where(Unit.army_id == army_id)
    )
    return int(
        session.execute(select(units.scalar_subquery() + weapons.scalar_subquery())).scalar_one()
    )


def is_heavy_army(session: Session, army_id: int) -> bool:
    return army_rows(session, army_id) >= get_settings().heavy_army_rows


def is_heavy_import(size: int) -> bool:
    return size >= get_settings().heavy_import_bytes
