"""The attack calculator page: pick saved units, weapons and the situation; see exact odds.

One GET URL carries the whole state (``calculator_query``): the page is shareable and the
browser's back button works. htmx re-requests the same URL as inputs change (debounced) and
swaps the calculator block; without JavaScript the form's "Update odds" button does the same.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlencode

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from app.rules.errors import InvalidInput
from app.services import calculator
from app.web.calculator_query import Params, parse, to_pairs, to_query
from app.web.deps import CurrentUser, FormDep, SessionDep, SessionRoute
from app.web.htmx import redirect
from app.web.ratelimit import calculator_rate_limit
from app.web.templating import render

RATE_LIMITED = [Depends(calculator_rate_limit)]
router = APIRouter(route_class=SessionRoute)

PAGE = "calculator/page.html"
OUTCOMES = (
    ("miss", "Miss"),
    ("no_effect", "No effect"),
    ("something_bad", "Something Bad"),
    ("size_damage", "Size Damage"),
    ("destroyed", "Destroyed"),
)


def calculator_context(session: SessionDep, user: CurrentUser, params: Params) -> dict[str, Any]:
    """What the calculator template needs for a query (shared with the battle page)."""
    request, errors = parse(params)
    calc = calculator.calculate(session, user=user, request=request)
    request = calculator.with_weapons(request, calc)
    query = to_query(request)
    return {
        "calc": calc,
        "req": request,
        "errors": errors,
        "query": query,
        "choices": calculator.unit_choices(session, [a.id for a in calc.armies]),
        "outcomes": OUTCOMES,
    }


@router.get("/calculator", dependencies=RATE_LIMITED)
def calculator_page(request: Request, session: SessionDep, user: CurrentUser) -> Response:
    """The calculator; for htmx just its block, with the URL to push."""
    context = calculator_context(session, user, Params(list(request.query_params.multi_items())))
    url = "/calculator" + (f"?{context['query']}" if context["query"] else "")
    status = 422 if context["errors"] else 200
    # A unit picker asks for the whole calculator (``full``); other inputs for the results.
    return render(
        request,
        PAGE,
        context,
        block="calculator" if request.query_params.get("full") else "results",
        status_code=status,
        headers={"HX-Push-Url": url},
    )


def battle_url(rolled: calculator.RolledInBattle, request: calculator.CalcRequest) -> str:
    """The new battle's page with the roll shown and the same attack ready to roll again."""
    skip = {"attacker", "weapons", "target", "follower", "follower_distance", "follower_spans"}
    skip |= {"compare", "compare_weapons", "ally", "ally_weapons", "bonus_die", "homing_in"}
    pairs = [
        ("attacker", str(rolled.attacker_id)),
        ("target", str(rolled.target_id)),
        ("weapons", ",".join(map(str, rolled.weapons))),
        ("roll", str(rolled.seq)),
        *((k, v) for k, v in to_pairs(request) if k not in skip),
    ]
    for k, (unit_id, distance, spans) in enumerate(rolled.followers):
        pairs.append((f"follower.{k}.unit_id", str(unit_id)))
        if distance is not None:
            pairs.append((f"follower.{k}.distance", str(float(distance))))
        pairs.append((f"follower.{k}.spans", str(spans)))
    return f"/battles/{rolled.battle_id}?{urlencode(pairs)}#result"


@router.post("/calculator/roll", dependencies=RATE_LIMITED)
def calculator_roll(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep
) -> Response:
    """Roll it!: a new battle with copies of these units, the attack rolled and logged there."""
    params = Params(parse_qsl(form.get("query", ""), keep_blank_values=True))
    calc_request, errors = parse(params)
    try:
        if errors:
            field, reason = next(iter(errors.items()))
            raise InvalidInput(field, reason)
        rolled = calculator.roll_in_new_battle(session, user=user, request=calc_request)
    except InvalidInput as err:  # the 422 rolls back: no battle, no log
        context = calculator_context(session, user, params)
        context["roll_error"] = f"{err.field.replace('_', ' ')}: {err.reason}"
        return render(request, PAGE, context, block="calculator", status_code=422)
    return redirect(request, battle_url(rolled, calc_request))
