"""Units to and from plain JSON-ready dicts (for storage and the API).

Exact numbers survive the round trip: whole numbers are ints, other sizes are strings
(``"1.5"``, ``"1/3"``). Unknown keys are refused. An error inside a weapon names its path,
e.g. ``InvalidInput("weapons.1.ammo.xsize", ...)``, so a form can show it next to the input.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING
from dataclasses import fields as dataclass_fields
from fractions import Fraction
from typing import Any, TypeVar

from app.rules.brikwars.units import Explosive, Payload, UnitSpec, WeaponSpec
from app.rules.errors import InvalidInput
from app.rules.numbers import number_text

T = TypeVar("T")

_UNIT_KEYS = (
    "name",
    "kind",
    "size",
    "structure_level",
    "propulsion",
    "move",
    "mind_die",
    "specialties",
    "size_damage",
    "weapons",
)
_WEAPON_KEYS = ("type", "size", "xsize", "mount", "variant", "ammo", "payload", "label")
_EXPLOSIVE_KEYS = ("xsize", "variant", "rounds")
_PAYLOAD_KEYS = ("explosive", "per_launch", "object_size")


def number_to_json(number: Fraction | int) -> int | str:
    """An int when whole; else a decimal string when exact ("1.5"), or "a/b"."""
    return number_text(number)


def _mapping(data: object, path: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise InvalidInput(path or "unit", "must be an object")
    return data


def _build(
    data: object, keys: tuple[str, ...], path: str, make: Callable[..., T], **nested: Any
) -> T:
    mapping = _mapping(data, path)
    prefix = f"{path}." if path else ""
    for key in mapping:
        if key not in keys:
            raise InvalidInput(f"{prefix}{key}", "is not a known field")
    fields = {k: v for k, v in mapping.items() if k not in nested}
    fields.update({k: v for k, v in nested.items() if v is not None})
    for required in _required(make):
        if fields.get(required) is None:
            raise InvalidInput(f"{prefix}{required}", "is required")
    try:
        return make(**fields)
    except InvalidInput as error:
        if prefix and error.field.startswith(prefix):
            raise
        if path and error.field == path.rsplit(".", 1)[-1]:
            raise InvalidInput(path, error.reason) from None  # the object itself
        raise InvalidInput(f"{prefix}{error.field}", error.reason) from None


def _required(make: Callable[..., object]) -> tuple[str, ...]:
    """The dataclass fields that have no default."""
    return tuple(
        f.name
        for f in dataclass_fields(make)  # type: ignore[arg-type]
        if f.default is MISSING and f.default_factory is MISSING
    )


def _explosive(data: object, path: str) -> Explosive | None:
    if data is None:
        return None
    return _build(data, _EXPLOSIVE_KEYS, path, Explosive)


def _payload(data: object, path: str) -> Payload | None:
    if data is None:
        return None
    mapping = _mapping(data, path)
    explosive = _explosive(mapping.get("explosive"), f"{path}.explosive")
    return _build(mapping, _PAYLOAD_KEYS, path, Payload, explosive=explosive)


def _weapon(data: object, path: str) -> WeaponSpec:
    mapping = _mapping(data, path)
    ammo = _explosive(mapping.get("ammo"), f"{path}.ammo")
    payload = _payload(mapping.get("payload"), f"{path}.payload")
    return _build(mapping, _WEAPON_KEYS, path, WeaponSpec, ammo=ammo, payload=payload)


def unit_from_dict(data: object) -> UnitSpec:
    """A UnitSpec from a dict as stored or posted; ``InvalidInput`` names the bad field.

    >>> unit_from_dict({"name": "Trooper", "kind": "minifig"}).cost
    Fraction(4, 1)
    >>> unit_from_dict({"name": "Tank", "size": 3, "structure_level": 2,
    ...                 "weapons": [{"type": "gun", "size": "x"}]})
    Traceback (most recent call last):
    ...
    app.rules.errors.InvalidInput: weapons.0.size: must be a number
    """
    mapping = _mapping(data, "")
    raw_weapons = mapping.get("weapons", [])
    if not isinstance(raw_weapons, list | tuple):
        raise InvalidInput("weapons", "must be a list")
    weapons = tuple(_weapon(w, f"weapons.{i}") for i, w in enumerate(raw_weapons))
    return _build(mapping, _UNIT_KEYS, "", UnitSpec, weapons=weapons)


def _explosive_to_dict(explosive: Explosive) -> dict[str, Any]:
    return {"xsize": explosive.xsize, "variant": explosive.variant, "rounds": explosive.rounds}


def weapon_to_dict(weapon: WeaponSpec) -> dict[str, Any]:
    """A WeaponSpec as a JSON-ready dict (empty fields left out)."""
    data: dict[str, Any] = {"type": weapon.type, "mount": weapon.mount}
    if weapon.size is not None:
        data["size"] = number_to_json(weapon.size)
    if weapon.xsize is not None:
        data["xsize"] = weapon.xsize
    if weapon.variant is not None:
        data["variant"] = weapon.variant
    if weapon.ammo is not None:
        data["ammo"] = _explosive_to_dict(weapon.ammo)
    if weapon.payload is not None:
        payload: dict[str, Any] = {"per_launch": weapon.payload.per_launch}
        if weapon.payload.explosive is not None:
            payload["explosive"] = _explosive_to_dict(weapon.payload.explosive)
        if weapon.payload.object_size is not None:
            payload["object_size"] = number_to_json(weapon.payload.object_size)
        data["payload"] = payload
    if weapon.label:
        data["label"] = weapon.label
    return data


def unit_to_dict(unit: UnitSpec) -> dict[str, Any]:
    """A UnitSpec as a JSON-ready dict; ``unit_from_dict(unit_to_dict(u)) == u``."""
    return {
        "name": unit.name,
        "kind": unit.kind,
        "size": number_to_json(unit.built_size),
        "structure_level": number_to_json(unit.level),
        "propulsion": unit.propulsion,
        "move": number_to_json(unit.move_as_built),
        "mind_die": unit.mind_die,
        "specialties": list(unit.specialties),
        "size_damage": number_to_json(unit.size_damage),
        "weapons": [weapon_to_dict(w) for w in unit.weapons],
    }
