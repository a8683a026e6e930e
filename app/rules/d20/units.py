"""D20 figurines and their weapons (RULINGS 3.1-3.2), read from and written to JSON.

A figurine is stored as ``{"name", "kind": "figurine" | "su", "shot", "hth", "pd",
"evasion", "dexterity", "cp", "points", "weapons": [{"type": <equipment id>, "name",
"reach", "power", "automatic", "notes", "points", "label"}]}``. Guns and hand-to-hand weapons
are the player's own (name, Reach in cm, Power); grenades, the mine and the charges take the
text's figures, which the stored weapon does not repeat.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.rules.d20.catalogue import CP_RANGE, EQUIPMENT, STAT_RANGE, Equipment
from app.rules.errors import InvalidInput
from app.rules.fields import InputField, field_at, object_at, refuse_unknown
from app.rules.text import plain_text

NAME_MAX = 120
WEAPON_NAME_MAX = 60
NOTES_MAX = 200
MAX_WEAPONS = 20
POINTS_MAX = 10_000
REACH_MAX = 1000  # cm
POWER_MAX = 100

KIND = InputField(
    "kind", "Figurine", "choice", "figurine", choices=(("figurine", "Figurine"), ("su", "SU"))
)
_LOW, _HIGH = STAT_RANGE
SHOT = InputField("shot", "Shot", "whole", 0, low=_LOW, high=_HIGH)
HTH = InputField("hth", "HtH", "whole", 0, low=_LOW, high=_HIGH)
PD = InputField("pd", "Physical Defense", "whole", 10, low=_LOW, high=_HIGH)
EVASION = InputField("evasion", "Evasion", "whole", 0, low=_LOW, high=_HIGH)
DEXTERITY = InputField("dexterity", "Dexterity", "whole", 0, low=_LOW, high=_HIGH)
CP = InputField("cp", "Constitution Points", "whole", 1, low=CP_RANGE[0], high=CP_RANGE[1])
POINTS = InputField("points", "Points", "whole", 0, low=0, high=POINTS_MAX)
UNIT_FIELDS = (KIND, SHOT, HTH, PD, EVASION, DEXTERITY, CP, POINTS)

WEAPON_TYPE = InputField(
    "type", "Weapon", "choice", "gun", choices=tuple((e.id, e.name) for e in EQUIPMENT.values())
)
WEAPON_NAME = InputField("name", "Name", "text", "", high=WEAPON_NAME_MAX)
REACH = InputField("reach", "Reach (cm)", "whole", None, low=0, high=REACH_MAX, optional=True)
POWER = InputField("power", "Power", "whole", None, low=0, high=POWER_MAX, optional=True)
AUTOMATIC = InputField("automatic", "Automatic fire", "flag", False)
NOTES = InputField("notes", "Notes", "text", "", high=NOTES_MAX)
WEAPON_POINTS = InputField("points", "Points", "whole", 0, low=0, high=POINTS_MAX)
LABEL = InputField("label", "Label", "text", "", high=WEAPON_NAME_MAX)
WEAPON_FIELDS = (WEAPON_TYPE, WEAPON_NAME, REACH, POWER, AUTOMATIC, NOTES, WEAPON_POINTS, LABEL)

_UNIT_KEYS = frozenset({"name", "weapons"} | {f.name for f in UNIT_FIELDS})
_WEAPON_KEYS = frozenset(f.name for f in WEAPON_FIELDS)
_OWN = ("gun", "hth")  # the player's own: name, Reach and Power given


@dataclass(frozen=True, slots=True)
class D20Weapon:
    """A weapon or piece of equipment a figurine carries. For the text's equipment,
    ``reach`` and ``power`` are the catalogue's (a stored one does not repeat them)."""

    type: str
    name: str
    reach: int
    power: int
    automatic: bool = False
    notes: str = ""
    points: int = 0
    label: str = ""

    @property
    def equipment(self) -> Equipment:
        return EQUIPMENT[self.type]

    @property
    def ranged(self) -> bool:
        return self.type == "gun"


@dataclass(frozen=True, slots=True)
class D20Figurine:
    """A figurine (RULINGS 3.1): Shot, HtH, Physical Defense, Evasion, Dexterity, CP, SU."""

    name: str
    su: bool
    shot: int
    hth: int
    pd: int
    evasion: int
    dexterity: int
    cp: int
    points: int = 0
    weapons: tuple[D20Weapon, ...] = ()


def decode_weapon(data: object, path: str) -> D20Weapon:
    weapon = object_at(data, path)
    refuse_unknown(weapon, _WEAPON_KEYS, f"{path}.")
    type_id = weapon.get("type")
    if not isinstance(type_id, str) or type_id not in EQUIPMENT:
        raise InvalidInput(f"{path}.type", "is not D20 equipment (see the catalogue)")
    entry = EQUIPMENT[type_id]
    name = plain_text(field_at(WEAPON_NAME, weapon, f"{path}.name"), f"{path}.name").strip()
    reach = field_at(REACH, weapon, f"{path}.reach")
    power = field_at(POWER, weapon, f"{path}.power")
    automatic = bool(field_at(AUTOMATIC, weapon, f"{path}.automatic"))
    if type_id in _OWN:
        if not name:
            raise InvalidInput(f"{path}.name", f"a {entry.name.lower()} needs a name")
        if power is None:
            raise InvalidInput(f"{path}.power", "is required")
        if type_id == "gun" and reach is None:
            raise InvalidInput(f"{path}.reach", "is required (in cm)")
        if type_id == "hth" and reach not in (None, 0):
            raise InvalidInput(f"{path}.reach", "a hand-to-hand weapon has Reach 0")
    else:
        for key, given in (("reach", reach), ("power", power)):
            if given is not None:
                raise InvalidInput(f"{path}.{key}", f"{entry.name} has the text's {key}")
    if automatic and type_id != "gun":
        raise InvalidInput(f"{path}.automatic", f"{entry.name} has no automatic fire")
    return D20Weapon(
        type=type_id,
        name=name or entry.name,
        reach=(entry.reach or 0) if reach is None else reach,
        power=(entry.power or 0) if power is None else power,
        automatic=automatic,
        notes=plain_text(field_at(NOTES, weapon, f"{path}.notes"), f"{path}.notes").strip(),
        points=field_at(WEAPON_POINTS, weapon, f"{path}.points"),
        label=plain_text(field_at(LABEL, weapon, f"{path}.label"), f"{path}.label").strip(),
    )


def decode_unit(data: Mapping[str, Any]) -> D20Figurine:
    """A figurine from its JSON; ``InvalidInput`` names the field by its path."""
    unit = object_at(data, "unit")
    refuse_unknown(unit, _UNIT_KEYS, "")
    name = unit.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput("name", "is required")
    name = plain_text(name, "name").strip()
    if len(name) > NAME_MAX:
        raise InvalidInput("name", f"must be at most {NAME_MAX} characters")
    weapons = unit.get("weapons", [])
    if not isinstance(weapons, list | tuple):
        raise InvalidInput("weapons", "must be a list")
    if len(weapons) > MAX_WEAPONS:
        raise InvalidInput("weapons", f"at most {MAX_WEAPONS} weapons on one figurine")
    return D20Figurine(
        name=name,
        su=field_at(KIND, unit, "kind") == "su",
        shot=field_at(SHOT, unit, "shot"),
        hth=field_at(HTH, unit, "hth"),
        pd=field_at(PD, unit, "pd"),
        evasion=field_at(EVASION, unit, "evasion"),
        dexterity=field_at(DEXTERITY, unit, "dexterity"),
        cp=field_at(CP, unit, "cp"),
        points=field_at(POINTS, unit, "points"),
        weapons=tuple(decode_weapon(w, f"weapons.{i}") for i, w in enumerate(weapons)),
    )


def encode_weapon(weapon: D20Weapon) -> dict[str, Any]:
    out: dict[str, Any] = {"type": weapon.type}
    if weapon.type in _OWN:
        out |= {"name": weapon.name, "reach": weapon.reach, "power": weapon.power}
    elif weapon.name != weapon.equipment.name:  # a grenade the player named ("Frag")
        out["name"] = weapon.name
    if weapon.automatic:
        out["automatic"] = True
    for key in ("notes", "points", "label"):
        if getattr(weapon, key):
            out[key] = getattr(weapon, key)
    return out


def encode_unit(unit: D20Figurine) -> dict[str, Any]:
    """The figurine as stored and exported; ``decode_unit`` reads it back to an equal one."""
    return {
        "name": unit.name,
        "kind": "su" if unit.su else "figurine",
        "shot": unit.shot,
        "hth": unit.hth,
        "pd": unit.pd,
        "evasion": unit.evasion,
        "dexterity": unit.dexterity,
        "cp": unit.cp,
        "points": unit.points,
        "weapons": [encode_weapon(w) for w in unit.weapons],
    }
