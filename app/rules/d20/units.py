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
from app.rules.errors import FieldErrors
from app.rules.fields import InputField, object_at, read_object
from app.rules.ruleset import NAME_FIELD
from app.rules.text import control_character_reason

NAME_MAX = 120  # NAME_FIELD's
WEAPON_NAME_MAX = 60
NOTES_MAX = 200
MAX_WEAPONS = 20
POINTS_MAX = 10_000
REACH_MAX = 1000  # cm
POWER_MAX = 100

KIND = InputField(
    "kind",
    "Figurine or SU",
    "choice",
    "figurine",
    choices=(("figurine", "Figurine"), ("su", "SU")),
)
_LOW, _HIGH = STAT_RANGE
SHOT = InputField("shot", "Shot", "whole", 0, low=_LOW, high=_HIGH)
HTH = InputField("hth", "HtH", "whole", 0, low=_LOW, high=_HIGH)
PD = InputField("pd", "Physical Defense", "whole", 10, low=_LOW, high=_HIGH)
EVASION = InputField("evasion", "Evasion", "whole", 0, low=_LOW, high=_HIGH)
DEXTERITY = InputField("dexterity", "Dexterity", "whole", 0, low=_LOW, high=_HIGH)
CP = InputField("cp", "Constitution Points", "whole", 1, low=CP_RANGE[0], high=CP_RANGE[1])
POINTS = InputField(
    "points", "Points", "whole", 0, low=0, high=POINTS_MAX, help="Its own, weapons apart"
)
# the unit form's fields in its order, named as ``encode_unit`` writes them
UNIT_FIELDS = (NAME_FIELD, KIND, POINTS, SHOT, HTH, PD, EVASION, DEXTERITY, CP)

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

_UNIT_KEYS = frozenset({"weapons"} | {f.name for f in UNIT_FIELDS})
_UNIT_OWN_FIELDS = UNIT_FIELDS[1:]  # the name is read apart (its own reasons)
_WEAPON_KEYS = frozenset(f.name for f in WEAPON_FIELDS)
_WEAPON_OWN_FIELDS = WEAPON_FIELDS[1:]  # the type is read apart: the rest depends on it
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


def _text(value: object) -> str:
    """A text field as read (its default when refused: the refusal is noted)."""
    return value.strip() if isinstance(value, str) else ""


def _read_weapon(
    data: object, path: str, errors: FieldErrors, *, strict: bool = False
) -> D20Weapon | None:
    """Weapon ``path`` (``weapons.1``), every refusal noted in ``errors`` by its path
    (``strict``: as ``decode_unit``'s)."""
    if not isinstance(data, Mapping):
        errors.add(path, "must be an object")
        return None
    for key in data:  # unknown keys first, then the type: the rest depends on it
        if key not in _WEAPON_KEYS:
            errors.add(f"{path}.{key}", "is not a known field")
    type_id = data.get("type")
    entry = EQUIPMENT.get(type_id) if isinstance(type_id, str) else None
    if entry is None:
        errors.add(f"{path}.type", "is not D20 equipment (see the catalogue)")
    values = read_object(
        data, path, _WEAPON_OWN_FIELDS, errors, also=frozenset({"type"}), strict=strict
    )
    if entry is None:
        return None
    name, reach, power = _text(values["name"]), values["reach"], values["power"]
    if entry.id in _OWN:
        if not name:
            errors.add(f"{path}.name", f"a {entry.name.lower()} needs a name")
        if power is None:
            errors.add(f"{path}.power", "is required")
        if entry.id == "gun" and reach is None:
            errors.add(f"{path}.reach", "is required (in cm)")
        if entry.id == "hth" and reach not in (None, 0):
            errors.add(f"{path}.reach", "a hand-to-hand weapon has Reach 0")
    else:
        for key in ("reach", "power"):
            if values[key] is not None:
                errors.add(f"{path}.{key}", f"{entry.name} has the text's {key}")
    if values["automatic"] and entry.id != "gun":
        errors.add(f"{path}.automatic", f"{entry.name} has no automatic fire")
    return D20Weapon(
        type=entry.id,
        name=name or entry.name,
        reach=(entry.reach or 0) if not isinstance(reach, int) else reach,
        power=(entry.power or 0) if not isinstance(power, int) else power,
        automatic=bool(values["automatic"]),
        notes=_text(values["notes"]),
        points=int(values["points"] or 0),
        label=_text(values["label"]),
    )


def _read_name(unit: Mapping[str, Any], errors: FieldErrors) -> str:
    name = unit.get("name")
    if not isinstance(name, str) or not name.strip():
        errors.add("name", "is required")
        return ""
    reason = control_character_reason(name)
    if reason is not None:
        errors.add("name", reason)
    name = name.strip()
    if len(name) > NAME_MAX:
        errors.add("name", f"must be at most {NAME_MAX} characters")
    return name


def decode_unit(data: Mapping[str, Any], *, strict: bool = False) -> D20Figurine:
    """A figurine from its JSON; ``InvalidFields`` names every wrong field by its path
    (``cp``, ``weapons.1.power``) at once. ``strict``: a JSON body's (on/off ``true`` or
    ``false`` only), not form text."""
    unit = object_at(data, "unit")
    errors = FieldErrors()
    for key in unit:  # unknown keys first, as a reader that stops at one names them
        if key not in _UNIT_KEYS:
            errors.add(str(key), "is not a known field")
    name = _read_name(unit, errors)
    weapons = unit.get("weapons", [])
    if not isinstance(weapons, list | tuple):
        errors.add("weapons", "must be a list")
        weapons = []
    elif len(weapons) > MAX_WEAPONS:  # not read: the work is bounded
        errors.add("weapons", f"at most {MAX_WEAPONS} weapons on one figurine")
        weapons = []
    values = read_object(unit, "", _UNIT_OWN_FIELDS, errors, also=_UNIT_KEYS, strict=strict)
    read = [_read_weapon(w, f"weapons.{i}", errors, strict=strict) for i, w in enumerate(weapons)]
    errors.raise_any()
    return D20Figurine(
        name=name,
        su=values["kind"] == "su",
        shot=int(values["shot"] or 0),
        hth=int(values["hth"] or 0),
        pd=int(values["pd"] or 0),
        evasion=int(values["evasion"] or 0),
        dexterity=int(values["dexterity"] or 0),
        cp=int(values["cp"] or 0),
        points=int(values["points"] or 0),
        weapons=tuple(w for w in read if w is not None),
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
