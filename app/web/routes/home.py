"""The front page and the health check."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response
from sqlalchemy import text

from app.web.deps import OptionalUser, SessionDep
from app.web.htmx import redirect
from app.web.templating import render

router = APIRouter()


@router.get("/")
def home(request: Request, user: OptionalUser) -> Response:
    """Visitors see what BrikForge does; members go to their armies."""
    if user is not None:
        return redirect(request, "/armies")
    return render(request, "home.html")


@router.get("/healthz", include_in_schema=False)
def healthz(session: SessionDep) -> Response:
    """Liveness and database reachability, for docker compose."""
    session.execute(text("SELECT 1"))
    return PlainTextResponse("ok")
