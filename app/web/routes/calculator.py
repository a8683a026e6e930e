"""The attack calculator page: pick saved units, weapons and the situation; see exact odds.

One GET URL carries the whole state (``calculator_query``): the page is shareable and the
browser's back button works. htmx re-requests the same URL as inputs change (debounced) and
swaps the calculator block; without JavaScript the form's "Update odds" button does the same.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.services import calculator
from app.web.calculator_query import Params, parse, to_query
from app.web.charts import damage_chart
from app.web.deps import CurrentUser, SessionDep
from app.web.templating import render

router = APIRouter()

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
        "damage_chart": damage_chart,
    }


@router.get("/calculator")
def calculator_page(request: Request, session: SessionDep, user: CurrentUser) -> Response:
    """The calculator; for htmx just its block, with the URL to push."""
    context = calculator_context(session, user, Params(list(request.query_params.multi_items())))
    url = "/calculator" + (f"?{context['query']}" if context["query"] else "")
    status = 422 if context["errors"] else 200
    return render(
        request,
        PAGE,
        context,
        block="calculator",
        status_code=status,
        headers={"HX-Push-Url": url},
    )
