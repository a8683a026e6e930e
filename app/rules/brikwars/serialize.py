"""Units to and from plain JSON-ready dicts (for storage and the API).

Exact numbers survive the round trip: whole numbers are ints, other sizes are strings
(``"1.5"``, ``"1/3"``). Unknown keys are refused. Every wrong field is named at once
(``InvalidFields``), each by its path, e.g. ``weapons.1.ammo.xsize``, so a form can show
each next to its input.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING
from dataclasses import fields as dataclass_fields
from fractions import Fraction
from typing import Any, TypeVar

from app.rules.brikwars.catalogue import MAX_SIZE, weapon_type
from app.rules.brikwars.units import Explosive, Payload, UnitSpec, WeaponSpec
from app.rules.errors import FieldErrors, InvalidInput
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


_DROP = object()  # a stand-in: the field's default
_STOP = object()  # no stand-in: the rest depends on this field
StandIn = Callable[[str, dict[str, Any]], object]


def _build(
    data: object,
    keys: tuple[str, ...],
    path: str,
    make: Callable[..., T],
    errors: FieldErrors,
    stand_in: StandIn,
    **nested: Any,
) -> T | None:
    """``make`` of the fields of ``data`` (with the ``nested`` objects already read), or
    None with every refusal noted in ``errors`` by its path: an unknown key, a required
    field missing, then each value ``make`` refuses, found by building again with the
    refused field replaced by ``stand_in``'s valid value (until a field is refused twice or
    has no stand-in), so one wrong field does not hide the next."""
    if not isinstance(data, Mapping):
        errors.add(path or "unit", "must be an object")
        return None
    prefix = f"{path}." if path else ""
    for key in data:
        if key not in keys:
            errors.add(f"{prefix}{key}", "is not a known field")
    fields = {k: v for k, v in data.items() if k in keys and k not in nested}
    fields.update({k: v for k, v in nested.items() if v is not None})
    missing = [name for name in _required(make) if fields.get(name) is None]
    for name in missing:
        errors.add(f"{prefix}{name}", "is required")
    refused: set[str] = set()
    while not missing:
        try:
            return make(**fields)
        except InvalidInput as error:
            errors.add(_path_of(error.field, path), error.reason)
            if error.field in refused or error.field not in fields | dict.fromkeys(keys):
                break
            refused.add(error.field)
            value = stand_in(error.field, fields)
            if value is _STOP:
                break
            if value is _DROP:
                fields.pop(error.field, None)
            else:
                fields[error.field] = value
    return None


def _path_of(field: str, path: str) -> str:
    """A refusal's field by its path in the unit (``weapons.1.size``; the object's own
    name, ``weapons.1.payload``, for a refusal of the object as a whole)."""
    if not path:
        return field
    if field.startswith(f"{path}."):
        return field
    if field == path.rsplit(".", 1)[-1]:
        return path
    return f"{path}.{field}"


def _required(make: Callable[..., object]) -> tuple[str, ...]:
    """The dataclass fields that have no default."""
    return tuple(
        f.name
        for f in dataclass_fields(make)  # type: ignore[arg-type]
        if f.default is MISSING and f.default_factory is MISSING
    )


def _fixed(fields: Mapping[str, Any]) -> bool:
    """A minifig's or a Hero's Size and Structure are the rules', not the unit's."""
    return fields.get("kind", "creation") in ("minifig", "hero")


_UNIT_STAND_INS: dict[str, Callable[[dict[str, Any]], object]] = {
    "name": lambda f: "unit",
    # an unknown kind: read the rest as the kind the fields given suggest
    "kind": lambda f: "creation" if f.get("size") or f.get("structure_level") else "minifig",
    "propulsion": lambda f: "ground",
    # a Creation's largest Size: its Size Damage is still checked against a Size
    "size": lambda f: _DROP if _fixed(f) else MAX_SIZE,
    "structure_level": lambda f: _DROP if _fixed(f) else 1,
    "move": lambda f: 0,
    "mind_die": lambda f: _DROP,
    "specialties": lambda f: (),
    "size_damage": lambda f: 0,
}


def _unit_stand_in(field: str, fields: dict[str, Any]) -> object:
    make = _UNIT_STAND_INS.get(field)
    return _STOP if make is None else make(fields)


def _weapon_stand_in(field: str, fields: dict[str, Any]) -> object:
    if field in ("size", "xsize"):  # the measure the type takes (the type is known here)
        sized_by = weapon_type(fields["type"]).sized_by
        return 1 if sized_by == {"size": "inches", "xsize": "bricks"}[field] else _DROP
    if field in ("mount", "variant", "ammo", "payload"):
        return _DROP
    return "" if field == "label" else _STOP  # an unknown type: nothing else to check


def _explosive_stand_in(field: str, fields: dict[str, Any]) -> object:
    return {"xsize": 1, "variant": "standard", "rounds": 1, "per_launch": 1}.get(field, _STOP)


def _explosive(data: object, path: str, errors: FieldErrors) -> Explosive | None:
    """The Explosive ``data`` gives; given but refused, an X1 stands in for it (so what
    holds it is checked as holding one)."""
    if data is None:
        return None
    read = _build(data, _EXPLOSIVE_KEYS, path, Explosive, errors, _explosive_stand_in)
    return Explosive(1) if read is None else read


def _payload(data: object, path: str, errors: FieldErrors) -> Payload | None:
    if data is None:
        return None
    if not isinstance(data, Mapping):
        errors.add(path, "must be an object")
        return None
    explosive = _explosive(data.get("explosive"), f"{path}.explosive", errors)
    read = _build(
        data, _PAYLOAD_KEYS, path, Payload, errors, _explosive_stand_in, explosive=explosive
    )
    return Payload(Explosive(1)) if read is None else read  # stands in, as ``_explosive``


def _weapon(data: object, path: str, errors: FieldErrors) -> WeaponSpec | None:
    if not isinstance(data, Mapping):
        errors.add(path, "must be an object")
        return None
    ammo = _explosive(data.get("ammo"), f"{path}.ammo", errors)
    payload = _payload(data.get("payload"), f"{path}.payload", errors)
    return _build(
        data, _WEAPON_KEYS, path, WeaponSpec, errors, _weapon_stand_in, ammo=ammo, payload=payload
    )


def unit_from_dict(data: object) -> UnitSpec:
    """A UnitSpec from a dict as stored or posted; ``InvalidFields`` names every bad field,
    by its path.

    >>> unit_from_dict({"name": "Trooper", "kind": "minifig"}).cost
    Fraction(4, 1)
    >>> unit_from_dict({"name": "Tank", "size": 3, "structure_level": 2,
    ...                 "weapons": [{"type": "gun", "size": "x"}]})
    Traceback (most recent call last):
    ...
    app.rules.errors.InvalidFields: weapons.0.size: must be a number
    >>> from app.rules.errors import InvalidFields
    >>> try:
    ...     unit_from_dict({"name": "Tank", "size": 0, "structure_level": 1, "move": -1,
    ...                     "weapons": [{"type": "gun", "size": 3, "mount": "nose"}]})
    ... except InvalidFields as err:
    ...     list(err.reasons())
    ['weapons.0.mount', 'size', 'move']
    """
    errors = FieldErrors()
    if not isinstance(data, Mapping):
        errors.add("unit", "must be an object")
        errors.raise_any()
    assert isinstance(data, Mapping)
    raw_weapons = data.get("weapons", [])
    if not isinstance(raw_weapons, list | tuple):
        errors.add("weapons", "must be a list")
        raw_weapons = []
    weapons = tuple(_weapon(w, f"weapons.{i}", errors) for i, w in enumerate(raw_weapons))
    unit = _build(
        data,
        _UNIT_KEYS,
        "",
        UnitSpec,
        errors,
        _unit_stand_in,
        weapons=tuple(w for w in weapons if w is not None),
    )
    errors.raise_any()  # every wrong field at once
    assert unit is not None
    return unit


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
