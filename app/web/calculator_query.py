"""The calculator's state as a query string, both ways: every calculation is a URL.

``parse`` reads the page's form (or a shared link) into a ``CalcRequest`` plus the fields it
had to refuse, each with its reason (shown inline; the rest of the page still computes),
through the one reader of an attack (``attack_request.from_query``);
``to_query`` writes a request back, leaving out defaults, so ``parse(to_query(r)) == r``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import urlencode

from app.rules.fields import format_field
from app.rules.registry import DEFAULT_RULESET, get_ruleset
from app.rules.ruleset import Ruleset, situation_inputs
from app.services.calculator import BONUS_DIE, CalcRequest
from app.web.attack_request import (
    FIGURES,
    FOLLOWER,
    MAX_ALLIES,
    TARGET_FIGURES,
    Params,
    bonus_die_choices,
    from_query,
    optional_id,
)

__all__ = [
    "FIGURES",
    "FOLLOWER",
    "MAX_ALLIES",
    "TARGET_FIGURES",
    "Params",
    "bonus_die_choices",
    "optional_id",
    "parse",
    "to_pairs",
    "to_query",
]


def parse(
    params: Params | Mapping[str, Any], ruleset: Ruleset | None = None
) -> tuple[CalcRequest, dict[str, str]]:
    """The request a query string describes, read under ``ruleset`` (its situation and
    target fields; by default the default ruleset's), and the fields refused (field ->
    reason): ``attack_request.from_query``, as the calculator takes it."""
    if ruleset is None:
        ruleset = get_ruleset(DEFAULT_RULESET)
    request, errors = from_query(params, ruleset)
    return request.calculation(ruleset), errors


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
    if request.target_figures is not None:
        pairs.append((TARGET_FIGURES, str(request.target_figures)))
    pairs += situation_inputs(ruleset, request.situation).items()
    # a further target's figurines are written for every one once any is given (a column)
    counted = any(f.figures is not None for f in request.followers)
    for follower in request.followers:
        pairs.append((FOLLOWER, str(follower.unit_id)))
        values = follower.fields(ruleset)
        for f in ruleset.target_fields:
            pairs.append((f"{FOLLOWER}_{f.name}", format_field(f, values[f.name])))
        if counted:
            figures = follower.figures
            pairs.append((f"{FOLLOWER}_{FIGURES}", "" if figures is None else str(figures)))
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
