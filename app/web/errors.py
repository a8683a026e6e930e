"""Every domain error mapped to one HTTP answer, once, for pages and the API alike.

API paths (``/api/``) get one JSON shape for every error,
``{"detail": [{"field": ..., "reason": ...}, ...]}`` (``ErrorBody`` in
``app/web/error_schema.py``, documented on every operation); pages get an HTML page, or a
fragment for htmx. Routes never raise HTTPException for domain cases.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
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

from app.rules.errors import InvalidInput, RulesError, TooMuchWork
from app.services import sessions
from app.services.errors import (
    Busy,
    EditConflict,
    Forbidden,
    InvalidCredentials,
    InvalidField,
    NotAuthenticated,
    NotFound,
    QuotaExceeded,
    RateLimited,
    StaleVersion,
    TooManyAttempts,
)
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


def _retry_later(
    request: Request, status: int, title: str, message: str, retry_after: int
) -> Response:
    """A refusal the client may retry after ``retry_after`` seconds (pages: the message in
    place of the result)."""
    retry = {"Retry-After": str(retry_after)}
    return _answer(request, status, "body", message, title, message, retry)


def install_error_handlers(app: FastAPI) -> None:
    """Register the mapping on the app."""

    @app.exception_handler(ClientDisconnect)
    async def _client_gone(request: Request, exc: ClientDisconnect) -> Response:
        # The client went away while its form was read (a closed tab, an aborted request):
        # nothing was done and nobody reads the answer, so it is not a server error.
        return Response(status_code=400)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> Response:
        if is_api(request):
            return JSONResponse({"detail": field_errors(list(exc.errors()))}, status_code=422)
        await _note_user(request)
        # Pages only validate path and query values this way: a bad id is just not found.
        return _page_error(request, 404, "Not found", "There is nothing at this address.")

    @app.exception_handler(InvalidField)
    async def _invalid_field(request: Request, exc: InvalidField) -> Response:
        return _answer(
            request, 422, exc.field, exc.reason, "Invalid input", f"{exc.field} {exc.reason}"
        )

    @app.exception_handler(QuotaExceeded)
    async def _quota(request: Request, exc: QuotaExceeded) -> Response:
        # A button or form of any page: the reason is shown where messages go, and the
        # page is left as it was (htmx swaps nothing but the message).
        sentence = exc.reason[:1].upper() + exc.reason[1:]
        if is_htmx(request):
            return render_message(request, sentence)
        return _answer(request, 422, exc.field, exc.reason, "Limit reached", sentence)

    @app.exception_handler(InvalidInput)
    async def _invalid_input(request: Request, exc: InvalidInput) -> Response:
        return _answer(request, 422, exc.field, exc.reason, "Invalid input", str(exc))

    @app.exception_handler(TooMuchWork)
    async def _too_much_work(request: Request, exc: TooMuchWork) -> Response:
        return _answer(request, 422, exc.field, exc.reason, "Too much work", exc.reason)

    @app.exception_handler(RulesError)
    async def _rules_error(request: Request, exc: RulesError) -> Response:
        return _answer(request, 422, "body", str(exc), "Not allowed by the rules", str(exc))

    @app.exception_handler(NotFound)
    async def _not_found(request: Request, exc: NotFound) -> Response:
        return _answer(
            request, 404, exc.what, str(exc), "Not found", "There is nothing at this address."
        )

    @app.exception_handler(Forbidden)
    async def _forbidden(request: Request, exc: Forbidden) -> Response:
        return _answer(request, 403, "permission", str(exc), "Not yours to change", str(exc))

    @app.exception_handler(StaleVersion)
    async def _stale(request: Request, exc: StaleVersion) -> Response:
        if is_api(request):
            return error_json(
                409,
                [{"field": "version", "reason": str(exc)}],
                current_version=exc.current_version,
                latest_change=exc.latest_change,
            )
        return _page_error(request, 409, "Changed elsewhere", str(exc))

    @app.exception_handler(EditConflict)
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
                        {"field": c.field, "mine": c.mine, "theirs": c.theirs}
                        for c in exc.conflicts
                    ],
                },
                status_code=409,
            )
        return _page_error(request, 409, "Changed elsewhere", str(exc))

    @app.exception_handler(StaleDataError)
    async def _stale_race(request: Request, exc: StaleDataError) -> Response:
        return _answer(request, 409, "version", STALE_MESSAGE, "Changed elsewhere", STALE_MESSAGE)

    @app.exception_handler(InvalidCredentials)
    async def _bad_login(request: Request, exc: InvalidCredentials) -> Response:
        return _answer(request, 401, "password", str(exc), "Not logged in", str(exc))

    @app.exception_handler(TooManyAttempts)
    async def _throttled(request: Request, exc: TooManyAttempts) -> Response:
        retry = {"Retry-After": str(exc.retry_after_seconds)}
        return _answer(request, 429, exc.field, str(exc), "Too many attempts", str(exc), retry)

    @app.exception_handler(Busy)
    async def _busy(request: Request, exc: Busy) -> Response:
        # the calculation pool is full, or a calculation ran past its deadline
        return _retry_later(request, 503, "Calculators busy", str(exc), exc.retry_after_seconds)

    @app.exception_handler(RateLimited)
    async def _rate_limited(request: Request, exc: RateLimited) -> Response:
        return _retry_later(request, 429, "Slow down", str(exc), exc.retry_after_seconds)

    @app.exception_handler(CsrfError)
    async def _csrf(request: Request, exc: CsrfError) -> Response:
        message = "the form expired or came from another site (CSRF check failed); reload the page"
        # A refused request changes nothing, cookies included: rendering the page must
        # not mint a token into an empty state cookie and so send a Set-Cookie.
        state = dict(request.session) if "session" in request.scope else None
        response = _answer(request, 403, "csrf_token", message, "Request refused", message)
        if state is not None:
            request.session.clear()
            request.session.update(state)
        return response

    @app.exception_handler(NotAuthenticated)
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

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        headers = dict(exc.headers or {})  # a 405 keeps its Allow header
        await _note_user(request)
        if exc.status_code == 404:
            return _answer(request, 404, "path", "not found", "Not found", "There is nothing here.")
        if exc.status_code == 400:
            # FastAPI's answer when json.loads fails other than by syntax (a body that is not
            # UTF-8, an integer of more than 4300 digits: Python's limit) or a form is unreadable
            reason = "is not valid JSON (or has a number too long)"
            return _answer(request, 422, "body", reason, "Invalid input", f"The body {reason}.")
        if exc.status_code == 405:
            return _answer(
                request,
                405,
                "method",
                "method not allowed",
                "Not allowed",
                "This address does not take that method.",
                headers,
            )
        return _answer(
            request, exc.status_code, "request", str(exc.detail), "Error", str(exc.detail), headers
        )

    @app.exception_handler(DBAPIError)
    async def _database_down(request: Request, exc: DBAPIError) -> Response:
        # Only an unreachable or busy database is a 503; any other database error (a
        # constraint, a value out of range) is a bug, answered as a 500 below.
        if not (exc.connection_invalidated or isinstance(exc, OperationalError)):
            raise exc
        message = "the database is unavailable or busy; try again shortly"
        return _answer(
            request,
            503,
            "database",
            message,
            "Service unavailable",
            message,
            {"Retry-After": "5"},
        )

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception) -> Response:
        # A 500 is always a bug; it is still answered in the shape the client reads.
        message = "internal error (a bug): it has been logged"
        await _note_user(request)
        return _answer(request, 500, "server", message, "Something broke", message)

    for kind, handler in list(app.exception_handlers.items()):
        app.exception_handlers[kind] = _login_settled(handler)
