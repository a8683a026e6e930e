"""The front page and the health check."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from app.rules.registry import RULESETS
from app.web.deps import OptionalUser, SessionDep, SessionRoute
from app.web.htmx import redirect
from app.web.templating import render

router = APIRouter(route_class=SessionRoute)


@router.get("/")
def home(request: Request, user: OptionalUser) -> Response:
    """Visitors see what BrikForge does; members go to their armies."""
    if user is not None:
        return redirect(request, "/armies")
    return render(request, "home.html", {"rulesets": list(RULESETS.values())})


@router.get("/glossary")
def glossary(request: Request, rules: str = "") -> Response:
    """Every ruleset's rules words, each explained and pointing to its rule (public);
    ``rules``: only that ruleset's (an unknown one: all of them)."""
    chosen = RULESETS.get(rules)
    context = {"rulesets": list(RULESETS.values()), "chosen": chosen}
    return render(request, "glossary.html", context)


@router.api_route("/healthz", methods=["GET", "HEAD"], include_in_schema=False)
def healthz(session: SessionDep) -> Response:
    """Liveness and database reachability, for docker compose and load balancers.

    200 ``{"status": "ok"}``, or 503 with the reason while the database is unreachable.
    Asked through the request's own session: with a login cookie, that session already holds
    a connection, and a second one from the same pool waited 30 s, then failed, whenever
    every connection was held that way.
    """
    try:
        session.execute(text("SELECT 1"))
    except DBAPIError as exc:
        reason = f"database unreachable ({type(exc.orig).__name__})"
        return JSONResponse(
            {"status": "unavailable", "detail": [{"field": "database", "reason": reason}]},
            status_code=503,
            headers={"Retry-After": "5"},
        )
    return JSONResponse({"status": "ok"})
