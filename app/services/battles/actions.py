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
from app.services import quotas
from app.services.battles.log import (
    END_KIND,
    ENDED,
    JOIN_KIND,
    OPEN,
    append,
    changes_json,
    lock,
    locked,
    log_state_change,
    new_seed,
    require_open,
    require_side,
)
from app.services.battles.views import load_units, store_state
from app.services.errors import NotFound


def unit_action(
    session: Session,
    *,
    user: User,
    battle_id: int,
    unit_id: int,
    action: str,
    values: Mapping[str, Any] | None = None,
    seed: int | None = None,
) -> BattleEntry:
    """Take one of the ruleset's named actions for the unit, logged (an unknown action is
    NotFound; one the unit may not take now is refused with InvalidInput). Dice are
    seeded: the seed is logged when the action rolled any. The ruleset is given the
    battle's other units (``Fighter.others``); the state of every unit the action changed
    (``ActionResult.others``: an explosion's figurines) is kept and logged before and
    after, so Undo restores them all."""
    battle, viewer = locked(session, user=user, battle_id=battle_id)
    require_open(battle)
    units = load_units(session, battle)
    unit = units.get(unit_id)
    if unit is None:
        raise NotFound("unit")
    require_side(viewer, unit, "unit_id")
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


def undo_last(session: Session, *, user: User, battle_id: int) -> BattleEntry:
    """Remove the last entry and restore every unit it changed as it was before (and the
    battle's status, for an End battle entry: it reopens). The host undoes any entry, a player
    only their own; a player's joining is never undone (ruling P4)."""
    battle, viewer = locked(session, user=user, battle_id=battle_id)
    last = session.scalar(
        select(BattleEntry)
        .where(BattleEntry.battle_id == battle.id)
        .order_by(BattleEntry.seq.desc())
        .limit(1)
    )
    if last is None:
        raise InvalidInput("battle", "there is nothing to undo")
    if last.kind == JOIN_KIND:
        raise InvalidInput(
            "battle",
            f"#{last.seq} is a player joining: a join is not undone (the host may"
            " remove the player)",
        )
    if not viewer.host and last.actor_id != user.id:
        raise InvalidInput(
            "battle", f"#{last.seq} is another's: only its author or the host may undo it"
        )
    units = load_units(session, battle)
    for key, change in last.changes.items():
        unit = units.get(int(key))
        if unit is not None:
            store_state(unit, unit.ruleset.decode_state(change["before"]))
    status = last.request.get("status")
    if last.kind == END_KIND and isinstance(status, dict):
        battle.status = str(status.get("before", OPEN))
    session.delete(last)
    session.flush()
    quotas.rows(session, owner_id=battle.owner_id, entries=-1)
    return last
