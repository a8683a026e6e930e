"""A unit's named actions besides attacking (the ruleset's ``unit_actions``: Reload, Divert
All Power, the Burning Roll for BrikWars), End battle, and Undo."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import BattleEntry, User
from app.rules.errors import InvalidInput
from app.rules.registry import get_ruleset
from app.services.battles.log import (
    END_KIND,
    ENDED,
    OPEN,
    TURN_KINDS,
    UNDO_KIND,
    actor_name,
    append,
    changes_json,
    diceless_entry,
    entry_units,
    lock,
    locked,
    log_state_change,
    may_undo,
    new_seed,
    require_fresh,
    require_open,
    require_side,
    require_turn,
    restore_turn,
    turn_state,
)
from app.services.battles.views import FIXED_KINDS, load_units, store_state
from app.services.errors import Conflict, NotFound


def unit_action(
    session: Session,
    *,
    user: User,
    battle_id: int,
    unit_id: int,
    action: str,
    values: Mapping[str, Any] | None = None,
    seed: int | None = None,
    seen: int | None = None,
) -> BattleEntry:
    """Take one of the ruleset's named actions for the unit, logged (an unknown action is
    NotFound; one the unit may not take now is refused with InvalidInput). Dice are
    seeded: the seed is logged when the action rolled any. The ruleset is given the
    battle's other units (``Fighter.others``); the state of every unit the action changed
    (``ActionResult.others``: an explosion's figurines) is kept and logged before and
    after, so Undo restores them all. ``seen``: the newest entry the caller's page showed;
    a newer one that changed the unit refuses the action (Conflict, a 409: P24). The unit
    must be of a side the user plays (the host plays every side)."""
    battle, viewer = locked(session, user=user, battle_id=battle_id)
    require_open(battle)
    units = load_units(session, battle)
    unit = units.get(unit_id)
    if unit is None:
        raise NotFound("unit")
    require_side(viewer, unit, "unit_id")
    require_turn(session, battle, viewer, unit, "unit_id")
    require_fresh(session, battle, seen, {unit_id: unit.row.name})
    named = next((a for a in unit.ruleset.unit_actions if a.name == action), None)
    if named is None:
        raise NotFound("action")
    asked = {f.name for f in named.fields}
    seed = new_seed(seed)
    others = tuple(u.fighter for uid, u in units.items() if uid != unit_id)
    result = unit.ruleset.apply_action(
        action,
        replace(unit.fighter, others=others),
        {k: v for k, v in (values or {}).items() if k in asked},
        random.Random(seed),  # noqa: S311  (a replayable game roll)
    )
    if result.others or result.odds is not None:
        after = {unit_id: result.after}
        for key, state in result.others.items():
            if key not in units or key == unit_id:
                raise InvalidInput("unit", f"no other unit {key} in this battle")
            after[key] = state
        changes = changes_json(units, after)
        for key, state in after.items():
            store_state(units[key], state)
        entry = BattleEntry(
            battle_id=battle.id,
            actor_id=user.id,
            kind=action,
            seed=seed if result.dice else None,
            summary=result.summary[:500],
            request_json=json.dumps({"unit_id": unit_id}),
            odds_json=json.dumps(result.odds),
            dice_json=json.dumps(list(result.dice)),
            changes_json=changes,
        )
        return append(session, battle, entry)
    return log_state_change(
        session,
        battle,
        user,
        unit,
        result.after,
        kind=action,
        summary=result.summary,
        dice=result.dice,
        seed=seed if result.dice else None,
    )


def end_battle(session: Session, *, user: User, battle_id: int) -> BattleEntry:
    """Close the battle: the ruleset's ``end_battle`` applies what its rules do at the end
    (Degrees: restrained units taken into Thinny custody), every unit it changed is kept and
    logged before and after in one "Battle ended" entry (its request keeps the status before
    and after), and the battle takes no attack or action until Undo reopens it. Ending an
    ended battle is refused (InvalidInput, field ``battle``). It is the host's (ruling P3: a
    player's is Forbidden)."""
    battle = lock(session, user=user, battle_id=battle_id, host=True)
    require_open(battle)
    units = load_units(session, battle)
    ruleset = get_ruleset(battle.ruleset_id)
    result = ruleset.end_battle(tuple(u.fighter for u in units.values()))
    for key in result.others:
        if key not in units:
            raise InvalidInput("battle", f"no unit {key} in this battle")
    changes = changes_json(units, result.others)
    for key, state in result.others.items():
        store_state(units[key], state)
    battle.status = ENDED
    summary = "Battle ended" + (f": {result.summary}" if result.summary else "")
    entry = BattleEntry(
        battle_id=battle.id,
        actor_id=user.id,
        kind=END_KIND,
        seed=None,
        summary=summary[:500],
        request_json=json.dumps({"status": {"before": OPEN, "after": ENDED}}),
        odds_json="null",
        dice_json="[]",
        changes_json=changes,
    )
    return append(session, battle, entry)


def undo_last(
    session: Session,
    *,
    user: User,
    battle_id: int,
    seq: int | None = None,
    seen: int | None = None,
) -> BattleEntry:
    """Undo an entry by logging an undo entry (the log only grows, P20): every unit it
    changed is restored as it was before (and the battle's status, for an End battle entry:
    it reopens), and the entry is marked undone by the new one. Returns the undo entry.

    ``seq``: the entry to undo (the page's "Undo #N"), else the newest that stands and is
    of a kind Undo takes back (P21). Refused with InvalidInput (422, field ``seq``, or
    ``battle`` when nothing is left): an undo, a join, an entry already undone (a Conflict,
    409, when ``seen`` shows the page did not know), an entry a later standing entry changed
    a unit of, an entry neither the user's nor undone by the host (P22), and in an ended
    battle anything but its End battle entry. ``seen``: as for every action (P24)."""
    battle, viewer = locked(session, user=user, battle_id=battle_id)
    entries = BattleEntry.battle_id == battle.id
    if seq is None:
        target = session.scalar(
            select(BattleEntry)
            .where(entries, BattleEntry.undone_by_seq.is_(None))
            .where(BattleEntry.kind.not_in(FIXED_KINDS))
            .order_by(BattleEntry.seq.desc())
            .limit(1)
        )
        if target is None:
            raise InvalidInput("battle", "there is nothing to undo")
    else:
        target = session.scalar(select(BattleEntry).where(entries, BattleEntry.seq == seq))
        if target is None:
            raise InvalidInput("seq", f"there is no entry #{seq} in this battle's log")
    field = "seq" if seq is not None else "battle"
    if target.kind in FIXED_KINDS:
        what = (
            "an undo is not undone: roll again"
            if target.kind == UNDO_KIND
            else "a join is not undone: the host may remove the player"
        )
        raise InvalidInput(field, f"#{target.seq} cannot be undone ({what})")
    if target.undone_by_seq is not None:
        undo = session.scalar(
            select(BattleEntry).where(entries, BattleEntry.seq == target.undone_by_seq)
        )
        by = actor_name(session, undo) if undo is not None else None
        reason = f"#{target.seq} was already undone by #{target.undone_by_seq}"
        if seen is not None and target.undone_by_seq > seen:
            raise Conflict(
                f"{by or 'Someone'} undid #{target.seq} with #{target.undone_by_seq} since you "
                "loaded this page",
                entry=target.undone_by_seq,
                by=by,
            )
        raise InvalidInput(field, reason)
    if battle.status == ENDED and target.kind != END_KIND:
        raise InvalidInput(field, "the battle has ended: undo its End battle entry first")
    if not may_undo(viewer, user.id, target):
        raise InvalidInput(
            field, f"#{target.seq} is another player's: only they or the host may undo it"
        )
    units = load_units(session, battle)
    touched = entry_units(target)
    require_fresh(
        session,
        battle,
        seen,
        {uid: units[uid].row.name for uid in touched if uid in units},
        again="check the new state before undoing",
    )
    later = session.scalars(
        select(BattleEntry)
        .where(entries, BattleEntry.seq > target.seq, BattleEntry.undone_by_seq.is_(None))
        .where(BattleEntry.kind != UNDO_KIND)
        .order_by(BattleEntry.seq)
    )
    for entry in later:
        if target.kind in TURN_KINDS and entry.kind in TURN_KINDS:
            raise InvalidInput(
                field, f"#{entry.seq} changed the turn since #{target.seq}: undo #{entry.seq} first"
            )
        if entry_units(entry) & touched:
            raise InvalidInput(
                field,
                f"#{entry.seq} changed the same units since #{target.seq}: undo #{entry.seq} first",
            )
    restored = {
        int(key): units[int(key)].ruleset.decode_state(change["before"])
        for key, change in target.changes.items()
        if int(key) in units
    }
    changes = changes_json(units, restored)
    for key, state in restored.items():
        store_state(units[key], state)
    request: dict[str, Any] = {"undoes": target.seq}
    turn = target.request.get("turn")
    if target.kind in TURN_KINDS and isinstance(turn, dict):  # (P31: the turn as it was)
        request["turn"] = {"before": turn_state(battle), "after": turn.get("before", {})}
        restore_turn(battle, turn.get("before", {}))
    status = target.request.get("status")
    if target.kind == END_KIND and isinstance(status, dict):
        before = str(status.get("before", OPEN))
        request["status"] = {"before": battle.status, "after": before}
        battle.status = before
    entry = diceless_entry(
        battle, user, UNDO_KIND, f"Undo #{target.seq}: {target.summary}", request
    )
    entry.changes_json = changes  # (each unit it restored, before and after)
    append(session, battle, entry)
    target.undone_by_seq = entry.seq
    session.flush()
    return entry
