"""Building Degrees armies: the catalogue, the unit form's fields, columns and figures
(RULINGS 2.3).

Everything the builder's pages and API show of a Degrees unit comes from ``unit_figures``,
computed once per stored unit and house rules (its costs and findings are the pure functions
of ``findings.py``); ``RulesetBase`` derives the rest from it: a unit's and a weapon's cost,
name and findings, the budget's finding, cost words in DP. The unit's scale is its ``kind``
(personnel / vehicular / army).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from app.rules.degrees import findings as rules
from app.rules.degrees import units
from app.rules.degrees.catalogue import SCALE_SHORT, SCALES, SENSES, WEAPON_TYPES, WEAPONS
from app.rules.degrees.examples import SAMPLE_ARMY
from app.rules.degrees.options import OPTION_FIELDS, DegreesOptions, encode_options, options_from
from app.rules.degrees.units import (
    FORM_FIELDS,
    LABEL,
    MAX_DEGREE,
    REAL_AMMO,
    SCALE_FIELD,
    WEASEL,
    WEASEL_FIXED,
    DegreesUnit,
    DegreesWeapon,
)
from app.rules.fields import FormSplit
from app.rules.ruleset import (
    JSON,
    CatalogueEntry,
    Column,
    Finding,
    RulesetBase,
    SampleArmy,
    UnitFigures,
    WeaponFigures,
)


def _degree_text(weapon: DegreesWeapon) -> str:
    """Its max degree as the tables write it: ``3°``, a gas gun's ``2-max``, and a Dousing
    Rod's real ammo: ``4° (5° real ammo)``."""
    text = f"{weapon.degree}-max" if weapon.kind.gas else f"{weapon.degree}°"
    if weapon.real_ammo:
        text += f" ({rules.attack_degree(weapon)}° real ammo)"
    return text


def _penetrates_text(weapon: DegreesWeapon) -> str:
    """Which natural rolls may go to the back line (RULINGS 2.2)."""
    kind = weapon.kind
    if kind.never_penetrates or kind.penetrates_on <= 0:
        return "never"
    rolls = "raw 1" if kind.penetrates_on == 1 else f"raw 1-{kind.penetrates_on}"
    return f"{rolls} at -{kind.penetrate_penalty}°" if kind.penetrate_penalty else rolls


def _weapon_figures(unit: DegreesUnit, index: int, options: DegreesOptions) -> WeaponFigures:
    """Weapon ``index`` as shown, without its findings (the unit's figures hold them, each
    naming its weapon)."""
    weapon = unit.weapons[index]
    entry, kind = weapon.entry, weapon.kind
    cost = rules.weapon_cost(weapon, options)
    ap = rules.cheapest_attack_ap(weapon)
    cells = {
        "scale": SCALE_SHORT[entry.scale],
        "degree": _degree_text(weapon),
        "type": kind.name,
        "ap": str(ap),
        "penetrates": _penetrates_text(weapon),
    }
    notes = [entry.note] if entry.note else []
    if weapon.real_ammo:
        notes.append(f"real ammo: attacks at up to {rules.attack_degree(weapon)}°")
    if weapon.type in options.costs:
        notes.append("cost set by a house rule")
    detail = {
        "weapon": weapon,
        "scale": entry.scale,
        "scale_name": SCALE_SHORT[entry.scale],
        "degree": weapon.degree,
        "attack_degree": rules.attack_degree(weapon),
        "degree_text": cells["degree"],
        "type_id": entry.type,
        "type_name": kind.name,
        # the type where the weapon's own name does not already say it
        "type_shown": "" if kind.id == "standard" or kind.name == entry.name else kind.name,
        "section": kind.section,
        "rules": kind.rules,
        "attack_ap": ap,
        "penetrates_text": cells["penetrates"],
    }
    return WeaponFigures(
        weapon.name,
        cells,
        cost,
        rules.format_dp(cost),
        type_name=entry.name,
        label=weapon.label,
        note=" · ".join(notes),
        detail=MappingProxyType(detail),
    )


def _armour_text(unit: DegreesUnit) -> str:
    return f"{unit.armour} + {unit.back_armour} back" if unit.back_armour else str(unit.armour)


def _catalogue_entry(weapon_id: str) -> CatalogueEntry:
    weapon = WEAPONS[weapon_id]
    kind = WEAPON_TYPES[weapon.type]
    scale = SCALES[weapon.scale]
    fields = (MAX_DEGREE, LABEL, REAL_AMMO) if kind.real_ammo else (MAX_DEGREE, LABEL)
    details = {
        "scale": scale.name,
        "table": scale.table,
        "degree": f"{weapon.degree}-max" if kind.gas else f"{weapon.degree}°",
        "type": kind.name,
        "section": kind.section,
        "rules": " ".join(kind.rules),
        "attack_ap": str(kind.attack_ap + kind.draw_ap),
    }
    if weapon.note:
        details["note"] = weapon.note
    return CatalogueEntry(
        weapon.id,
        weapon.name,
        weapon.scale,
        f"{details['degree']} {kind.name} ({SCALE_SHORT[weapon.scale]}): {kind.rules[0]}",
        fields,
        MappingProxyType(details),
    )


_CATALOGUE: tuple[CatalogueEntry, ...] = tuple(_catalogue_entry(w) for w in WEAPONS)


def _weapon_choice(weapon_id: str) -> tuple[str, str]:
    weapon = WEAPONS[weapon_id]
    kind = WEAPON_TYPES[weapon.type]
    degree = f"{weapon.degree}-max" if kind.gas else f"{weapon.degree}°"
    what = "" if kind.id == "standard" or kind.name == weapon.name else f", {kind.name}"
    return weapon.id, f"{weapon.name} ({degree}{what})"


_TEMPLATE_CONTEXT: Mapping[str, Any] = MappingProxyType(
    {
        "scale_choices": SCALE_FIELD.choices,
        "weapon_groups": tuple(
            (
                f"{scale.name} (table {scale.table})",
                tuple(_weapon_choice(w.id) for w in WEAPONS.values() if w.scale == scale.id),
            )
            for scale in SCALES.values()
        ),
        "sense_names": tuple(s.name for s in SENSES.values()),
    }
)


def _senses_profile(
    unit: DegreesUnit, senses_text: str, custom: bool
) -> tuple[tuple[str, str], ...]:
    """The dampener order as the sheet and the forum text show it (ruling DB11): a Personnel
    unit's (a Least Weasel's too), its own or "the rules' order"; a larger unit's only when
    the player set one (a Vehicular or Army unit's senses are no figure of its own)."""
    if custom and senses_text:
        return (("Senses (dampener order)", senses_text),)
    if unit.weasel or unit.scale == "personnel":
        return (("Senses (dampener order)", "the rules' order"),)
    return ()


class DegreesBuilding(RulesetBase):
    """The building half of the Degrees ruleset: units, catalogue, columns and figures. Costs,
    findings and their words are ``RulesetBase``'s, from the figures and ``cost_unit``."""

    cost_unit = "DP"
    option_fields = OPTION_FIELDS
    options_type = staticmethod(options_from)  # the costs house rule: text, kept parsed
    sample_army: SampleArmy = SAMPLE_ARMY
    unit_fields = FORM_FIELDS
    # A Least Weasel's figures are the text's (units.WEASEL_FIXED): its form asks its name
    # and the order a dampener takes its senses, not its degree, Armour, HP, AP or OP.
    unit_form = FormSplit(
        "kind",
        {
            name: frozenset(c for c in SCALE_FIELD.choice_values if c != WEASEL)
            for name in (*WEASEL_FIXED, "human")
        },
    )

    unit_columns: tuple[Column, ...] = (
        Column("degree", "Degree", numeric=True),
        Column("armour", "Armour", heading="Armour (front + back)"),
        Column("hp", "HP", numeric=True),
        Column("ap", "AP", numeric=True, heading="AP per round"),
        Column("op", "OP", numeric=True),
    )
    weapon_columns: tuple[Column, ...] = (
        Column("scale", "Scale"),
        Column("degree", "Degree", numeric=True),
        Column("type", "Type"),
        Column("ap", "AP", numeric=True),
        Column("penetrates", "Back line"),
    )

    def catalogue(self) -> tuple[CatalogueEntry, ...]:
        return _CATALOGUE

    def decode_unit(self, data: Mapping[str, Any], *, strict: bool = False) -> DegreesUnit:
        return units.decode_unit(data, strict=strict)

    def encode_unit(self, unit: DegreesUnit) -> JSON:
        return units.encode_unit(unit)

    def unit_figures(self, unit: DegreesUnit, options: DegreesOptions) -> UnitFigures:
        weapons = tuple(_weapon_figures(unit, i, options) for i in range(len(unit.weapons)))
        cost = unit.degree + sum(w.cost for w in weapons)
        cells = {
            "degree": f"{unit.degree}°",
            "armour": _armour_text(unit),
            "hp": str(unit.hp),
            "ap": str(unit.ap),
            "op": str(unit.op),
        }
        custom_senses = unit.senses != tuple(SENSES)
        senses_text = ", ".join(SENSES[s].name for s in unit.senses)
        detail = {
            "unit": unit,
            "scale_name": SCALES[unit.scale].name,
            "senses_text": senses_text,
            "custom_senses": custom_senses,
        }
        return UnitFigures(
            unit.name,
            cells,
            cost,
            rules.format_dp(cost),
            weapons,
            tuple(rules.unit_findings(unit, options)),
            kind_text=(
                "Least Weasel (drone)"
                if unit.weasel
                else SCALE_SHORT[unit.scale] + (" · Human" if unit.human else "")
            ),
            flagged=frozenset(),
            detail=MappingProxyType(detail),
            profile=_senses_profile(unit, senses_text, custom_senses),
        )

    def roster_findings(
        self, units: Sequence[tuple[DegreesUnit, int]], options: DegreesOptions
    ) -> list[Finding]:
        # "Ferrets are standard-issued six Least Weasels": at most six a Ferret
        return rules.roster_findings(list(units))

    def encode_options(self, options: DegreesOptions) -> JSON:
        # the options keep the costs house rule parsed (a mapping): written back as its text
        return encode_options(options)

    def unit_json(self, figures: UnitFigures) -> JSON:
        # the API body gives the unit's numbers as numbers, not its cells' words
        unit: DegreesUnit = figures.detail["unit"]
        return {
            "scale": unit.scale,
            "least_weasel": unit.weasel,
            "degree": unit.degree,
            "armour": unit.armour,
            "back_armour": unit.back_armour,
            "hp": unit.hp,
            "ap": unit.ap,
            "op": unit.op,
            "human": unit.human,
            "senses": list(unit.senses),
        }

    def weapon_json(self, figures: WeaponFigures) -> JSON:
        # the API body gives the weapon's numbers and rules, not its cells' words
        d = figures.detail
        return {
            "scale": d["scale"],
            "degree": d["degree"],
            "attack_degree": d["attack_degree"],
            "weapon_type": d["type_id"],
            "attack_ap": d["attack_ap"],
            "rules": list(d["rules"]),
            "cost": figures.cost,
        }

    def unit_lines(self, unit: DegreesUnit, options: DegreesOptions) -> list[str]:
        # the forum text names the unit's scale and each weapon's type, AP and back line
        figures = self.figures(unit, options)
        c = figures.cells
        head = (
            f"{unit.name} ({figures.kind_text}) · {c['degree']} · Armour {c['armour']} · "
            f"HP {c['hp']} · AP {c['ap']} · OP {c['op']} · {figures.cost_text}"
        )
        lines = [head]
        for weapon in figures.weapons:
            w = weapon.cells
            what = [weapon.detail["type_shown"], w["scale"]]
            note = f" · {weapon.note}" if weapon.note else ""
            lines.append(
                f"   - {weapon.name}: {', '.join(t for t in what if t)} · {w['ap']} AP · "
                f"back line {w['penetrates']} · {weapon.cost_text}{note}"
            )
        return lines

    def template_context(self) -> Mapping[str, Any]:
        # the unit and weapon forms' choices: scales, weapons grouped by table, senses
        return _TEMPLATE_CONTEXT
