"""Export and import of armies: a versioned JSON document, and plain text for forums.

Import validates the whole document first and reports every problem by path
(``units[3].weapons[0].size: must be greater than 0``); then it creates the
army entirely, or nothing.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import Army, User
from app.rules.errors import InvalidInput
from app.rules.registry import RULESETS, get_ruleset
from app.rules.ruleset import Ruleset
from app.rules.text import control_character_reason
from app.services import army_rows, builder, history, quotas
from app.services.army_document import FORMAT, READS, VERSION, add_units, doc_parts

# The export document lives in army_document; its names stay importable from here.
from app.services.army_document import export_doc as export_doc
from app.services.army_document import export_json as export_json
from app.services.army_rows import read_count, read_notes
from app.services.errors import ServiceError

MAX_BYTES = 1_000_000
MAX_UNITS = army_rows.MAX_UNITS
MAX_WEAPONS = 100


class ImportProblems(ServiceError):
    """Everything wrong with an import document, each as (path, reason)."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{p}: {r}" for p, r in problems))
        self.problems = problems


# Units a chunk of a streamed export: a chunk is a few tens of kB, and the exports of a
# 1,000-unit army come in 20 trips to the thread pool.
CHUNK_UNITS = 50


def export_text(view: builder.ArmyView) -> str:
    """The army as plain text for a forum post."""
    return "".join(export_text_chunks(view))


def export_text_chunks(view: builder.ArmyView) -> Iterator[str]:
    """``export_text`` in pieces of ``CHUNK_UNITS`` units, each made when asked for (a
    streamed answer holds one piece at a time, and runs each in the thread pool)."""
    army = view.army
    rules = get_ruleset(army.ruleset_id)
    total = rules.format_cost(view.total_cost)
    budget = rules.format_cost(army.budget)
    lines = [f"{army.name} — {rules.name} — {total} of {budget}", ""]
    for number, uv in enumerate(view.units, start=1):
        head, *rest = rules.unit_lines(uv.spec, view.options)
        if uv.count != 1:  # several identical figures: how many, and what they cost together
            head = f"{uv.count} × {head} = {rules.format_cost(uv.total_cost)}"
        # what the unit is built with beyond its stat line (propulsion, Mind...), then weapons
        built = [" · ".join(f"{label}: {value}" for label, value in uv.figures.profile)]
        lines += [f"{number}. {head}", *(f"   {b}" for b in built if b), *rest]
        if uv.row.notes:  # the player's own words, each line indented under the unit
            first, *more = uv.row.notes.split("\n")
            lines += [f"   Notes: {first}", *(f"   {line}".rstrip() for line in more)]
        if number % CHUNK_UNITS == 0:
            yield "\n".join(lines) + "\n"
            lines = []
    lines += ["", f"Total: {total}"]
    yield "\n".join(lines) + "\n"


def export_json_chunks(army: Army, rows: list[army_rows.UnitRow]) -> Iterator[bytes]:
    """The export document as the JSON answer writes it (``JSONResponse`` of ``export_doc``:
    compact, UTF-8), in pieces of ``CHUNK_UNITS`` units, each made when asked for."""
    head, units = doc_parts(army, rows)
    members = _compact(json.loads(head))[:-1]  # (it ends with its closing brace)
    yield (members + ',"units":[').encode()
    for start in range(0, len(units), CHUNK_UNITS):
        piece = ",".join(_compact(json.loads(unit)) for unit in units[start : start + CHUNK_UNITS])
        yield (("," if start else "") + piece).encode()
    yield b"]}"


def _compact(value: object) -> str:
    # As starlette's JSONResponse renders its content.
    return json.dumps(
        value, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
    )


def export_filename(army: Army, extension: str) -> str:
    """A download name from the army's name (``iron-bricks.json``), ASCII letters and digits
    only; ``army-<id>.<extension>`` when the name has none."""
    ascii_name = unicodedata.normalize("NFKD", army.name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower())[:60].strip("-")
    return f"{slug or f'army-{army.id}'}.{extension}"


def _path(index: int, field: str) -> str:
    # Engine paths are dotted ("weapons.0.size"); documents use brackets.
    return f"units[{index}]." + re.sub(r"\.(\d+)", r"[\1]", field)


def _unit_reason(index: int, unit: object, field: str, reason: str) -> str:
    """A unit problem in words, counting from 1: ``unit 5 'Sky Hawk', Size: ...``,
    ``unit 2 'Rex', weapon 1, Size: ...``."""
    words = f"unit {index + 1}"
    name = unit.get("name") if isinstance(unit, dict) else None
    if isinstance(name, str) and name.strip() and control_character_reason(name) is None:
        shown = name.strip()
        words += f" '{shown[:40]}…'" if len(shown) > 40 else f" '{shown}'"
    parts = [p for p in field.split(".") if p]
    if len(parts) >= 2 and parts[0] == "weapons" and parts[1].isdigit():
        words += f", weapon {int(parts[1]) + 1}"
        parts = parts[2:]
    if parts:
        label = " ".join(parts).replace("_", " ")
        words += f", {label[:1].upper()}{label[1:]}"
    return f"{words}: {reason}"


def parse_document(raw: bytes) -> dict[str, Any]:
    """Check a document completely; raise ImportProblems listing every problem."""
    return check_document(_json_object(raw))


def check_document(doc: dict[str, Any]) -> dict[str, Any]:
    """Check a document's object completely (its units normalised in place); raise
    ImportProblems listing every problem."""
    ruleset_id = doc.get("ruleset")
    rules = RULESETS.get(ruleset_id) if isinstance(ruleset_id, str) else None
    problems = _head_problems(doc, rules)
    units = doc.get("units", [])
    if not isinstance(units, list):
        problems.append(("units", "must be a list"))
        units = []
    elif len(units) > MAX_UNITS:
        problems.append(("units", f"has more than {MAX_UNITS} units"))
        units = []
    for index, unit in enumerate(units if rules is not None else []):
        assert rules is not None
        normal = _read_unit(rules, index, unit, doc.get("version"), problems)
        if normal is not None:
            units[index] = normal
    if problems:
        raise ImportProblems(problems[:200])
    return doc


def _json_object(raw: bytes) -> dict[str, Any]:
    """The document's JSON object; ImportProblems if it is too large, empty or not one."""
    if len(raw) > MAX_BYTES:
        raise ImportProblems([("document", f"is larger than {MAX_BYTES // 1000} kB")])
    if not raw.strip():
        raise ImportProblems(
            [("document", "is empty: choose an exported army file (.json) or paste its text")]
        )
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError):
        raise ImportProblems([("document", "is not valid JSON")]) from None
    if not isinstance(doc, dict):
        raise ImportProblems([("document", "must be a JSON object")])
    return doc


_KNOWN = frozenset(
    {
        "format",
        "version",
        "ruleset",
        "rules_version",
        "name",
        "budget",
        "notes",
        "house_rules",
        "units",
    }
)


def _head_problems(doc: dict[str, Any], rules: Ruleset | None) -> list[tuple[str, str]]:
    """The problems of the document's own fields (all but its units), in the fields' order."""
    problems: list[tuple[str, str]] = []
    if doc.get("format") != FORMAT:
        problems.append(("format", f"must be {FORMAT!r}"))
    version = doc.get("version")
    if isinstance(version, bool) or version not in READS:
        readable = " or ".join(str(v) for v in READS)
        problems.append(
            ("version", f"must be {readable} (this BrikForge writes version {VERSION})")
        )
    if rules is None:
        problems.append(("ruleset", "is not a known ruleset"))
    for field, reason in (
        ("name", _name_reason(doc.get("name"))),
        ("budget", _budget_reason(doc.get("budget"))),
        ("notes", _notes_reason(doc.get("notes", ""))),
    ):
        if reason is not None:
            problems.append((field, reason))
    if rules is not None:
        try:
            rules.decode_options(doc.get("house_rules") or {})
        except InvalidInput as exc:
            problems += [(f"house_rules.{f}", why) for f, why in exc.reasons().items()]
    problems += [(str(key)[:60], "is not a known field") for key in doc if key not in _KNOWN]
    return problems


def _name_reason(name: object) -> str | None:
    if not isinstance(name, str) or not name.strip() or len(name) > 120:
        return "must be text of 1 to 120 characters"
    return control_character_reason(name)


def _budget_reason(budget: object) -> str | None:
    if not isinstance(budget, int) or isinstance(budget, bool) or not 0 < budget <= 1_000_000:
        return "must be a whole number from 1 to 1000000"
    return None


def _notes_reason(notes: object) -> str | None:
    if not isinstance(notes, str) or len(notes) > 10_000:
        return "must be text of at most 10000 characters"
    return control_character_reason(notes, multiline=True)


def _read_unit(
    rules: Ruleset, index: int, unit: Any, version: object, problems: list[tuple[str, str]]
) -> dict[str, Any] | None:
    """Unit ``index`` of the document as its ruleset writes it (with the builder's count and
    notes), or None with its problems added to ``problems``."""
    if isinstance(unit, dict) and len(unit.get("weapons") or []) > MAX_WEAPONS:
        reason = f"has more than {MAX_WEAPONS} weapons"
        problems.append((f"units[{index}].weapons", _unit_reason(index, unit, "weapons", reason)))
        return None
    # The count and (from version 2) the notes are the builder's, read beside the unit.
    own = ("count", "notes") if version != 1 else ("count",)
    count, notes = 1, ""
    if isinstance(unit, dict) and any(key in unit for key in own):
        given, unit = unit, {k: v for k, v in unit.items() if k not in own}
        try:
            count, notes = _builders_fields(given, own)
        except InvalidInput as exc:
            reason = _unit_reason(index, unit, exc.field, exc.reason)
            problems.append((_path(index, exc.field), reason))
            return None
    try:
        spec = rules.decode_unit(unit, strict=True)  # a JSON document: true or false only
    except InvalidInput as exc:  # every wrong field of the unit, each by its path
        for field, why in exc.reasons().items():
            problems.append((_path(index, field), _unit_reason(index, unit, field, why)))
        return None
    normal = rules.encode_unit(spec)  # normalised, exact numbers kept
    if count != 1:
        normal["count"] = count
    normal["notes"] = notes
    unit_name = normal.get("name")
    if not isinstance(unit_name, str) or not unit_name.strip() or len(unit_name) > 120:
        reason = _unit_reason(index, None, "name", "must be text of 1 to 120 characters")
        problems.append((f"units[{index}].name", reason))
    return normal


def _builders_fields(unit: dict[str, Any], own: tuple[str, ...]) -> tuple[int, str]:
    """A document unit's count (1 if not given) and notes ("" if not given or not read)."""
    count = read_count(unit["count"]) if "count" in unit else 1
    notes = read_notes(unit["notes"]) if "notes" in own and "notes" in unit else ""
    return count, notes


def _options(doc: dict[str, Any]) -> dict[str, Any]:
    """A checked document's house rules, every option written out."""
    rules = get_ruleset(doc["ruleset"])
    return rules.encode_options(rules.decode_options(doc.get("house_rules") or {}))


def _free_name(session: Session, *, user: User, name: str) -> str:
    """The name, or with a suffix ("Iron Bricks (2)") if one of the user's armies has it."""
    taken = set(session.scalars(select(Army.name).where(Army.owner_id == user.id)))
    candidate, number = name, 1
    while candidate in taken:
        number += 1
        suffix = f" ({number})"
        candidate = name[: 120 - len(suffix)].rstrip() + suffix
    return candidate


def import_army(session: Session, *, user: User, raw: bytes) -> Army:
    """Create an army from a document: all of it, or nothing."""
    quotas.armies(session, user=user)
    return create_from_document(session, user=user, doc=parse_document(raw))


def create_from_document(
    session: Session, *, user: User, doc: dict[str, Any], summary: str = "imported"
) -> Army:
    """Create the army of a checked document (``check_document``), its units in order; the
    history's first entry is ``summary`` and the number of units. Its units and weapons
    count against the user's (QuotaExceeded past them, before anything is written)."""
    quotas.rows(
        session,
        owner_id=user.id,
        units=len(doc["units"]),
        weapons=sum(len(unit.get("weapons", [])) for unit in doc["units"]),
    )
    army = Army(
        owner_id=user.id,
        name=_free_name(session, user=user, name=doc["name"].strip()),
        ruleset_id=doc["ruleset"],
        budget=doc["budget"],
        notes=doc.get("notes", ""),
        house_rules=_options(doc),
    )
    session.add(army)
    session.flush()
    add_units(session, army_id=army.id, units=doc["units"])
    figures = sum(unit.get("count", 1) for unit in doc["units"])
    summary = f"{summary} with {len(doc['units'])} units"
    if figures != len(doc["units"]):
        summary += f" ({figures} figures)"
    history.record(session, army=army, user=user, summary=summary)
    return army
