"""Degrees units and their weapons (RULINGS 2.2-2.3), read from and written to JSON.

A unit is stored as ``{"name", "kind": <scale>, "degree", "armour", "back_armour", "hp",
"ap", "op", "human", "senses", "weapons": [{"type": <catalogue id>, "degree", "label",
"real_ammo"}]}``. A fresh unit of degree N has Armour N, HP N, 3 AP per round and 0 OP, so
the defaults of a missing ``armour`` or ``hp`` follow its degree.

``kind`` is the unit's scale, or ``least_weasel``: a Ferret's drone (9.5.3), a Personnel unit
whose figures the text fixes ("They each get 2 vanilla APs per round", "They have 1 HP & 1°
defenses": degree 1, Armour 1, HP 1, 2 AP, no OP) and whose one attack is its own, the
tables' Least Weasel at 6° (given it when it has no weapon). The fields the text fixes do
not apply to it (``WEASEL_FIXED``, the builder's ``unit_form``) and are not read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

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
from app.rules.errors import FieldErrors, InvalidInput
from app.rules.fields import InputField, object_at, parse_field, read_object
from app.rules.ruleset import NAME_FIELD
from app.rules.text import plain_text

NAME_MAX = 120
LABEL_MAX = 60

WEASEL = "least_weasel"  # the unit kind of a Ferret's drone (9.5.3)
SCALE_FIELD = InputField(
    "kind",
    "Scale",
    "choice",
    "personnel",
    choices=(
        *((s.id, s.name) for s in SCALES.values()),
        (WEASEL, "Least Weasel (a Ferret's drone, Personnel)"),
    ),
    help="A Least Weasel's figures are the text's: 1° defences, 1 HP, 2 AP, one 6° attack",
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
FORM_FIELDS = (NAME_FIELD, *UNIT_FIELDS)  # the unit form's, as ``encode_unit`` names them

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

_READ = UNIT_FIELDS[:-1]  # what ``read_object`` reads of a unit: all but its senses
MAX_WEAPONS = 40
# A Least Weasel's figures as the text gives them (9.5.3): "1 HP & 1° defenses", "2 vanilla
# APs per round" (vanilla: no OP); the unit form does not ask them.
WEASEL_FIXED = {"degree": 1, "armour": 1, "back_armour": 0, "hp": 1, "ap": 2, "op": 0}
WEASEL_ATTACK = "least_weasel"  # the catalogue's Least Weasel, 6° (table 9.2)


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
    weasel: bool = False  # a Least Weasel (kind ``least_weasel``): destroyed by its attack

    @property
    def kind(self) -> str:
        """The unit's kind as stored: its scale, or ``least_weasel``."""
        return WEASEL if self.weasel else self.scale


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


def _weapon(data: object, path: str, errors: FieldErrors, *, strict: bool) -> DegreesWeapon:
    """Weapon ``path`` (``weapons.1``) of a unit, each wrong field noted in ``errors`` (what
    is read of it then is a stand-in: the unit is refused; ``strict``: as ``decode_unit``'s)."""
    if not isinstance(data, Mapping):
        errors.add(path, "must be an object")
        return DegreesWeapon("pistol", 1)
    type_id = data.get("type")
    if not isinstance(type_id, str) or type_id not in WEAPONS:
        errors.add(f"{path}.type", "is not a Degrees weapon (see the catalogue)")
        type_id = None
    values = read_object(
        data, path, WEAPON_FIELDS[1:], errors, also=frozenset({"type"}), strict=strict
    )
    if type_id is None:
        return DegreesWeapon("pistol", 1)
    entry = WEAPONS[type_id]
    real_ammo = bool(values["real_ammo"])
    if real_ammo and not WEAPON_TYPES[entry.type].real_ammo:
        errors.add(f"{path}.real_ammo", f"{entry.name} takes no real ammo")
    degree = values["degree"]
    return DegreesWeapon(
        type_id,
        entry.degree if not isinstance(degree, int) else degree,
        str(values["label"]).strip(),
        real_ammo,
    )


def _name(value: object) -> str:
    """The unit's name, read apart from the fields (``NAME_FIELD`` would take a blank name
    as missing): required, one line, at most ``NAME_MAX`` characters once trimmed."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput("name", "is required")
    name = plain_text(value, "name").strip()
    if len(name) > NAME_MAX:
        raise InvalidInput("name", f"must be at most {NAME_MAX} characters")
    return name


def _weapon_list(value: object) -> list[Any] | tuple[Any, ...]:
    """The unit's weapons as listed, at most ``MAX_WEAPONS`` of them."""
    if not isinstance(value, list | tuple):
        raise InvalidInput("weapons", "must be a list")
    if len(value) > MAX_WEAPONS:
        raise InvalidInput("weapons", f"at most {MAX_WEAPONS} weapons on one unit")
    return value


def decode_unit(data: Mapping[str, Any], *, strict: bool = False) -> DegreesUnit:
    """A unit from its JSON; ``InvalidFields`` names every wrong field at once, each by its
    path (``weapons.1.type``). ``strict``: a JSON body's (on/off ``true`` or ``false``
    only), not form text."""
    unit = object_at(data, "unit")
    errors = FieldErrors()
    # name and senses are read by their own rules below (a list of senses is taken as it is)
    also = frozenset({"name", "senses", "weapons"})
    values = read_object(unit, "", _READ, errors, also=also, strict=strict)
    name = errors.read(_name, unit.get("name"))
    senses = errors.read(decode_senses, unit.get("senses", ""), "senses")
    listed = errors.read(_weapon_list, unit.get("weapons", [])) or ()
    weapons = tuple(_weapon(w, f"weapons.{i}", errors, strict=strict) for i, w in enumerate(listed))
    errors.raise_any()
    weasel = values["kind"] == WEASEL
    if weasel:  # the text's figures, whatever else was sent
        values = {**values, **WEASEL_FIXED, "human": False}
        weapons = weapons or (DegreesWeapon(WEASEL_ATTACK, WEAPONS[WEASEL_ATTACK].degree),)
    degree, armour, hp = (values[k] for k in ("degree", "armour", "hp"))
    assert isinstance(degree, int) and name is not None and senses is not None
    return DegreesUnit(
        name=name,
        # one of SCALE_FIELD's choices; a Least Weasel is a Personnel unit
        scale="personnel" if weasel else cast(ScaleId, values["kind"]),
        degree=degree,
        armour=degree if armour is None else int(armour),
        hp=degree if hp is None else int(hp),
        back_armour=int(values["back_armour"] or 0),
        ap=int(values["ap"] or 0),
        op=int(values["op"] or 0),
        human=bool(values["human"]),
        senses=senses,
        weapons=weapons,
        weasel=weasel,
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
        "kind": unit.kind,
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
