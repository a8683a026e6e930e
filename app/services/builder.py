"""The army builder: units and weapons stored, every figure from the army's ruleset.

Stored rows hold the ruleset's JSON form of each unit and weapon; every view and every
mutation reads the unit back through the ruleset (``get_ruleset(army.ruleset_id)``), so the
rules decide validity, costs, figures and findings. A mutation that the ruleset refuses
raises ``InvalidInput`` naming the field, and nothing is saved.

Speed: pages read units as plain rows (two queries, no ORM objects) and each unit's figures
are memoised on its content, the ruleset and the house rules, so a 200-unit army re-renders
without re-deriving the 199 units that did not change.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from sqlalchemy import event, func, select, update
from sqlalchemy.orm import Session, selectinload

from app.db.models import Army, Unit, User, Weapon
from app.rules.errors import InvalidFields, InvalidInput
from app.rules.memo import BoundedMemo, bounded_cache
from app.rules.registry import RULESETS, get_ruleset
from app.rules.ruleset import Finding, Ruleset, UnitFigures, WeaponFigures, read_options
from app.services import history, merge, quotas

# The figures memo lives in army_figures, the rows are read in army_rows; their names stay
# importable from here.
from app.services.army_figures import Figures as Figures
from app.services.army_figures import _Detail
from app.services.army_figures import unit_figures as unit_figures
from app.services.army_rows import UnitRow as UnitRow
from app.services.army_rows import WeaponRow as WeaponRow
from app.services.army_rows import load_rows as load_rows
from app.services.army_rows import load_rows_of as load_rows_of
from app.services.army_rows import (
    load_unit_rows,
    only_read,
    read_count,
    read_notes,
    splice_of,
    unit_dict,
)
from app.services.army_rows import lock_army as lock_army
from app.services.errors import NotFound, StaleVersion
from app.services.permissions import Access, army_and_rights, army_for


def _row_dict(row: Unit) -> dict[str, Any]:
    return unit_dict(row.name, row.kind, row.spec, [(w.type, w.spec) for w in row.weapons])


# ------------------------------------------------------------------------------ views


@dataclass(frozen=True)
class WeaponView(_Detail):
    """A stored weapon and its figures; the ruleset's own (``detail``: BrikWars' ``spec``,
    ``stats``, ``hold``, ``line``) read as attributes."""

    row: WeaponRow
    figures: WeaponFigures
    findings: list[Finding]


@dataclass(frozen=True)
class UnitView:
    row: UnitRow
    fig: Figures
    weapons: list[WeaponView]
    findings: list[Finding]

    @property
    def spec(self) -> Any:
        """The unit as its ruleset reads it."""
        return self.fig.unit

    @property
    def figures(self) -> UnitFigures:
        return self.fig.figures

    @property
    def cost(self) -> Any:
        """The cost of one figure."""
        return self.fig.cost

    @property
    def count(self) -> int:
        """How many identical figures the unit stands for."""
        return self.row.count

    @property
    def total_cost(self) -> Any:
        """The cost of all its figures (count × cost)."""
        return self.fig.cost * self.row.count

    @property
    def all_findings(self) -> list[Finding]:
        return self.findings + [f for w in self.weapons for f in w.findings]

    @property
    def has_errors(self) -> bool:
        return any(f.severity == "error" for f in self.all_findings)


@dataclass(frozen=True)
class ArmyView:
    army: Army
    options: Any
    units: list[UnitView]
    total_cost: Any
    army_findings: list[Finding]
    # What the viewer may do (decided by services.permissions): the page hides the rest.
    can_edit: bool = False
    is_owner: bool = False
    # Names the units shown: their rows, or (kept by this server) the army's rows stamp.
    rows_key: Hashable = ()

    @property
    def ruleset(self) -> Ruleset:
        return get_ruleset(self.army.ruleset_id)

    @property
    def total_cost_text(self) -> str:
        return self.ruleset.format_cost(self.total_cost)

    @property
    def budget_text(self) -> str:
        return self.ruleset.format_cost(self.army.budget)

    @property
    def calculator_pair(self) -> tuple[UnitView, UnitView] | None:
        """Two units to try in the calculator: the first with a weapon, attacking the next
        other unit (else the first before it); None without such two."""
        armed = next((i for i, u in enumerate(self.units) if u.weapons), None)
        if armed is None or len(self.units) < 2:
            return None
        target = armed + 1 if armed + 1 < len(self.units) else 0
        return self.units[armed], self.units[target]

    @property
    def figure_count(self) -> int:
        """Figures on the table: each unit counts its count."""
        return sum(u.row.count for u in self.units)

    def cost_text(self, cost: Any) -> str:
        return self.ruleset.format_cost(cost)

    @cached_property
    def all_findings(self) -> list[Finding]:
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


def options_of(army: Army) -> Any:
    """The army's house rules as its ruleset reads them."""
    return get_ruleset(army.ruleset_id).decode_options(army.house_rules)


@bounded_cache(4096, max_bytes=32 << 20, size=lambda view: 2048 + 1024 * len(view.weapons))
def _unit_view(index: int, row: UnitRow, fig: Figures) -> UnitView:
    """Memoised too: rows are frozen values, and most of them are unchanged between pages."""
    return _make_unit_view(index, row, fig)


def _make_unit_view(index: int, row: UnitRow, fig: Figures) -> UnitView:
    # Findings come memoised without a unit index; the army view gives them theirs.
    found = [Finding(f.severity, f.code, f.message, index, f.weapon) for f in fig.figures.findings]
    weapons = [
        WeaponView(
            row=w_row,
            figures=fig.figures.weapons[i],
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
    rules = get_ruleset(army.ruleset_id)
    options = rules.decode_options(army.house_rules)
    units = _units_of(rules, options, rows)
    return _view(army, rules, options, units, tuple(rows), can_edit=can_edit, is_owner=is_owner)


@dataclass(frozen=True, slots=True)
class _Units:
    """An army's unit views and what they cost together."""

    views: tuple[UnitView, ...]
    total_cost: Any


def _units_of(rules: Ruleset, options: Any, rows: list[UnitRow]) -> _Units:
    views = tuple(
        _unit_view(i, row, unit_figures(rules, row, options)) for i, row in enumerate(rows)
    )
    return _Units(views, sum((u.total_cost for u in views), 0))


def _view(
    army: Army,
    rules: Ruleset,
    options: Any,
    units: _Units,
    rows_key: Hashable,
    *,
    can_edit: bool,
    is_owner: bool,
) -> ArmyView:
    return ArmyView(
        army=army,
        options=options,
        units=list(units.views),
        total_cost=units.total_cost,
        army_findings=rules.budget_findings(units.total_cost, army.budget, options)
        + rules.roster_findings([(u.spec, u.count) for u in units.views], options),
        can_edit=can_edit,
        is_owner=is_owner,
        rows_key=rows_key,
    )


# Each server keeps the unit views of the armies it showed lately under their rows stamp
# (history.record draws a new one with every change, on any server): a page of an unchanged
# army reads and derives no units. Only a transaction that has written nothing reads or
# fills it, so what it keeps is committed (and a stamp is never drawn twice).
_KEPT_UNITS: BoundedMemo[[], _Units] = BoundedMemo(
    lambda: _Units((), 0),
    maxsize=2000,
    max_bytes=64 << 20,
    size=lambda units: 256 + sum(2048 + 1024 * len(u.weapons) for u in units.views),
)


def stored_view(
    session: Session, army: Army, *, can_edit: bool = False, is_owner: bool = False
) -> ArmyView:
    """``build_view`` of the army's stored units; an unchanged army's from this server's
    memory (``_KEPT_UNITS``), without reading its units."""
    rules = get_ruleset(army.ruleset_id)
    options = rules.decode_options(army.house_rules)
    key = ("stamp", army.id, army.rows_stamp, army.ruleset_id, options)
    units = _KEPT_UNITS.get(key) if only_read(session) else None
    if units is not None:
        return _view(army, rules, options, units, key, can_edit=can_edit, is_owner=is_owner)
    units = _spliced(session, army, rules, options)
    if units is not None:
        rows_key: Hashable = tuple(u.row for u in units.views)
        if only_read(session):  # (committed since: what it names is what others read)
            _KEPT_UNITS.put(key, units)
            rows_key = key
        else:  # kept once committed, for the next change's view and the next page
            session.info.setdefault(_KEEP_ON_COMMIT, {})[key] = units
        return _view(army, rules, options, units, rows_key, can_edit=can_edit, is_owner=is_owner)
    rows = load_rows(session, army.id)
    units = _units_of(rules, options, rows)
    rows_key = tuple(rows)
    if only_read(session):  # (reading may have flushed this session's own changes)
        _KEPT_UNITS.put(key, units)
        rows_key = key
    elif splice_of(session, army.id, army.rows_stamp) is not None:
        # This transaction drew the stamp and wrote the rows read: kept once committed.
        session.info.setdefault(_KEEP_ON_COMMIT, {})[key] = units
    return _view(army, rules, options, units, rows_key, can_edit=can_edit, is_owner=is_owner)


def kept_row_count(session: Session, army: Army) -> int | None:
    """The army's units plus weapons if this server keeps its units (``_KEPT_UNITS``), else
    None: known without a query."""
    if army.ruleset_id not in RULESETS or not only_read(session):
        return None
    options = get_ruleset(army.ruleset_id).decode_options(army.house_rules)
    units = _KEPT_UNITS.get(("stamp", army.id, army.rows_stamp, army.ruleset_id, options))
    return None if units is None else sum(1 + len(u.weapons) for u in units.views)


# session.info key: {key: units} to put in ``_KEPT_UNITS`` when the transaction commits.
_KEEP_ON_COMMIT = "brikforge.keep_on_commit"


def _keep_committed(session: Session) -> None:
    for key, units in session.info.pop(_KEEP_ON_COMMIT, {}).items():
        _KEPT_UNITS.put(key, units)


def _drop_uncommitted(session: Session, _previous: object) -> None:
    session.info.pop(_KEEP_ON_COMMIT, None)


event.listen(Session, "after_commit", _keep_committed)
event.listen(Session, "after_soft_rollback", _drop_uncommitted)


def _spliced(session: Session, army: Army, rules: Ruleset, options: Any) -> _Units | None:
    """The army's units after a change this session recorded (``history.record``), made from
    those this server kept before it (``_KEPT_UNITS``): the units replaced are derived, the
    others reused, and no row is read. None without both, or when the change moved other
    units to new places (their findings carry their index: every unit is derived again)."""
    splice = splice_of(session, army.id, army.rows_stamp)
    if splice is None or splice.before is None:
        return None
    kept = _KEPT_UNITS.get(("stamp", army.id, splice.before, army.ruleset_id, options))
    if kept is None:
        return None
    views, at, removed = kept.views, splice.at, splice.removed
    end = at + removed
    if end > len(views) or (removed != len(splice.rows) and end != len(views)):
        return None
    new = tuple(
        _unit_view(at + i, row, unit_figures(rules, row, options))
        for i, row in enumerate(splice.rows)
    )
    # The total moves by the difference: exact numbers, so in any order the same sum.
    total = (
        kept.total_cost
        - sum((u.total_cost for u in views[at:end]), 0)
        + sum((u.total_cost for u in new), 0)
    )
    return _Units(views[:at] + new + views[end:], total)


@dataclass(frozen=True)
class ArmyTotal:
    """An army's current cost (in its ruleset's numbers), unit count and figure count
    (a unit of three identical figures is one unit, three figures)."""

    cost: Any
    units: int
    figures: int


def army_totals(session: Session, armies: Sequence[Army]) -> dict[int, ArmyTotal]:
    """Each army's cost and unit count, computed from its stored rows as the builder does
    (the rows of every army in one go: the same queries however many armies)."""
    known = [army for army in armies if army.ruleset_id in RULESETS]
    rows = load_rows_of(session, [army.id for army in known])
    totals = {}
    for army in known:
        view = build_view(army, rows[army.id])
        totals[army.id] = ArmyTotal(view.total_cost, len(view.units), view.figure_count)
    return totals


def army_view(session: Session, *, user: User, army_id: int) -> ArmyView:
    """The builder's view of an army the user may read."""
    army, can_edit = army_and_rights(session, user=user, army_id=army_id)
    return stored_view(session, army, can_edit=can_edit, is_owner=army.owner_id == user.id)


def edit_view(session: Session, *, user: User, army_id: int) -> ArmyView:
    """The builder's view of an army the user may change (for its forms)."""
    army_for(session, user=user, army_id=army_id, access=Access.EDIT)
    return army_view(session, user=user, army_id=army_id)


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


def _check_unit(
    rules: Ruleset, data: Mapping[str, Any], *, weapon_index: int | None = None, form: bool
) -> Any:
    """The unit as the ruleset reads it; errors inside the weapon being edited lose their
    ``weapons.N.``. ``form``: ``data`` may be form text (else a JSON body's: strict
    booleans, ``Ruleset.decode_unit``)."""
    try:
        return rules.decode_unit(dict(data), strict=not form)
    except InvalidInput as exc:
        prefix = f"weapons.{weapon_index}."
        if weapon_index is None or not any(f.startswith(prefix) for f in exc.reasons()):
            raise
        own = {f.removeprefix(prefix): reason for f, reason in exc.reasons().items()}
        raise InvalidFields(own) from None


def _split_unit(rules: Ruleset, spec: Any) -> tuple[str, str, dict[str, Any], list[dict[str, Any]]]:
    data = rules.encode_unit(spec)
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


def add_unit(
    session: Session, *, user: User, army_id: int, data: Mapping[str, Any], form: bool = False
) -> Unit:
    """Append a unit (and any weapons given with it) to the army. ``form``: ``data`` is an
    HTML form's or a query string's text (a ticked box is "on"); else a JSON body's, whose
    on/off fields take ``true`` or ``false`` only (ruling G9)."""
    army = army_for(session, user=user, army_id=army_id, access=Access.EDIT)
    rules = get_ruleset(army.ruleset_id)
    notes = read_notes(data["notes"]) if data.get("notes") is not None else ""
    data = _clean(data)
    count = read_count(data.pop("count")) if "count" in data else 1
    data.pop("notes", None)
    spec = _check_unit(rules, data, form=form)
    name, kind, fields, weapons = _split_unit(rules, spec)
    lock_army(session, army.id)
    quotas.units(session, army_id=army.id)
    quotas.rows(session, owner_id=army.owner_id, units=1, weapons=len(weapons))
    last = session.scalar(select(func.max(Unit.position)).where(Unit.army_id == army.id))
    unit = Unit(
        army_id=army.id,
        name=name,
        kind=kind,
        spec=fields,
        count=count,
        notes=notes,
        position=0 if last is None else last + 1,
        weapons=[],
    )
    session.add(unit)
    for position, weapon in enumerate(weapons):
        session.add(_weapon_row(unit, weapon, position))
    session.flush()
    cost = rules.format_cost_change(count * rules.unit_cost(spec, options_of(army)))
    history.record(
        session,
        army=army,
        user=user,
        summary=f"added {_counted(name, count)}, {cost}",
        units=history.UnitsChange(unit.position, (), (unit.id,)),
    )
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
    form: bool = False,
) -> Unit:
    """Change a unit's own fields (not its weapons); ``form`` as ``add_unit``'s.

    A stale ``expected_version`` is merged when ``base`` (the unit's fields as the client
    loaded them) is given: the fields changed since then go on top of the current unit,
    unless it changed them too (``EditConflict``); without ``base`` it is refused.
    """
    army, unit = _unit_of(session, user=user, army_id=army_id, unit_id=unit_id)
    was_row = load_unit_rows(session, [unit.id])
    rules = get_ruleset(army.ruleset_id)
    current = _row_dict(unit)
    before = rules.decode_unit(current)
    # Notes sent empty clear them: read before ``_clean`` drops empty text.
    notes = read_notes(data["notes"]) if data.get("notes") is not None else None
    changes = _clean(data)
    if "weapons" in changes:
        raise InvalidInput("weapons", "edit weapons through their own routes")
    # The count and notes are the builder's, not the ruleset's: read and merged beside the unit.
    count = read_count(changes.pop("count")) if "count" in changes else None
    changes.pop("notes", None)
    merged = _patched_unit(rules, current, changes)
    new_count = unit.count if count is None else count
    new_notes = unit.notes if notes is None else notes
    note = ""
    if expected_version is not None and unit.version != expected_version:
        latest = history.latest_change(session, army.id)
        if base is None:
            raise StaleVersion("unit", unit.version, latest)
        weapons = current["weapons"]
        try:
            base_notes = read_notes(base.get("notes", unit.notes))
            base = _clean(base)
            base_count = read_count(base.pop("count", unit.count))
            base.pop("notes", None)
            was = _stored_unit(rules, {**base, "weapons": weapons})
        except InvalidInput:
            raise StaleVersion("unit", unit.version, latest) from None
        mine = _stored_unit(rules, _patched_unit(rules, {**was, "weapons": weapons}, changes))
        theirs = {"name": unit.name, "kind": unit.kind, **unit.spec}
        result = merge.merged_or_conflict(
            session,
            what="unit",
            current_version=unit.version,
            latest_change=latest,
            base={**was, "count": base_count, "notes": base_notes},
            mine={
                **mine,
                "count": base_count if count is None else count,
                "notes": base_notes if notes is None else notes,
            },
            theirs={**theirs, "count": unit.count, "notes": unit.notes},
        )
        new_count = result.pop("count")
        new_notes = result.pop("notes")
        merged = {**result, "weapons": weapons}
        note = f" ({merge.MERGED_NOTE})"
    spec = _check_unit(rules, merged, form=form)
    name, kind, fields, _ = _split_unit(rules, spec)
    stored = dict(unit.spec)
    words = _change_words(rules, {"kind": unit.kind, **stored}, {"kind": kind, **fields})
    if new_count != unit.count:
        words.append(f"count {unit.count} → {new_count}")
    if new_notes != unit.notes:
        words.append(_notes_words(unit.notes, new_notes))
    head = f"renamed '{unit.name}' to '{name}'" if name != unit.name else f"changed {unit.name}"
    if not words and name == unit.name:
        words = ["no change"]
    old_count = unit.count
    unit.name, unit.kind, unit.spec, unit.count = name, kind, fields, new_count
    unit.notes = new_notes
    options = options_of(army)
    delta = new_count * rules.unit_cost(spec, options) - old_count * rules.unit_cost(
        before, options
    )
    history.record(
        session,
        army=army,
        user=user,
        summary=f"{head}{': ' if words else ''}{', '.join(words)}, "
        f"{rules.format_cost_change(delta)}{note}",
        units=history.UnitsChange(unit.position, tuple(was_row), (unit.id,)),
    )
    return unit


def _patched_unit(
    rules: Ruleset, current: dict[str, Any], changes: dict[str, Any]
) -> dict[str, Any]:
    """The unit with a form's changes. A new kind keeps the unit's other fields where the
    ruleset takes them for that kind (a D20 figurine made an SU keeps its stats); where it
    does not (a BrikWars minifig's fields on a vehicle), it starts from the kind's defaults."""
    merged = {**current, **changes}
    if "kind" not in changes or changes["kind"] == current["kind"]:
        return merged
    try:
        rules.decode_unit(merged)
    except InvalidInput:
        return {"name": current["name"], "weapons": current["weapons"], **changes}
    return merged


def _notes_words(old: str, new: str) -> str:
    """A change of a unit's notes in a revision's words (not the text: it may be long)."""
    if not old:
        return "notes added"
    return "notes removed" if not new else "notes changed"


def _counted(name: str, count: int) -> str:
    """A unit's name in a revision's words, with its count when it stands for several."""
    return name if count == 1 else f"{name} ×{count}"


def _stored_unit(rules: Ruleset, data: Mapping[str, Any]) -> dict[str, Any]:
    """A unit's own fields as stored (the ruleset's JSON form), for comparing field by field."""
    name, kind, fields, _ = _split_unit(rules, _check_unit(rules, data, form=True))
    return {"name": name, "kind": kind, **fields}


def delete_unit(session: Session, *, user: User, army_id: int, unit_id: int) -> None:
    """Remove a unit and its weapons; the others close ranks."""
    army, unit = _unit_of(session, user=user, army_id=army_id, unit_id=unit_id)
    was_row = load_unit_rows(session, [unit.id])
    rules = get_ruleset(army.ruleset_id)
    cost = unit.count * rules.unit_cost(rules.decode_unit(_row_dict(unit)), options_of(army))
    weapons = len(unit.weapons)
    session.delete(unit)
    session.flush()
    quotas.rows(session, owner_id=army.owner_id, units=-1, weapons=-weapons)
    _shift_units(session, army.id, unit.position, -1)
    history.record(
        session,
        army=army,
        user=user,
        summary=f"removed {_counted(unit.name, unit.count)}, {rules.format_cost_change(-cost)}",
        units=history.UnitsChange(unit.position, tuple(was_row), ()),
    )


def duplicate_unit(session: Session, *, user: User, army_id: int, unit_id: int) -> Unit:
    """A copy of the unit with its weapons, placed right after it."""
    army, original = _unit_of(session, user=user, army_id=army_id, unit_id=unit_id)
    quotas.units(session, army_id=army.id)
    quotas.rows(session, owner_id=army.owner_id, units=1, weapons=len(original.weapons))
    _shift_units(session, army.id, original.position, 1)
    copy = Unit(
        army_id=army.id,
        name=f"{original.name} (copy)"[:120],
        kind=original.kind,
        spec=dict(original.spec),
        count=original.count,
        notes=original.notes,
        position=original.position + 1,
        weapons=[],
    )
    session.add(copy)
    for weapon in original.weapons:
        session.add(
            Weapon(unit=copy, type=weapon.type, spec=dict(weapon.spec), position=weapon.position)
        )
    session.flush()
    rules = get_ruleset(army.ruleset_id)
    one = rules.unit_cost(rules.decode_unit(_row_dict(original)), options_of(army))
    cost = original.count * one
    history.record(
        session,
        army=army,
        user=user,
        summary=f"duplicated {_counted(original.name, original.count)}, "
        f"{rules.format_cost_change(cost)}",
        units=history.UnitsChange(copy.position, (), (copy.id,)),
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
    # The two units as they stood, in the army's order (the revision replaces the pair).
    was_rows = load_unit_rows(session, [unit.id, neighbour])
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
        units=history.UnitsChange(
            min(here, here + offset),
            tuple(was_rows),
            (unit.id, neighbour) if offset < 0 else (neighbour, unit.id),
        ),
    )


def add_weapon(
    session: Session,
    *,
    user: User,
    army_id: int,
    unit_id: int,
    data: Mapping[str, Any],
    form: bool = False,
) -> Weapon:
    """Give the unit a weapon; the whole unit is re-checked by the engine first (``form``
    as ``add_unit``'s)."""
    army, unit = _unit_of(session, user=user, army_id=army_id, unit_id=unit_id)
    was_row = load_unit_rows(session, [unit.id])
    rules = get_ruleset(army.ruleset_id)
    current = _row_dict(unit)
    index = len(current["weapons"])
    with_it = {**current, "weapons": [*current["weapons"], _clean(data)]}
    spec = _check_unit(rules, with_it, weapon_index=index, form=form)
    _, _, _, weapons = _split_unit(rules, spec)
    quotas.rows(session, owner_id=army.owner_id, weapons=1)
    weapon = _weapon_row(unit, weapons[index], index)
    session.add(weapon)
    # Every figure of the unit carries the weapon.
    cost = unit.count * rules.weapon_cost(spec, index, options_of(army))
    history.record(
        session,
        army=army,
        user=user,
        summary=f"added {rules.weapon_name(spec, index)} to {unit.name}, "
        f"{rules.format_cost_change(cost)}",
        units=history.UnitsChange(unit.position, tuple(was_row), (unit.id,)),
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
    form: bool = False,
) -> Weapon:
    """Change a weapon (its size, mount, ammo...); the type may change too (``form`` as
    ``add_unit``'s).

    A stale version is merged onto the current weapon when ``base`` (the weapon as the
    client loaded it) is given, as ``update_unit`` does; without it, it is refused.
    """
    army, unit = _unit_of(session, user=user, army_id=army_id, unit_id=unit_id)
    weapon = next((w for w in unit.weapons if w.id == weapon_id), None)
    if weapon is None:
        raise NotFound("weapon")
    was_row = load_unit_rows(session, [unit.id])
    rules = get_ruleset(army.ruleset_id)
    current = _row_dict(unit)
    before = rules.decode_unit(current)
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
            was = _stored_weapon(rules, current, index, _clean(base))
        except InvalidInput:
            raise StaleVersion("weapon", weapon.version, latest) from None
        new = merge.merged_or_conflict(
            session,
            what="weapon",
            current_version=weapon.version,
            latest_change=latest,
            base=was,
            mine=_stored_weapon(rules, current, index, _patched_weapon(was, changes)),
            theirs=old,
        )
        note = f" ({merge.MERGED_NOTE})"
    current["weapons"][index] = new
    spec = _check_unit(rules, current, weapon_index=index, form=form)
    _, _, _, weapons = _split_unit(rules, spec)
    stored = dict(weapons[index])
    retyped = old.get("type") != stored["type"]
    words = None if retyped else _change_words(rules, _own(old, "type"), _own(stored, "type"))
    weapon.type = stored.pop("type")
    weapon.spec = stored
    options = options_of(army)
    delta = unit.count * (
        rules.weapon_cost(spec, index, options) - rules.weapon_cost(before, index, options)
    )
    history.record(
        session,
        army=army,
        user=user,
        summary=_weapon_change(rules, before, spec, index, unit.name, words)
        + f", {rules.format_cost_change(delta)}{note}",
        units=history.UnitsChange(unit.position, tuple(was_row), (unit.id,)),
    )
    return weapon


def _own(data: Mapping[str, Any], *named: str) -> dict[str, Any]:
    """A stored unit's or weapon's own fields, without those named (its name, type...)."""
    return {k: v for k, v in data.items() if k not in named and k != "weapons"}


def _change_words(rules: Ruleset, before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """What really changed between two stored versions, in the ruleset's words:
    ['Ammo X2 → X4', 'Move 5" → 6"']."""
    old, new = rules.field_words(before), rules.field_words(after)
    return [
        f"{label} {old.get(label, 'none')} → {new.get(label, 'none')}"
        for label in dict.fromkeys([*old, *new])
        if old.get(label) != new.get(label)
    ]


def _weapon_change(
    rules: Ruleset, before: Any, after: Any, index: int, unit_name: str, words: list[str] | None
) -> str:
    """'changed 3" Cannon on Tank: Ammo X2 → X4'; a new type (``words`` None) names the
    weapon it became: 'changed 3" Gun on Tank to 3" MachineGun'."""
    head = f"changed {rules.weapon_name(before, index)} on {unit_name}"
    if words is None:
        return f"{head} to {rules.weapon_name(after, index)}"
    return f"{head}: {', '.join(words) or 'no change'}"


def _stored_weapon(
    rules: Ruleset, unit: dict[str, Any], index: int, data: dict[str, Any]
) -> dict[str, Any]:
    """Weapon ``index`` of the unit as stored were it ``data`` (checked by the ruleset)."""
    weapons = [*unit["weapons"]]
    weapons[index] = data
    spec = _check_unit(rules, {**unit, "weapons": weapons}, weapon_index=index, form=True)
    _, _, _, stored = _split_unit(rules, spec)
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
    was_row = load_unit_rows(session, [unit.id])
    rules = get_ruleset(army.ruleset_id)
    spec, index = rules.decode_unit(_row_dict(unit)), unit.weapons.index(weapon)
    cost = unit.count * rules.weapon_cost(spec, index, options_of(army))  # on every figure
    session.delete(weapon)
    session.flush()
    quotas.rows(session, owner_id=army.owner_id, weapons=-1)
    _shift(session, Weapon, Weapon.unit_id == unit.id, weapon.position, -1)
    history.record(
        session,
        army=army,
        user=user,
        summary=f"removed {rules.weapon_name(spec, index)} from {unit.name}, "
        f"{rules.format_cost_change(-cost)}",
        units=history.UnitsChange(unit.position, tuple(was_row), (unit.id,)),
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
class WeaponPreview(_Detail):
    """What a weapon would be on a unit: its figures and what the rules say of it; the
    ruleset's own figures (``detail``) read as attributes, as ``WeaponView``'s are."""

    ruleset_id: str
    figures: WeaponFigures

    @property
    def findings(self) -> list[Finding]:
        return list(self.figures.findings)


def preview_weapon(
    session: Session,
    *,
    user: User,
    army_id: int,
    unit_id: int,
    data: Mapping[str, Any],
    form: bool = False,
) -> WeaponPreview:
    """The weapon as it would be if added to the unit; nothing is saved (``form`` as
    ``add_unit``'s)."""
    army, unit = _unit_of(session, user=user, army_id=army_id, unit_id=unit_id, access=Access.READ)
    rules = get_ruleset(army.ruleset_id)
    current = _row_dict(unit)
    index = len(current["weapons"])
    with_it = {**current, "weapons": [*current["weapons"], _clean(data)]}
    spec = _check_unit(rules, with_it, weapon_index=index, form=form)
    return WeaponPreview(army.ruleset_id, rules.weapon_figures(spec, index, options_of(army)))
