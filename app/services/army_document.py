"""The export document: an army as versioned JSON, and its units written back as rows.

Exports, revisions' snapshots and imports share this one format.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import Session

from app.db.models import Army, Unit, Weapon
from app.rules.memo import bounded_cache
from app.rules.registry import get_ruleset
from app.services.army_rows import UnitRow

FORMAT = "brikforge-army"
VERSION = 1


def export_doc(army: Army, rows: list[UnitRow]) -> dict[str, Any]:
    """The army as a versioned JSON document."""
    return json.loads(export_json(army, rows))  # type: ignore[no-any-return]


def export_json(army: Army, rows: list[UnitRow]) -> str:
    """The export document as JSON text, built from the rows' stored JSON text unparsed."""
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
    units = ",".join(_unit_json(row.content, row.count) for row in rows)
    return f'{head[:-1]}, "units": [{units}]}}'


def _members(obj_json: str) -> str:
    """The members of a stored JSON object, ready to splice (``', "a": 1'`` or ``''``)."""
    inner = obj_json.strip()[1:-1].strip()
    return f", {inner}" if inner else ""


@bounded_cache(4096, max_bytes=32 << 20, size=lambda text: 100 + 2 * len(text))
def _unit_json(content: tuple[Any, ...], count: int) -> str:
    """A unit's JSON from its stored content (``UnitRow.content``) and count, memoised: a
    revision of a large army re-serialises mostly unchanged units. A count of 1 is left
    out (a document without one reads as 1), so single units' documents are as before."""
    name, kind, spec_json, weapons = content
    weapon_json = ",".join(
        f'{{"type": {json.dumps(w_type)}{_members(w_spec)}}}' for w_type, w_spec in weapons
    )
    counted = f', "count": {count}' if count != 1 else ""
    return (
        f'{{"name": {json.dumps(name)}, "kind": {json.dumps(kind)}{counted}'
        f'{_members(spec_json)}, "weapons": [{weapon_json}]}}'
    )


def add_units(session: Session, *, army_id: int, units: list[dict[str, Any]]) -> None:
    """Create the document's units (and their weapons) in the army, in order (a unit
    without a count stands for one figure): two multi-row INSERTs however many units, so a
    1,000-unit import or restore does not build 2,500 ORM objects."""
    if not units:
        return
    rows, weapons = [], []
    for position, data in enumerate(units):
        data = dict(data)
        weapons.append(data.pop("weapons", []))
        name, kind, count = data.pop("name"), data.pop("kind"), data.pop("count", 1)
        rows.append(
            {
                "army_id": army_id,
                "name": name,
                "kind": kind,
                "count": count,
                "spec": data,
                "position": position,
            }
        )
    ids = session.scalars(insert(Unit).returning(Unit.id, sort_by_parameter_order=True), rows)
    weapon_rows = [
        {
            "unit_id": unit_id,
            "type": weapon["type"],
            "spec": {k: v for k, v in weapon.items() if k != "type"},
            "position": w_position,
        }
        for unit_id, unit_weapons in zip(ids.all(), weapons, strict=True)
        for w_position, weapon in enumerate(unit_weapons)
    ]
    if weapon_rows:
        session.execute(insert(Weapon), weapon_rows)
