"""One URL, two renderings: the full page, or just the named block for htmx."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from markupsafe import Markup

from app.settings import PROJECT_ROOT
from app.web.csrf import FIELD, csrf_token
from app.web.htmx import is_htmx

FLASH_KEY = "_flash"

templates = Jinja2Templates(directory=str(PROJECT_ROOT / "templates"))
env = templates.env
assert env.autoescape, "Jinja autoescape must stay on"


def flash(request: Request, message: str, category: str = "info") -> None:
    """Queue a message for the next rendered page or fragment."""
    request.session.setdefault(FLASH_KEY, []).append({"message": message, "category": category})
    request.session[FLASH_KEY] = request.session[FLASH_KEY]  # mark the session modified


def _pop_flashes(request: Request) -> list[dict[str, str]]:
    return request.session.pop(FLASH_KEY, []) if FLASH_KEY in request.session else []


def _csrf_input(request: Request) -> Markup:
    return Markup('<input type="hidden" name="{}" value="{}">').format(FIELD, csrf_token(request))


def render(
    request: Request,
    template_name: str,
    context: Mapping[str, Any] | None = None,
    *,
    block: str | None = None,
    status_code: int = 200,
    headers: Mapping[str, str] | None = None,
) -> HTMLResponse:
    """Render ``block`` alone for an htmx request, else the whole page.

    Flash messages ride along out of band on fragments, so a fragment never
    swallows a message meant for the user.
    """
    ctx: dict[str, Any] = {
        "request": request,
        "user": getattr(request.state, "user", None),
        "csrf_token": csrf_token(request),
        "csrf_input": _csrf_input(request),
        **(context or {}),
    }
    template = env.get_template(template_name)
    if block is not None and is_htmx(request):
        ctx["flashes"] = _pop_flashes(request)
        body = "".join(template.blocks[block](template.new_context(ctx)))
        if ctx["flashes"]:
            body += env.get_template("partials/flash.html").render(ctx | {"oob": True})
    else:
        ctx["flashes"] = _pop_flashes(request)
        body = template.render(ctx)
    response = HTMLResponse(body, status_code=status_code, headers=dict(headers or {}))
    response.headers["Vary"] = "HX-Request"
    return response
