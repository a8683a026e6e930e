"""A unit's named actions besides attacking (the ruleset's ``unit_actions``: Reload, Divert
All Power, the Burning Roll for BrikWars), and Undo."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import Battle, BattleEntry, User
from app.rules.errors import InvalidInput
from app.services.battles.log import lock, log_state_change, new_seed
from app.services.battles.views import UnitInBattle, load_units, store_state
from app.services.errors import NotFound


def _unit(session: Session, battle: Battle, unit_id: int) -> UnitInBattle:
    unit = load_units(session, battle).get(unit_id)
    if unit is None:
        raise NotFound("unit")
    return unit


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
    seeded: the seed is logged when the action rolled any."""
    battle = lock(session, user=user, battle_id=battle_id)
    unit = _unit(session, battle, unit_id)
    named = next((a for a in unit.ruleset.unit_actions if a.name == action), None)
    if named is None:
        raise NotFound("action")
    asked = {f.name for f in named.fields}
    seed = new_seed(seed)
    result = unit.ruleset.apply_action(
        action,
        unit.fighter,
        {k: v for k, v in (values or {}).items() if k in asked},
        random.Random(seed),  # noqa: S311  (a replayable game roll)
    )
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


def undo_last(session: Session, *, user: User, battle_id: int) -> BattleEntry:
    """Remove the last entry and restore every unit it changed as it was before."""
    battle = lock(session, user=user, battle_id=battle_id)
    last = session.scalar(
        select(BattleEntry)
        .where(BattleEntry.battle_id == battle.id)
        .order_by(BattleEntry.seq.desc())
        .limit(1)
    )
    if last is None:
        raise InvalidInput("battle", "there is nothing to undo")
    units = load_units(session, battle)
    for key, change in last.changes.items():
        unit = units.get(int(key))
        if unit is not None:
            store_state(unit, unit.ruleset.decode_state(change["before"]))
    session.delete(last)
    session.flush()
    return last
