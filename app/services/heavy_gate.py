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

Before its process's gate, a heavy request takes its account's machine turn (``MachineTurns``,
ruling G13): one heavy request of an account at a time on the whole machine, across the
server's worker processes. The gate alone let one account run 2 in each of 4 workers: 8
exports of its 1,000-unit army at once on 2 cores, and other users' pages kept 0.14 of their
requests a second. The account's next heavy request, while one runs anywhere on the machine,
is refused at once (503, naming the account's own requests): it never waits, so it holds no
thread and no connection.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import tempfile
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

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


class MachineTurns:
    """One turn a key at a time on the machine: an exclusive ``flock`` on the key's file in
    ``folder`` (the kernel gives it back if the process dies; two opens of one file conflict
    even within a process). ``namespace`` (the database) keeps two servers of different
    databases on one machine (the tests') from sharing their accounts' turns."""

    def __init__(self, folder: Path, namespace: str) -> None:
        self.folder = folder
        self.namespace = namespace

    def _path(self, key: str) -> Path:
        name = hashlib.sha256(f"{self.namespace}\0{key}".encode()).hexdigest()[:32]
        return self.folder / f"{name}.lock"

    def take(self, key: str) -> Callable[[], None]:
        """The key's turn, or ``HeavyBusy`` (its own requests' reason) at once if it is held
        anywhere on the machine. Returns what gives it back (call it exactly once)."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(self._path(key), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise _busy(gate().retry_after, OWN_LINE_REASON) from None
        except BaseException:
            os.close(fd)
            raise
        return lambda: os.close(fd)  # (closing the file gives the lock back)


@lru_cache
def _machine(folder: str, namespace: str) -> MachineTurns:
    return MachineTurns(Path(folder), namespace)


def machine() -> MachineTurns:
    """The machine's heavy turns for this server's database."""
    folder = Path(tempfile.gettempdir()) / f"brikforge-heavy-{os.getuid()}"
    return _machine(str(folder), get_settings().database_url)


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
