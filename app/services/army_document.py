"""The export document: an army as versioned JSON, and its units written back as rows.

Exports, revisions' snapshots and imports share this one format.
"""

from __future__ import annotations

import json
import re
from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import Session

from app.db.base import utcnow
from app.db.models import Army, Unit, Weapon
from app.rules.memo import bounded_cache
from app.rules.registry import get_ruleset
from app.services.army_rows import UnitRow

FORMAT = "brikforge-army"
# Version 2: each unit carries its ``notes`` (the player's own text, "" when none). Version 1
# documents (and revisions stored before) are read still: their units have no notes.
VERSION = 2
READS = (1, 2)
# A unit's members that are the builder's, not its ruleset's: ``decode_unit`` reads the rest.
BUILDER_KEYS = frozenset({"count", "notes"})


def ruleset_fields(unit: dict[str, Any]) -> dict[str, Any]:
    """A document's unit without the builder's members, as its ruleset reads it."""
    return {k: v for k, v in unit.items() if k not in BUILDER_KEYS}


def export_doc(army: Army, rows: list[UnitRow]) -> dict[str, Any]:
    """The army as a versioned JSON document."""
    return json.loads(export_json(army, rows))  # type: ignore[no-any-return]


def export_json(army: Army, rows: list[UnitRow]) -> str:
    """The export document as JSON text, built from the rows' stored JSON text unparsed."""
    return join_doc(*doc_parts(army, rows))


def doc_parts(army: Army, rows: list[UnitRow]) -> tuple[str, list[str]]:
    """The export document as its head (all but the units, as JSON text) and each unit's
    JSON text, in order: ``join_doc`` makes the document of them."""
    rules = get_ruleset(army.ruleset_id)
    head = json.dumps(
        {
            "format": FORMAT,
            "version": VERSION,
            "ruleset": army.ruleset_id,
            "rules_version": rules.rules_version,
            "name": army.name,
            "budget": army.budget,
            "notes": army.notes,
            "house_rules": rules.encode_options(rules.decode_options(army.house_rules or {})),
        }
    )
    return head, unit_texts(rows)


def unit_texts(rows: list[UnitRow]) -> list[str]:
    """Each unit's JSON text in the export document."""
    return [_unit_json(row.content, row.count, row.notes) for row in rows]


def join_doc(head: str, units: list[str]) -> str:
    """The document's JSON text from its head and its units' JSON texts."""
    members = head.strip()[1:-1].strip()
    return f'{{{members}{", " if members else ""}"units": [{",".join(units)}]}}'


_UNITS_KEY = '"units": ['


def split_joined(text: str, lengths: list[int]) -> tuple[str, list[str]] | None:
    """``split_doc`` without parsing, for a text ``join_doc`` wrote, given the lengths of its
    units: None if they do not fit the text."""
    end = len(text) - 2  # before "]}"
    start = end - sum(lengths) - max(len(lengths) - 1, 0)
    if start < len(_UNITS_KEY) + 1 or text[start - len(_UNITS_KEY) : start] != _UNITS_KEY:
        return None
    units = []
    pos = start
    for length in lengths:
        units.append(text[pos : pos + length])
        pos += length + 1
    members = text[1 : start - len(_UNITS_KEY)].rstrip().removesuffix(",")
    head = "{" + members + "}"
    return (head, units) if join_doc(head, units) == text else None


_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def split_doc(text: str) -> tuple[str, list[str]]:
    """A document's head and its units' JSON texts: ``join_doc`` undoes it exactly for
    the text ``export_json`` writes, and to an equal document for any other layout.

    Each member is parsed only to find where it ends (the units are sliced, not re-written).
    """

    def skip(pos: int) -> int:
        return _SPACE.match(text, pos).end()  # type: ignore[union-attr]

    def expect(pos: int, char: str) -> int:
        if text[pos] != char:
            raise ValueError(f"expected {char!r} at {pos} of a document")
        return skip(pos + 1)

    members: list[str] = []
    units: list[str] = []
    pos = expect(skip(0), "{")
    while text[pos] != "}":
        start = pos
        key, pos = _DECODER.raw_decode(text, pos)
        pos = expect(skip(pos), ":")
        if key == "units":
            pos = expect(pos, "[")
            while text[pos] != "]":
                _, end = _DECODER.raw_decode(text, pos)
                units.append(text[pos:end])
                pos = skip(end)
                if text[pos] == ",":
                    pos = skip(pos + 1)
            pos = skip(pos + 1)
        else:
            _, pos = _DECODER.raw_decode(text, pos)
            members.append(text[start:pos])
            pos = skip(pos)
        if text[pos] == ",":
            pos = skip(pos + 1)
    return "{" + ", ".join(members) + "}", units


def _members(obj_json: str) -> str:
    """The members of a stored JSON object, ready to splice (``', "a": 1'`` or ``''``)."""
    inner = obj_json.strip()[1:-1].strip()
    return f", {inner}" if inner else ""


@bounded_cache(4096, max_bytes=32 << 20, size=lambda text: 100 + 2 * len(text))
def _unit_json(content: tuple[Any, ...], count: int, notes: str) -> str:
    """A unit's JSON from its stored content (``UnitRow.content``), count and notes,
    memoised: a revision of a large army re-serialises mostly unchanged units. A count of 1
    is left out (a document without one reads as 1); the notes are always there, beside the
    name, kind and count that are the builder's too (the ruleset's own fields follow)."""
    name, kind, spec_json, weapons = content
    weapon_json = ",".join(
        f'{{"type": {json.dumps(w_type)}{_members(w_spec)}}}' for w_type, w_spec in weapons
    )
    counted = f', "count": {count}' if count != 1 else ""
    return (
        f'{{"name": {json.dumps(name)}, "kind": {json.dumps(kind)}{counted}, '
        f'"notes": {json.dumps(notes)}{_members(spec_json)}, "weapons": [{weapon_json}]}}'
    )


def add_units(
    session: Session,
    *,
    army_id: int,
    units: list[dict[str, Any]],
    positions: list[int] | None = None,
) -> None:
    """Create the document's units (and their weapons) in the army, in order or at the
    ``positions`` given (a unit without a count stands for one figure; without notes, a
    version 1 document's, it has none).

    Two bulk INSERTs, not an object per row: a restore or an import of a large army writes
    hundreds of rows (the units' ids come back in the order given).
    """
    session.flush()
    now = utcnow()
    stamps = {"version": 1, "created_at": now, "updated_at": now}
    unit_rows: list[dict[str, Any]] = []
    weapon_lists: list[list[dict[str, Any]]] = []
    for position, data in zip(positions or range(len(units)), units, strict=True):
        data = dict(data)
        weapon_lists.append(data.pop("weapons", []))
        unit_rows.append(
            {
                "army_id": army_id,
                "position": position,
                "name": data.pop("name"),
                "kind": data.pop("kind"),
                "count": data.pop("count", 1),
                "notes": data.pop("notes", ""),
                "spec": data,
                **stamps,
            }
        )
    if not unit_rows:
        return
    # Core INSERTs on the tables: the ORM's bulk path costs about as much again per row.
    units_table, weapons_table = (Unit.metadata.tables[m.__tablename__] for m in (Unit, Weapon))
    unit_ids = session.scalars(
        insert(units_table).returning(units_table.c.id, sort_by_parameter_order=True),
        unit_rows,
    ).all()
    weapon_rows = [
        {"unit_id": unit_id, "position": w_position, "type": w.pop("type"), "spec": w, **stamps}
        for unit_id, weapons in zip(unit_ids, weapon_lists, strict=True)
        for w_position, w in enumerate(dict(weapon) for weapon in weapons)
    ]
    if weapon_rows:
        session.execute(insert(weapons_table), weapon_rows)
