"""The OpenAPI document, made true to what the API sends on errors.

FastAPI documents only a 422 per operation, in pydantic's own shape; the API answers every
error as ``ErrorBody`` (``app/web/errors.py``). This documents that shape on every status an
operation can answer, so clients (and the schemathesis run in the test suite) can rely on it.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, Field

PUBLIC_PREFIXES = ("/api/v1/brikwars/", "/api/v1/rulesets")
"""The stateless calculators: no login, nothing stored, so no 401/403/404/409."""

_REASONS = {
    401: "Not authenticated (no valid session or bearer token)",
    403: "Visible to you but not yours to change, or the CSRF check failed",
    404: "Not found, or not visible to you",
    409: "Changed elsewhere since you loaded it (current_version, latest_change; a battle "
    "action's ``seen``: the newer log entry and who made it, entry and by), or a limit",
    422: "Invalid input: each entry names the field and the reason",
    429: "Too many requests or the calculators are busy; see Retry-After",
    503: "The database is unavailable, the calculation pool is full, or too many passwords "
    "are being checked (field: password); see Retry-After",
}
_PUBLIC_STATUSES = (422, 429, 503)
_PRIVATE_STATUSES = (401, 403, 404, 409, 422, 429, 503)
_RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait", "schema": {"type": "integer"}}}


class ErrorItem(BaseModel):
    field: str = Field(
        description="The input at fault (a body path such as units[3].size), or what refused "
        "the request: authorization, permission, path, version, csrf_token, database, body"
    )
    reason: str = Field(description="Why, in words a player can act on")
    loc: list[str | int] | None = Field(None, description="pydantic's location, when it has one")
    msg: str | None = Field(None, description="pydantic's message, when it has one")
    type: str | None = Field(None, description="pydantic's error type, when it has one")


class ErrorBody(BaseModel):
    """Every API error: a list of problems, plus what a 409 knows of the winning change."""

    detail: list[ErrorItem]
    current_version: int | None = Field(None, description="409 only: the version that won")
    latest_change: str | None = Field(None, description="409 only: that change, in words")
    entry: int | None = Field(
        None, description="409 of a battle action: the newer log entry's number since ``seen``"
    )
    by: str | None = Field(None, description="409 of a battle action: who made that entry")


def _error_response(status: int) -> dict[str, Any]:
    response: dict[str, Any] = {
        "description": _REASONS[status],
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}},
    }
    if status in (429, 503):
        response["headers"] = _RETRY_AFTER
    return response


def build_openapi(app: FastAPI) -> dict[str, Any]:
    """The app's OpenAPI document with the one error shape on every operation (cached)."""
    if app.openapi_schema:
        return app.openapi_schema
    doc = get_openapi(
        title=app.title,
        version=app.version,
        summary=app.summary,
        routes=app.routes,
    )
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    body = ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}")
    schemas.update(body.pop("$defs", {}))
    schemas["ErrorBody"] = body
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    for path, operations in doc.get("paths", {}).items():
        statuses: tuple[int, ...] = (
            _PUBLIC_STATUSES if path.startswith(PUBLIC_PREFIXES) else _PRIVATE_STATUSES
        )
        if "{" in path and statuses == _PUBLIC_STATUSES:  # a public path naming a thing
            statuses = (404, *statuses)
        for operation in operations.values():
            responses = operation.setdefault("responses", {})
            for status in statuses:
                responses[str(status)] = _error_response(status)
    app.openapi_schema = doc
    return doc
