"""A battle as the pages and the API show it: its units by side, each with its copied spec,
its state and its weapons, and the log; also how a unit's state is read from and written to
its row (the engine's JSON in ``BattleUnit.state``)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import Battle, BattleEntry, BattleUnit, User
from app.rules import brikwars as bw
from app.rules.brikwars import battle_state as bs
from app.rules.brikwars.serialize import unit_from_dict
from app.rules.brikwars.validation import weapon_name
from app.services.errors import NotFound


@dataclass(frozen=True)
class WeaponInBattle:
    index: int
    name: str
    use: str
    range: str
    damage: str
    inoperative: bool


@dataclass(frozen=True)
class UnitInBattle:
    """A battle unit as it now stands: its copied spec with its Size Damage, and its state."""

    row: BattleUnit
    spec: bw.UnitSpec
    state: bs.UnitState
    options: bw.BrikWarsOptions

    @cached_property
    def weapons(self) -> list[WeaponInBattle]:
        out = []
        for i, weapon in enumerate(self.spec.weapons):
            stats = self.spec.weapon_stats(i, self.options)
            out.append(
                WeaponInBattle(
                    index=i,
                    name=weapon_name(weapon),  # its label included
                    use="–" if stats.use is None else str(stats.use),
                    range="CC" if stats.range_inches is None else inches(stats.range_inches),
                    damage="–" if stats.damage is None else str(stats.damage),
                    inoperative=i in self.state.inoperative,
                )
            )
        return out

    @property
    def size_text(self) -> str:
        return inches(self.spec.built_size)

    @property
    def effective_size_text(self) -> str:
        return inches(self.spec.effective_size)

    @property
    def armour_text(self) -> str:
        armour = self.spec.armour
        return str(armour) + (f" +{armour.deflection} Defl." if armour.deflection else "")

    @property
    def power(self) -> Fraction:
        return self.spec.standing_power_with(self.options)

    @property
    def power_text(self) -> str:
        return inches(self.power)

    @property
    def status_text(self) -> str:
        """Size, Armour, Power and the state badges in words (the export's unit line)."""
        parts = [
            f"Size {self.effective_size_text}/{self.size_text}",
            f"Armour {self.armour_text}",
            f"Power {self.power_text}",
        ]
        return ", ".join(parts + self.badges)

    @property
    def badges(self) -> list[str]:
        s = self.state
        out = []
        if s.destroyed:
            out.append("destroyed")
        if s.on_fire:
            out.append("on Fire")
        for w in self.weapons:
            if w.inoperative:
                out.append(f"{w.name} Inoperative")
        if s.diverted_turns:
            out.append(f"{s.diverted_turns} turn{'s' * (s.diverted_turns != 1)} of Power saved")
        if s.homing_in:
            out.append(f"Homing In +{s.homing_in}")
        if s.limbs_lost:
            out.append(f"{s.limbs_lost} limb{'s' * (s.limbs_lost != 1)} useless")
        return out


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


def inches(value: Fraction | int) -> str:
    return f'{bw.format_number(value)}"'


def state_of(row: BattleUnit) -> bs.UnitState:
    """The unit's state as its row keeps it."""
    return bs.state_from_dict(row.state or {})


def store_state(row: BattleUnit, state: bs.UnitState) -> None:
    """Keep the unit's new state on its row (a new dict, so the JSON column sees the change)."""
    row.state = bs.state_to_dict(state)


def unit_in_battle(row: BattleUnit) -> UnitInBattle:
    state = state_of(row)
    spec = state.unit(unit_from_dict(row.spec))
    return UnitInBattle(row, spec, state, bw.BrikWarsOptions.from_dict(row.options))


def load_units(session: Session, battle_id: int) -> dict[int, UnitInBattle]:
    """The battle's units by id, read afresh (after the lock: what is committed)."""
    rows = session.scalars(
        select(BattleUnit)
        .where(BattleUnit.battle_id == battle_id)
        .order_by(BattleUnit.position, BattleUnit.id)
        .execution_options(populate_existing=True)  # fresh after the lock
    )
    return {row.id: unit_in_battle(row) for row in rows}


def view_of(session: Session, battle: Battle) -> BattleView:
    """The battle with its units and its log, oldest entry first."""
    units = list(load_units(session, battle.id).values())
    rows = session.execute(
        select(BattleEntry, User.display_name)
        .outerjoin(User, User.id == BattleEntry.actor_id)
        .where(BattleEntry.battle_id == battle.id)
        .order_by(BattleEntry.seq)
    ).all()
    return BattleView(battle, units, [LogEntry(entry, name) for entry, name in rows])
