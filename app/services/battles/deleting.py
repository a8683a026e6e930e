"""Deleting a battle (its host's alone): its sides, invitations, units and log go with it, in
the action's one transaction."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.db.models import Battle, BattleEntry, BattleInvite, BattleSide, BattleUnit, User
from app.services import live, quotas
from app.services.battles.log import lock
from app.services.permissions import battle_for


@dataclass(frozen=True)
class BattleContents:
    """What deleting a battle takes with it (its confirmation names them)."""

    battle: Battle
    units: int
    entries: int


def battle_contents(session: Session, *, user: User, battle_id: int) -> BattleContents:
    """A battle of the user's with the number of its units and log entries."""
    battle = battle_for(session, user=user, battle_id=battle_id, host=True)
    units = session.scalar(
        select(func.count(BattleUnit.id)).where(BattleUnit.battle_id == battle.id)
    )
    entries = session.scalar(
        select(func.count(BattleEntry.id)).where(BattleEntry.battle_id == battle.id)
    )
    return BattleContents(battle, units or 0, entries or 0)


def delete_battle(session: Session, *, user: User, battle_id: int) -> str:
    """Delete a battle of the user's with its units and log (others': NotFound); its name."""
    # Locked first, as an action locks it: no entry is added between the count and the delete
    # (and the account's row is locked after the battle's, in the order an action takes them).
    battle = lock(session, user=user, battle_id=battle_id, host=True)
    live.access_changed(session, battle_id=battle.id)  # its streams end
    name = battle.name
    entries = session.scalar(
        select(func.count(BattleEntry.id)).where(BattleEntry.battle_id == battle.id)
    )
    for table in (BattleEntry, BattleUnit, BattleSide, BattleInvite):
        session.execute(
            delete(table)
            .where(table.battle_id == battle.id)
            .execution_options(synchronize_session=False)
        )
    session.delete(battle)  # its units are gone already (``passive_deletes``: none loaded)
    session.flush()
    quotas.rows(session, owner_id=battle.owner_id, entries=-(entries or 0))
    return name
