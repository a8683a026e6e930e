"""htmx request detection and response headers."""

from __future__ import annotations

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


def invite_url(request: Request, token: str) -> str:
    """The absolute link that joins a club (shown once to the organiser)."""
    return str(request.url_for("join_page", token=token))


def share_url(request: Request, token: str) -> str:
    """The absolute read-only link to an army (shown once to its owner)."""
    return str(request.url_for("shared_page", token=token))


def battle_share_url(request: Request, token: str) -> str:
    """The absolute read-only link to a battle's log (shown once to its owner)."""
    return str(request.url_for("battle_shared_page", token=token))
