"""What a battle's log keeps of an attack request, in JSON the ruleset's fields read back.

The odds, the dice and the units' states are the ruleset's own JSON (``Ruleset.log_odds``,
``log_roll``, ``encode_state``); this module writes the rest of a request: the situation's
values and each further target's ``target_fields`` values.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from app.rules.errors import InvalidInput
from app.rules.fields import InputField, parse_fields
from app.rules.numbers import number_text


def situation_values(situation: object) -> dict[str, Any]:
    """The situation's values by field name: a mapping as it is, or an object holding them
    as dataclass fields (a ruleset's own situation type)."""
    if isinstance(situation, Mapping):
        return dict(situation)
    if dataclasses.is_dataclass(situation) and not isinstance(situation, type):
        return {f.name: getattr(situation, f.name) for f in dataclasses.fields(situation)}
    raise InvalidInput("situation", "must be an object")


def target_values(
    fields: Sequence[InputField], follower: Sequence[Any], path: str
) -> dict[str, Any]:
    """A further target's field values, read through the ruleset's ``target_fields`` from
    ``(unit id, {field: value})`` or ``(unit id, value, ...)`` in the fields' order; a bad
    value is refused as ``<path>.<field>``."""
    rest = list(follower[1:])
    if len(rest) == 1 and isinstance(rest[0], Mapping):
        raw = dict(rest[0])
    else:
        raw = {f.name: v for f, v in zip(fields, rest, strict=False)}
    names = {f.name for f in fields}
    for key in raw:
        if key not in names:
            raise InvalidInput(path, f"{key} is not a known field")
    for f in fields:  # a number below its field's bound, in the words of a request's numbers
        value, low = raw.get(f.name), f.low
        if isinstance(value, bool) or not isinstance(value, int | float | Fraction):
            continue
        if f.kind in ("inches", "whole") and low is not None and value < low:
            raise InvalidInput(path, f"a {f.name} must be at least {low}")
    values, errors = parse_fields(fields, raw)
    if errors:
        field, reason = next(iter(errors.items()))
        raise InvalidInput(path, f"{field} {reason}")
    return {f.name: values[f.name] for f in fields}


def json_values(values: Mapping[str, Any]) -> list[Any]:
    """Field values as JSON, in order (exact numbers kept: 2, "2.5", "1/3")."""
    return [number_text(v) if isinstance(v, Fraction) else v for v in values.values()]
