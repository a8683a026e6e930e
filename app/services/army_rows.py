"""An army's stored units and weapons, read as plain rows, and the lock on their positions.

The one reader of an army's rows: the builder's figures, revisions, exports and forks all
start here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from sqlalchemy import bindparam, event, text, update
from sqlalchemy.orm import ORMExecuteState, Session, SessionTransaction

from app.db.models import Army, Unit, Weapon
from app.rules.errors import InvalidInput
from app.rules.text import control_character_reason

# A unit stands for 1 to MAX_COUNT identical figures. Fifty covers the largest squad of
# identical minifigs a table fields, and keeps one line of the builder from taking a
# quarter of a battle's 200 units (``battles.creating.MAX_UNITS``) by itself.
MAX_COUNT = 50
# An army holds at most this many units, however made (the builder, an import, a fork): the
# issue-15 scale whose pages, exports and imports are benchmarked (bench/bigdata.py).
MAX_UNITS = 1000
COUNT_REASON = f"must be a whole number from 1 to {MAX_COUNT}"
# A unit's notes are the player's own text, at most this long: a paragraph or two of orders
# and reminders, not a story (the army's own notes take 10,000).
MAX_NOTES = 2000
NOTES_REASON = f"must be text of at most {MAX_NOTES} characters"


def read_count(value: object) -> int:
    """A unit's count from a form or a document (``"3"`` or ``3``); InvalidInput otherwise."""
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 3:
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_COUNT:
        raise InvalidInput("count", COUNT_REASON)
    return value


def read_notes(value: object) -> str:
    """A unit's notes from a form or a document, trimmed, lines ending ``\\n``; InvalidInput
    naming ``notes`` when they are not text, too long or hold control characters."""
    if not isinstance(value, str):
        raise InvalidInput("notes", NOTES_REASON)
    # A browser sends CRLF: one break each. Blank ends (a textarea's last newline) go.
    text = value.replace("\r\n", "\n").replace("\r", "\n").strip()
    if len(text) > MAX_NOTES:
        raise InvalidInput("notes", NOTES_REASON)
    reason = control_character_reason(text, multiline=True)
    if reason is not None:
        raise InvalidInput("notes", reason)
    return text


# session.info key: {army_id: rows} read since the session last wrote units or weapons.
_FRESH = "brikforge.fresh_rows"


@dataclass(frozen=True, slots=True)
class WeaponRow:
    """A stored weapon; ``spec_json`` is its JSON text as stored (parsed only on demand)."""

    id: int
    position: int
    version: int
    type: str
    spec_json: str

    @property
    def spec(self) -> dict[str, Any]:
        return json.loads(self.spec_json)  # type: ignore[no-any-return]

    @property
    def base(self) -> dict[str, Any]:
        """The weapon as stored: a form sends it back as the base of a stale edit's merge."""
        return {"type": self.type, **self.spec}


@dataclass(frozen=True, slots=True)
class UnitRow:
    """A stored unit and its weapons, in order."""

    id: int
    position: int
    version: int
    name: str
    kind: str
    spec_json: str
    weapons: tuple[WeaponRow, ...]
    # How many identical figures the unit stands for (``unit.count``, 1 to MAX_COUNT).
    count: int = 1
    # The player's own text on the unit (``unit.notes``): no figure depends on it.
    notes: str = ""

    @property
    def spec(self) -> dict[str, Any]:
        return json.loads(self.spec_json)  # type: ignore[no-any-return]

    @property
    def base(self) -> dict[str, Any]:
        """The unit's own fields as stored: the base of a stale edit's merge."""
        return {
            "name": self.name,
            "kind": self.kind,
            "count": self.count,
            "notes": self.notes,
            **self.spec,
        }

    @property
    def content(self) -> tuple[object, ...]:
        """What the unit is, as stored: the memo key of its figures (its notes left out)."""
        return (
            self.name,
            self.kind,
            self.spec_json,
            tuple((w.type, w.spec_json) for w in self.weapons),
        )

    def as_dict(self) -> dict[str, Any]:
        return unit_dict(self.name, self.kind, self.spec, [(w.type, w.spec) for w in self.weapons])


def load_rows(session: Session, army_id: int) -> list[UnitRow]:
    """The army's units and weapons as plain rows, in order (two queries).

    The JSON columns come back as text: most units' figures are memoised on it, so
    parsing it again would be wasted work. Rows read since the session last wrote are
    reused: a change records a revision from the rows, and the page answering it shows
    the same rows.
    """
    rows: list[UnitRow] | None = session.info.get(_FRESH, {}).get(army_id)
    if rows is None or session.new or session.dirty or session.deleted:
        rows = load_rows_of(session, [army_id])[army_id]  # may autoflush: keep them after
        session.info.setdefault(_FRESH, {})[army_id] = rows
    return rows


# Plain SQL, read as plain tuples: this runs on every page and change of an army, and
# SQLAlchemy's result processing would cost more than the query itself.
_WEAPON_ROWS = text(
    "SELECT w.unit_id, w.id, w.position, w.version, w.type, CAST(w.spec AS TEXT) "
    "FROM weapon w JOIN unit u ON u.id = w.unit_id WHERE u.army_id IN :ids "
    "ORDER BY w.unit_id, w.position"
).bindparams(bindparam("ids", expanding=True))
_UNIT_ROWS = text(
    "SELECT army_id, id, position, version, name, kind, CAST(spec AS TEXT), count, notes "
    "FROM unit WHERE army_id IN :ids ORDER BY army_id, position, id"
).bindparams(bindparam("ids", expanding=True))


def load_rows_of(session: Session, army_ids: list[int]) -> dict[int, list[UnitRow]]:
    """The rows of several armies at once (still two queries)."""
    armies: dict[int, list[UnitRow]] = {army_id: [] for army_id in army_ids}
    if not army_ids:
        return armies
    weapons: dict[int, list[WeaponRow]] = {}
    for unit_id, *fields in session.execute(_WEAPON_ROWS, {"ids": army_ids}).all():
        weapons.setdefault(unit_id, []).append(WeaponRow(*fields))
    for army_id, unit_id, position, version, name, kind, spec_json, count, notes in session.execute(
        _UNIT_ROWS, {"ids": army_ids}
    ).all():
        unit_weapons = tuple(weapons.get(unit_id, ()))
        armies[army_id].append(
            UnitRow(unit_id, position, version, name, kind, spec_json, unit_weapons, count, notes)
        )
    return armies


# One query for a few units and their weapons (a change's units, before and after it).
_SOME_UNIT_ROWS = text(
    "SELECT u.id, u.position, u.version, u.name, u.kind, CAST(u.spec AS TEXT), u.count, "
    "u.notes, w.id, w.position, w.version, w.type, CAST(w.spec AS TEXT) "
    "FROM unit u LEFT JOIN weapon w ON w.unit_id = u.id WHERE u.id IN :ids "
    "ORDER BY u.position, u.id, w.position"
).bindparams(bindparam("ids", expanding=True))


def load_unit_rows(session: Session, unit_ids: Sequence[int]) -> list[UnitRow]:
    """Some units of an army as ``load_rows`` reads them (the same text), in the army's order:
    what a change of one unit reads instead of the whole army's rows."""
    if not unit_ids:
        return []
    units: dict[int, tuple[Any, ...]] = {}
    weapons: dict[int, list[WeaponRow]] = {}
    for unit_id, *unit, w_id, w_position, w_version, w_type, w_spec in session.execute(
        _SOME_UNIT_ROWS, {"ids": list(unit_ids)}
    ).all():
        units.setdefault(unit_id, tuple(unit))
        if w_id is not None:
            weapons.setdefault(unit_id, []).append(
                WeaponRow(w_id, w_position, w_version, w_type, w_spec)
            )
    return [
        UnitRow(uid, position, version, name, kind, spec_json, tuple(weapons.get(uid, ())), *rest)
        for uid, (position, version, name, kind, spec_json, *rest) in units.items()
    ]


@dataclass(frozen=True, slots=True)
class Splice:
    """What a recorded change did to an army's units (``history.record``): under the rows
    stamp ``before`` they stood as this server may have kept them; the rows from index
    ``at`` to ``at + removed`` were replaced by ``rows``, and the result is named ``after``.
    The builder's view of the army after the change is made from the kept one with it.
    ``before`` None: every unit was read again (the stamp ``after`` was still drawn here)."""

    before: int | None
    after: int
    at: int
    removed: int
    rows: tuple[UnitRow, ...]


# session.info key: {army_id: Splice} of the changes this session recorded.
_SPLICES = "brikforge.splices"


def set_splice(session: Session, army_id: int, splice: Splice | None) -> None:
    """Remember (or, with None, forget) the change just recorded to the army's units."""
    splices = session.info.setdefault(_SPLICES, {})
    if splice is None:
        splices.pop(army_id, None)
    else:
        splices[army_id] = splice


def splice_of(session: Session, army_id: int, stamp: int) -> Splice | None:
    """The change recorded to the army's units that made its rows stamp ``stamp``, if this
    session recorded it (and did not roll it back)."""
    splice: Splice | None = session.info.get(_SPLICES, {}).get(army_id)
    return splice if splice is not None and splice.after == stamp else None


def unit_dict(
    name: str, kind: str, spec: Mapping[str, Any], weapons: list[tuple[str, Mapping[str, Any]]]
) -> dict[str, Any]:
    return {"name": name, "kind": kind, **spec, "weapons": [{"type": t, **w} for t, w in weapons]}


def lock_army(session: Session, army_id: int) -> None:
    """Take the army's write lock before reading or changing its units' positions.

    A no-op UPDATE of the army row: PostgreSQL holds the row until commit, SQLite its
    write lock, so racing adds read the last position one after the other (issue 10).
    """
    session.execute(
        update(Army)
        .where(Army.id == army_id)
        .values(version=Army.version)
        .execution_options(synchronize_session=False)
    )


# The rows kept in a session are forgotten as soon as it could have changed them: a flush
# that wrote units or weapons (a revision's own row leaves them be), any statement that is
# not a read (position shifts are UPDATEs issued directly), and the end of the transaction
# (other writers' changes become visible).
def _forget(session: Session, *_: object) -> None:
    session.info.pop(_FRESH, None)


def _forget_if_rows_flushed(session: Session, _context: object) -> None:
    # During after_flush, new/dirty/deleted still list what this flush wrote.
    if session.new or session.dirty or session.deleted:
        session.info[_WROTE] = True
    written = chain(session.new, session.dirty, session.deleted)
    if _FRESH in session.info and any(isinstance(obj, Unit | Weapon) for obj in written):
        _forget(session)


# A write that says it leaves units and weapons be (the army's stored cost, written from
# the rows just read) keeps them too.
KEEPS_ROWS = {"brikforge_keeps_rows": True}


def _forget_unless_read(state: ORMExecuteState) -> None:
    if state.is_select or state.statement in (_UNIT_ROWS, _WEAPON_ROWS, _SOME_UNIT_ROWS):
        return
    state.session.info[_WROTE] = True
    if not state.execution_options.get("brikforge_keeps_rows"):
        _forget(state.session)


# session.info key: the transaction has written (a flush, or a statement that is not a read).
_WROTE = "brikforge.wrote"


def only_read(session: Session) -> bool:
    """Whether the session's transaction has written nothing so far (nor holds anything to
    flush): what it reads then is what every other transaction may see too, never its own
    changes, which a rollback could still take back."""
    return not (session.info.get(_WROTE) or session.new or session.dirty or session.deleted)


def _transaction_ended(session: Session, transaction: SessionTransaction) -> None:
    if transaction.parent is None:  # the outermost: a savepoint's end leaves what it wrote
        session.info.pop(_WROTE, None)


event.listen(Session, "after_flush", _forget_if_rows_flushed)
event.listen(Session, "after_commit", _forget)
event.listen(Session, "after_soft_rollback", _forget)
# A change rolled back never happened: its splice goes (a committed one is kept).
event.listen(Session, "after_soft_rollback", lambda session, _: session.info.pop(_SPLICES, None))
event.listen(Session, "do_orm_execute", _forget_unless_read)
event.listen(Session, "after_transaction_end", _transaction_ended)
