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
BATTLE_JOIN_PATH = "/battles/join/"  # a battle invitation's page: this + its token
INVITE_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")  # what a token may look like (URL-safe)


def invitation_token(path: str) -> str | None:
    """The token of an invitation page's path (a log-in's ``next``, say), else None."""
    if not path.startswith(JOIN_PATH):
        return None
    token = path[len(JOIN_PATH) :]
    return token if INVITE_TOKEN.fullmatch(token) else None


def invitation_page(path: str) -> bool:
    """Whether the path is an invitation's page, a club's or a battle's (its token in it)."""
    return invitation_token(path) is not None or (
        path.startswith(BATTLE_JOIN_PATH)
        and INVITE_TOKEN.fullmatch(path[len(BATTLE_JOIN_PATH) :]) is not None
    )


def invite_url(request: Request, token: str) -> str:
    """The absolute link that joins a club (shown once to the organiser)."""
    return str(request.url_for("join_page", token=token))


def battle_invite_url(request: Request, token: str) -> str:
    """The absolute link that invites a player to a battle (shown once to its host)."""
    return str(request.url_for("join_battle_page", token=token))


def share_url(request: Request, token: str) -> str:
    """The absolute read-only link to an army (shown once to its owner)."""
    return str(request.url_for("shared_page", token=token))


def battle_share_url(request: Request, token: str) -> str:
    """The absolute read-only link to a battle's log (shown once to its owner)."""
    return str(request.url_for("battle_shared_page", token=token))
