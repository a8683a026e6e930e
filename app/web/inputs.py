"""Shared input types: every model, path and query parameter the app takes is built from these.

* **Numbers are never booleans**: ``true`` is not 1 (pydantic would take it so in lax mode).
  Numeric strings stay accepted ("3", "1.5"): the page forms send nothing else.
* **Booleans are only booleans** (``Flag``): ``true`` and ``false``, never 0, 1, "yes" or "on"
  (a 422 naming the field). The page forms send text; their own readers turn a ticked box
  into ``True`` before any model sees it (``app.web.forms``, ``attack_request.from_form``).
* **Ids fit every database**: 1 to 2**31-1 (PostgreSQL's ``integer``); a larger or negative id
  is a 422 on the API and a 404 on a page, never a database error.
* **Text has no control characters** (``app.rules.text``): single-line text refuses all of
  them, multi-line text (notes) allows tab and line breaks.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, Strict
from pydantic_core import PydanticCustomError

from app.rules.errors import InvalidInput
from app.rules.numbers import exact_number
from app.rules.text import control_character_reason

MAX_ID = 2**31 - 1
MAX_SEED = 2**63 - 1
MAX_WEAPON_INDEX = 1000


def _not_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise PydanticCustomError("bool_not_number", "must be a number, not true or false")
    return value


def single_line(value: str) -> str:
    reason = control_character_reason(value)
    if reason is not None:
        raise PydanticCustomError("control_character", reason)
    return value


def _multi_line(value: str) -> str:
    reason = control_character_reason(value, multiline=True)
    if reason is not None:
        raise PydanticCustomError("control_character", reason)
    return value


NoBool = BeforeValidator(_not_bool)
Flag = Annotated[bool, Strict()]
"""A JSON ``true`` or ``false`` and nothing else (pydantic's lax mode would take 0, 1, "yes",
"on" and "1")."""
Int = Annotated[int, NoBool]
"""A whole number (a JSON number or a numeric string), never a boolean. Give its bounds in the
field's ``Field(default, ge=..., le=...)``, or as ``Annotated[int, Field(...), NoBool]``: bounds
placed after ``NoBool`` would not reach the OpenAPI schema as minimum/maximum."""
Float = Annotated[float, NoBool]
"""A number (a JSON number or a numeric string), never a boolean."""


def _exact(value: float) -> float:
    try:
        exact_number(value, "")
    except InvalidInput as err:
        raise PydanticCustomError("number_format", err.reason) from None
    return value


Inches = Annotated[float, Field(ge=0, le=1000), NoBool, AfterValidator(_exact)]
"""A distance or size in inches from 0 to 1000, in the engine's number format
(``app.rules.numbers``: at most 2 decimal places), so ``Fraction(str(value))`` stays small."""
Id = Annotated[int, Field(ge=1, le=MAX_ID), NoBool]
"""A row id: 1 to 2**31-1 on every database."""
Version = Annotated[int, Field(ge=0, le=MAX_ID), NoBool]
"""The row version a client loaded."""
Seed = Annotated[int, Field(ge=0, le=MAX_SEED), NoBool]
"""A roll's seed, as stored (a signed 64-bit integer)."""

SingleLine = AfterValidator(single_line)
MultiLine = AfterValidator(_multi_line)
Line = Annotated[str, SingleLine]
"""Single-line text: no control characters at all. Give length limits before the check:
``Annotated[str, StringConstraints(...), SingleLine]`` (after it, pydantic reports them with
its generic "too short" messages)."""
Text = Annotated[str, MultiLine]
"""Multi-line text: tab, line feed and carriage return allowed, no other control character."""


def parse_id(text: str | None) -> int | None:
    """A form's or query string's id, or None when it is not one (ASCII digits, 1..2**31-1)."""
    text = (text or "").strip()
    if not text.isascii() or not text.isdigit() or len(text) > 10:
        return None
    value = int(text)
    return value if 1 <= value <= MAX_ID else None


def parse_index(text: str | None, limit: int = MAX_WEAPON_INDEX) -> int | None:
    """A form's list index (a weapon's), or None when it is not one (ASCII digits, 0..limit)."""
    text = (text or "").strip()
    if not text.isascii() or not text.isdigit() or len(text) > 10:
        return None
    value = int(text)
    return value if value <= limit else None
