"""A battle as the pages and the API show it: its units by side, each with its copied unit,
its state and how it now stands (the ruleset's ``standing``), and the log; also how a unit's
state is read from and written to its row (the ruleset's JSON in ``BattleUnit.state``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import Battle, BattleEntry, BattleUnit, User
from app.rules.registry import get_ruleset
from app.rules.ruleset import Fighter, Ruleset, Standing, UnitAction
from app.services.errors import NotFound


@dataclass(frozen=True)
class WeaponInBattle:
    """A weapon as pages show it: its cells by the ruleset's keys (``w.cells.use``);
    ``inoperative``: it cannot fire until an action readies it; ``fires``: it attacks at all
    (armour does not: the attack form leaves it out)."""

    index: int
    name: str
    cells: Mapping[str, str]
    inoperative: bool
    fires: bool = True


@dataclass(frozen=True)
class UnitInBattle:
    """A battle unit as it now stands: its row, its ruleset, the unit as copied, its state
    and its army's options (the ruleset's own types)."""

    row: BattleUnit
    ruleset: Ruleset
    copied: Any
    state: Any
    options: Any

    @property
    def fighter(self) -> Fighter:
        return Fighter(self.row.id, self.row.name, self.copied, self.state, self.options)

    @cached_property
    def standing(self) -> Standing:
        return self.ruleset.standing(self.fighter)

    @property
    def spec(self) -> Any:
        """The unit with its state applied (what its attacks use)."""
        return self.standing.unit

    @property
    def cells(self) -> Mapping[str, str]:
        return self.standing.cells

    @property
    def out(self) -> bool:
        """Out of the fight (destroyed): it takes no action and is no target."""
        return self.standing.out

    @cached_property
    def weapons(self) -> list[WeaponInBattle]:
        return [
            WeaponInBattle(w.index, w.name, w.cells, not w.ready, w.fires)
            for w in self.standing.weapons
        ]

    @property
    def badges(self) -> list[str]:
        return list(self.standing.badges)

    @property
    def status_text(self) -> str:
        """The unit's figures and state in words (the export's unit line)."""
        return self.standing.status

    @property
    def actions(self) -> list[UnitAction]:
        """The named actions it may take now."""
        now = set(self.standing.actions)
        return [a for a in self.ruleset.unit_actions if a.name in now]


@dataclass(frozen=True)
class Side:
    name: str
    units: list[UnitInBattle]


@dataclass(frozen=True)
class LogEntry:
    row: BattleEntry
    actor_name: str | None

    @cached_property
    def dice(self) -> list[dict[str, Any]]:
        return self.row.dice

    @cached_property
    def odds(self) -> Any:
        return self.row.odds


@dataclass(frozen=True)
class BattleView:
    battle: Battle
    units: list[UnitInBattle]
    entries: list[LogEntry]  # oldest first

    @property
    def ruleset(self) -> Ruleset:
        return get_ruleset(self.battle.ruleset_id)

    @cached_property
    def sides(self) -> list[Side]:
        sides: dict[str, list[UnitInBattle]] = {}
        for unit in self.units:
            sides.setdefault(unit.row.side, []).append(unit)
        return [Side(name, units) for name, units in sides.items()]

    def unit(self, unit_id: int) -> UnitInBattle:
        for unit in self.units:
            if unit.row.id == unit_id:
                return unit
        raise NotFound("unit")

    def name_of(self, unit_id: int | None) -> str:
        return next((u.row.name for u in self.units if u.row.id == unit_id), "")


def store_state(unit: UnitInBattle, state: Any) -> None:
    """Keep the unit's new state on its row (a new dict, so the JSON column sees the change)."""
    unit.row.state = unit.ruleset.encode_state(state)


def unit_in_battle(row: BattleUnit, ruleset: Ruleset) -> UnitInBattle:
    return UnitInBattle(
        row,
        ruleset,
        ruleset.decode_unit(row.spec),
        ruleset.decode_state(row.state or {}),
        ruleset.decode_options(row.options),
    )


def load_units(session: Session, battle: Battle) -> dict[int, UnitInBattle]:
    """The battle's units by id, read afresh (after the lock: what is committed)."""
    ruleset = get_ruleset(battle.ruleset_id)
    rows = session.scalars(
        select(BattleUnit)
        .where(BattleUnit.battle_id == battle.id)
        .order_by(BattleUnit.position, BattleUnit.id)
        .execution_options(populate_existing=True)  # fresh after the lock
    )
    return {row.id: unit_in_battle(row, ruleset) for row in rows}


def view_of(session: Session, battle: Battle) -> BattleView:
    """The battle with its units and its log, oldest entry first."""
    units = list(load_units(session, battle).values())
    rows = session.execute(
        select(BattleEntry, User.display_name)
        .outerjoin(User, User.id == BattleEntry.actor_id)
        .where(BattleEntry.battle_id == battle.id)
        .order_by(BattleEntry.seq)
    ).all()
    return BattleView(battle, units, [LogEntry(entry, name) for entry, name in rows])
