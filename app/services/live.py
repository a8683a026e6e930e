"""Telling every server that a battle changed, or that someone's access to one did.

A transaction that changes a battle (``log.lock``: every action takes it first) or ends
someone's access (a log-out, a password change, a revoked link or token, a deleted battle)
notes it here; the notes go out when it commits. On PostgreSQL they are ``NOTIFY``s sent in
the transaction itself, just before COMMIT: PostgreSQL delivers them only if it commits, and
in commit order, to every server's listening connection (``app.web.live``). Whatever the
database, they are also handed at once to this process's own listeners after the commit (on
SQLite the only way, besides the other workers' polling of the log's newest number).

Messages (the channel's payload, at most a few dozen bytes):
``b:<battle>:<seq>``  the battle's log now ends at ``seq`` (its units may have changed);
``a:<battle>``        who may see the battle changed (link revoked, battle deleted);
``u:<user>``          the user's sessions or tokens changed (log-out, password change).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from sqlalchemy import event, func, select, text
from sqlalchemy.orm import Session, SessionTransaction

from app.db.models import BattleEntry

CHANNEL = "brikforge_live"
_PENDING = "brikforge.live"  # Session.info: the messages this transaction will send
_SENDING = "brikforge.live.sending"  # Session.info: sent with the commit, handed on after it

Listener = Callable[[list[str]], None]
_listeners: list[Listener] = []
_lock = threading.Lock()


def battle_changed(session: Session, battle_id: int) -> None:
    """The battle's log or units change in this transaction."""
    session.info.setdefault(_PENDING, {})[f"b:{battle_id}"] = battle_id


def access_changed(
    session: Session, *, battle_id: int | None = None, user_id: int | None = None
) -> None:
    """Who may see the battle, or the user's sessions and tokens, change in this transaction:
    their live streams are checked again once it commits."""
    pending = session.info.setdefault(_PENDING, {})
    if battle_id is not None:
        pending[f"a:{battle_id}"] = battle_id
    if user_id is not None:
        pending[f"u:{user_id}"] = user_id


def presence_changed(session: Session, battle_id: int) -> None:
    """Someone opened the battle who had not had it open: its pages' "Connected" line is
    read again once this commits (a leaving is seen by the hubs' surveys: it is a heartbeat
    that does not come)."""
    session.info.setdefault(_PENDING, {})[f"p:{battle_id}"] = battle_id


def listen(listener: Listener) -> None:
    """Hand this process's committed messages to ``listener`` (called in the committing
    thread: it must only hand them on)."""
    with _lock:
        _listeners.append(listener)


def unlisten(listener: Listener) -> None:
    with _lock:
        if listener in _listeners:
            _listeners.remove(listener)


@event.listens_for(Session, "before_commit")
def _notify(session: Session) -> None:
    pending: dict[str, int] | None = session.info.pop(_PENDING, None)
    if not pending:
        return
    messages = []
    for key, battle_id in pending.items():
        if key.startswith("b:"):
            # under the battle's lock (the action's first write): nobody appends meanwhile
            seq = session.scalar(
                select(func.max(BattleEntry.seq)).where(BattleEntry.battle_id == battle_id)
            )
            key = f"{key}:{seq or 0}"
        messages.append(key)
    if session.get_bind().dialect.name == "postgresql":
        for message in messages:
            session.execute(text("SELECT pg_notify(:c, :m)"), {"c": CHANNEL, "m": message})
    session.info[_SENDING] = messages


@event.listens_for(Session, "after_commit")
def _hand_on(session: Session) -> None:
    messages = session.info.pop(_SENDING, None)
    if messages:
        with _lock:
            listeners = list(_listeners)
        for listener in listeners:
            listener(messages)


@event.listens_for(Session, "after_transaction_end")
def _drop(session: Session, transaction: SessionTransaction) -> None:
    if transaction.parent is None:  # (a savepoint's end keeps them: its transaction goes on)
        session.info.pop(_PENDING, None)
        session.info.pop(_SENDING, None)


def parse(message: str) -> tuple[str, int, int] | None:
    """A message as (kind, id, seq) (seq 0 but for ``b``), or None if it is not one."""
    parts = message.split(":")
    try:
        if parts[0] == "b" and len(parts) == 3:
            return "b", int(parts[1]), int(parts[2])
        if parts[0] in ("a", "u", "p") and len(parts) == 2:
            return parts[0], int(parts[1]), 0
    except ValueError:
        return None
    return None
