"""Revisions: every saved change to an army, in words, with the army as it then stood.

A revision's document is the export document (``army_document.export_json``), so viewing
an old revision, restoring it and exporting share one format.

Stored as changes, so that history grows with the change and not with the army: an army's
first revision holds the whole document, and each later one the change from its parent (its
settings if they changed, and the one run of units replaced: a rename stores one unit).
A whole document is stored again once the chain since the last grows to ``CHAIN`` changes,
or to more bytes of changes than the document itself, so that rebuilding any revision reads
one whole document and at most ``CHAIN - 1`` changes.

A change to some units is recorded from them alone (``UnitsChange``): each revision keeps its
chain's length and bytes and its document's size, so the next change is stored without
rebuilding this one, and the army's exact cost moves by the units' difference.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session, defer
from sqlalchemy.orm.attributes import set_committed_value

from app.db.models import Army, ArmyRevision, Unit, User
from app.db.models.army import new_rows_stamp
from app.rules.errors import InvalidInput
from app.rules.memo import bounded_cache
from app.rules.registry import get_ruleset
from app.rules.ruleset import Ruleset
from app.services import quotas
from app.services.army_document import (
    add_units,
    doc_parts,
    join_doc,
    ruleset_fields,
    split_doc,
    split_joined,
    unit_texts,
)
from app.services.army_figures import cost_value, total_cost, unit_figures
from app.services.army_rows import (
    KEEPS_ROWS,
    Splice,
    UnitRow,
    load_rows,
    load_unit_rows,
    lock_army,
    set_splice,
)
from app.services.errors import NotFound
from app.services.permissions import Access, army_for

# The most revisions a chain holds, its whole document included.
CHAIN = 50


@dataclass(frozen=True, slots=True)
class Revision:
    """A revision with the army as it then stood (the export document's JSON text)."""

    id: int
    army_id: int
    created_at: datetime
    summary: str
    document_json: str

    @property
    def snapshot(self) -> dict[str, Any]:
        return json.loads(self.document_json)  # type: ignore[no-any-return]


@dataclass(slots=True)
class _Rebuilt:
    """A revision's document in parts, and the chain of changes it was rebuilt through."""

    revision_id: int
    base_id: int
    head: str
    units: list[str]
    changes: int
    change_bytes: int


@dataclass(frozen=True, slots=True)
class UnitsChange:
    """What an action did to the army's units, as its caller knows it: the units ``before``
    (as ``load_unit_rows`` read them before the change) that stood from index ``at`` on were
    replaced by the units ``after`` (their ids, in order; flushed)."""

    at: int
    before: tuple[UnitRow, ...]
    after: tuple[int, ...]


def record(
    session: Session,
    *,
    army: Army,
    user: User | None,
    summary: str,
    units: UnitsChange | None = None,
) -> ArmyRevision:
    """Save a revision of the army as it stands now (after this action's changes).

    With ``units`` (a change to some units only, the settings untouched) it costs what the
    change does: the army's cost moves by the difference of the units' costs, and the
    revision stores the units replaced, without reading the other units or rebuilding the
    revision before. Otherwise (or when what that needs is not stored: an army recorded
    before it was) every unit is read and the document compared with the last one."""
    session.flush()
    if units is not None:
        revision = _record_units(session, army=army, user=user, summary=summary, units=units)
        if revision is not None:
            return revision
    rows = load_rows(session, army.id)
    exact = total_cost(army, rows)
    stamp = _write_cost(session, army, exact)
    set_splice(session, army.id, Splice(None, stamp, 0, len(rows), tuple(rows)))
    head, units_now = doc_parts(army, rows)
    revision = _new_revision(army, user, summary)
    whole = len(head) + sum(len(u) + 1 for u in units_now)
    revision.doc_bytes = whole
    parent = _newest(session, army.id)
    change = None
    if parent is not None and parent.changes + 1 < CHAIN:
        change = _change(parent, head, units_now)
        if parent.change_bytes + len(change) > whole:
            change = None  # rebuilding would read more than the document: store it whole
    if change is None or parent is None:
        revision.snapshot_json = join_doc(head, units_now)
        revision.unit_lengths = json.dumps([len(u) for u in units_now], separators=(",", ":"))
        revision.chain_changes, revision.chain_bytes = 0, 0
    else:
        revision.delta_json = change
        revision.parent_id = parent.revision_id
        revision.base_id = parent.base_id
        revision.chain_changes = parent.changes + 1
        revision.chain_bytes = parent.change_bytes + len(change)
    session.add(revision)
    session.flush()
    return revision


def _new_revision(army: Army, user: User | None, summary: str) -> ArmyRevision:
    return ArmyRevision(
        army_id=army.id,
        user_id=user.id if user else None,
        summary=summary[:500],
        army_version=army.version,
    )


def _write_cost(session: Session, army: Army, exact: Any) -> int:
    """Keep the army's cost (exact, and as the float the club search filters on) and draw
    it a new rows stamp; the stamp drawn."""
    # A plain UPDATE: the army's version (its optimistic lock) counts its settings' edits,
    # and a unit change is not one ...
    cost = cost_value(exact)
    exact_text = _exact_text(exact)
    # ... and a new rows stamp: what servers kept under the old one is not these units.
    stamp = new_rows_stamp()
    session.execute(
        update(Army)
        .where(Army.id == army.id)
        .values(cost=cost, cost_exact=exact_text, rows_stamp=stamp)
        .execution_options(synchronize_session=False, **KEEPS_ROWS)
    )
    set_committed_value(army, "cost", cost)
    set_committed_value(army, "cost_exact", exact_text)
    set_committed_value(army, "rows_stamp", stamp)
    return stamp


def _exact_text(cost: Any) -> str | None:
    """A ruleset's exact cost (an int, a Fraction...) as text that reads back exactly; None
    for one that has no exact value (the next change computes it from every unit again)."""
    try:
        return str(Fraction(cost))
    except (TypeError, ValueError, OverflowError):
        return None


def _unit_cost(rules: Ruleset, options: Any, rows: Sequence[UnitRow]) -> Any:
    """What the units cost together, as ``total_cost`` counts them."""
    return sum((unit_figures(rules, row, options).cost * row.count for row in rows), 0)


def _record_units(
    session: Session, *, army: Army, user: User | None, summary: str, units: UnitsChange
) -> ArmyRevision | None:
    """``record`` of a change to some units, from them alone; None when it cannot be (the
    caller then records it from every unit)."""
    newest = (
        select(ArmyRevision.id)
        .where(ArmyRevision.army_id == army.id)
        .order_by(ArmyRevision.id.desc())
        .limit(1)
        .scalar_subquery()
    )
    # Read now, under the army's lock that every change of its units takes first.
    state = session.execute(
        select(
            Army.cost_exact,
            Army.rows_stamp,
            select(func.count(Unit.id)).where(Unit.army_id == army.id).scalar_subquery(),
            select(func.max(Unit.position)).where(Unit.army_id == army.id).scalar_subquery(),
            ArmyRevision.id,
            ArmyRevision.base_id,
            ArmyRevision.army_version,
            ArmyRevision.chain_changes,
            ArmyRevision.chain_bytes,
            ArmyRevision.doc_bytes,
        )
        .select_from(Army)
        .outerjoin(ArmyRevision, ArmyRevision.id == newest)
        .where(Army.id == army.id)
    ).one()
    (exact_text, old_stamp, count, last, parent_id, base_id, version, changes, bytes_, size) = state
    if (
        exact_text is None
        or parent_id is None
        or None in (changes, bytes_, size)
        or version != army.version  # the settings changed since: the head with them
        or changes + 1 >= CHAIN
        or (count and last != count - 1)  # gaps in the positions: a unit's index is not its
    ):
        return None
    after = load_unit_rows(session, units.after)
    if [row.id for row in after] != list(units.after) or any(
        row.position != units.at + i for i, row in enumerate(after)
    ):
        return None
    old, new = unit_texts(list(units.before)), unit_texts(after)
    lo, old_hi, new_hi = 0, len(old), len(new)
    while lo < old_hi and lo < new_hi and old[lo] == new[lo]:
        lo += 1
    while old_hi > lo and new_hi > lo and old[old_hi - 1] == new[new_hi - 1]:
        old_hi -= 1
        new_hi -= 1
    run = [units.at + lo, old_hi - lo, new[lo:new_hi]] if (lo, lo) != (old_hi, new_hi) else None
    change = json.dumps({"units": run} if run else {}, ensure_ascii=False, separators=(",", ":"))
    whole = size - sum(len(u) + 1 for u in old) + sum(len(u) + 1 for u in new)
    if bytes_ + len(change) > whole:
        return None  # rebuilding would read more than the document: store it whole
    rules = get_ruleset(army.ruleset_id)
    options = rules.decode_options(army.house_rules)
    exact = Fraction(exact_text) + (
        _unit_cost(rules, options, after) - _unit_cost(rules, options, units.before)
    )
    stamp = _write_cost(session, army, exact)
    set_splice(
        session,
        army.id,
        Splice(old_stamp, stamp, units.at, len(units.before), tuple(after)),
    )
    revision = _new_revision(army, user, summary)
    revision.delta_json = change
    revision.parent_id = parent_id
    revision.base_id = base_id or parent_id
    revision.chain_changes = changes + 1
    revision.chain_bytes = bytes_ + len(change)
    revision.doc_bytes = whole
    session.add(revision)
    session.flush()
    return revision


def _change(parent: _Rebuilt, head: str, units: list[str]) -> str:
    """The change from the parent's document: the head if it changed, and the one run of
    units replaced (``[at, how many removed, [the units put there]]``), or none."""
    old = parent.units
    lo, old_hi, new_hi = 0, len(old), len(units)
    while lo < old_hi and lo < new_hi and old[lo] == units[lo]:
        lo += 1
    while old_hi > lo and new_hi > lo and old[old_hi - 1] == units[new_hi - 1]:
        old_hi -= 1
        new_hi -= 1
    change: dict[str, Any] = {}
    if head != parent.head:
        change["head"] = head
    if (lo, lo) != (old_hi, new_hi):
        change["units"] = [lo, old_hi - lo, units[lo:new_hi]]
    return json.dumps(change, ensure_ascii=False, separators=(",", ":"))


def _apply(change_json: str, rebuilt: _Rebuilt) -> None:
    change = json.loads(change_json)
    rebuilt.head = change.get("head", rebuilt.head)
    if "units" in change:
        at, removed, added = change["units"]
        rebuilt.units[at : at + removed] = added
    rebuilt.changes += 1
    rebuilt.change_bytes += len(change_json)


def _newest(session: Session, army_id: int) -> _Rebuilt | None:
    newest = session.execute(
        select(ArmyRevision.id, ArmyRevision.base_id)
        .where(ArmyRevision.army_id == army_id)
        .order_by(ArmyRevision.id.desc())
        .limit(1)
    ).first()
    return None if newest is None else _rebuild(session, army_id, *newest)


def _rebuild(session: Session, army_id: int, revision_id: int, base_id: int | None) -> _Rebuilt:
    """A revision's document, from the whole one its chain starts at (one query)."""
    stored = {
        row.id: row
        for row in session.execute(
            select(
                ArmyRevision.id,
                ArmyRevision.parent_id,
                ArmyRevision.snapshot_json,
                ArmyRevision.delta_json,
                ArmyRevision.unit_lengths,
            ).where(
                ArmyRevision.army_id == army_id,
                ArmyRevision.id >= (base_id or revision_id),
                ArmyRevision.id <= revision_id,
            )
        )
    }
    chain = []
    row = stored[revision_id]
    while row.snapshot_json is None:
        chain.append(row.delta_json)
        row = stored[row.parent_id]
    head, units = _split(row.snapshot_json, row.unit_lengths)
    rebuilt = _Rebuilt(revision_id, row.id, head, units, 0, 0)
    for change_json in reversed(chain):
        _apply(change_json, rebuilt)
    return rebuilt


def _split(snapshot_json: str, unit_lengths: str | None) -> tuple[str, list[str]]:
    """A whole document's head and units: sliced by the lengths stored with it, or else
    (a revision stored before them) found by parsing it."""
    if unit_lengths is not None:
        parts = split_joined(snapshot_json, json.loads(unit_lengths))
        if parts is not None:
            return parts
    return split_doc(snapshot_json)


def _document(session: Session, rev: ArmyRevision) -> str:
    if rev.snapshot_json is not None:
        return rev.snapshot_json
    rebuilt = _rebuild(session, rev.army_id, rev.id, rev.base_id)
    return join_doc(rebuilt.head, rebuilt.units)


def revisions(session: Session, *, user: User, army_id: int) -> list[tuple[ArmyRevision, str]]:
    """The army's revisions, newest first, with who made each."""
    army = army_for(session, user=user, army_id=army_id, access=Access.READ)
    rows = session.execute(
        select(ArmyRevision, User.display_name)
        .outerjoin(User, User.id == ArmyRevision.user_id)
        .where(ArmyRevision.army_id == army.id)
        .order_by(ArmyRevision.id.desc())
        .options(*_WITHOUT_DOCUMENT)
    ).all()
    return [(rev, name or "someone") for rev, name in rows]


# A list of revisions reads neither form of their documents.
_WITHOUT_DOCUMENT = (
    defer(ArmyRevision.snapshot_json, raiseload=True),
    defer(ArmyRevision.delta_json, raiseload=True),
)


def revision(session: Session, *, user: User, army_id: int, revision_id: int) -> Revision:
    """One revision of the army, with the army as it then stood."""
    army = army_for(session, user=user, army_id=army_id, access=Access.READ)
    rev = _stored(session, army=army, revision_id=revision_id)
    return Revision(rev.id, rev.army_id, rev.created_at, rev.summary, _document(session, rev))


def _stored(session: Session, *, army: Army, revision_id: int) -> ArmyRevision:
    rev = session.get(ArmyRevision, revision_id)
    if rev is None or rev.army_id != army.id:
        raise NotFound("revision")
    return rev


def weapon_names(ruleset_id: str, doc: dict[str, Any]) -> list[list[str]]:
    """Each unit's weapons in a snapshot, named as everywhere else ('3" MachineGun'); a unit
    the ruleset no longer reads keeps its stored types, in words."""
    return [
        list(_unit_weapon_names(ruleset_id, json.dumps(ruleset_fields(data), sort_keys=True)))
        for data in doc.get("units", [])
    ]


# Memoised on the unit's JSON: reading a unit is the slow part of a revision's page, and
# most units are the same from one revision to the next.
@bounded_cache(4096, max_bytes=8 << 20, size=lambda names: 100 + sum(len(n) for n in names))
def _unit_weapon_names(ruleset_id: str, unit_json: str) -> tuple[str, ...]:
    rules = get_ruleset(ruleset_id)
    data = json.loads(unit_json)
    weapons = data.get("weapons", [])
    try:
        unit = rules.decode_unit(data)
        return tuple(rules.weapon_name(unit, i) for i in range(len(weapons)))
    except InvalidInput:
        return tuple(str(w.get("type", "?")).replace("_", " ") for w in weapons)


def restore(session: Session, *, user: User, army_id: int, revision_id: int) -> Army:
    """Make the army what it was at a revision again, recorded as a new revision."""
    army = army_for(session, user=user, army_id=army_id, access=Access.EDIT)
    rev = _stored(session, army=army, revision_id=revision_id)
    number = session.scalar(
        select(ArmyRevision.id)
        .where(ArmyRevision.army_id == army.id, ArmyRevision.id <= rev.id)
        .order_by(ArmyRevision.id.desc())
    )
    if rev.snapshot_json is not None:
        head, units = _split(rev.snapshot_json, rev.unit_lengths)
    else:
        rebuilt = _rebuild(session, army.id, rev.id, rev.base_id)
        head, units = rebuilt.head, rebuilt.units
    replace_contents(session, army=army, head=head, units=units)
    record(
        session,
        army=army,
        user=user,
        summary=f"restored the revision of {rev.created_at:%Y-%m-%d %H:%M} (#{number})",
    )
    return army


def replace_contents(session: Session, *, army: Army, head: str, units: list[str]) -> None:
    """Set an army's settings and units to those of an export document (its head and its
    units' JSON texts, as ``split_doc`` gives them).

    Only the units that differ are written again: a unit whose text is the same at the same
    place keeps its row (and its id, so a form open on it still saves).
    """
    lock_army(session, army.id)  # racing adds wait for the positions
    settings = json.loads(head)
    army.name = settings["name"]
    army.budget = settings["budget"]
    army.notes = settings.get("notes", "")
    army.house_rules = settings.get("house_rules", {})
    rows = load_rows(session, army.id)
    now = unit_texts(rows)
    if any(row.position != place for place, row in enumerate(rows)):
        now = []  # gaps in the positions: write every unit again, from 0
    places = [p for p in range(len(units)) if p >= len(now) or units[p] != now[p]]
    kept = [p < len(units) and bool(now) and units[p] == now[p] for p in range(len(rows))]
    gone = [row.id for row, keep in zip(rows, kept, strict=True) if not keep]
    added = [json.loads(units[p]) for p in places]
    # The account's counters move by the difference, checked before any row is written.
    quotas.rows(
        session,
        owner_id=army.owner_id,
        units=len(added) - len(gone),
        weapons=sum(len(u.get("weapons", [])) for u in added)
        - sum(len(row.weapons) for row, keep in zip(rows, kept, strict=True) if not keep),
    )
    if gone:
        session.execute(
            delete(Unit).where(Unit.id.in_(gone)).execution_options(synchronize_session=False)
        )
    add_units(
        session,
        army_id=army.id,
        units=added,
        positions=places,
    )


def settings_at(session: Session, army_id: int, version: int) -> dict[str, Any] | None:
    """The army's name, budget and notes as they stood at ``version`` (None if unrecorded)."""
    rev = session.scalar(
        select(ArmyRevision)
        .where(ArmyRevision.army_id == army_id, ArmyRevision.army_version == version)
        .order_by(ArmyRevision.id.desc())
        .limit(1)
    )
    if rev is None:
        return None
    if rev.snapshot_json is not None:
        doc = json.loads(rev.snapshot_json)
    else:
        doc = json.loads(_rebuild(session, army_id, rev.id, rev.base_id).head)
    return {"name": doc["name"], "budget": doc["budget"], "notes": doc.get("notes", "")}


def latest_change(session: Session, army_id: int) -> str | None:
    """The newest revision in words: 'Alice at 12:04 UTC: renamed ...'."""
    row = session.execute(
        select(ArmyRevision, User.display_name)
        .outerjoin(User, User.id == ArmyRevision.user_id)
        .where(ArmyRevision.army_id == army_id)
        .order_by(ArmyRevision.id.desc())
        .limit(1)
        .options(*_WITHOUT_DOCUMENT)
    ).first()
    if row is None:
        return None
    rev, name = row
    return f"{name or 'someone'} at {rev.created_at:%H:%M} UTC: {rev.summary}"
