"""BrikWars' builder behind the interface (``Building``): the catalogue and its forms, a
unit's fields, figures and costs, and the words and JSON the pages and the API show.

The rules are the engine's (``units``, ``validation``, ``activation``, ``figures``); this
module translates them into the interface's plain shapes.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from app.rules.brikwars.activation import activation_sets
from app.rules.brikwars.catalogue import (
    ACTION_DICE,
    MAX_SIZE,
    WeaponStats,
    WeaponType,
    catalogue,
    explosive_variants,
    format_cp,
    format_number,
)
from app.rules.brikwars.examples import SAMPLE_ARMY
from app.rules.brikwars.figures import (
    armour_text,
    field_words,
    inches,
    profile,
    size_text,
    weapon_line,
)
from app.rules.brikwars.glossary import GLOSSARY
from app.rules.brikwars.options import DEFAULT_OPTIONS, OPTION_INFO, BrikWarsOptions
from app.rules.brikwars.serialize import unit_from_dict, unit_to_dict
from app.rules.brikwars.units import (
    KINDS,
    MOUNTS,
    MOUNTS_OF_KIND,
    PROPULSIONS,
    SPECIALTY_COSTS,
    UnitSpec,
    weapon_name,
)
from app.rules.brikwars.validation import validate_unit
from app.rules.fields import FormSplit, InputField
from app.rules.ruleset import (
    NAME_FIELD,
    CatalogueEntry,
    Column,
    GlossaryTerm,
    RulesetBase,
    SampleArmy,
    UnitFigures,
    WeaponFigures,
    catalogue_split,
)

# ------------------------------------------------------------------------ declared fields


def _option_fields() -> tuple[InputField, ...]:
    out = []
    for info in OPTION_INFO:
        default = getattr(DEFAULT_OPTIONS, info.name)
        if info.choices is None:
            out.append(InputField(info.name, info.label, "flag", default))
        else:
            choices = tuple((c, c) for c in info.choices)
            out.append(InputField(info.name, info.label, "choice", default, choices=choices))
    return tuple(out)


def _inches(name: str, label: str, default: Fraction | None) -> InputField:
    return InputField(name, label, "inches", default, high=MAX_SIZE, optional=default is None)


UNIT_FIELDS: tuple[InputField, ...] = (
    NAME_FIELD,
    InputField(
        "kind", "Kind", "choice", "minifig", choices=tuple((k, k.capitalize()) for k in KINDS)
    ),
    _inches("size", "Size (inches)", None),
    _inches("structure_level", "Structure Level (0, ½ = 0.5, 1–5)", None),
    InputField(
        "propulsion",
        "Propulsion",
        "choice",
        "ground",
        choices=tuple((p, p.capitalize()) for p in PROPULSIONS),
    ),
    _inches("move", "Move (inches)", None),
    InputField(
        "mind_die",
        "Mind",
        "choice",
        None,
        choices=tuple((str(d), f"d{d}") for d in ACTION_DICE),
        optional=True,
        help="none: the kind's own (a minifig d6, a Hero d10, a Creation none)",
    ),
    _inches("size_damage", "Size Damage (inches)", Fraction(0)),
)
"""The unit form's fields, named as ``encode_unit`` writes them (the form's own template
asks them, with the Specialties as a box per specialty: a list no ``InputField`` kind holds)."""


def _weapon_fields(entry: WeaponType) -> tuple[InputField, ...]:
    fields: list[InputField] = []
    if entry.sized_by == "inches":
        fields.append(InputField("size", "Weapon Size", "inches", None, high=100))
    if entry.sized_by == "bricks":
        fields.append(InputField("xsize", "Size in bricks (X)", "whole", 1, low=1, high=100))
        variants = tuple((v.id, v.name) for v in explosive_variants())
        fields.append(
            InputField("variant", "Variant", "choice", None, choices=variants, optional=True)
        )
    if entry.can_be_hand_held and not entry.hand_held_only:
        mounts = tuple((m, m.replace("_", " ")) for m in MOUNTS)
        fields.append(InputField("mount", "Mount", "choice", "mounted", choices=mounts))
    fields.append(InputField("label", "Label", "text", "", high=120, help='e.g. "left claw"'))
    return tuple(fields)


def _entry(entry: WeaponType) -> CatalogueEntry:
    details = {
        "scale": entry.scale,
        "sized_by": entry.sized_by,
        "cost": entry.cost_text,
        "use": entry.use_text,
        "range": entry.range_text,
        "damage": entry.damage_text,
        "power": entry.power_text,
        "deflection": entry.deflection_text,
        "takes": "ammo" if entry.takes_ammo else "payload" if entry.takes_payload else "",
    }
    return CatalogueEntry(
        id=entry.id,
        name=entry.name,
        category=entry.category,
        summary=entry.notes,
        fields=_weapon_fields(entry),
        details={k: v for k, v in details.items() if v},
    )


CATALOGUE = tuple(_entry(e) for e in catalogue() if e.category != "turret")
_AMMO = frozenset(e.id for e in catalogue() if e.takes_ammo)
_PAYLOAD = frozenset(e.id for e in catalogue() if e.takes_payload)
WEAPON_FORM = catalogue_split(
    CATALOGUE,
    {
        **{f"ammo.{name}": _AMMO for name in ("xsize", "rounds", "variant")},
        **{
            f"payload.{name}": _PAYLOAD
            for name in (
                "explosive.xsize",
                "explosive.rounds",
                "explosive.variant",
                "per_launch",
                "object_size",
            )
        },
    },
)
"""The weapon form's fields by type: the catalogue's, with a Cannon's Ammo and a
Launcher's Payload."""
PICKER_GROUPS = (
    ("close_combat", "Close combat"),
    ("ranged", "Ranged"),
    ("explosive", "Explosives, Cannons, Launchers"),
    ("armour", "Armour"),
    ("equipment", "Equipment"),
)
"""The weapon picker's groups, in the order of the weapon tables."""
_SIZED = {"inches": ' (S")', "bricks": " (X bricks)"}
TEMPLATE_CONTEXT: Mapping[str, Any] = {
    "weapon_groups": tuple(
        (
            label,
            tuple(
                (t.id, t.name + _SIZED.get(t.sized_by, ""))
                for t in catalogue()
                if t.category == group
            ),
        )
        for group, label in PICKER_GROUPS
    ),
    "variant_choices": (
        ("", "standard"),
        *tuple((v.id, v.name) for v in explosive_variants() if v.id != "standard"),
    ),
    "kind_choices": tuple((k, k.capitalize()) for k in KINDS),
    "propulsion_choices": tuple((p, p.capitalize()) for p in PROPULSIONS),
    "mount_choices": (("", "default"), *tuple((m, m.replace("_", " ")) for m in MOUNTS)),
    "mount_choices_of_kind": {
        kind: (("", "default"), *tuple((m, m.replace("_", " ")) for m in mounts))
        for kind, mounts in MOUNTS_OF_KIND.items()
    },
    "mind_choices": (("", "none / default"), *tuple((d, f"d{d}") for d in ACTION_DICE)),
    "specialties": tuple(SPECIALTY_COSTS),
}
"""What the BrikWars templates read (``ruleset_context("brikwars")``)."""


# ------------------------------------------------------------------------ figures


def stats_json(stats: WeaponStats) -> dict[str, Any]:
    """A weapon's stats as the API writes them (``WeaponStatsOut``: inches and points as
    JSON floats)."""
    damage = stats.damage
    return {
        "use": stats.use,
        "range_inches": None if stats.range_inches is None else float(stats.range_inches),
        "damage": None
        if damage is None
        else {
            "dice": damage.dice,
            "sides": damage.sides,
            "modifier": damage.modifier,
            "text": str(damage),
            "minus_distance": damage.minus_distance,
            "fire": damage.fire,
            "explosion": damage.explosion,
        },
        "cost": float(stats.cost),
        "power": float(stats.power),
        "deflection": stats.deflection,
    }


def _weapon_figures(unit: UnitSpec, index: int, options: BrikWarsOptions) -> WeaponFigures:
    """Weapon ``index`` as the builder shows it (findings are the unit's). ``detail``: the
    weapon (``spec``), its ``stats``, how it is held (``hold``) and its table ``line``."""
    weapon = unit.weapons[index]
    stats = unit.weapon_stats(index, options)
    hold = unit.hold_class(index)
    line = weapon_line(weapon, stats, hold, options)
    cells = {
        "mount": line.mount,
        "use": line.use,
        "range": line.range,
        "damage": line.damage,
        "power": line.power,
    }
    return WeaponFigures(
        line.name,
        cells,
        weapon.cost_with(options),
        line.cost,
        type_name=weapon.entry.name,
        label=weapon.label or "",
        note=line.extra,
        detail={"spec": weapon, "stats": stats, "hold": hold, "line": line},
        fires=weapon.entry.attacks,
    )


def _unit_figures(unit: UnitSpec, options: BrikWarsOptions) -> UnitFigures:
    findings = tuple(validate_unit(unit, options=options))
    weapons = tuple(_weapon_figures(unit, i, options) for i in range(len(unit.weapons)))
    power_needed = unit.power_needed_with(options)
    sets = tuple(activation_sets(unit, options=options))
    names = [weapon_name(w) for w in unit.weapons]
    # What a turn chooses between: the weapons that attack or draw on the Power (a
    # Melee Shield's Parry); armour and other free equipment are worn every turn.
    chosen_from = {
        i for i, w in enumerate(unit.weapons) if w.entry.attacks or w.power_need_with(options) > 0
    }
    cost = unit.cost_with(options)
    cells = {
        "size": size_text(unit),
        "armour": armour_text(unit),
        "move": inches(unit.current_move),
        "power": f"{format_number(power_needed)}/{inches(unit.power)}",
    }
    cost_text = format_cp(cost)
    detail = {
        "unit": unit,
        "size_text": cells["size"],
        "armour_text": cells["armour"],
        "move_text": cells["move"],
        "power_text": cells["power"],
        "cost_text": cost_text,
        "power_needed": power_needed,
        "activation_sets": sets,
        "activation_text": " · ".join(
            " + ".join(names[i] for i in chosen if i in chosen_from) or "nothing" for chosen in sets
        ),
    }
    return UnitFigures(
        unit.name,
        cells,
        cost,
        cost_text,
        weapons,
        findings,
        kind_text=unit.kind.capitalize() + (" · flying" if unit.propulsion == "flying" else ""),
        # Orange only with a finding that says why: a weapon Too Big for the Power on its
        # own. Needing more than the Power for every weapon at once is what "Usable
        # together in one turn" answers, not a problem.
        flagged=frozenset({"power"}) if any(f.code == "too_big" for f in findings) else frozenset(),
        detail=detail,
        profile=profile(unit),
    )


# ------------------------------------------------------------------------ the builder


class BrikWarsBuilding(RulesetBase):
    """The builder's members: the primitives, and the defaults BrikWars words otherwise."""

    glossary: tuple[GlossaryTerm, ...] = GLOSSARY
    cost_unit = "CP"
    option_fields: tuple[InputField, ...] = _option_fields()
    sample_army: SampleArmy = SAMPLE_ARMY
    unit_fields: tuple[InputField, ...] = UNIT_FIELDS
    # A minifig's and a Hero's Size and flesh are the rules'; they walk and take no Size
    # Damage (docs/rulings.md, BrikWars building ruling 20).
    unit_form = FormSplit(
        "kind",
        {
            name: frozenset({"creation"})
            for name in ("size", "structure_level", "propulsion", "size_damage")
        },
    )
    # A Cannon's Ammo and a Launcher's Payload have fields of their own, beyond the
    # catalogue's: the default split knows the catalogue's alone.
    weapon_form = WEAPON_FORM
    unit_columns: tuple[Column, ...] = (
        Column("size", "Size", numeric=True),
        Column("armour", "Armour"),
        Column("move", "Move", numeric=True),
        Column("power", "Power", numeric=True, heading="Power used/avail."),
    )
    weapon_columns: tuple[Column, ...] = (
        Column("mount", "Mount"),
        Column("use", "Use", numeric=True),
        Column("range", "Range", numeric=True),
        Column("damage", "Damage"),
        Column("power", "Power", numeric=True),
    )

    def catalogue(self) -> tuple[CatalogueEntry, ...]:
        return CATALOGUE

    def decode_options(self, data: Mapping[str, Any] | None) -> BrikWarsOptions:
        # Stored options are JSON typed: a flag is true or false (the default reads form
        # words such as "on" too), a non-object is refused as "options"
        return BrikWarsOptions.from_dict(None if data is None else dict(data))

    def decode_unit(self, data: Mapping[str, Any], *, strict: bool = False) -> UnitSpec:
        # any JSON value: it refuses a non-object by name (no on/off field: strict or not)
        return unit_from_dict(data)

    def encode_unit(self, unit: UnitSpec) -> dict[str, Any]:
        return unit_to_dict(unit)

    def unit_figures(self, unit: UnitSpec, options: BrikWarsOptions) -> UnitFigures:
        return _unit_figures(unit, options)

    def unit_cost(self, unit: UnitSpec, options: BrikWarsOptions) -> Fraction:
        # the cost alone (~0.04 ms) rather than the whole figures (~0.6 ms: findings,
        # activation sets), for the builder's every change and the army's findings
        return unit.cost_with(options)

    def weapon_cost(self, unit: UnitSpec, index: int, options: BrikWarsOptions) -> Fraction:
        # the weapon's cost alone, not the unit's whole figures (as ``unit_cost``)
        return unit.weapons[index].cost_with(options)

    def weapon_name(self, unit: UnitSpec, index: int) -> str:
        # the name alone, not the unit's whole figures (history names every weapon it shows)
        return weapon_name(unit.weapons[index])

    def format_cost(self, cost: Fraction | int) -> str:
        # "4.5CP": one decimal, halves up (1/3 is "0.3CP"), no space
        return format_cp(cost)

    def format_cost_change(self, change: Fraction) -> str:
        # "+4.5 CP": a change has the space a cost has not
        sign = "+" if change >= 0 else "-"
        return f"{sign}{format_number(abs(change))} CP"

    def field_words(self, data: Mapping[str, Any]) -> dict[str, str]:
        # inches with '"', dice as "d6", Ammo as "X2", BrikWars' own field names
        return field_words(data)

    def unit_json(self, figures: UnitFigures) -> dict[str, Any]:
        # the API's BrikWars fields (numbers, armour's parts, activation sets), not the cells
        unit: UnitSpec = figures.detail["unit"]
        armour = unit.armour
        return {
            "effective_size": float(unit.effective_size),
            "armor": {
                "dice": armour.dice,
                "sides": armour.sides,
                "fixed": armour.fixed,
                "deflection": armour.deflection,
                "text": str(armour),
            },
            "move": float(unit.current_move),
            "power": float(unit.power),
            "power_needed": float(figures.detail["power_needed"]),
            "activation_sets": [list(s) for s in figures.detail["activation_sets"]],
        }

    def weapon_json(self, figures: WeaponFigures) -> dict[str, Any]:
        # the API's weapon stats as numbers and how the weapon is held, not the cells
        return {"stats": stats_json(figures.detail["stats"]), "hold": figures.detail["hold"]}

    def unit_lines(self, unit: UnitSpec, options: BrikWarsOptions) -> list[str]:
        # the forum text's own lines: the kind in the head, a weapon's mount and Ammo named
        figures = self.figures(unit, options)
        c = figures.cells
        head = (
            f"{unit.name} ({unit.kind}) · Size {c['size']} · Armour {c['armour']} · Move "
            f"{c['move']} · Power {c['power']} · {figures.cost_text}"
        )
        lines = [head]
        for weapon in figures.weapons:
            line = weapon.detail["line"]
            # the mount and the Ammo or Payload change the figures and the cost: say them
            options_text = "".join(f" · {part}" for part in (line.mount_chosen, line.extra) if part)
            lines.append(
                f"   - {line.name}: Use {line.use} · Range {line.range} · "
                f"{line.damage} · Power {line.power} · {line.cost}{options_text}"
            )
        return lines

    def template_context(self) -> Mapping[str, Any]:
        # the pickers of BrikWars' own unit and weapon templates
        return TEMPLATE_CONTEXT
