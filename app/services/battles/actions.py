"""A unit's actions besides attacking (Reload, Divert All Power, the Burning Roll), and Undo."""

from __future__ import annotations

import random

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import Battle, BattleEntry, User
from app.rules.brikwars import battle_state as bs
from app.rules.errors import InvalidInput
from app.services.battles import codec
from app.services.battles.log import lock, log_state_change, new_seed
from app.services.battles.views import UnitInBattle, inches, load_units, store_state
from app.services.errors import NotFound


def _unit(session: Session, battle: Battle, unit_id: int) -> UnitInBattle:
    unit = load_units(session, battle.id).get(unit_id)
    if unit is None:
        raise NotFound("unit")
    return unit


def reload(session: Session, *, user: User, battle_id: int, unit_id: int) -> BattleEntry:
    """Reload the unit's Inoperative weapons (its Action), logged."""
    battle = lock(session, user=user, battle_id=battle_id)
    unit = _unit(session, battle, unit_id)
    after = bs.reload(unit.state, unit.row.name)
    names = ", ".join(w.name for w in unit.weapons if w.inoperative)
    return log_state_change(
        session,
        battle,
        user,
        unit,
        after,
        kind="reload",
        summary=f"{unit.row.name} Reloads {names}",
    )


def divert_power(session: Session, *, user: User, battle_id: int, unit_id: int) -> BattleEntry:
    """The unit Diverts All Power this turn: a turn of Power saved, logged."""
    battle = lock(session, user=user, battle_id=battle_id)
    unit = _unit(session, battle, unit_id)
    after = bs.divert(unit.state, unit.row.name)
    saved = unit.power * after.diverted_turns
    summary = (
        f"{unit.row.name} Diverts All Power: {after.diverted_turns} turn"
        f"{'s' * (after.diverted_turns != 1)} saved ({inches(saved)} extra for one weapon)"
    )
    return log_state_change(session, battle, user, unit, after, kind="divert", summary=summary)


def burning_roll(
    session: Session, *, user: User, battle_id: int, unit_id: int, seed: int | None = None
) -> BattleEntry:
    """The Burning Roll of a unit on Fire at the start of its turn (1d4, seeded), logged."""
    battle = lock(session, user=user, battle_id=battle_id)
    unit = _unit(session, battle, unit_id)
    seed = new_seed(seed)
    rolled = bs.burning_roll(unit.state, unit.spec, random.Random(seed))  # noqa: S311
    summary = f"{unit.row.name} Burning Roll d4 {rolled.die.natural}: {rolled.summary}"
    return log_state_change(
        session,
        battle,
        user,
        unit,
        rolled.after,
        kind="burning",
        summary=summary,
        dice=codec.burning_roll_to_dict(rolled.die, unit.row.id),
        seed=seed,
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
    units = load_units(session, battle.id)
    for key, change in last.changes.items():
        unit = units.get(int(key))
        if unit is not None:
            store_state(unit.row, bs.state_from_dict(change["before"]))
    session.delete(last)
    session.flush()
    return last
