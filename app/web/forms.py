"""Validate an HTML form with the same pydantic model the API uses."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from app.web.csrf import FIELD
from app.web.errors import field_errors

M = TypeVar("M", bound=BaseModel)


def validate_form(model: type[M], data: Mapping[str, str]) -> tuple[M | None, dict[str, str]]:
    """The model, or None and ``{field: reason}`` for every bad field."""
    payload = {k: v for k, v in data.items() if k != FIELD}
    try:
        return model.model_validate(payload), {}
    except ValidationError as exc:
        errors: dict[str, str] = {}
        for err in field_errors(list(exc.errors())):
            errors.setdefault(err["field"], err["reason"])
        return None, errors
