"""CSRF protection: a per-session token checked on every state-changing request.

Forms send it as the ``csrf_token`` field, htmx and API clients as the
``X-CSRF-Token`` header (set once on <body hx-headers>). Requests authenticated
by a bearer token carry no cookie, so they need none; nor do anonymous JSON API
calls (register, log in), since a cross-site page cannot send a JSON body
without a CORS preflight, which we never grant.
"""

from __future__ import annotations

import hmac
import secrets

from fastapi import Request

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SESSION_KEY = "csrf"
FIELD = "csrf_token"
HEADER = "x-csrf-token"


class CsrfError(Exception):
    """The request's CSRF token is missing or wrong."""


def csrf_token(request: Request) -> str:
    """The session's token, created on first use."""
    token = request.session.get(SESSION_KEY)
    if not token:
        token = secrets.token_urlsafe(32)
        request.session[SESSION_KEY] = token
    return token


def rotate_csrf_token(request: Request) -> str:
    request.session[SESSION_KEY] = secrets.token_urlsafe(32)
    return request.session[SESSION_KEY]


async def csrf_protect(request: Request) -> None:
    """Router dependency: refuse unsafe requests without the session's token."""
    if request.method in SAFE_METHODS or "session" not in request.scope:
        return  # (no session at all: the stateless calculators, which trust no cookie)
    if request.headers.get("authorization", "").lower().startswith("bearer "):
        return
    if request.url.path.startswith("/api/") and "user_id" not in request.session:
        return
    expected = request.session.get(SESSION_KEY)
    supplied = request.headers.get(HEADER)
    if supplied is None and request.headers.get("content-type", "").startswith(
        ("application/x-www-form-urlencoded", "multipart/form-data")
    ):
        value = (await request.form()).get(FIELD)
        supplied = value if isinstance(value, str) else None
    if not expected or not supplied or not hmac.compare_digest(expected, supplied):
        raise CsrfError
