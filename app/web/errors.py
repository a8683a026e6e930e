"""Every domain error mapped to one HTTP answer, once, for pages and the API alike.

API paths (``/api/``) get JSON ``{"detail": ...}``; pages get an HTML page, or a
fragment for htmx. Routes never raise HTTPException for domain cases.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy.orm.exc import StaleDataError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.rules.errors import InvalidInput, RulesError, TooMuchWork
from app.services.errors import (
    Busy,
    Forbidden,
    InvalidCredentials,
    InvalidField,
    NotAuthenticated,
    NotFound,
    RateLimited,
    StaleVersion,
    TooManyAttempts,
)
from app.web.csrf import CsrfError
from app.web.htmx import is_htmx
from app.web.templating import render

STALE_MESSAGE = "this army was changed elsewhere; reload"


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


def _answer(request: Request, status: int, detail: Any, title: str, message: str) -> Response:
    if is_api(request):
        return JSONResponse({"detail": detail}, status_code=status)
    return _page_error(request, status, title, message)


def _retry_later(
    request: Request, status: int, title: str, message: str, retry_after: int
) -> Response:
    """A refusal the client may retry after ``retry_after`` seconds (pages: the message in
    place of the result)."""
    detail = [{"field": "body", "reason": message}]
    response = _answer(request, status, detail, title, message)
    response.headers["Retry-After"] = str(retry_after)
    return response


def install_error_handlers(app: FastAPI) -> None:
    """Register the mapping on the app."""

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> Response:
        if is_api(request):
            return JSONResponse({"detail": field_errors(list(exc.errors()))}, status_code=422)
        # Pages only validate path and query values this way: a bad id is just not found.
        return _page_error(request, 404, "Not found", "There is nothing at this address.")

    @app.exception_handler(InvalidField)
    async def _invalid_field(request: Request, exc: InvalidField) -> Response:
        detail = [{"field": exc.field, "reason": exc.reason}]
        return _answer(request, 422, detail, "Invalid input", f"{exc.field} {exc.reason}")

    @app.exception_handler(InvalidInput)
    async def _invalid_input(request: Request, exc: InvalidInput) -> Response:
        detail = [{"field": exc.field, "reason": exc.reason}]
        return _answer(request, 422, detail, "Invalid input", str(exc))

    @app.exception_handler(TooMuchWork)
    async def _too_much_work(request: Request, exc: TooMuchWork) -> Response:
        detail = [{"field": exc.field, "reason": exc.reason}]
        return _answer(request, 422, detail, "Too much work", exc.reason)

    @app.exception_handler(RulesError)
    async def _rules_error(request: Request, exc: RulesError) -> Response:
        return _answer(request, 422, str(exc), "Not allowed by the rules", str(exc))

    @app.exception_handler(NotFound)
    async def _not_found(request: Request, exc: NotFound) -> Response:
        return _answer(request, 404, str(exc), "Not found", "There is nothing at this address.")

    @app.exception_handler(Forbidden)
    async def _forbidden(request: Request, exc: Forbidden) -> Response:
        return _answer(request, 403, str(exc), "Not yours to change", str(exc))

    @app.exception_handler(StaleVersion)
    async def _stale(request: Request, exc: StaleVersion) -> Response:
        if is_api(request):
            return JSONResponse(
                {
                    "detail": str(exc),
                    "current_version": exc.current_version,
                    "latest_change": exc.latest_change,
                },
                status_code=409,
            )
        return _page_error(request, 409, "Changed elsewhere", str(exc))

    @app.exception_handler(StaleDataError)
    async def _stale_race(request: Request, exc: StaleDataError) -> Response:
        return _answer(request, 409, STALE_MESSAGE, "Changed elsewhere", STALE_MESSAGE)

    @app.exception_handler(InvalidCredentials)
    async def _bad_login(request: Request, exc: InvalidCredentials) -> Response:
        return _answer(request, 401, str(exc), "Not logged in", str(exc))

    @app.exception_handler(TooManyAttempts)
    async def _throttled(request: Request, exc: TooManyAttempts) -> Response:
        response = _answer(request, 429, str(exc), "Too many attempts", str(exc))
        response.headers["Retry-After"] = str(exc.retry_after_seconds)
        return response

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
        return _answer(request, 403, message, "Request refused", message)

    @app.exception_handler(NotAuthenticated)
    async def _anonymous(request: Request, exc: NotAuthenticated) -> Response:
        if is_api(request):
            return JSONResponse(
                {"detail": "not authenticated"},
                status_code=401,
                headers={"WWW-Authenticate": "Bearer"},
            )
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        login = f"/login?next={quote(target, safe='/')}"
        if is_htmx(request):
            return Response(status_code=401, headers={"HX-Redirect": login})
        return Response(status_code=303, headers={"Location": login})

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404:
            return _answer(request, 404, "not found", "Not found", "There is nothing here.")
        if exc.status_code == 405:
            return _answer(request, 405, "method not allowed", "Not allowed", "Method not allowed.")
        return _answer(request, exc.status_code, exc.detail, "Error", str(exc.detail))
