"""CSRF protection: a per-session token checked on every state-changing request.

Forms send it as the ``csrf_token`` field, htmx and API clients as the
``X-CSRF-Token`` header (set once on <body hx-headers>). A logged-in browser's token
lives with its server-side session; a visitor's (the log-in and sign-up forms) in
the signed state cookie, checked double-submit style. API requests authenticated by
a valid bearer token carry no cookie, so they need none; nor do anonymous JSON API
calls (register, log in), since a cross-site page cannot send a JSON body without a
CORS preflight, which we never grant. Any other request, a junk ``Authorization``
header or not, is checked.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Annotated

from fastapi import Depends, Request

from app.db.models import User
from app.web.deps import Later, LoginOrLater, PendingLoginDep, bearer_user

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SESSION_KEY = "csrf"
FIELD = "csrf_token"
HEADER = "x-csrf-token"


class CsrfError(Exception):
    """The request's CSRF token is missing or wrong."""


def csrf_token(request: Request) -> str:
    """The token of the login session, or the visitor's (created on first use)."""
    login = getattr(request.state, "login", None)
    if login is not None:
        return str(login.csrf_token)
    token = request.session.get(SESSION_KEY)
    if not token:
        token = secrets.token_urlsafe(32)
        request.session[SESSION_KEY] = token
    return str(token)


async def csrf_protect(
    request: Request,
    login: PendingLoginDep,
    token_user: Annotated[User | None, Depends(bearer_user)],
) -> None:
    """The API routers' dependency: refuse unsafe requests without the session's token."""
    if token_user is not None:
        return  # an API call authenticated by a valid token (bearer_user checks the path)
    await _check(request, login)


async def page_csrf_protect(request: Request, login: PendingLoginDep) -> None:
    """The page routers' dependency: as ``csrf_protect``, without looking for a bearer
    token, which a page ignores (one dependency fewer to resolve on every page)."""
    await _check(request, login)


async def _check(request: Request, login: LoginOrLater) -> None:
    if request.method in SAFE_METHODS or "session" not in request.scope:
        return  # (no session at all: the stateless calculators, which trust no cookie)
    if isinstance(login, Later):  # (never: only a GET's route looks its login up itself)
        raise CsrfError
    if request.scope["path"].startswith("/api/") and login is None:
        return
    expected = login.csrf_token if login is not None else request.session.get(SESSION_KEY)
    supplied = request.headers.get(HEADER)
    if supplied is None and request.headers.get("content-type", "").startswith(
        ("application/x-www-form-urlencoded", "multipart/form-data")
    ):
        value = (await request.form()).get(FIELD)
        supplied = value if isinstance(value, str) else None
    if not expected or not supplied:
        raise CsrfError
    if not hmac.compare_digest(expected.encode(), supplied.encode()):  # (any text: bytes)
        raise CsrfError
