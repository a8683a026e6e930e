"""The BrikWars army builder: units and weapons stored, every figure from the engine.

Stored rows hold the engine's JSON form of each unit and weapon; every view and
every mutation rebuilds the ``UnitSpec`` so the rules decide validity, costs,
Armour, Move, Power, findings and activation sets. A mutation that the engine
refuses raises ``InvalidInput`` naming the field, and nothing is saved.

Speed: pages read units as plain rows (two queries, no ORM objects) and each
unit's figures are memoised on its content and the house rules, so a 200-unit
army re-renders without re-deriving the 199 units that did not change.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, selectinload

from app.db.models import Army, Unit, User, Weapon
from app.rules import brikwars as bw
from app.rules.brikwars.figures import (
    WeaponLine,
    armour_text,
    inches,
    size_text,
    weapon_line,
    weapon_name,
)
from app.rules.errors import InvalidInput
from app.rules.memo import bounded_cache
from app.rules.registry import get_ruleset
from app.rules.ruleset import read_options
from app.services import history, merge

# The rows are read in army_rows; their names stay importable from here.
from app.services.army_rows import UnitRow as UnitRow
from app.services.army_rows import WeaponRow as WeaponRow
from app.services.army_rows import load_rows as load_rows
from app.services.army_rows import load_rows_of as load_rows_of
from app.services.army_rows import lock_army as lock_army
from app.services.army_rows import unit_dict
from app.services.errors import NotFound, StaleVersion
from app.services.permissions import Access, army_for, can


def _row_dict(row: Unit) -> dict[str, Any]:
    return unit_dict(row.name, row.kind, row.spec, [(w.type, w.spec) for w in row.weapons])


# ------------------------------------------------------------------------------ figures


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: memoised, one per content
class UnitFigures:
    """Everything the rules say about one unit under one set of house rules."""

    spec: bw.UnitSpec
    cost: Fraction
    power_needed: Fraction
    stats: tuple[bw.WeaponStats, ...]
    holds: tuple[str | None, ...]
    findings: tuple[bw.Finding, ...]
    activation_sets: tuple[tuple[int, ...], ...]
    lines: tuple[WeaponLine, ...]
    size_text: str
    armour_text: str
    move_text: str
    power_text: str
    cost_text: str
    activation_text: str


class _Content:
    """A memo key that compares by a unit's stored content and carries the unit along."""

    __slots__ = ("_hash", "key", "row")

    def __init__(self, row: UnitRow) -> None:
        self.key = row.content
        self.row = row
        self._hash = hash(self.key)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Content) and self.key == other.key


def unit_figures(row: UnitRow, options: bw.BrikWarsOptions) -> UnitFigures:
    """A stored unit's figures, memoised on its content and the house rules."""
    return _figures(_Content(row), options)


def _figures_size(fig: UnitFigures) -> int:
    """About the bytes one unit's figures hold: measured ~6 KB plus ~3 KB a weapon (its stats,
    line and findings), and its activation sets."""
    return 6144 + 3072 * len(fig.stats) + 100 * len(fig.activation_sets)


@bounded_cache(4096, max_bytes=64 << 20, size=_figures_size)
def _figures(content: _Content, options: bw.BrikWarsOptions) -> UnitFigures:
    spec = bw.unit_from_dict(content.row.as_dict())
    stats = tuple(spec.weapon_stats(i, options) for i in range(len(spec.weapons)))
    holds = tuple(spec.hold_class(i) for i in range(len(spec.weapons)))
    power_needed = spec.power_needed_with(options)
    sets = tuple(bw.activation_sets(spec, options=options))
    names = [weapon_name(w) for w in spec.weapons]
    cost = spec.cost_with(options)
    return UnitFigures(
        spec=spec,
        cost=cost,
        power_needed=power_needed,
        stats=stats,
        holds=holds,
        findings=tuple(bw.validate_unit(spec, options=options)),
        activation_sets=sets,
        lines=tuple(
            weapon_line(w, s, h, options)
            for w, s, h in zip(spec.weapons, stats, holds, strict=True)
        ),
        size_text=size_text(spec),
        armour_text=armour_text(spec),
        move_text=inches(spec.current_move),
        power_text=f"{bw.format_number(power_needed)}/{inches(spec.power)}",
        cost_text=bw.format_cp(cost),
        activation_text=" · ".join(
            " + ".join(names[i] for i in chosen) or "nothing" for chosen in sets
        ),
    )


# ------------------------------------------------------------------------------ views


@dataclass(frozen=True)
class WeaponView:
    row: WeaponRow
    spec: bw.WeaponSpec
    stats: bw.WeaponStats
    hold: str | None
    line: WeaponLine
    findings: list[bw.Finding]


@dataclass(frozen=True)
class UnitView:
    row: UnitRow
    fig: UnitFigures
    weapons: list[WeaponView]
    findings: list[bw.Finding]

    @property
    def spec(self) -> bw.UnitSpec:
        return self.fig.spec

    @property
    def cost(self) -> Fraction:
        return self.fig.cost

    @property
    def power_needed(self) -> Fraction:
        return self.fig.power_needed

    @property
    def activation_sets(self) -> tuple[tuple[int, ...], ...]:
        return self.fig.activation_sets

    @property
    def all_findings(self) -> list[bw.Finding]:
        return self.findings + [f for w in self.weapons for f in w.findings]

    @property
    def has_errors(self) -> bool:
        return any(f.severity == "error" for f in self.all_findings)


@dataclass(frozen=True)
class ArmyView:
    army: Army
    options: bw.BrikWarsOptions
    units: list[UnitView]
    total_cost: Fraction
    army_findings: list[bw.Finding]
    # What the viewer may do (decided by services.permissions): the page hides the rest.
    can_edit: bool = False
    is_owner: bool = False

    @cached_property
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


def options_of(army: Army) -> bw.BrikWarsOptions:
    options: bw.BrikWarsOptions = get_ruleset(army.ruleset_id).decode_options(army.house_rules)
    return options


@bounded_cache(4096, max_bytes=32 << 20, size=lambda view: 2048 + 1024 * len(view.weapons))
def _unit_view(index: int, row: UnitRow, fig: UnitFigures) -> UnitView:
    """Memoised too: rows are frozen values, and most of them are unchanged between pages."""
    return _make_unit_view(index, row, fig)


def _make_unit_view(index: int, row: UnitRow, fig: UnitFigures) -> UnitView:
    # Findings come memoised without a unit index; the army view gives them theirs.
    found = [bw.Finding(f.severity, f.code, f.message, index, f.weapon) for f in fig.findings]
    weapons = [
        WeaponView(
            row=w_row,
            spec=fig.spec.weapons[i],
            stats=fig.stats[i],
            hold=fig.holds[i],
            line=fig.lines[i],
            findings=[f for f in found if f.weapon == i] if found else [],
        )
        for i, w_row in enumerate(row.weapons)
    ]
    return UnitView(
        row=row,
        fig=fig,
        weapons=weapons,
        findings=[f for f in found if f.weapon is None] if found else [],
    )


def build_view(
    army: Army, rows: list[UnitRow], *, can_edit: bool = False, is_owner: bool = False
) -> ArmyView:
    """Every figure of an army from its rows."""
    options = options_of(army)
    units = [_unit_view(i, row, unit_figures(row, options)) for i, row in enumerate(rows)]
    total = sum((u.cost for u in units), Fraction(0))
    return ArmyView(
        army=army,
        options=options,
        units=units,
        total_cost=total,
        army_findings=bw.budget_findings(total, army.budget, options=options),
        can_edit=can_edit,
        is_owner=is_owner,
    )


def army_view(session: Session, *, user: User, army_id: int) -> ArmyView:
    """The builder's view of an army the user may read."""
    army = army_for(session, user=user, army_id=army_id, access=Access.READ)
    is_owner = army.owner_id == user.id
    can_edit = is_owner or can(session, user=user, army=army, access=Access.EDIT)
    rows = load_rows(session, army.id)
    return build_view(army, rows, can_edit=can_edit, is_owner=is_owner)


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


def _check_version(
    session: Session, army_id: int, what: str, current: int, expected: int | None
) -> None:
    if expected is not None and current != expected:
        raise StaleVersion(what, current, history.latest_change(session, army_id))


def _unit_of(
    session: Session, *, user: User, army_id: int, unit_id: int, access: Access = Access.EDIT
) -> tuple[Army, Unit]:
    """The army (checked for ``access``) and one of its units with its weapons."""
    army = army_for(session, user=user, army_id=army_id, access=access)
    if access != Access.READ:
        lock_army(session, army.id)
    unit = session.scalar(
        select(Unit)
        .where(Unit.id == unit_id, Unit.army_id == army.id)
        .options(selectinload(Unit.weapons))
    )
    if unit is None:
        raise NotFound("unit")
    return army, unit


def _shift(
    session: Session, model: type[Unit] | type[Weapon], parent: Any, after: int, by: int
) -> None:
    """Move every row of one parent behind position ``after`` by ``by`` places.

    Positions are unique per parent and both databases check that row by row, so the
    rows pass through negative places first: p → -(p + by) - 1 → p + by. No version bump.
    """
    for where, value in (
        (model.position > after, -(model.position + by) - 1),
        (model.position < 0, -model.position - 1),
    ):
        session.execute(
            update(model)
            .where(parent, where)
            .values(position=value)
            .execution_options(synchronize_session=False)
        )


def _shift_units(session: Session, army_id: int, after: int, by: int) -> None:
    """Move every unit behind position ``after`` by ``by`` places (no version bump)."""
    _shift(session, Unit, Unit.army_id == army_id, after, by)


# ------------------------------------------------------------------------------ mutations


def add_unit(session: Session, *, user: User, army_id: int, data: Mapping[str, Any]) -> Unit:
    """Append a unit (and any weapons given with it) to the army."""
    army = army_for(session, user=user, army_id=army_id, access=Access.EDIT)
    spec = _check_unit(_clean(data))
    name, kind, fields, weapons = _split_unit(spec)
    lock_army(session, army.id)
    last = session.scalar(select(func.max(Unit.position)).where(Unit.army_id == army.id))
    unit = Unit(
        army_id=army.id,
        name=name,
        kind=kind,
        spec=fields,
        position=0 if last is None else last + 1,
        weapons=[],
    )
    session.add(unit)
    for position, weapon in enumerate(weapons):
        session.add(_weapon_row(unit, weapon, position))
    cost = spec.cost_with(options_of(army))
    history.record(session, army=army, user=user, summary=f"added {name}, {history.cp_delta(cost)}")
    return unit


def update_unit(
    session: Session,
    *,
    user: User,
    army_id: int,
    unit_id: int,
    data: Mapping[str, Any],
    expected_version: int | None,
    base: Mapping[str, Any] | None = None,
) -> Unit:
    """Change a unit's own fields (not its weapons).

    A stale ``expected_version`` is merged when ``base`` (the unit's fields as the client
    loaded them) is given: the fields changed since then go on top of the current unit,
    unless it changed them too (``EditConflict``); without ``base`` it is refused.
    """
    army, unit = _unit_of(session, user=user, army_id=army_id, unit_id=unit_id)
    current = _row_dict(unit)
    before = bw.unit_from_dict(current)
    changes = _clean(data)
    if "weapons" in changes:
        raise InvalidInput("weapons", "edit weapons through their own routes")
    merged = _patched_unit(current, changes)
    note = ""
    if expected_version is not None and unit.version != expected_version:
        latest = history.latest_change(session, army.id)
        if base is None:
            raise StaleVersion("unit", unit.version, latest)
        weapons = current["weapons"]
        try:
            was = _stored_unit({**_clean(base), "weapons": weapons})
        except InvalidInput:
            raise StaleVersion("unit", unit.version, latest) from None
        mine = _stored_unit(_patched_unit({**was, "weapons": weapons}, changes))
        theirs = {"name": unit.name, "kind": unit.kind, **unit.spec}
        result = merge.merged_or_conflict(
            session,
            what="unit",
            current_version=unit.version,
            latest_change=latest,
            base=was,
            mine=mine,
            theirs=theirs,
        )
        merged = {**result, "weapons": weapons}
        note = f" ({merge.MERGED_NOTE})"
    spec = _check_unit(merged)
    name, kind, fields, _ = _split_unit(spec)
    changed = [
        k for k in ("name", "kind", *fields) if merged.get(k) != current.get(k) and k in changes
    ]
    unit.name, unit.kind, unit.spec = name, kind, fields
    options = options_of(army)
    delta = spec.cost_with(options) - before.cost_with(options)
    history.record(
        session,
        army=army,
        user=user,
        summary=f"changed {before.name} ({', '.join(changed) or 'no change'}), "
        f"{history.cp_delta(delta)}{note}",
    )
    return unit


def _patched_unit(current: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """The unit with a form's changes; a new kind starts from that kind's defaults."""
    if "kind" in changes and changes["kind"] != current["kind"]:
        return {"name": current["name"], "weapons": current["weapons"], **changes}
    return {**current, **changes}


def _stored_unit(data: Mapping[str, Any]) -> dict[str, Any]:
    """A unit's own fields as stored (the engine's JSON form), for comparing field by field."""
    name, kind, fields, _ = _split_unit(_check_unit(data))
    return {"name": name, "kind": kind, **fields}


def delete_unit(session: Session, *, user: User, army_id: int, unit_id: int) -> None:
    """Remove a unit and its weapons; the others close ranks."""
    army, unit = _unit_of(session, user=user, army_id=army_id, unit_id=unit_id)
    cost = bw.unit_from_dict(_row_dict(unit)).cost_with(options_of(army))
    session.delete(unit)
    session.flush()
    _shift_units(session, army.id, unit.position, -1)
    history.record(
        session, army=army, user=user, summary=f"removed {unit.name}, {history.cp_delta(-cost)}"
    )


def duplicate_unit(session: Session, *, user: User, army_id: int, unit_id: int) -> Unit:
    """A copy of the unit with its weapons, placed right after it."""
    army, original = _unit_of(session, user=user, army_id=army_id, unit_id=unit_id)
    _shift_units(session, army.id, original.position, 1)
    copy = Unit(
        army_id=army.id,
        name=f"{original.name} (copy)"[:120],
        kind=original.kind,
        spec=dict(original.spec),
        position=original.position + 1,
        weapons=[],
    )
    session.add(copy)
    for weapon in original.weapons:
        session.add(
            Weapon(unit=copy, type=weapon.type, spec=dict(weapon.spec), position=weapon.position)
        )
    cost = bw.unit_from_dict(_row_dict(original)).cost_with(options_of(army))
    history.record(
        session,
        army=army,
        user=user,
        summary=f"duplicated {original.name}, {history.cp_delta(cost)}",
    )
    return copy


def move_unit(session: Session, *, user: User, army_id: int, unit_id: int, offset: int) -> None:
    """Move a unit up (-1) or down (+1) the list; at an end it stays."""
    if offset not in (-1, 1):
        raise InvalidInput("offset", "must be -1 or 1")
    army, unit = _unit_of(session, user=user, army_id=army_id, unit_id=unit_id)
    here = unit.position
    neighbour = session.scalar(
        select(Unit.id).where(Unit.army_id == army.id, Unit.position == here + offset)
    )
    if neighbour is None:
        return
    # Plain UPDATEs: a new place in the list is not an edit of either unit's contents.
    # The unit waits at -1 while its neighbour takes its place (positions are unique).
    for moved, position in ((unit.id, -1), (neighbour, here), (unit.id, here + offset)):
        session.execute(
            update(Unit)
            .where(Unit.id == moved)
            .values(position=position)
            .execution_options(synchronize_session=False)
        )
    history.record(
        session,
        army=army,
        user=user,
        summary=f"moved {unit.name} {'up' if offset < 0 else 'down'}",
    )


def add_weapon(
    session: Session, *, user: User, army_id: int, unit_id: int, data: Mapping[str, Any]
) -> Weapon:
    """Give the unit a weapon; the whole unit is re-checked by the engine first."""
    army, unit = _unit_of(session, user=user, army_id=army_id, unit_id=unit_id)
    current = _row_dict(unit)
    index = len(current["weapons"])
    spec = _check_unit(
        {**current, "weapons": [*current["weapons"], _clean(data)]}, weapon_index=index
    )
    _, _, _, weapons = _split_unit(spec)
    weapon = _weapon_row(unit, weapons[index], index)
    session.add(weapon)
    added = spec.weapons[index]
    history.record(
        session,
        army=army,
        user=user,
        summary=f"added {weapon_name(added)} to {unit.name}, "
        f"{history.cp_delta(added.cost_with(options_of(army)))}",
    )
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
    base: Mapping[str, Any] | None = None,
) -> Weapon:
    """Change a weapon (its size, mount, ammo...); the type may change too.

    A stale version is merged onto the current weapon when ``base`` (the weapon as the
    client loaded it) is given, as ``update_unit`` does; without it, it is refused.
    """
    army, unit = _unit_of(session, user=user, army_id=army_id, unit_id=unit_id)
    weapon = next((w for w in unit.weapons if w.id == weapon_id), None)
    if weapon is None:
        raise NotFound("weapon")
    before = bw.unit_from_dict(_row_dict(unit))
    current = _row_dict(unit)
    index = unit.weapons.index(weapon)
    changes = _clean(data)
    old = current["weapons"][index]
    new = _patched_weapon(old, changes)
    note = ""
    if expected_version is not None and weapon.version != expected_version:
        latest = history.latest_change(session, army.id)
        if base is None:
            raise StaleVersion("weapon", weapon.version, latest)
        try:
            was = _stored_weapon(current, index, _clean(base))
        except InvalidInput:
            raise StaleVersion("weapon", weapon.version, latest) from None
        new = merge.merged_or_conflict(
            session,
            what="weapon",
            current_version=weapon.version,
            latest_change=latest,
            base=was,
            mine=_stored_weapon(current, index, _patched_weapon(was, changes)),
            theirs=old,
        )
        note = f" ({merge.MERGED_NOTE})"
    current["weapons"][index] = new
    spec = _check_unit(current, weapon_index=index)
    _, _, _, weapons = _split_unit(spec)
    stored = dict(weapons[index])
    weapon.type = stored.pop("type")
    weapon.spec = stored
    options = options_of(army)
    delta = spec.weapons[index].cost_with(options) - before.weapons[index].cost_with(options)
    history.record(
        session,
        army=army,
        user=user,
        summary=f"changed {weapon_name(before.weapons[index])} on {unit.name} to "
        f"{weapon_name(spec.weapons[index])}, {history.cp_delta(delta)}{note}",
    )
    return weapon


def _stored_weapon(unit: dict[str, Any], index: int, data: dict[str, Any]) -> dict[str, Any]:
    """Weapon ``index`` of the unit as stored were it ``data`` (checked by the engine)."""
    weapons = [*unit["weapons"]]
    weapons[index] = data
    _, _, _, stored = _split_unit(_check_unit({**unit, "weapons": weapons}, weapon_index=index))
    return stored[index]


def _patched_weapon(old: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """Changing the type starts the weapon afresh; otherwise the changes patch it."""
    return changes if changes.get("type", old["type"]) != old["type"] else {**old, **changes}


def delete_weapon(
    session: Session, *, user: User, army_id: int, unit_id: int, weapon_id: int
) -> None:
    """Take a weapon off a unit; the weapons behind it close ranks."""
    army, unit = _unit_of(session, user=user, army_id=army_id, unit_id=unit_id)
    weapon = next((w for w in unit.weapons if w.id == weapon_id), None)
    if weapon is None:
        raise NotFound("weapon")
    spec = bw.unit_from_dict(_row_dict(unit)).weapons[unit.weapons.index(weapon)]
    session.delete(weapon)
    session.flush()
    _shift(session, Weapon, Weapon.unit_id == unit.id, weapon.position, -1)
    history.record(
        session,
        army=army,
        user=user,
        summary=f"removed {weapon_name(spec)} from {unit.name}, "
        f"{history.cp_delta(-spec.cost_with(options_of(army)))}",
    )


def set_house_rules(
    session: Session,
    *,
    user: User,
    army_id: int,
    options: Mapping[str, Any],
    expected_version: int | None,
    form: bool = False,
) -> Army:
    """Store the rule options the army is built under (validated by the engine). ``form``:
    the options are an HTML form's (an unticked box is left out: off)."""
    army = army_for(session, user=user, army_id=army_id, access=Access.EDIT)
    _check_version(session, army.id, "army", army.version, expected_version)
    rules = get_ruleset(army.ruleset_id)
    before = rules.encode_options(options_of(army))
    army.house_rules = rules.encode_options(read_options(rules, options, form=form))
    changed = [f"{k} {before[k]} → {v}" for k, v in army.house_rules.items() if before[k] != v]
    history.record(
        session,
        army=army,
        user=user,
        summary="changed house rules: " + (", ".join(changed) or "no change"),
    )
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
    army, unit = _unit_of(session, user=user, army_id=army_id, unit_id=unit_id, access=Access.READ)
    current = _row_dict(unit)
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
