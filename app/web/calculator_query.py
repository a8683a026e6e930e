"""The calculator's state as a query string, both ways: every calculation is a URL.

``parse`` reads the page's form (or a shared link) into a ``CalcRequest`` plus the fields it
had to refuse, each with its reason (shown inline; the rest of the page still computes);
``to_query`` writes a request back, leaving out defaults, so ``parse(to_query(r)) == r``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any
from urllib.parse import urlencode

from app.rules.brikwars.options import BONUS_DIE_CHOICES
from app.rules.brikwars.situation_fields import (
    FOLLOWER_DISTANCE,
    FOLLOWER_SPANS,
    SITUATION_FIELDS,
    situation_from_input,
    situation_to_input,
)
from app.rules.brikwars.turn import MAX_ARC_TARGETS
from app.rules.errors import InvalidInput
from app.rules.fields import format_field, parse_field
from app.services.calculator import CalcRequest, Follower, Loadout
from app.web.inputs import parse_id

MAX_ALLIES = 11


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


def _inches(text: str) -> Fraction:
    return parse_field(FOLLOWER_DISTANCE, text)  # type: ignore[return-value]


def _spans(text: str) -> int:
    return parse_field(FOLLOWER_SPANS, text)  # type: ignore[return-value]


def _id(text: str) -> int | None:
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
                value = _id(part.strip())
                if value is not None and value not in out:
                    out.append(value)
    return tuple(out)


def parse(params: Params | Mapping[str, Any]) -> tuple[CalcRequest, dict[str, str]]:
    """The request a query string describes, and the fields refused (field -> reason)."""
    if not isinstance(params, Params):
        params = Params([(k, str(v)) for k, v in params.items()])
    turn, errors = situation_from_input({f.name: params.get(f.name) for f in SITUATION_FIELDS})

    def ids(key: str) -> tuple[int, ...]:
        try:
            return _ids(params.all(key))
        except ValueError:
            errors[key] = "needs unit or weapon numbers"
            return ()

    def one(key: str) -> int | None:
        try:
            return _id(params.get(key))
        except ValueError:
            errors[key] = "needs a unit number"
            return None

    followers: list[Follower] = []
    distances, spans = params.all("follower_distance"), params.all("follower_spans")
    for i, text in enumerate(params.all("follower")):
        if not text:
            continue
        try:
            unit_id = _id(text)
            distance = _inches(distances[i]) if i < len(distances) and distances[i] else None
            span = _spans(spans[i]) if i < len(spans) and spans[i] else 0
        except (ValueError, InvalidInput) as err:
            errors[f"follower-{i}"] = (
                err.reason if isinstance(err, InvalidInput) else "needs a unit"
            )
            continue
        if unit_id is not None:
            followers.append(Follower(unit_id, distance, span))
    if len(followers) > MAX_ARC_TARGETS - 1:
        errors["follower"] = f"at most {MAX_ARC_TARGETS - 1} further targets in an Arc"
        followers = followers[: MAX_ARC_TARGETS - 1]

    bonus_die = params.get("bonus_die") or None
    if bonus_die is not None and bonus_die not in BONUS_DIE_CHOICES:
        errors["bonus_die"] = f"must be one of {', '.join(BONUS_DIE_CHOICES)}"
        bonus_die = None
    compare_unit = one("compare")
    request = CalcRequest(
        attacker=Loadout(one("attacker"), ids("weapons")),
        target_id=one("target"),
        situation=turn,
        followers=tuple(followers),
        compare=Loadout(compare_unit, ids("compare_weapons")) if compare_unit else None,
        bonus_die=bonus_die,
        allies=ids("ally")[:MAX_ALLIES],
        ally_weapons=ids("ally_weapons"),
    )
    return request, errors


def to_pairs(request: CalcRequest) -> list[tuple[str, str]]:
    """The query pairs of a request, defaults left out."""
    pairs: list[tuple[str, str]] = []
    if request.attacker.unit_id is not None:
        pairs.append(("attacker", str(request.attacker.unit_id)))
    pairs += [("weapons", str(w)) for w in request.attacker.weapon_ids]
    if request.target_id is not None:
        pairs.append(("target", str(request.target_id)))
    pairs += situation_to_input(request.situation).items()
    for follower in request.followers:
        pairs.append(("follower", str(follower.unit_id)))
        distance = format_field(FOLLOWER_DISTANCE, follower.distance)
        pairs.append(("follower_distance", distance))
        pairs.append(("follower_spans", str(follower.spans)))
    if request.compare is not None and request.compare.unit_id is not None:
        pairs.append(("compare", str(request.compare.unit_id)))
        pairs += [("compare_weapons", str(w)) for w in request.compare.weapon_ids]
    if request.bonus_die is not None:
        pairs.append(("bonus_die", request.bonus_die))
    pairs += [("ally", str(a)) for a in request.allies]
    pairs += [("ally_weapons", str(w)) for w in request.ally_weapons]
    return pairs


def to_query(request: CalcRequest, **changes: Any) -> str:
    """The query string of a request (with ``changes`` to its fields applied first)."""
    if changes:
        request = replace(request, **changes)
    return urlencode(to_pairs(request))
