"""Input fields declared as data: one schema per ruleset for its options, its attack situation
and whatever else a page or the API asks of a player.

A ruleset declares its fields once (``InputField``); forms, query strings, JSON bodies, the
OpenAPI schema and the pages' inputs are all read off that declaration, so there is one parser
per concept and every refusal names its field.

>>> distance = InputField("distance", "Distance", "inches", Fraction(0), high=Fraction(1000))
>>> parse_field(distance, "2.5"), format_field(distance, Fraction(5, 2))
(Fraction(5, 2), '2.5')
>>> parse_field(distance, "-1")
Traceback (most recent call last):
...
app.rules.errors.InvalidInput: distance: must be from 0 to 1000 inches
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from app.rules.errors import FieldErrors, InvalidInput
from app.rules.numbers import NOT_A_NUMBER, exact_number
from app.rules.text import control_character_reason

FieldKind = Literal["inches", "whole", "flag", "choice", "text"]
FieldValue = Fraction | int | bool | str | None
TRUE_WORDS = frozenset({"1", "on", "true", "yes"})
FALSE_WORDS = frozenset({"", "0", "off", "false", "no"})
WHOLE = re.compile(r"[+-]?[0-9]{1,9}")


@dataclass(frozen=True, slots=True)
class InputField:
    """One input: its name (the form key and JSON key), label, kind, default and bounds.

    ``inches``: an exact number (whole, decimal or a/b) within ``low``..``high``;
    ``whole``: an integer within ``low``..``high``; ``flag``: on or off; ``choice``: one of
    ``choices`` (value, label); ``text``: one line of at most ``high`` characters.
    ``optional``: empty input means ``None`` rather than the default. ``when``: the field
    applies only where each named switch has one of its values (``("mode", ("explosion",))``;
    the switch ``weapon_type``: one of the chosen weapons is of such a type), so a form asks
    only what applies; empty: it always applies.
    """

    name: str
    label: str
    kind: FieldKind
    default: FieldValue = None
    low: Fraction | int | None = 0
    high: Fraction | int | None = None
    choices: tuple[tuple[str, str], ...] = ()
    help: str = ""
    optional: bool = False
    when: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def choice_values(self) -> tuple[str, ...]:
        return tuple(value for value, _ in self.choices)

    def applies(self, values: Mapping[str, object], weapon_types: Sequence[str] = ()) -> bool:
        """True when the field applies to a form whose switches have ``values`` and whose
        chosen weapons are of ``weapon_types``.

        >>> radius = InputField("radius", "Radius", "whole", 0, when=(("mode", ("blast",)),))
        >>> radius.applies({"mode": "blast"}), radius.applies({"mode": "shot"})
        (True, False)
        >>> hot = InputField("hot", "Hot", "flag", False, when=(("weapon_type", ("flamer",)),))
        >>> hot.applies({}, ("gun", "flamer")), hot.applies({}, ("gun",))
        (True, False)
        """
        for switch, allowed in self.when:
            if switch == WEAPON_TYPE:
                if not any(t in allowed for t in weapon_types):
                    return False
            elif str(values.get(switch, "")) not in allowed:
                return False
        return True


WEAPON_TYPE = "weapon_type"  # the ``when`` switch read from the chosen weapons' types


@dataclass(frozen=True, slots=True)
class FormSplit:
    """Which fields of a form apply to which choice of the field that switches it (a unit's
    ``kind``, a weapon's ``type``): ``applies_to`` maps a field's name to the choices it
    applies to; a field not named applies to every choice. Forms show only the fields that
    apply to the chosen kind or type.

    >>> split = FormSplit("kind", {"size": frozenset({"creation"})})
    >>> split.applies("size", "minifig"), split.applies("size", "creation")
    (False, True)
    >>> split.applies("name", "minifig")
    True
    """

    switch: str
    applies_to: Mapping[str, frozenset[str]]

    def applies(self, name: str, choice: str) -> bool:
        """True when field ``name`` applies to ``choice`` of the switching field."""
        only = self.applies_to.get(name)
        return only is None or choice in only


def _bounds(field: InputField, value: Fraction | int, unit: str) -> None:
    low, high = field.low, field.high
    if (low is not None and value < low) or (high is not None and value > high):
        if low is not None and high is not None:
            span = f"from {format_number(low)} to {format_number(high)}"
        elif low is not None:
            span = f"at least {format_number(low)}"
        else:
            span = f"at most {format_number(high)}"  # type: ignore[arg-type]
        raise InvalidInput(field.name, f"must be {span}{unit}")


def parse_field(field: InputField, raw: object, *, strict: bool = False) -> FieldValue:
    """The value of ``raw`` (form text or a JSON value) for ``field``, or ``InvalidInput``
    naming the field. Empty input gives the default (``None`` when optional). ``strict``:
    ``raw`` is a JSON body's, where on/off is ``true`` or ``false`` only (a ticked box's
    words, "on", "1", are form text).

    >>> blind = InputField("blind", "Firing blind", "flag", False)
    >>> parse_field(blind, "on"), parse_field(blind, True, strict=True)
    (True, True)
    >>> parse_field(blind, "on", strict=True)
    Traceback (most recent call last):
    ...
    app.rules.errors.InvalidInput: blind: must be true or false
    """
    if strict and field.kind == "flag" and raw is not None:
        if not isinstance(raw, bool):
            raise InvalidInput(field.name, "must be true or false")
        return raw
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        if field.kind == "flag":
            return False if raw is not None else field.default
        return None if field.optional else field.default
    text = raw.strip() if isinstance(raw, str) else raw
    if field.kind == "flag":
        return _parse_flag(field, text)
    if isinstance(text, bool):  # a JSON true is not a number, nor a choice
        raise InvalidInput(field.name, "must not be true or false")
    if field.kind == "inches":
        return _parse_inches(field, text)
    if field.kind == "whole":
        return _parse_whole(field, text)
    if not isinstance(text, str):
        raise InvalidInput(field.name, "needs text")
    if field.kind == "choice":
        if text not in field.choice_values:
            raise InvalidInput(field.name, f"must be one of {', '.join(field.choice_values)}")
        return text
    return _parse_text(field, text)


def _parse_flag(field: InputField, text: object) -> bool:
    if isinstance(text, bool):
        return text
    if isinstance(text, str) and text.lower() in TRUE_WORDS | FALSE_WORDS:
        return text.lower() in TRUE_WORDS
    raise InvalidInput(field.name, "must be on or off")


def _parse_inches(field: InputField, text: object) -> Fraction | int:
    if isinstance(text, Fraction):  # already exact: only the bounds to check
        _bounds(field, text, " inches")
        return text
    if isinstance(text, int | float):  # a JSON number: its repr is the number as written
        text = repr(text)
    if not isinstance(text, str):
        raise InvalidInput(field.name, "needs a number of inches, like 6 or 2.5")
    try:
        value = exact_number(text, field.name)
    except InvalidInput as err:
        if err.reason == NOT_A_NUMBER:
            raise InvalidInput(field.name, "needs a number of inches, like 6 or 2.5") from None
        raise
    _bounds(field, value, " inches")
    return value


def _parse_whole(field: InputField, text: object) -> int:
    if isinstance(text, int):
        text = str(text)
    if not isinstance(text, str) or WHOLE.fullmatch(text) is None:
        raise InvalidInput(field.name, "needs a whole number")
    value = int(text)
    _bounds(field, value, "")
    return value


def _parse_text(field: InputField, text: str) -> str:
    reason = control_character_reason(text)
    if reason is not None:
        raise InvalidInput(field.name, reason)
    if field.high is not None and len(text) > field.high:
        raise InvalidInput(field.name, f"must be at most {field.high} characters")
    return text


def parse_fields(
    fields: Sequence[InputField], data: Mapping[str, object], *, strict: bool = False
) -> tuple[dict[str, FieldValue], dict[str, str]]:
    """Every field's value from ``data`` (missing: the default) and the refusals
    (field -> reason). Keys that are not fields are left to the caller. ``strict``: as
    ``parse_field``'s (a JSON body's values)."""
    values: dict[str, FieldValue] = {}
    errors: dict[str, str] = {}
    for field in fields:
        try:
            values[field.name] = parse_field(field, data.get(field.name), strict=strict)
        except InvalidInput as err:
            errors[err.field] = err.reason
            values[field.name] = field.default
    return values, errors


def format_number(value: Fraction | int) -> str:
    """A number as typed (2.5), exact: a value with no short decimal stays a fraction (1/3)."""
    if isinstance(value, Fraction) and value.denominator != 1:
        text = format(float(value), "g")
        return text if Fraction(text) == value else f"{value.numerator}/{value.denominator}"
    return str(int(value))


def format_field(field: InputField, value: FieldValue) -> str:
    """The text a form shows (and a query string carries) for ``value``."""
    if value is None:
        return ""
    if field.kind == "flag":
        return "1" if value else ""
    if isinstance(value, Fraction | int) and not isinstance(value, bool):
        return format_number(value)
    return str(value)


def json_value(field: InputField, value: FieldValue) -> Any:
    """``value`` as JSON: inches as a number when exact in binary, else "a/b" text."""
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else format_number(value)
    return value


def json_schema(field: InputField) -> dict[str, Any]:
    """The JSON Schema of one field (for the OpenAPI document and the catalogue)."""
    schema: dict[str, Any]
    if field.kind == "flag":
        schema = {"type": "boolean"}
    elif field.kind == "whole":
        schema = {"type": "integer"}
        if field.low is not None:
            schema["minimum"] = int(field.low)
        if field.high is not None:
            schema["maximum"] = int(field.high)
    elif field.kind == "inches":
        schema = {
            "anyOf": [{"type": "number"}, {"type": "string", "maxLength": 20}],
            "description": "inches: a whole number, a decimal or a fraction a/b",
        }
    elif field.kind == "choice":
        schema = {"type": "string", "enum": list(field.choice_values)}
    else:
        schema = {"type": "string"}
        if field.high is not None:
            schema["maxLength"] = int(field.high)
    schema["title"] = field.label
    if field.help:
        schema["description"] = (schema.get("description", "") + " " + field.help).strip()
    default = json_value(field, field.default)
    if default is not None:
        schema["default"] = default
    return schema


def describe(field: InputField) -> dict[str, Any]:
    """A field as plain data for ``GET /api/v1/rulesets`` (name, label, kind, bounds...)."""
    out: dict[str, Any] = {"name": field.name, "label": field.label, "kind": field.kind}
    out["default"] = json_value(field, field.default)
    if field.kind in ("inches", "whole"):
        out["min"] = None if field.low is None else json_value(field, field.low)
        out["max"] = None if field.high is None else json_value(field, field.high)
    if field.choices:
        out["choices"] = [{"value": v, "label": label} for v, label in field.choices]
    if field.help:
        out["help"] = field.help
    if field.when:
        out["when"] = {switch: list(allowed) for switch, allowed in field.when}
    return out


# ------------------------------------------------------------------ a unit's JSON, by path


def field_at(field: InputField, data: Mapping[str, object], path: str) -> Any:
    """``field``'s value in a JSON object (on/off: ``true`` or ``false`` only), a refusal
    named by its ``path`` (``weapons.1.degree``) rather than the field's bare name."""
    try:
        return parse_field(field, data.get(field.name), strict=True)
    except InvalidInput as err:
        raise InvalidInput(path, err.reason) from None


def object_at(data: object, path: str) -> Mapping[str, Any]:
    """``data`` when it is a JSON object, else a refusal named by ``path``."""
    if not isinstance(data, Mapping):
        raise InvalidInput(path, "must be an object")
    return data


def refuse_unknown(data: Mapping[str, object], known: frozenset[str], prefix: str) -> None:
    """Refuse the first key of ``data`` that is not ``known``, named ``<prefix><key>``."""
    for key in data:
        if key not in known:
            raise InvalidInput(f"{prefix}{key}", "is not a known field")


def fields_at(data: object, path: str, fields: Sequence[InputField]) -> dict[str, FieldValue]:
    """Every field's value in the JSON object at ``path`` of a body (``attack``,
    ``targets.2``): the object required, an unknown key refused, a field without a default
    required, on/off ``true`` or ``false`` only, each refusal named ``<path>.<field>``."""
    if not isinstance(data, Mapping):
        raise InvalidInput(path, "is required (an object)")
    refuse_unknown(data, frozenset(f.name for f in fields), f"{path}.")
    for f in fields:
        if f.default is None and not f.optional and data.get(f.name) is None:
            raise InvalidInput(f"{path}.{f.name}", "is required")
    values, errors = parse_fields(fields, data, strict=True)
    if errors:
        field, reason = next(iter(errors.items()))
        raise InvalidInput(f"{path}.{field}", reason)
    return values


def whole_value(values: Mapping[str, FieldValue], key: str) -> int:
    """A ``whole`` field's value as read (an int)."""
    value = values[key]
    assert isinstance(value, int)
    return value


def read_object(
    data: object,
    path: str,
    fields: Sequence[InputField],
    errors: FieldErrors,
    *,
    also: frozenset[str] = frozenset(),
    unknown: str = "is not a known field",
    strict: bool = False,
) -> dict[str, FieldValue]:
    """Every field's value in the JSON object at ``path`` (a unit, ``weapons.2``), each
    refusal noted in ``errors`` by its path rather than raised, so a whole unit's wrong
    fields are named at once: an unknown key, a required field missing, a bad value (which
    reads as its default). ``also``: keys the caller reads itself (``weapons``); ``unknown``:
    the reason an unknown key is given; ``strict``: the object is a JSON body's (on/off
    ``true`` or ``false`` only, as ``parse_field``'s), not form text or a query string's.

    >>> errors = FieldErrors()
    >>> hits = InputField("hits", "Hits", "whole", 1, low=1, high=5)
    >>> read_object({"hits": 9, "colour": "red"}, "weapons.0", (hits,), errors)
    {'hits': 1}
    >>> errors.errors
    {'weapons.0.colour': 'is not a known field', 'weapons.0.hits': 'must be from 1 to 5'}
    """
    prefix = f"{path}." if path else ""
    if not isinstance(data, Mapping):
        errors.add(path or "body", "must be an object")
        return {f.name: f.default for f in fields}
    known = frozenset(f.name for f in fields) | also
    for key in data:
        if key not in known:
            errors.add(f"{prefix}{key}", unknown)
    for f in fields:
        if f.default is None and not f.optional and data.get(f.name) is None:
            errors.add(f"{prefix}{f.name}", "is required")
    values, refused = parse_fields(fields, data, strict=strict)
    for name, reason in refused.items():
        errors.add(f"{prefix}{name}", reason)
    return values
