"""Reading a ruleset's inputs through its declared fields: house rules, the situation, and the
checks every attack makes before a ruleset's own."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.rules.errors import InvalidFields, InvalidInput
from app.rules.fields import format_field, parse_fields
from app.rules.ruleset.contract import Ruleset
from app.rules.ruleset.odds import AllyInput, TargetInput


def read_options(ruleset: Ruleset, data: Mapping[str, Any] | None, *, form: bool = False) -> Any:
    """A ruleset's options from form text or JSON values, read through its ``option_fields``
    (a missing option takes its default; an unknown one is refused by name). ``form``: the
    data is an HTML form's, which leaves an unticked box out, so a missing flag is off, and
    sends a ticked one as text ("on"); else JSON values, whose flags are ``true`` or
    ``false`` only (ruling G9)."""
    data = dict(data or {})
    if form:
        data = {f.name: "" for f in ruleset.option_fields if f.kind == "flag"} | data
    known = {f.name for f in ruleset.option_fields}
    unknown = {str(key): "unknown rule option" for key in data if key not in known}
    values, errors = parse_fields(ruleset.option_fields, data, strict=not form)
    if unknown or errors:  # every wrong option at once (a form shows each by its field)
        raise InvalidFields(unknown | errors)
    return ruleset.decode_options(values)


def read_situation(ruleset: Ruleset, data: Mapping[str, Any]) -> tuple[Any, dict[str, str]]:
    """The ruleset's situation that ``data`` describes (form text, a query string or JSON
    values; a missing or empty field takes its default) and the fields refused, field ->
    reason. A refused field keeps its default, so the rest of the situation still counts."""
    values, errors = parse_fields(ruleset.situation_fields, data)
    try:
        return ruleset.decode_situation(values), errors
    except InvalidInput as err:  # defensive: the fields' bounds already hold the ruleset's
        errors[err.field] = err.reason
        defaults = {f.name: f.default for f in ruleset.situation_fields}
        return ruleset.decode_situation(defaults), errors


def situation_inputs(ruleset: Ruleset, situation: Any) -> dict[str, str]:
    """The inputs that give ``situation`` back, as a form or query string carries them, in
    the fields' order; defaults are left out."""
    values = ruleset.encode_situation(situation)
    return {
        f.name: format_field(f, values[f.name])
        for f in ruleset.situation_fields
        if values[f.name] != f.default
    }


def check_attack_shape(
    ruleset_name: str,
    attacker_name: str,
    weapon_count: int,
    weapons: tuple[int, ...],
    targets: Sequence[TargetInput],
    allies: Sequence[AllyInput],
    max_targets: int,
) -> None:
    """The checks every attack of a ruleset without combined attacks makes before its own:
    no allies, one to ``max_targets`` targets, weapons that exist, none chosen twice."""
    if allies:
        raise InvalidInput("allies", f"{ruleset_name} has no combined attacks")
    if not targets:
        raise InvalidInput("targets", "needs a target")
    if len(targets) > max_targets:
        raise InvalidInput("targets", f"at most {max_targets} targets")
    for index in weapons:
        if not 0 <= index < weapon_count:
            raise InvalidInput("weapons", f"{attacker_name} has no weapon {index + 1}")
    if len(set(weapons)) != len(weapons):
        raise InvalidInput("weapons", "a weapon is chosen twice")
