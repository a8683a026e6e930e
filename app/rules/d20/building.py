"""Building D20 armies: catalogue, columns, figures, findings and points (RULINGS 3.1-3.2).

Everything the builder's pages and API show of a figurine comes from ``unit_figures``,
computed once per stored figurine and house rules; costs and findings are the pure functions
of ``findings.py``, and ``RulesetBase`` derives the rest from the figures (each cost, a
weapon's figures, the budget's finding, cost words). A figurine's kind is ``figurine`` or
``su``; it is read and written by ``units.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, Final

from app.rules.d20 import findings as rules
from app.rules.d20 import options as opts
from app.rules.d20 import units
from app.rules.d20.catalogue import EQUIPMENT, TIMER_TURNS, Equipment
from app.rules.d20.examples import SAMPLE_ARMY
from app.rules.d20.units import (
    AUTOMATIC,
    KIND,
    LABEL,
    NOTES,
    POWER,
    REACH,
    WEAPON_NAME,
    WEAPON_POINTS,
    D20Figurine,
    D20Weapon,
)
from app.rules.fields import InputField
from app.rules.ruleset import (
    JSON,
    CatalogueEntry,
    Column,
    SampleArmy,
    UnitFigures,
    WeaponFigures,
)

OWN: Final = ("gun", "hth")  # the player's own weapons: name, Reach and Power given
MAX_REUSE: Final = 24  # the army's own weapons the add-weapon form offers again, at most
NONE: Final = "—"


def power_text(entry: Equipment, power: int) -> str:
    """Power as the text writes it: ``P25``, ``F15`` for fire."""
    return f"{'F' if entry.fire else 'P'}{power}"


def reach_text(weapon: D20Weapon) -> str:
    """Reach in cm; the mine and charges are placed, not thrown or fired (``—``)."""
    return NONE if weapon.equipment.category in ("mine", "charge") else str(weapon.reach)


def radius_text(entry: Equipment) -> str:
    return NONE if entry.radius is None else f"r{entry.radius}"


def rule_notes(entry: Equipment, automatic: bool = False) -> tuple[str, ...]:
    """The special rules the Notes column names, in a fixed order."""
    notes: list[str] = []
    if automatic:
        notes.append("automatic")
    if entry.category == "hth":
        notes.append("hand-to-hand")
    if entry.radius is not None:
        if not entry.roll:
            notes.append("no roll")
        notes.append("cover protects" if entry.cover else "cover does not protect")
    if entry.shakes:
        notes.append("Shaken")
    if entry.flat_cp:
        notes.append(f"{entry.flat_cp} CP fireball")
    if entry.timer:
        low, high = TIMER_TURNS
        notes.append(f"timer {low}-{high} turns, DL {entry.power} to defuse")
    if entry.su_only:
        notes.append("SU only")
    return tuple(notes)


def _weapon_figures(unit: D20Figurine, index: int) -> WeaponFigures:
    """Weapon ``index`` as shown, without its findings (the figurine's figures hold them)."""
    weapon = unit.weapons[index]
    entry = weapon.equipment
    notes = rule_notes(entry, weapon.automatic)
    cells = {
        "reach": reach_text(weapon),
        "power": power_text(entry, weapon.power),
        "radius": radius_text(entry),
        "notes": ", ".join(notes) or NONE,
    }
    detail = {
        "weapon": weapon,
        "entry": entry,
        "own": weapon.type in OWN,
        "category": entry.category,
        "reach_text": cells["reach"],
        "power_text": cells["power"],
        "radius_text": cells["radius"],
        "rules": notes,
        "summary": entry.summary,
        # the kind where the weapon's own name does not already say it
        "kind_shown": entry.name if weapon.name != entry.name else "",
    }
    return WeaponFigures(
        weapon.name,
        cells,
        weapon.points,
        rules.format_pts(weapon.points),
        type_name=weapon.name,
        label=weapon.label,
        note=weapon.notes,
        detail=MappingProxyType(detail),
    )


def _entry_fields(entry: Equipment) -> tuple[InputField, ...]:
    if entry.category == "gun":
        return (WEAPON_NAME, REACH, POWER, AUTOMATIC, NOTES, WEAPON_POINTS, LABEL)
    if entry.category == "hth":
        return (WEAPON_NAME, POWER, NOTES, WEAPON_POINTS, LABEL)
    return (NOTES, WEAPON_POINTS, LABEL)


def _catalogue_entry(entry: Equipment) -> CatalogueEntry:
    details: dict[str, str] = {}
    if entry.id in OWN:
        details["own"] = "name, Reach and Power are the player's"
    if entry.power is not None:
        details["power"] = power_text(entry, entry.power)
    if entry.reach is not None:
        placed = entry.category in ("mine", "charge")
        details["reach"] = "placed" if placed else f"{entry.reach} cm"
    if entry.radius is not None:
        details["radius"] = radius_text(entry)
    notes = rule_notes(entry)
    if notes:
        details["rules"] = ", ".join(notes)
    if entry.timer and entry.power is not None:
        details["defuse_dl"] = str(entry.power)
    return CatalogueEntry(
        entry.id,
        entry.name,
        entry.category,
        entry.summary,
        _entry_fields(entry),
        MappingProxyType(details),
    )


_CATALOGUE: tuple[CatalogueEntry, ...] = tuple(_catalogue_entry(e) for e in EQUIPMENT.values())


def _choice(entry: Equipment) -> tuple[str, str]:
    if entry.id in OWN:
        return entry.id, f"{entry.name} of your own"
    figures = [power_text(entry, entry.power or 0)]
    if entry.radius is not None:
        figures[0] += f"/{radius_text(entry)}"
    if entry.category == "grenade":
        figures.append(f"Reach {entry.reach} cm")
    return entry.id, f"{entry.name} ({', '.join(figures)})"


_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Your own weapons", ("gun", "hth")),
    ("Grenades (SUs only)", ("grenade",)),
    ("Mines and demolition charges", ("mine", "charge")),
)


def own_weapons(units: Iterable[UnitFigures]) -> tuple[Mapping[str, str], ...]:
    """The army's own guns and hand-to-hand weapons already on its figurines, once each (by
    name, Reach, Power, automatic fire and points), sorted by name, at most ``MAX_REUSE``:
    what the add-weapon form offers to add again in one step. ``vals`` is every weapon field
    as the add form sends it (JSON), the others blank."""
    seen: dict[tuple[Any, ...], D20Weapon] = {}
    for figures in units:
        for wf in figures.weapons:
            weapon: D20Weapon = wf.detail["weapon"]
            if weapon.type not in OWN:
                continue
            key = (weapon.name, weapon.type, weapon.reach, weapon.power, weapon.automatic)
            seen.setdefault((*key, weapon.points), weapon)
    out: list[Mapping[str, str]] = []
    for weapon in sorted(seen.values(), key=lambda w: (w.name.casefold(), w.type, w.reach)):
        if len(out) == MAX_REUSE:
            break
        entry = weapon.equipment
        what = [f"Reach {weapon.reach} cm"] if weapon.type == "gun" else ["hand-to-hand"]
        what.append(power_text(entry, weapon.power))
        if weapon.automatic:
            what.append("automatic")
        what.append(rules.format_pts(weapon.points))
        vals = {
            "type": weapon.type,
            "name": weapon.name,
            "reach": str(weapon.reach) if weapon.type == "gun" else "",
            "power": str(weapon.power),
            "automatic": "1" if weapon.automatic else "0",
            "notes": "",
            "points": str(weapon.points),
            "label": "",
        }
        out.append(
            MappingProxyType(
                {
                    "name": weapon.name,
                    "text": f"{weapon.name} ({', '.join(what)})",
                    "vals": json.dumps(vals),
                }
            )
        )
    return tuple(out)


_TEMPLATE_CONTEXT: Mapping[str, Any] = MappingProxyType(
    {
        "kind_choices": KIND.choices,
        "weapon_groups": tuple(
            (label, tuple(_choice(e) for e in EQUIPMENT.values() if e.category in categories))
            for label, categories in _GROUPS
        ),
        "equipment_ids": tuple(e for e in EQUIPMENT if e not in OWN),
        "own_weapons": own_weapons,
        "max_reuse": MAX_REUSE,
    }
)


def _kind_text(unit: D20Figurine) -> str:
    return "SU" if unit.su else "Figurine"


class D20Building:
    """The building job of the D20 ruleset (see ``app.rules.ruleset.Building``): what the
    base derives from ``unit_figures`` (costs, findings, names, cost words) is not here."""

    option_fields: tuple[InputField, ...] = opts.OPTION_FIELDS
    options_type = opts.D20Options  # the house rules as a typed dataclass, not ``Values``
    sample_army: SampleArmy = SAMPLE_ARMY
    unit_fields: tuple[InputField, ...] = units.UNIT_FIELDS
    unit_columns: tuple[Column, ...] = (
        Column("shot", "Shot", numeric=True),
        Column("hth", "HtH", numeric=True),
        Column("pd", "PD", numeric=True),
        Column("evasion", "Evasion", numeric=True),
        Column("dexterity", "Dex", numeric=True),
        Column("cp", "CP", numeric=True),
    )
    weapon_columns: tuple[Column, ...] = (
        Column("reach", "Reach (cm)", numeric=True),
        Column("power", "Power"),
        Column("radius", "Radius"),
        Column("notes", "Notes"),
    )

    def catalogue(self) -> tuple[CatalogueEntry, ...]:
        return _CATALOGUE

    def decode_unit(self, data: Mapping[str, Any], *, strict: bool = False) -> D20Figurine:
        return units.decode_unit(data, strict=strict)

    def encode_unit(self, unit: D20Figurine) -> JSON:
        return units.encode_unit(unit)

    def unit_figures(self, unit: D20Figurine, options: opts.D20Options) -> UnitFigures:
        weapons = tuple(_weapon_figures(unit, i) for i in range(len(unit.weapons)))
        cost = rules.unit_cost(unit)
        cells = {
            "shot": str(unit.shot),
            "hth": str(unit.hth),
            "pd": str(unit.pd),
            "evasion": str(unit.evasion),
            "dexterity": str(unit.dexterity),
            "cp": str(unit.cp),
            "points": str(unit.points),
        }
        detail = {"unit": unit, "kind_name": _kind_text(unit)}
        return UnitFigures(
            unit.name,
            cells,
            cost,
            rules.format_pts(cost),
            weapons,
            tuple(rules.unit_findings(unit)),
            kind_text=_kind_text(unit),
            flagged=frozenset(),
            detail=MappingProxyType(detail),
        )

    def template_context(self) -> Mapping[str, Any]:
        # the own templates' choice lists (grouped weapon types, the army's own weapons)
        return _TEMPLATE_CONTEXT

    def unit_json(self, figures: UnitFigures) -> JSON:
        # typed values (numbers, the SU flag), where the default gives the cells' text
        unit: D20Figurine = figures.detail["unit"]
        return {
            "su": unit.su,
            "shot": unit.shot,
            "hth": unit.hth,
            "pd": unit.pd,
            "evasion": unit.evasion,
            "dexterity": unit.dexterity,
            "cp": unit.cp,
            "points": unit.points,
        }

    def weapon_json(self, figures: WeaponFigures) -> JSON:
        # typed values and the rules' notes as a list, where the default gives the cells' text
        weapon: D20Weapon = figures.detail["weapon"]
        entry = weapon.equipment
        return {
            "category": entry.category,
            "reach": weapon.reach,
            "power": weapon.power,
            "power_text": figures.detail["power_text"],
            "radius": entry.radius,
            "automatic": weapon.automatic,
            "rules": list(figures.detail["rules"]),
            "cost": figures.cost,
        }

    def unit_lines(self, unit: D20Figurine, options: opts.D20Options) -> list[str]:
        # the kind beside the name, and each weapon by where it strikes (Reach in cm or
        # hand-to-hand), its Power and radius, rules, cost, note and label
        figures = self.unit_figures(unit, options)
        c = figures.cells
        lines = [
            f"{unit.name} ({figures.kind_text}) · Shot {c['shot']} · HtH {c['hth']} · "
            f"PD {c['pd']} · Evasion {c['evasion']} · Dex {c['dexterity']} · CP {c['cp']} · "
            f"{figures.cost_text}"
        ]
        for wf in figures.weapons:
            d = wf.detail
            where = {"gun": f"Reach {d['reach_text']} cm", "hth": "hand-to-hand"}.get(
                d["category"], ""
            )
            if d["category"] == "grenade":
                where = f"Reach {d['reach_text']} cm"
            radius = "" if d["radius_text"] == NONE else f"/{d['radius_text']}"
            rest = [r for r in d["rules"] if r != "hand-to-hand"]
            parts = [where, d["power_text"] + radius, *rest, wf.cost_text]
            if wf.note:
                parts.append(wf.note)
            label = f" ({wf.label})" if wf.label else ""
            lines.append(f"   - {wf.name}{label}: {' · '.join(p for p in parts if p)}")
        return lines
