"""Free text the engine keeps (unit names, weapon labels): no control characters.

NUL and the other C0/C1 control characters (and lone UTF-16 surrogates) cannot be stored by
every database (PostgreSQL refuses NUL in text and JSON), so an army saved on one could not
be exported to another. They are refused everywhere text comes in: single-line text allows
none of them; multi-line text (notes) allows tab, line feed and carriage return.
"""

from __future__ import annotations

import re

from app.rules.errors import InvalidInput

_SINGLE_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_MULTI_LINE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
CONTROL_REASON = "must not contain control characters (such as NUL)"
MULTI_LINE_REASON = "must not contain control characters other than tab and line breaks"


def control_character_reason(text: str, *, multiline: bool = False) -> str | None:
    """Why ``text`` is refused, or None when it holds no forbidden character.

    >>> control_character_reason("left claw") is None
    True
    >>> control_character_reason("a\\x00b")
    'must not contain control characters (such as NUL)'
    >>> control_character_reason("line 1\\nline 2", multiline=True) is None
    True
    """
    if multiline:
        return MULTI_LINE_REASON if _MULTI_LINE.search(text) else None
    return CONTROL_REASON if _SINGLE_LINE.search(text) else None


def plain_text(value: object, field_name: str, *, multiline: bool = False) -> str:
    """``value`` when it is text without forbidden characters, else ``InvalidInput``."""
    if not isinstance(value, str):
        raise InvalidInput(field_name, "must be text")
    reason = control_character_reason(value, multiline=multiline)
    if reason is not None:
        raise InvalidInput(field_name, reason)
    return value
