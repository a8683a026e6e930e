"""Degrees units and their weapons (RULINGS 2.2-2.3), read from and written to JSON.

A unit is stored as ``{"name", "kind": <scale>, "degree", "armour", "back_armour", "hp",
"ap", "op", "human", "senses", "weapons": [{"type": <catalogue id>, "degree", "label",
"real_ammo"}]}``. A fresh unit of degree N has Armour N, HP N, 3 AP per round and 0 OP, so
the defaults of a missing ``armour`` or ``hp`` follow its degree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.rules.degrees.catalogue import (
    DEFAULT_SENSE_ORDER,
    SCALES,
    SENSES,
    WEAPON_TYPES,
    WEAPONS,
    CatalogueWeapon,
    ScaleId,
    WeaponType,
)
from app.rules.errors import InvalidInput
from app.rules.fields import InputField, field_at, object_at, parse_field, refuse_unknown
from app.rules.text import plain_text

NAME_MAX = 120
LABEL_MAX = 60

SCALE_FIELD = InputField(
    "kind", "Scale", "choice", "personnel", choices=tuple((s.id, s.name) for s in SCALES.values())
)
DEGREE = InputField("degree", "Degree", "whole", 2, low=1, high=10)
ARMOUR = InputField(
    "armour",
    "Front Armour",
    "whole",
    None,
    low=0,
    high=30,
    optional=True,
    help="Empty: the unit's degree",
)
BACK_ARMOUR = InputField("back_armour", "Back-line Armour", "whole", 0, low=0, high=30)
HP = InputField(
    "hp", "HP", "whole", None, low=1, high=30, optional=True, help="Empty: the unit's degree"
)
AP = InputField("ap", "AP per round", "whole", 3, low=0, high=12)
OP = InputField("op", "OP", "whole", 0, low=0, high=20)
HUMAN = InputField(
    "human", "Human unit", "flag", False, help="Only Human units may take Dousing Rods' real ammo"
)
SENSES_FIELD = InputField(
    "senses",
    "Senses, in the order a dampener takes them",
    "text",
    "",
    high=400,
    help="Comma-separated; the rest follow in the table's order",
)
UNIT_FIELDS = (SCALE_FIELD, DEGREE, ARMOUR, BACK_ARMOUR, HP, AP, OP, HUMAN, SENSES_FIELD)

WEAPON_TYPE_FIELD = InputField(
    "type", "Weapon", "choice", "pistol", choices=tuple((w.id, w.name) for w in WEAPONS.values())
)
MAX_DEGREE = InputField(
    "degree",
    "Max degree",
    "whole",
    None,
    low=1,
    high=10,
    optional=True,
    help="Empty: the table's usual degree",
)
LABEL = InputField("label", "Label", "text", "", high=LABEL_MAX)
REAL_AMMO = InputField(
    "real_ammo", "Real ammo (+1°)", "flag", False, help="Dousing rods of Human units"
)
WEAPON_FIELDS = (WEAPON_TYPE_FIELD, MAX_DEGREE, LABEL, REAL_AMMO)

_UNIT_KEYS = frozenset({"name", "kind", "weapons"} | {f.name for f in UNIT_FIELDS})
_WEAPON_KEYS = frozenset(f.name for f in WEAPON_FIELDS)
MAX_WEAPONS = 40


@dataclass(frozen=True, slots=True)
class DegreesWeapon:
    """A weapon on a unit: a catalogue weapon with the player's max degree and label."""

    type: str
    degree: int
    label: str = ""
    real_ammo: bool = False

    @property
    def entry(self) -> CatalogueWeapon:
        return WEAPONS[self.type]

    @property
    def kind(self) -> WeaponType:
        return WEAPON_TYPES[self.entry.type]

    @property
    def name(self) -> str:
        """As pages and change summaries name it: 'Rifle 3°', 'Gas gun 2-max "left"'."""
        degree = f"{self.degree}-max" if self.kind.gas else f"{self.degree}°"
        label = f' "{self.label}"' if self.label else ""
        return f"{self.entry.name} {degree}{label}"


@dataclass(frozen=True, slots=True)
class DegreesUnit:
    """A unit (RULINGS 2.2): scale, degree, front Armour, back-line Armour and HP, AP per
    round, OP, whether it is Human, the order a dampener takes its senses, its weapons."""

    name: str
    scale: ScaleId
    degree: int
    armour: int
    hp: int
    back_armour: int = 0
    ap: int = 3
    op: int = 0
    human: bool = False
    senses: tuple[str, ...] = DEFAULT_SENSE_ORDER
    weapons: tuple[DegreesWeapon, ...] = ()


def decode_senses(text: object, path: str = "senses") -> tuple[str, ...]:
    """The dampener order: the senses named (by id or name, comma-separated), then the rest
    in the table's order. An unknown or repeated sense is refused by name."""
    if isinstance(text, list | tuple):
        named = [str(s) for s in text]
    else:
        raw = parse_field(SENSES_FIELD, text) if not isinstance(text, str) else text
        named = [s for s in str(raw or "").split(",") if s.strip()]
    by_name = {s.name.lower(): s.id for s in SENSES.values()} | {i: i for i in SENSES}
    order: list[str] = []
    for word in named:
        key = by_name.get(word.strip().lower().replace(" ", "_")) or by_name.get(
            word.strip().lower()
        )
        if key is None:
            raise InvalidInput(path, f"{word.strip()!r} is not a sense of the table")
        if key in order:
            raise InvalidInput(path, f"{SENSES[key].name} is listed twice")
        order.append(key)
    return tuple(order) + tuple(s for s in DEFAULT_SENSE_ORDER if s not in order)


def decode_weapon(data: object, path: str) -> DegreesWeapon:
    weapon = object_at(data, path)
    refuse_unknown(weapon, _WEAPON_KEYS, f"{path}.")
    type_id = weapon.get("type")
    if not isinstance(type_id, str) or type_id not in WEAPONS:
        raise InvalidInput(f"{path}.type", "is not a Degrees weapon (see the catalogue)")
    degree = field_at(MAX_DEGREE, weapon, f"{path}.degree")
    label = plain_text(field_at(LABEL, weapon, f"{path}.label"), f"{path}.label").strip()
    real_ammo = bool(field_at(REAL_AMMO, weapon, f"{path}.real_ammo"))
    entry = WEAPONS[type_id]
    if real_ammo and not WEAPON_TYPES[entry.type].real_ammo:
        raise InvalidInput(f"{path}.real_ammo", f"{entry.name} takes no real ammo")
    return DegreesWeapon(type_id, entry.degree if degree is None else degree, label, real_ammo)


def decode_unit(data: Mapping[str, Any]) -> DegreesUnit:
    """A unit from its JSON; ``InvalidInput`` names the field by its path (``weapons.1.type``)."""
    unit = object_at(data, "unit")
    refuse_unknown(unit, _UNIT_KEYS, "")
    name = unit.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput("name", "is required")
    name = plain_text(name, "name").strip()
    if len(name) > NAME_MAX:
        raise InvalidInput("name", f"must be at most {NAME_MAX} characters")
    scale = field_at(SCALE_FIELD, unit, "kind")
    degree = field_at(DEGREE, unit, "degree")
    armour = field_at(ARMOUR, unit, "armour")
    hp = field_at(HP, unit, "hp")
    weapons = unit.get("weapons", [])
    if not isinstance(weapons, list | tuple):
        raise InvalidInput("weapons", "must be a list")
    if len(weapons) > MAX_WEAPONS:
        raise InvalidInput("weapons", f"at most {MAX_WEAPONS} weapons on one unit")
    return DegreesUnit(
        name=name,
        scale=scale,
        degree=degree,
        armour=degree if armour is None else armour,
        hp=degree if hp is None else hp,
        back_armour=field_at(BACK_ARMOUR, unit, "back_armour"),
        ap=field_at(AP, unit, "ap"),
        op=field_at(OP, unit, "op"),
        human=bool(field_at(HUMAN, unit, "human")),
        senses=decode_senses(unit.get("senses", ""), "senses"),
        weapons=tuple(decode_weapon(w, f"weapons.{i}") for i, w in enumerate(weapons)),
    )


def encode_weapon(weapon: DegreesWeapon) -> dict[str, Any]:
    out: dict[str, Any] = {"type": weapon.type, "degree": weapon.degree}
    if weapon.label:
        out["label"] = weapon.label
    if weapon.real_ammo:
        out["real_ammo"] = True
    return out


def encode_unit(unit: DegreesUnit) -> dict[str, Any]:
    """The unit as stored and exported; ``decode_unit`` reads it back to an equal unit."""
    out: dict[str, Any] = {
        "name": unit.name,
        "kind": unit.scale,
        "degree": unit.degree,
        "armour": unit.armour,
        "back_armour": unit.back_armour,
        "hp": unit.hp,
        "ap": unit.ap,
        "op": unit.op,
    }
    if unit.human:
        out["human"] = True
    if unit.senses != DEFAULT_SENSE_ORDER:
        out["senses"] = list(unit.senses)
    out["weapons"] = [encode_weapon(w) for w in unit.weapons]
    return out
