"""Writing a battle's log: the lock every action takes first, the next numbered entry, and the
before/after state of every unit an action changed (what Undo restores)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.db.models import Battle, BattleEntry, User
from app.rules.errors import InvalidInput
from app.services import quotas
from app.services.battles.views import UnitInBattle, store_state
from app.services.permissions import Viewer, battle_access

SEQ_ATTEMPTS = 3
OPEN, ENDED = "open", "ended"  # a battle's status
END_KIND = "end"  # the End battle entry's kind
JOIN_KIND = "join"  # a player joining with their side: never undone (ruling P4)


def require_open(battle: Battle) -> None:
    """Refuse (a 422 naming ``battle``) an attack or action in an ended battle."""
    if battle.status == ENDED:
        raise InvalidInput("battle", "the battle has ended: Undo its End battle entry to reopen it")


def require_side(viewer: Viewer, unit: UnitInBattle, field: str) -> None:
    """Refuse (a 422 naming ``field``) acting for a unit of a side the viewer does not play
    (the host plays every side)."""
    if not viewer.plays(unit.row.side_id):
        raise InvalidInput(
            field, f"{unit.row.name} is on {unit.row.side}'s side: you act only for your own units"
        )


def lock(session: Session, *, user: User, battle_id: int, host: bool = False) -> Battle:
    """The battle (``locked``)."""
    return locked(session, user=user, battle_id=battle_id, host=host)[0]


def locked(
    session: Session, *, user: User, battle_id: int, host: bool = False
) -> tuple[Battle, Viewer]:
    """A battle the user hosts or plays in (``host``: hosts), with who they are in it,
    locked for this transaction before any of its state is read (``bump``)."""
    battle, viewer = battle_access(session, user=user, battle_id=battle_id, host=host)
    bump(session, battle)
    return battle, viewer


def bump(session: Session, battle: Battle) -> None:
    """Lock the battle for this transaction before any of its state is read.

    The version bump is the transaction's first write: on PostgreSQL it holds the battle's
    row lock (as SELECT ... FOR UPDATE would) until commit, and on SQLite it takes the
    database's write lock; either way a second action on the battle waits, then reads what
    the first one committed. Log numbers are allocated under it.
    """
    session.execute(
        update(Battle)
        .where(Battle.id == battle.id)
        .values(version=Battle.version + 1)
        .execution_options(synchronize_session=False)
    )
    session.refresh(battle)


def append(session: Session, battle: Battle, entry: BattleEntry) -> BattleEntry:
    """Add the entry with the next number; a clash on (battle, seq) is retried. It counts
    against the battle owner's log entries (QuotaExceeded past them, before it is written)."""
    quotas.rows(session, owner_id=battle.owner_id, entries=1)
    for attempt in range(SEQ_ATTEMPTS):
        last = session.scalar(
            select(func.max(BattleEntry.seq)).where(BattleEntry.battle_id == battle.id)
        )
        entry.seq = (last or 0) + 1
        try:
            with session.begin_nested():
                session.add(entry)
                session.flush()
        except IntegrityError:
            if attempt + 1 == SEQ_ATTEMPTS:
                raise
            continue
        return entry
    raise AssertionError("unreachable")


def changes_json(units: Mapping[int, UnitInBattle], after: Mapping[int, Any]) -> str:
    """Each changed unit's state before (as it stands in ``units``) and after, by unit id
    (the entry's ``changes``, the ruleset's JSON: what Undo restores)."""
    return json.dumps(
        {
            str(uid): {
                "before": units[uid].ruleset.encode_state(units[uid].state),
                "after": units[uid].ruleset.encode_state(state),
            }
            for uid, state in after.items()
        }
    )


def new_seed(seed: int | None) -> int:
    return seed if seed is not None else secrets.randbelow(2**31)


def log_state_change(
    session: Session,
    battle: Battle,
    user: User,
    unit: UnitInBattle,
    after: Any,
    *,
    kind: str,
    summary: str,
    dice: Sequence[Mapping[str, Any]] = (),
    seed: int | None = None,
) -> BattleEntry:
    """Keep one unit's new state and log the action that made it."""
    store_state(unit, after)
    entry = BattleEntry(
        battle_id=battle.id,
        actor_id=user.id,
        kind=kind,
        seed=seed,
        summary=summary[:500],
        request_json=json.dumps({"unit_id": unit.row.id}),
        odds_json="null",
        dice_json=json.dumps(list(dice)),
        changes_json=changes_json({unit.row.id: unit}, {unit.row.id: after}),
    )
    return append(session, battle, entry)
