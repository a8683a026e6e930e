"""The BrikWars army builder: units and weapons stored, every figure from the engine.

Stored rows hold the engine's JSON form of each unit and weapon; every view and
every mutation rebuilds the ``UnitSpec`` so the rules decide validity, costs,
Armour, Move, Power, findings and activation sets. A mutation that the engine
refuses raises ``InvalidInput`` naming the field, and nothing is saved.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from sqlalchemy.orm import Session, selectinload

from app.db.models import Army, Unit, User, Weapon
from app.rules import brikwars as bw
from app.rules.errors import InvalidInput
from app.services.errors import NotFound, StaleVersion
from app.services.permissions import Access, army_for

# Weapons on these mounts draw on the unit's own Power; turreted ones bring their own.
_SHARED_POWER = ("mounted", "hand_held")


# ------------------------------------------------------------------------------ views


@dataclass(frozen=True)
class WeaponView:
    row: Weapon
    spec: bw.WeaponSpec
    stats: bw.WeaponStats
    hold: str | None
    findings: list[bw.Finding]


@dataclass(frozen=True)
class UnitView:
    row: Unit
    spec: bw.UnitSpec
    cost: Fraction
    power_needed: Fraction
    weapons: list[WeaponView]
    findings: list[bw.Finding]
    activation_sets: list[tuple[int, ...]]

    @property
    def has_errors(self) -> bool:
        return any(f.severity == "error" for f in self.all_findings)

    @property
    def all_findings(self) -> list[bw.Finding]:
        return self.findings + [f for w in self.weapons for f in w.findings]


@dataclass(frozen=True)
class ArmyView:
    army: Army
    options: bw.BrikWarsOptions
    units: list[UnitView]
    total_cost: Fraction
    army_findings: list[bw.Finding] = field(default_factory=list)

    @property
    def all_findings(self) -> list[bw.Finding]:
        return self.army_findings + [f for u in self.units for f in u.all_findings]

    @property
    def error_count(self) -> int:
        return sum(f.severity == "error" for f in self.all_findings)

    @property
    def warning_count(self) -> int:
        return sum(f.severity == "warning" for f in self.all_findings)

    def unit(self, unit_id: int) -> UnitView:
        for view in self.units:
            if view.row.id == unit_id:
                return view
        raise NotFound("unit")


def _unit_dict(unit: Unit) -> dict[str, Any]:
    return {
        "name": unit.name,
        "kind": unit.kind,
        **unit.spec,
        "weapons": [{"type": w.type, **w.spec} for w in unit.weapons],
    }


def options_of(army: Army) -> bw.BrikWarsOptions:
    return bw.BrikWarsOptions.from_dict(army.house_rules or {})


def build_view(army: Army) -> ArmyView:
    """Every figure of an army whose units and weapons are loaded."""
    options = options_of(army)
    specs = [bw.unit_from_dict(_unit_dict(u)) for u in army.units]
    findings = bw.validate_army(specs, budget=army.budget, options=options)
    units = []
    for index, (row, spec) in enumerate(zip(army.units, specs, strict=True)):
        mine = [f for f in findings if f.unit == index]
        weapons = [
            WeaponView(
                row=w_row,
                spec=w_spec,
                stats=spec.weapon_stats(w_index, options),
                hold=spec.hold_class(w_index),
                findings=[f for f in mine if f.weapon == w_index],
            )
            for w_index, (w_row, w_spec) in enumerate(zip(row.weapons, spec.weapons, strict=True))
        ]
        units.append(
            UnitView(
                row=row,
                spec=spec,
                cost=spec.cost_with(options),
                power_needed=sum(
                    (w.power_need_with(options) for w in spec.weapons if w.mount in _SHARED_POWER),
                    Fraction(0),
                ),
                weapons=weapons,
                findings=[f for f in mine if f.weapon is None],
                activation_sets=bw.activation_sets(spec, options=options),
            )
        )
    return ArmyView(
        army=army,
        options=options,
        units=units,
        total_cost=bw.army_cost(specs, options=options),
        army_findings=[f for f in findings if f.unit is None],
    )


def load_army(session: Session, *, user: User, army_id: int, access: Access = Access.READ) -> Army:
    """The army with its units and weapons, in three queries whatever its size."""
    eager = (selectinload(Army.units).selectinload(Unit.weapons),)
    return army_for(session, user=user, army_id=army_id, access=access, load=eager)


def army_view(session: Session, *, user: User, army_id: int) -> ArmyView:
    """The builder's view of an army the user may read."""
    return build_view(load_army(session, user=user, army_id=army_id))


# ------------------------------------------------------------------------------ input


def _clean(data: Mapping[str, Any]) -> dict[str, Any]:
    """Drop absent values (None, empty strings) recursively; an empty mapping is absent."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, Mapping):
            value = _clean(value)
            if not value:
                continue
        if value is None or (isinstance(value, str) and not value.strip()):
            continue
        out[key] = value
    return out


def _check_unit(data: Mapping[str, Any], *, weapon_index: int | None = None) -> bw.UnitSpec:
    """Build the UnitSpec; errors inside the weapon being edited lose their ``weapons.N.``."""
    try:
        return bw.unit_from_dict(dict(data))
    except InvalidInput as exc:
        prefix = f"weapons.{weapon_index}."
        if weapon_index is not None and exc.field.startswith(prefix):
            raise InvalidInput(exc.field[len(prefix) :], exc.reason) from None
        raise


def _split_unit(spec: bw.UnitSpec) -> tuple[str, str, dict[str, Any], list[dict[str, Any]]]:
    data = bw.unit_to_dict(spec)
    weapons = data.pop("weapons")
    name, kind = data.pop("name"), data.pop("kind")
    return name, kind, data, weapons


def _weapon_row(unit: Unit, data: dict[str, Any], position: int) -> Weapon:
    data = dict(data)
    return Weapon(unit=unit, type=data.pop("type"), spec=data, position=position)


def _army_unit(army: Army, unit_id: int) -> Unit:
    for unit in army.units:
        if unit.id == unit_id:
            return unit
    raise NotFound("unit")


def _check_version(what: str, current: int, expected: int | None) -> None:
    if expected is not None and current != expected:
        raise StaleVersion(what, current)


# ------------------------------------------------------------------------------ mutations


def add_unit(session: Session, *, user: User, army_id: int, data: Mapping[str, Any]) -> Unit:
    """Append a unit (and any weapons given with it) to the army."""
    army = load_army(session, user=user, army_id=army_id, access=Access.EDIT)
    spec = _check_unit(_clean(data))
    name, kind, fields, weapons = _split_unit(spec)
    unit = Unit(army=army, name=name, kind=kind, spec=fields, position=len(army.units))
    session.add(unit)
    for position, weapon in enumerate(weapons):
        session.add(_weapon_row(unit, weapon, position))
    session.flush()
    return unit


def update_unit(
    session: Session,
    *,
    user: User,
    army_id: int,
    unit_id: int,
    data: Mapping[str, Any],
    expected_version: int | None,
) -> Unit:
    """Change a unit's own fields (not its weapons); a stale version is refused."""
    army = load_army(session, user=user, army_id=army_id, access=Access.EDIT)
    unit = _army_unit(army, unit_id)
    _check_version("unit", unit.version, expected_version)
    current = _unit_dict(unit)
    changes = _clean(data)
    if "weapons" in changes:
        raise InvalidInput("weapons", "edit weapons through their own routes")
    merged = {**current, **changes}
    if "kind" in changes and changes["kind"] != current["kind"]:
        # A new kind starts from that kind's defaults: keep only what was sent.
        merged = {"name": current["name"], "weapons": current["weapons"], **changes}
    spec = _check_unit(merged)
    name, kind, fields, _ = _split_unit(spec)
    unit.name, unit.kind, unit.spec = name, kind, fields
    session.flush()
    return unit


def delete_unit(session: Session, *, user: User, army_id: int, unit_id: int) -> None:
    """Remove a unit and its weapons; the others close ranks."""
    army = load_army(session, user=user, army_id=army_id, access=Access.EDIT)
    unit = _army_unit(army, unit_id)
    army.units.remove(unit)
    session.delete(unit)
    _renumber(army.units)
    session.flush()


def duplicate_unit(session: Session, *, user: User, army_id: int, unit_id: int) -> Unit:
    """A copy of the unit with its weapons, placed right after it."""
    army = load_army(session, user=user, army_id=army_id, access=Access.EDIT)
    original = _army_unit(army, unit_id)
    name = f"{original.name} (copy)"[:120]
    copy = Unit(
        army=army,
        name=name,
        kind=original.kind,
        spec=dict(original.spec),
        position=original.position + 1,
    )
    for weapon in original.weapons:
        session.add(
            Weapon(unit=copy, type=weapon.type, spec=dict(weapon.spec), position=weapon.position)
        )
    units = list(army.units)
    units.remove(copy)
    units.insert(units.index(original) + 1, copy)
    session.add(copy)
    _renumber(units)
    session.flush()
    return copy


def move_unit(session: Session, *, user: User, army_id: int, unit_id: int, offset: int) -> None:
    """Move a unit up (-1) or down (+1) the list; at an end it stays."""
    if offset not in (-1, 1):
        raise InvalidInput("offset", "must be -1 or 1")
    army = load_army(session, user=user, army_id=army_id, access=Access.EDIT)
    units = list(army.units)
    unit = _army_unit(army, unit_id)
    index = units.index(unit)
    target = index + offset
    if 0 <= target < len(units):
        units[index], units[target] = units[target], units[index]
        _renumber(units)
    session.flush()


def _renumber(rows: list[Unit] | list[Weapon]) -> None:
    for position, row in enumerate(rows):
        if row.position != position:
            row.position = position


def add_weapon(
    session: Session, *, user: User, army_id: int, unit_id: int, data: Mapping[str, Any]
) -> Weapon:
    """Give the unit a weapon; the whole unit is re-checked by the engine first."""
    army = load_army(session, user=user, army_id=army_id, access=Access.EDIT)
    unit = _army_unit(army, unit_id)
    current = _unit_dict(unit)
    index = len(current["weapons"])
    spec = _check_unit(
        {**current, "weapons": [*current["weapons"], _clean(data)]}, weapon_index=index
    )
    _, _, _, weapons = _split_unit(spec)
    weapon = _weapon_row(unit, weapons[index], index)
    session.add(weapon)
    session.flush()
    return weapon


def update_weapon(
    session: Session,
    *,
    user: User,
    army_id: int,
    unit_id: int,
    weapon_id: int,
    data: Mapping[str, Any],
    expected_version: int | None,
) -> Weapon:
    """Change a weapon (its size, mount, ammo...); the type may change too."""
    army = load_army(session, user=user, army_id=army_id, access=Access.EDIT)
    unit = _army_unit(army, unit_id)
    weapon = next((w for w in unit.weapons if w.id == weapon_id), None)
    if weapon is None:
        raise NotFound("weapon")
    _check_version("weapon", weapon.version, expected_version)
    current = _unit_dict(unit)
    index = unit.weapons.index(weapon)
    changes = _clean(data)
    old = current["weapons"][index]
    # Changing the type starts the weapon afresh; otherwise the changes patch it.
    new = changes if changes.get("type", old["type"]) != old["type"] else {**old, **changes}
    current["weapons"][index] = new
    spec = _check_unit(current, weapon_index=index)
    _, _, _, weapons = _split_unit(spec)
    stored = dict(weapons[index])
    weapon.type = stored.pop("type")
    weapon.spec = stored
    session.flush()
    return weapon


def delete_weapon(
    session: Session, *, user: User, army_id: int, unit_id: int, weapon_id: int
) -> None:
    """Take a weapon off a unit."""
    army = load_army(session, user=user, army_id=army_id, access=Access.EDIT)
    unit = _army_unit(army, unit_id)
    weapon = next((w for w in unit.weapons if w.id == weapon_id), None)
    if weapon is None:
        raise NotFound("weapon")
    unit.weapons.remove(weapon)
    session.delete(weapon)
    _renumber(unit.weapons)
    session.flush()


def set_house_rules(
    session: Session,
    *,
    user: User,
    army_id: int,
    options: Mapping[str, Any],
    expected_version: int | None,
) -> Army:
    """Store the rule options the army is built under (validated by the engine)."""
    army = army_for(session, user=user, army_id=army_id, access=Access.EDIT)
    _check_version("army", army.version, expected_version)
    army.house_rules = bw.BrikWarsOptions.from_dict(dict(options)).to_dict()
    session.flush()
    return army


@dataclass(frozen=True)
class WeaponPreview:
    """What a weapon would be on a unit: its stats, how it is held, what the rules say."""

    spec: bw.WeaponSpec
    stats: bw.WeaponStats
    hold: str | None
    findings: list[bw.Finding]


def preview_weapon(
    session: Session, *, user: User, army_id: int, unit_id: int, data: Mapping[str, Any]
) -> WeaponPreview:
    """The weapon as it would be if added to the unit; nothing is saved."""
    army = load_army(session, user=user, army_id=army_id)
    unit = _army_unit(army, unit_id)
    current = _unit_dict(unit)
    index = len(current["weapons"])
    spec = _check_unit(
        {**current, "weapons": [*current["weapons"], _clean(data)]}, weapon_index=index
    )
    options = options_of(army)
    return WeaponPreview(
        spec=spec.weapons[index],
        stats=spec.weapon_stats(index, options),
        hold=spec.hold_class(index),
        findings=[f for f in bw.validate_unit(spec, options=options) if f.weapon == index],
    )
