"""htmx request detection and response headers."""

from __future__ import annotations

import re

from fastapi import Request
from fastapi.responses import Response


def is_htmx(request: Request) -> bool:
    """A fragment request: htmx asked, and not for a whole page (history restore, boost)."""
    return (
        request.headers.get("hx-request") == "true"
        and request.headers.get("hx-history-restore-request") != "true"
        and request.headers.get("hx-boosted") != "true"
    )


def redirect(request: Request, url: str) -> Response:
    """Navigate after a mutation: HX-Redirect for htmx, 303 See Other for a plain form."""
    if is_htmx(request):
        return Response(status_code=204, headers={"HX-Redirect": url})
    return Response(status_code=303, headers={"Location": url})


JOIN_PATH = "/clubs/join/"  # an invitation's page is JOIN_PATH + its token
INVITE_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")  # what a token may look like (URL-safe)


def invitation_token(path: str) -> str | None:
    """The token of an invitation page's path (a log-in's ``next``, say), else None."""
    if not path.startswith(JOIN_PATH):
        return None
    token = path[len(JOIN_PATH) :]
    return token if INVITE_TOKEN.fullmatch(token) else None


def invite_url(request: Request, token: str) -> str:
    """The absolute link that joins a club (shown once to the organiser)."""
    return str(request.url_for("join_page", token=token))


def share_url(request: Request, token: str) -> str:
    """The absolute read-only link to an army (shown once to its owner)."""
    return str(request.url_for("shared_page", token=token))


def battle_share_url(request: Request, token: str) -> str:
    """The absolute read-only link to a battle's log (shown once to its owner)."""
    return str(request.url_for("battle_shared_page", token=token))
