"""BrikWars rules: the weapon catalogue, units and their costs, build validation, Power.

Pure Python (stdlib only). The web layer calls only what is re-exported here.
"""

from app.rules.brikwars.activation import activation_sets
from app.rules.brikwars.catalogue import (
    DamageExpr,
    ExplosiveVariant,
    WeaponStats,
    WeaponType,
    catalogue,
    explosive_variant,
    explosive_variants,
    format_cp,
    format_number,
    weapon_stats,
    weapon_type,
)
from app.rules.brikwars.options import DEFAULT_OPTIONS, OPTION_INFO, BrikWarsOptions, OptionInfo
from app.rules.brikwars.serialize import (
    number_to_json,
    unit_from_dict,
    unit_to_dict,
    weapon_to_dict,
)
from app.rules.brikwars.units import (
    Armour,
    CostBreakdown,
    Explosive,
    Payload,
    UnitSpec,
    WeaponSpec,
    hero,
    hold_class,
    minifig,
    weapon_stats_of,
)
from app.rules.brikwars.validation import (
    TooBig,
    army_cost,
    budget_findings,
    hold_classes,
    too_big,
    validate_army,
    validate_unit,
)
from app.rules.ruleset import Finding

__all__ = [
    "DEFAULT_OPTIONS",
    "OPTION_INFO",
    "Armour",
    "BrikWarsOptions",
    "CostBreakdown",
    "DamageExpr",
    "Explosive",
    "ExplosiveVariant",
    "Finding",
    "OptionInfo",
    "Payload",
    "TooBig",
    "UnitSpec",
    "WeaponSpec",
    "WeaponStats",
    "WeaponType",
    "activation_sets",
    "army_cost",
    "budget_findings",
    "catalogue",
    "explosive_variant",
    "explosive_variants",
    "format_cp",
    "format_number",
    "hero",
    "hold_class",
    "hold_classes",
    "minifig",
    "number_to_json",
    "too_big",
    "unit_from_dict",
    "unit_to_dict",
    "validate_army",
    "validate_unit",
    "weapon_stats",
    "weapon_stats_of",
    "weapon_to_dict",
    "weapon_type",
]
