"""The open calculator over JSON: the twin of ``/calculator/open``, no account needed.

``GET /calculator/open`` takes the page's own query string (``rules``, ``a.<field>``,
``t.<field>``, ``weapons``, the situation fields, ``chart`` ignored) and answers the same
odds the page shows; ``POST /calculator/open/save`` (logged in) adds the two typed-in units
to one of the caller's armies or to a new one, in one transaction.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from app.rules.errors import InvalidInput
from app.rules.registry import DEFAULT_RULESET
from app.services import open_calculator as oc
from app.web.api.calculator import LineOut, TallyOut, _line_out, tallies_out
from app.web.attack_request import Params
from app.web.deps import ApiUser, SessionDep, SessionRoute
from app.web.inputs import Id, Line
from app.web.ratelimit import calculator_rate_limit
from app.web.routes.open_calculator import read_open, save_from_query

RATE_LIMITED = [Depends(calculator_rate_limit)]
router = APIRouter(route_class=SessionRoute, tags=["calculator"])


class OpenOddsOut(BaseModel):
    """The odds of the typed-in attacker's turn against the typed-in target."""

    url: str = Field(description="the open calculator's page of this calculation")
    ruleset: str
    attacker: str
    target: str
    further_targets: list[str] = Field(
        default_factory=list, description="the further targets' names (f.0, f.1...), in order"
    )
    weapons: list[str] = Field(description="the weapons fired, by name")
    decisive: float = Field(description="P(a decisive result this turn on the main target)")
    expected: float = Field(description="expected decisive results this turn")
    per_10_points: float | None
    truncation_bound: float
    lines: list[LineOut] = Field(description="weapons numbered from 1 (the query's)")
    detail: dict[str, Any] = Field(description="the ruleset's own figures of the turn")
    tallies: list[TallyOut] = Field(
        default_factory=list,
        description="where figurines are counted (several targets, squads): over all targets",
    )


@router.get("/calculator/open", dependencies=RATE_LIMITED)
def open_odds(
    request: Request,
    rules: str = Query("", max_length=40, description=f"the ruleset (default: {DEFAULT_RULESET})"),
) -> OpenOddsOut:
    """Exact odds of a turn between units typed in the query: ``a.<field>`` the attacker's
    and ``t.<field>`` the target's fields as the ruleset's export document writes them
    (``a.weapons.0.type=gun&a.weapons.0.size=3``), ``weapons`` the attacker's weapons fired
    (1 for its first), the situation fields by name. Where an attack strikes several (the
    ruleset's ``max_targets``), ``f.<i>.<field>`` are further targets typed in likewise (i
    from 0, at most 11), each with the ruleset's target fields (``f.0.location=close``);
    ``t.figures`` and ``f.<i>.figures`` make a target a squad of that many figurines (1 to
    50; default 1). A field it refuses is a 422 naming it (``f.1.pd``)."""
    got = read_open(Params(list(request.query_params.multi_items())))
    if got.errors:
        field, reason = next(iter(got.errors.items()))
        raise InvalidInput(field, reason)
    main, target = got.calc.main, got.calc.target
    if main is None or target is None:
        raise InvalidInput("a" if main is None else "t", "needs a unit")
    if main.error is not None:
        raise InvalidInput(main.error.field, main.error.reason)
    if main.problems or main.message:
        raise InvalidInput("weapons", " ".join(main.problems) or main.message)
    assert main.odds is not None
    ids = [w.row.id for w in main.unit.weapons]
    return OpenOddsOut(
        url=f"{oc.PATH}?{got.query}",
        ruleset=got.ruleset.id,
        attacker=main.unit.row.name,
        target=target.row.name,
        further_targets=[unit.row.name for _, unit in got.calc.followers],
        weapons=main.weapon_names,
        decisive=main.odds.decisive,
        expected=main.expected or 0.0,
        per_10_points=main.per_10_points,
        truncation_bound=main.odds.truncation_bound,
        lines=[_line_out(line, ids) for line in main.odds.lines],
        detail=dict(main.odds.detail),
        tallies=tallies_out(main.odds.tallies),
    )


class SaveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(max_length=8000, description="the open calculator's query string")
    army_id: Id | None = Field(default=None, description="one of your armies (its ruleset)")
    army_name: Line = Field(default="", max_length=100, description="else a new army")


class SavedOut(BaseModel):
    army_id: int
    unit_ids: list[int] = Field(
        description="the attacker's, the target's, then each further target's (a squad: a "
        "unit of its figurines)"
    )
    url: str = Field(description="the army's page")


@router.post("/calculator/open/save", dependencies=RATE_LIMITED, status_code=201)
def open_save(session: SessionDep, user: ApiUser, body: SaveIn) -> SavedOut:
    """Save the typed-in units (the attacker, the target and the further targets, a squad as
    a unit of its figurines) to an army (yours, or a new one named ``army_name``)."""
    if len(parse_qsl(body.query)) > oc.MAX_PARAMS:
        raise InvalidInput("query", f"at most {oc.MAX_PARAMS} fields")
    army, ids = save_from_query(session, user, body.query, body.army_id, body.army_name)
    return SavedOut(army_id=army.id, unit_ids=ids, url=f"/armies/{army.id}")
