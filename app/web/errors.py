"""Every domain error mapped to one HTTP answer, once, for pages and the API alike.

API paths (``/api/``) get one JSON shape for every error,
``{"detail": [{"field": ..., "reason": ...}, ...]}`` (``ErrorBody`` in
``app/web/error_schema.py``, documented on every operation); pages get an HTML page, or a
fragment for htmx. Routes never raise HTTPException for domain cases.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm.exc import StaleDataError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.routing import BaseRoute, Match

from app.rules.errors import InvalidFields, InvalidInput, RulesError, TooMuchWork
from app.services import sessions
from app.services.errors import (
    Busy,
    Conflict,
    EditConflict,
    Forbidden,
    HeavyBusy,
    InvalidCredentials,
    InvalidField,
    NotAuthenticated,
    NotFound,
    PasswordsBusy,
    QuotaExceeded,
    RateLimited,
    StaleVersion,
    TooManyAttempts,
)
from app.settings import get_settings
from app.web.csrf import CsrfError
from app.web.deps import LATER_LOGIN
from app.web.htmx import is_htmx
from app.web.session_cookie import COOKIE
from app.web.templating import render, render_message

STALE_MESSAGE = "this army was changed elsewhere; reload"


def _shown(value: Any) -> str:
    """A conflicting value in words: JSON for structures, "nothing" for an absent field."""
    if value is None:
        return "nothing"
    return value if isinstance(value, str) else json.dumps(value)


def is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def field_errors(errors: list[Any]) -> list[dict[str, Any]]:
    """Pydantic errors as ``{"field", "reason"}`` (plus pydantic's own loc/msg/type)."""
    out = []
    for err in errors:
        loc = [str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path")]
        reason = _reason(err)
        out.append(
            {
                "field": ".".join(loc) or "body",
                "reason": reason,
                "loc": list(err.get("loc", ())),
                "msg": err.get("msg"),
                "type": err.get("type"),
            }
        )
    return out


def _reason(err: Any) -> str:
    """A short human reason for one pydantic error."""
    kind, ctx = err.get("type", ""), err.get("ctx") or {}
    if kind == "extra_forbidden":
        return "is not a known field"
    if kind == "missing":
        return "is required"
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return "must be a whole number"
    if kind == "greater_than":
        return f"must be greater than {ctx.get('gt')}"
    if kind == "greater_than_equal":
        return f"must be at least {ctx.get('ge')}"
    if kind == "less_than_equal":
        return f"must be at most {ctx.get('le')}"
    if kind == "string_too_short":
        return (
            "must not be empty"
            if ctx.get("min_length") == 1
            else (f"must be at least {ctx.get('min_length')} characters")
        )
    if kind == "string_too_long":
        return f"must be at most {ctx.get('max_length')} characters"
    if kind == "value_error" and "email" in str(err.get("msg", "")):
        return "is not a valid email address"
    return str(err.get("msg", "is invalid"))


def _page_error(request: Request, status: int, title: str, message: str) -> Response:
    return render(
        request,
        "error.html",
        {"title": title, "message": message, "status": status},
        block="content",
        status_code=status,
    )


def _cookie_login(request: Request, token: str) -> Any:
    try:
        # the bookkeeping pool: the request may still hold one of the requests' connections
        with request.app.state.bookkeeping() as db:
            return sessions.find(db, token)
    except Exception:  # an error page must render even if this fails
        return None


def _cookie_user(request: Request, token: str) -> Any:
    login = _cookie_login(request, token)
    return login.user if login is not None else None


def _login_settled(handler: Callable[[Request, Any], Response | Awaitable[Response]]) -> Any:
    """``handler``, run once the login a dependency left to the route (``LATER_LOGIN``) is
    looked up: an error raised before the route ran (a 422, a 429) still renders the
    page's navigation and CSRF token for who is logged in."""

    async def settled(request: Request, exc: Any) -> Response:
        if getattr(request.state, "login", None) is LATER_LOGIN:
            token = request.cookies.get(COOKIE, "")
            login = await run_in_threadpool(_cookie_login, request, token)
            request.state.login = login
            request.state.user = login.user if login is not None else None
        answer = handler(request, exc)
        return await answer if inspect.isawaitable(answer) else answer

    return settled


async def _note_user(request: Request) -> None:
    """Who is logged in, for an error page answered before any route dependency ran (no
    route, a wrong method, a bad path value): its navigation shows the real login state."""
    if is_api(request) or hasattr(request.state, "user"):
        return
    login = getattr(request.state, "login", None)
    if login is not None:
        request.state.user = login.user
        return
    token = request.cookies.get(COOKIE)
    request.state.user = await run_in_threadpool(_cookie_user, request, token) if token else None


def error_json(
    status: int,
    detail: list[dict[str, Any]],
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    """The API's one error shape: ``{"detail": [{"field", "reason"}, ...], **extra}``."""
    return JSONResponse({"detail": detail, **extra}, status_code=status, headers=headers)


def _answer(
    request: Request,
    status: int,
    field: str,
    reason: str,
    title: str,
    message: str,
    headers: dict[str, str] | None = None,
) -> Response:
    if is_api(request):
        return error_json(status, [{"field": field, "reason": reason}], headers)
    response = _page_error(request, status, title, message)
    if headers:
        response.headers.update(headers)
    return response


# How a refusal's texts come from its exception: a fixed text, or read off the exception.
_Text = str | Callable[[Any], str]


def _text(text: _Text, exc: Any) -> str:
    return text if isinstance(text, str) else text(exc)


def _retry_after(exc: Any) -> dict[str, str]:
    return {"Retry-After": str(exc.retry_after_seconds)}


class _Pauses:
    """How many busy refusals are pausing in this process (they all run on its event loop),
    and how they pause (the tests record it instead of waiting)."""

    now = 0
    sleep = staticmethod(asyncio.sleep)


async def busy_pause() -> None:
    """Hold a busy refusal back ``busy_pause_seconds`` before it is sent (ruling G14): the
    work it was refused for is not started, its thread, slots and connection are given back,
    and the pause is an asyncio sleep, so it costs the server nothing. A flood that waits
    for its answers (64 connections of refused calculations, 20 of one account's exports)
    then asks once a pause a connection instead of as fast as the server can refuse it: it
    had taken 4 of every 5 of a process's answers from other users' pages. At most
    ``busy_pauses`` pause at once; the others are answered at once."""
    settings = get_settings()
    if settings.busy_pause_seconds <= 0 or _Pauses.now >= settings.busy_pauses:
        return
    _Pauses.now += 1
    try:
        await _Pauses.sleep(settings.busy_pause_seconds)
    finally:
        _Pauses.now -= 1


@dataclass(frozen=True)
class _Refusal:
    """How one kind of exception is answered (``_answer``): its status, and the API's field
    and reason, the page's title and message (the reason, unless given), and its headers.
    ``in_place``: an htmx request gets the message alone, the page left as it was.
    ``note_user``: the error may come before any route dependency ran (``_note_user``).
    ``pause``: a "busy" refusal, sent after ``busy_pause``."""

    status: int
    title: str
    field: _Text = "body"
    reason: _Text = str
    message: _Text | None = None
    headers: Callable[[Any], dict[str, str]] | None = None
    in_place: bool = False
    note_user: bool = False
    pause: bool = False

    async def __call__(self, request: Request, exc: Any) -> Response:
        if self.pause:
            await busy_pause()
        if self.note_user:
            await _note_user(request)
        reason = _text(self.reason, exc)
        message = reason if self.message is None else _text(self.message, exc)
        if self.in_place and is_htmx(request):
            return render_message(request, message)
        headers = self.headers(exc) if self.headers is not None else None
        field = _text(self.field, exc)
        return _answer(request, self.status, field, reason, self.title, message, headers)


CSRF_MESSAGE = "the form expired or came from another site (CSRF check failed); reload the page"
DATABASE_DOWN_MESSAGE = "the database is unavailable or busy; try again shortly"
BUG_MESSAGE = "internal error (a bug): it has been logged"
_CSRF_REFUSED = _Refusal(403, "Request refused", field="csrf_token", reason=CSRF_MESSAGE)
_DATABASE_DOWN = _Refusal(
    503,
    "Service unavailable",
    field="database",
    reason=DATABASE_DOWN_MESSAGE,
    headers=lambda exc: {"Retry-After": "5"},
)
# Starlette's own HTTP errors, by status; any other status is answered as it is (``_http``).
_NOT_JSON = "is not valid JSON (or has a number too long)"
_HTTP_ERRORS = {
    404: _Refusal(
        404, "Not found", field="path", reason="not found", message="There is nothing here."
    ),
    # FastAPI's answer when json.loads fails other than by syntax (a body that is not
    # UTF-8, an integer of more than 4300 digits: Python's limit) or a form is unreadable
    400: _Refusal(422, "Invalid input", reason=_NOT_JSON, message=f"The body {_NOT_JSON}."),
    405: _Refusal(
        405,
        "Not allowed",
        field="method",
        reason="method not allowed",
        message="This address does not take that method.",
        headers=lambda exc: dict(exc.headers or {}),  # its Allow header
    ),
}


async def _client_gone(request: Request, exc: ClientDisconnect) -> Response:
    # The client went away while its form was read (a closed tab, an aborted request):
    # nothing was done and nobody reads the answer, so it is not a server error.
    return Response(status_code=400)


async def _validation(request: Request, exc: RequestValidationError) -> Response:
    if is_api(request):
        return JSONResponse({"detail": field_errors(list(exc.errors()))}, status_code=422)
    await _note_user(request)
    # Pages only validate path and query values this way: a bad id is just not found.
    return _page_error(request, 404, "Not found", "There is nothing at this address.")


async def _stale(request: Request, exc: StaleVersion) -> Response:
    if is_api(request):
        return error_json(
            409,
            [{"field": "version", "reason": str(exc)}],
            current_version=exc.current_version,
            latest_change=exc.latest_change,
        )
    return _page_error(request, 409, "Changed elsewhere", str(exc))


async def _conflict(request: Request, exc: EditConflict) -> Response:
    if is_api(request):
        return JSONResponse(
            {
                "detail": [
                    {"field": c.field, "reason": f"changed elsewhere to {_shown(c.theirs)}"}
                    for c in exc.conflicts
                ],
                "current_version": exc.current_version,
                "latest_change": exc.latest_change,
                "conflicts": [
                    {"field": c.field, "mine": c.mine, "theirs": c.theirs} for c in exc.conflicts
                ],
            },
            status_code=409,
        )
    return _page_error(request, 409, "Changed elsewhere", str(exc))


async def _behind(request: Request, exc: Conflict) -> Response:
    """An action from a page that is behind (the battle pages answer theirs in place)."""
    if is_api(request):
        detail = [{"field": exc.field, "reason": str(exc)}]
        return error_json(409, detail, entry=exc.entry, by=exc.by)
    return _page_error(request, 409, "Changed since you loaded the page", str(exc))


async def _csrf(request: Request, exc: CsrfError) -> Response:
    # A refused request changes nothing, cookies included: rendering the page must
    # not mint a token into an empty state cookie and so send a Set-Cookie.
    state = dict(request.session) if "session" in request.scope else None
    response = await _CSRF_REFUSED(request, exc)
    if state is not None:
        request.session.clear()
        request.session.update(state)
    return response


async def _anonymous(request: Request, exc: NotAuthenticated) -> Response:
    if is_api(request):
        return error_json(
            401,
            [{"field": "authorization", "reason": "not authenticated"}],
            {"WWW-Authenticate": "Bearer"},
        )
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    login = f"/login?next={quote(target, safe='/')}"
    if is_htmx(request):
        return Response(status_code=401, headers={"HX-Redirect": login})
    return Response(status_code=303, headers={"Location": login})


def allowed_methods(request: Request) -> list[str]:
    """Every method the request's path takes, whichever of its routes declares it: Starlette's
    405 names only the methods of the first route whose path matched (``GET, HEAD`` where
    another route of the same path takes ``POST``)."""
    methods: set[str] = set()
    for route in _routes(request.app.router.routes):
        declared = getattr(route, "methods", None)
        if declared and route.matches(request.scope)[0] is not Match.NONE:
            methods |= declared
    return sorted(methods)


def _routes(routes: Sequence[BaseRoute]) -> Iterator[BaseRoute]:
    """Every route, those of included routers too (FastAPI keeps an included router as one
    entry, its routes as ``effective_candidates``)."""
    for route in routes:
        candidates = getattr(route, "effective_candidates", None)
        if callable(candidates):
            yield from _routes(candidates())
        else:
            yield route


async def _http(request: Request, exc: StarletteHTTPException) -> Response:
    await _note_user(request)
    if exc.status_code == 405 and (methods := allowed_methods(request)):
        headers = {**(exc.headers or {}), "Allow": ", ".join(methods)}
        exc = StarletteHTTPException(405, exc.detail, headers=headers)
    refusal = _HTTP_ERRORS.get(exc.status_code) or _Refusal(
        exc.status_code,
        "Error",
        field="request",
        reason=lambda exc: str(exc.detail),
        headers=lambda exc: dict(exc.headers or {}),
    )
    return await refusal(request, exc)


async def _database_down(request: Request, exc: DBAPIError) -> Response:
    # Only an unreachable or busy database is a 503; any other database error (a
    # constraint, a value out of range) is a bug, answered as a 500 below.
    if not (exc.connection_invalidated or isinstance(exc, OperationalError)):
        raise exc
    return await _DATABASE_DOWN(request, exc)


async def _invalid_fields(request: Request, exc: InvalidFields) -> Response:
    """Every wrong field of a unit or weapon at once: the API lists each, a page says all."""
    if is_api(request):
        return error_json(422, [{"field": f, "reason": r} for f, r in exc.errors.items()])
    return _page_error(request, 422, "Invalid input", str(exc))


_Handler = Callable[[Request, Any], Awaitable[Response]]
# Every exception the app answers, and how: a row of ``_Refusal`` where the answer is the one
# shape (``_answer``), a function of its own where the answer is shaped otherwise.
ERROR_ANSWERS: dict[type[Exception], _Handler] = {
    ClientDisconnect: _client_gone,
    RequestValidationError: _validation,
    InvalidField: _Refusal(
        422,
        "Invalid input",
        field=attrgetter("field"),
        reason=attrgetter("reason"),
        message=lambda exc: f"{exc.field} {exc.reason}",
    ),
    # A button or form of any page: the reason is shown where messages go, and the page is
    # left as it was (htmx swaps nothing but the message).
    QuotaExceeded: _Refusal(
        422,
        "Limit reached",
        field=attrgetter("field"),
        reason=attrgetter("reason"),
        message=lambda exc: exc.reason[:1].upper() + exc.reason[1:],
        in_place=True,
    ),
    InvalidFields: _invalid_fields,
    InvalidInput: _Refusal(
        422, "Invalid input", field=attrgetter("field"), reason=attrgetter("reason"), message=str
    ),
    TooMuchWork: _Refusal(
        422, "Too much work", field=attrgetter("field"), reason=attrgetter("reason")
    ),
    RulesError: _Refusal(422, "Not allowed by the rules"),
    NotFound: _Refusal(
        404, "Not found", field=attrgetter("what"), message="There is nothing at this address."
    ),
    Forbidden: _Refusal(403, "Not yours to change", field="permission"),
    StaleVersion: _stale,
    EditConflict: _conflict,
    Conflict: _behind,
    StaleDataError: _Refusal(409, "Changed elsewhere", field="version", reason=STALE_MESSAGE),
    InvalidCredentials: _Refusal(401, "Not logged in", field="password"),
    TooManyAttempts: _Refusal(
        429, "Too many attempts", field=attrgetter("field"), headers=_retry_after
    ),
    # the calculation pool is full, or a calculation ran past its deadline
    Busy: _Refusal(503, "Calculators busy", headers=_retry_after, pause=True),
    # too many password hashes running or waiting (``hash_gate``)
    PasswordsBusy: _Refusal(503, "Server busy", field="password", headers=_retry_after, pause=True),
    # too many large exports, imports or army pages running or waiting (``heavy_gate``)
    HeavyBusy: _Refusal(
        503,
        "Server busy",
        message=lambda exc: str(exc)[:1].upper() + str(exc)[1:],
        headers=_retry_after,
        pause=True,
    ),
    RateLimited: _Refusal(429, "Slow down", headers=_retry_after),
    CsrfError: _csrf,
    NotAuthenticated: _anonymous,
    StarletteHTTPException: _http,
    DBAPIError: _database_down,
    # A 500 is always a bug; it is still answered in the shape the client reads.
    Exception: _Refusal(500, "Something broke", field="server", reason=BUG_MESSAGE, note_user=True),
}


def install_error_handlers(app: FastAPI) -> None:
    """Register the mapping (``ERROR_ANSWERS``) on the app; every handler, FastAPI's own
    included, runs once the login is settled (``_login_settled``)."""
    for kind, handler in ERROR_ANSWERS.items():
        app.add_exception_handler(kind, handler)
    for kind, installed in list(app.exception_handlers.items()):
        app.exception_handlers[kind] = _login_settled(installed)
