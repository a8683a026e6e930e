"""The calculator's state as a query string, both ways: every calculation is a URL.

``parse`` reads the page's form (or a shared link) into a ``CalcRequest`` plus the fields it
had to refuse, each with its reason (shown inline; the rest of the page still computes);
``to_query`` writes a request back, leaving out defaults, so ``parse(to_query(r)) == r``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import urlencode

from app.rules.errors import InvalidInput
from app.rules.fields import format_field, parse_field
from app.rules.registry import DEFAULT_RULESET, get_ruleset
from app.rules.ruleset import Ruleset, read_situation, situation_inputs
from app.services.calculator import BONUS_DIE, CalcRequest, Follower, Loadout
from app.web.inputs import parse_id

MAX_ALLIES = 11
FOLLOWER = "follower"
"""A further target's unit; its ``target_fields`` are ``follower_<name>`` (repeated, in
the same order)."""


class Params:
    """Query parameters with repeated keys (``weapons=1&weapons=2``)."""

    def __init__(self, items: Sequence[tuple[str, str]]) -> None:
        self.items = items

    def get(self, key: str) -> str:
        for k, v in self.items:
            if k == key:
                return v.strip()
        return ""

    def all(self, key: str) -> list[str]:
        return [v.strip() for k, v in self.items if k == key]


def optional_id(text: str) -> int | None:
    """A query's id: None when empty; ``ValueError`` when it is not an id."""
    if not text:
        return None
    value = parse_id(text)
    if value is None:
        raise ValueError(text)
    return value


def _ids(values: list[str]) -> tuple[int, ...]:
    out: list[int] = []
    for text in values:
        for part in text.split(","):
            if part.strip():
                value = optional_id(part.strip())
                if value is not None and value not in out:
                    out.append(value)
    return tuple(out)


def bonus_die_choices(ruleset: Ruleset) -> tuple[str, ...]:
    """The values of the ruleset's bonus die house rule (none: it has no such rule)."""
    return next((f.choice_values for f in ruleset.option_fields if f.name == BONUS_DIE), ())


def parse(
    params: Params | Mapping[str, Any], ruleset: Ruleset | None = None
) -> tuple[CalcRequest, dict[str, str]]:
    """The request a query string describes, read under ``ruleset`` (its situation and
    target fields; by default the default ruleset's), and the fields refused (field ->
    reason)."""
    if ruleset is None:
        ruleset = get_ruleset(DEFAULT_RULESET)
    if not isinstance(params, Params):
        params = Params([(k, str(v)) for k, v in params.items()])
    situation, errors = read_situation(
        ruleset, {f.name: params.get(f.name) for f in ruleset.situation_fields}
    )

    def ids(key: str) -> tuple[int, ...]:
        try:
            return _ids(params.all(key))
        except ValueError:
            errors[key] = "needs unit or weapon numbers"
            return ()

    def one(key: str) -> int | None:
        try:
            return optional_id(params.get(key))
        except ValueError:
            errors[key] = "needs a unit number"
            return None

    followers: list[Follower] = []
    columns = [params.all(f"{FOLLOWER}_{f.name}") for f in ruleset.target_fields]
    for i, text in enumerate(params.all(FOLLOWER)):
        if not text:
            continue
        try:
            unit_id = optional_id(text)
            values = [
                parse_field(f, column[i] if i < len(column) else "")
                for f, column in zip(ruleset.target_fields, columns, strict=True)
            ]
        except (ValueError, InvalidInput) as err:
            errors[f"{FOLLOWER}-{i}"] = (
                err.reason if isinstance(err, InvalidInput) else "needs a unit"
            )
            continue
        if unit_id is not None:
            followers.append(Follower(unit_id, *values))
    if len(followers) > ruleset.max_targets - 1:
        errors[FOLLOWER] = (
            f"at most {ruleset.max_targets - 1} further targets in one attack"
            if ruleset.max_targets > 1
            else f"{ruleset.name} attacks one target at a time"
        )
        followers = followers[: ruleset.max_targets - 1]

    bonus_die = params.get(BONUS_DIE) or None
    choices = bonus_die_choices(ruleset)
    if bonus_die is not None and bonus_die not in choices:
        errors[BONUS_DIE] = (
            f"must be one of {', '.join(choices)}" if choices else "is not a house rule here"
        )
        bonus_die = None
    compare_unit = one("compare")
    request = CalcRequest(
        attacker=Loadout(one("attacker"), ids("weapons")),
        target_id=one("target"),
        situation=situation,
        followers=tuple(followers),
        compare=Loadout(compare_unit, ids("compare_weapons")) if compare_unit else None,
        bonus_die=bonus_die,
        allies=ids("ally")[:MAX_ALLIES],
        ally_weapons=ids("ally_weapons"),
    )
    return request, errors


def to_pairs(request: CalcRequest, ruleset: Ruleset | None = None) -> list[tuple[str, str]]:
    """The query pairs of a request read under ``ruleset`` (by default the default
    ruleset), defaults left out."""
    if ruleset is None:
        ruleset = get_ruleset(DEFAULT_RULESET)
    pairs: list[tuple[str, str]] = []
    if request.attacker.unit_id is not None:
        pairs.append(("attacker", str(request.attacker.unit_id)))
    pairs += [("weapons", str(w)) for w in request.attacker.weapon_ids]
    if request.target_id is not None:
        pairs.append(("target", str(request.target_id)))
    pairs += situation_inputs(ruleset, request.situation).items()
    for follower in request.followers:
        pairs.append((FOLLOWER, str(follower.unit_id)))
        values = follower.fields(ruleset)
        for f in ruleset.target_fields:
            pairs.append((f"{FOLLOWER}_{f.name}", format_field(f, values[f.name])))
    if request.compare is not None and request.compare.unit_id is not None:
        pairs.append(("compare", str(request.compare.unit_id)))
        pairs += [("compare_weapons", str(w)) for w in request.compare.weapon_ids]
    if request.bonus_die is not None:
        pairs.append((BONUS_DIE, request.bonus_die))
    pairs += [("ally", str(a)) for a in request.allies]
    pairs += [("ally_weapons", str(w)) for w in request.ally_weapons]
    return pairs


def to_query(request: CalcRequest, ruleset: Ruleset | None = None, **changes: Any) -> str:
    """The query string of a request (with ``changes`` to its fields applied first)."""
    if changes:
        request = replace(request, **changes)
    return urlencode(to_pairs(request, ruleset))
