"""Free text the engine keeps (unit names, weapon labels): no control characters.

NUL and the other C0/C1 control characters (and lone UTF-16 surrogates) cannot be stored by
every database (PostgreSQL refuses NUL in text and JSON), so an army saved on one could not
be exported to another. They are refused everywhere text comes in: single-line text allows
none of them; multi-line text (notes) allows tab, line feed and carriage return.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

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


def plain_field_words(data: Mapping[str, Any]) -> dict[str, str]:
    """Stored fields as change summaries name them, for a ruleset without words of its own:
    'Mind die': '6'. Nested values read 'key value' ('Ammo': 'xsize 2, rounds 1').

    >>> plain_field_words({"structure_level": 2, "tags": ["a", "b"], "ammo": {"xsize": 4}})
    {'Structure level': '2', 'Tags': 'a, b', 'Ammo': 'xsize 4'}
    """
    return {_label(key): _value(value) for key, value in data.items()}


def _label(key: str) -> str:
    text = key.replace("_", " ")
    return text[:1].upper() + text[1:]


def _value(value: object) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{k.replace('_', ' ')} {_value(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_value(v) for v in value) or "none"
    if value is None or value == "":
        return "none"
    return str(value)
