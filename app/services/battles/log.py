"""Writing a battle's log: the lock every action takes first, the next numbered entry, the
before/after state of every unit an action changed (what Undo restores), who may undo an
entry, and the check that an action's page is not behind (``require_fresh``).

The log only grows (ruling P20): numbers only go up, and Undo is an entry of its own."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.db.models import Battle, BattleEntry, BattleSide, BattleUnit, User
from app.rules.errors import InvalidInput
from app.rules.registry import get_ruleset
from app.services import live, presence, quotas
from app.services.battles.views import FIXED_KINDS, TURNS, UnitInBattle, is_out, store_state
from app.services.errors import Conflict
from app.services.permissions import Viewer, battle_access

SEQ_ATTEMPTS = 3
OPEN, ENDED = "open", "ended"  # a battle's status
END_KIND = "end"  # the End battle entry's kind
UNDO_KIND = "undo"  # an Undo's entry (in FIXED_KINDS); its ``request.undoes`` names the entry
JOIN_KIND = "join"  # a player joining with their side (in FIXED_KINDS): never undone (P4)
REMOVE_KIND = "remove"  # the host removing a player (in FIXED_KINDS): never undone (P3)
TURN_KIND = "turn"  # End turn: ``request.turn`` keeps the battle's turn before and after (P31)
MODE_KIND = "mode"  # the host's free or turns: ``request.turn`` as End turn's (P32)
TURN_KINDS = (TURN_KIND, MODE_KIND)


def is_host(viewer: Viewer) -> bool:
    """The battle's host (its owner, as ``battle_access`` says): who may undo anyone's entry."""
    return viewer.host


def may_undo(viewer: Viewer, user_id: int | None, entry: BattleEntry) -> bool:
    """Whether the user ``user_id``, who is ``viewer`` in the battle, may undo the entry
    (P22): its author, or the battle's host."""
    if is_host(viewer):
        return True
    return entry.actor_id is not None and entry.actor_id == user_id


def undoable(entry: BattleEntry) -> bool:
    """It stands and is of a kind Undo takes back (a roll, a unit action, End battle)."""
    return entry.undone_by_seq is None and entry.kind not in FIXED_KINDS


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


def side_name(session: Session, side_id: int | None) -> str:
    """A side's name ("nobody" for none)."""
    if side_id is None:
        return "nobody"
    side = session.get(BattleSide, side_id)
    return side.name if side is not None else "nobody"


def require_turn(
    session: Session, battle: Battle, viewer: Viewer, unit: UnitInBattle, field: str
) -> None:
    """Refuse (a 422 naming ``field``) a player acting for a unit outside its side's turn in
    a battle played by turns (P31: the host acts for any side at any time)."""
    if battle.mode != TURNS or viewer.host or unit.row.side_id == battle.turn_side_id:
        return
    name = side_name(session, battle.turn_side_id)
    raise InvalidInput(
        field, f"It is {name}'s turn: {unit.row.name} acts in {unit.row.side}'s turn"
    )


def turn_state(battle: Battle) -> dict[str, Any]:
    """The battle's turn as a turn or mode entry keeps it before and after (what Undo puts
    back): its mode, round and whose turn it is."""
    return {"mode": battle.mode, "round": battle.round, "side_id": battle.turn_side_id}


def restore_turn(battle: Battle, kept: Mapping[str, Any]) -> None:
    """Put back a turn ``turn_state`` kept."""
    side = kept.get("side_id")
    battle.mode = str(kept.get("mode", "free"))
    battle.round = int(kept.get("round", 0))
    battle.turn_side_id = side if isinstance(side, int) else None


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
    presence.touch(session, battle.id, user.id)  # an action shows they are here
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
    live.battle_changed(session, battle.id)  # its live pages hear of it once this commits


def diceless_entry(
    battle: Battle, actor: User, kind: str, summary: str, request: Mapping[str, Any]
) -> BattleEntry:
    """An entry that rolls nothing and changes no unit itself (a join, a removal, an Undo:
    what an Undo restores goes in its ``changes_json`` after), not yet appended."""
    return BattleEntry(
        battle_id=battle.id,
        actor_id=actor.id,
        kind=kind,
        seed=None,
        summary=summary[:500],
        request_json=json.dumps(request),
        odds_json="null",
        dice_json="[]",
        changes_json="{}",
    )


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
        credit(session, entry)
        return entry
    raise AssertionError("unreachable")


def credit(session: Session, entry: BattleEntry) -> None:
    """Credit the side whose unit acted in the entry (an attack's attacker, a unit action's
    unit) with each unit of another side the entry put out: the score (P33). A unit its own
    side put out, or an entry with no acting unit (End turn's resets, End battle), credits
    nobody. An undo credits nobody either: what it puts back out keeps its old credit."""
    if entry.kind == UNDO_KIND or entry.changes_json in ("{}", ""):
        return
    request = entry.request
    actor = request.get("attacker_id", request.get("unit_id"))
    acting = session.get(BattleUnit, actor) if isinstance(actor, int) else None
    by = acting.side_id if acting is not None and acting.battle_id == entry.battle_id else None
    battle = session.get(Battle, entry.battle_id)
    if battle is None:
        return
    ruleset = get_ruleset(battle.ruleset_id)
    for key, change in entry.changes.items():
        row = session.get(BattleUnit, int(key))
        if row is None or row.battle_id != entry.battle_id:
            continue
        if is_out(row, ruleset, change["after"]) and not is_out(row, ruleset, change["before"]):
            row.out_by_side_id = by if by != row.side_id else None


def entry_units(entry: BattleEntry) -> set[int]:
    """The units the entry changed (an undo's: those it restored)."""
    return {int(key) for key in entry.changes}


def actor_name(session: Session, entry: BattleEntry) -> str | None:
    if entry.actor_id is None:
        return None
    return session.scalar(select(User.display_name).where(User.id == entry.actor_id))


_DONE = {"attack": "rolled", END_KIND: "ended the battle with"}


def unit_names(session: Session, battle: Battle, ids: Iterable[int]) -> dict[int, str]:
    """The names of those of ``ids`` that are the battle's units (what a 409 names)."""
    wanted = set(ids)
    rows = session.execute(
        select(BattleUnit.id, BattleUnit.name).where(
            BattleUnit.battle_id == battle.id, BattleUnit.id.in_(wanted)
        )
    )
    return {uid: name for uid, name in rows}


def require_fresh(
    session: Session,
    battle: Battle,
    seen: int | None,
    units: Mapping[int, str],
    *,
    again: str = "check the new state and try again",
) -> None:
    """Refuse (Conflict, a 409) an action from a page that showed the log up to ``seen`` when
    a newer entry changed any of ``units`` (their names by id): the first such entry is named
    with who made it. ``seen`` None: the caller did not say, so the action applies (P24)."""
    if seen is None:
        return
    newer: Iterable[BattleEntry] = session.scalars(
        select(BattleEntry)
        .where(BattleEntry.battle_id == battle.id, BattleEntry.seq > seen)
        .order_by(BattleEntry.seq)
    )
    for entry in newer:
        hit = [name for uid, name in sorted(units.items()) if uid in entry_units(entry)]
        if hit:
            by = actor_name(session, entry)
            if entry.kind == UNDO_KIND:
                done = f"undid #{entry.request.get('undoes')} with #{entry.seq}"
            else:
                done = f"{_DONE.get(entry.kind, f'took {entry.kind}')} #{entry.seq}"
            raise Conflict(
                f"{by or 'Someone'} {done} on {', '.join(hit)} since you loaded this page: {again}",
                entry=entry.seq,
                by=by,
            )


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
