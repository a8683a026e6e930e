"""The engine's number format and text check: hostile inputs are refused before any work."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction as F

import pytest

from app.rules.brikwars import unit_from_dict
from app.rules.brikwars.catalogue import to_fraction
from app.rules.brikwars.serialize import number_to_json
from app.rules.errors import InvalidInput
from app.rules.numbers import exact_number, number_text
from app.rules.text import control_character_reason, plain_text


@pytest.mark.parametrize(
    ("value", "number"),
    [
        (3, F(3)),
        ("3", F(3)),
        (" 2.5 ", F(5, 2)),
        (1.5, F(3, 2)),
        (0.1, F(1, 10)),
        ("0.25", F(1, 4)),
        ("0.125", F(1, 8)),  # eighths: denominator 8
        ("1/3", F(1, 3)),
        ("-1/100", F(-1, 100)),
        ("1e2", F(100)),
        ("2.5E-1", F(1, 4)),
        (Decimal("1.75"), F(7, 4)),
        (F(1, 7919), F(1, 7919)),  # the engine's own values pass unchanged
        (10**9, F(10**9)),
    ],
)
def test_the_documented_format_is_accepted(value: object, number: F) -> None:
    assert exact_number(value, "size") == number
    assert to_fraction(value, "size") == number


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("1e-100000", "too large an exponent"),  # ran > 12 min in number_to_json
        ("0." + "0" * 20000 + "1", "at most 20 characters"),  # a 500 after 15 s
        ("9" * 5000, "at most 20 characters"),
        ("1e99", "must be between"),
        ("1e100", "too large an exponent"),  # a three-digit exponent
        ("0.001", "is too precise"),
        ("1/101", "is too precise"),
        ("1/0", "must be a number"),
        ("nan", "must be a number"),
        ("inf", "must be a number"),
        ("-Infinity", "must be a number"),
        ("1_000", "must be a number"),
        ("١٢", "must be a number"),  # Arabic-Indic digits: Fraction() would take them
        ("0x10", "must be a number"),
        ("", "must be a number"),
        (True, "must be a number"),
        (False, "must be a number"),
        (None, "must be a number"),
        (10**4000, "must be between"),
        (-(10**10), "must be between"),
        (1e308, "must be between"),
        (float("nan"), "must be a number"),
        (float("inf"), "must be a number"),
        (1e-300, "too large an exponent"),
        (0.1 + 0.2, "is too precise"),
        (Decimal("1e-100000"), "too large an exponent"),
        (Decimal("NaN"), "must be a number"),
        ([1], "must be a number"),
    ],
    ids=lambda v: repr(v)[:30] if not isinstance(v, int) or abs(v) < 10**30 else "huge int",
)
def test_everything_else_is_refused_naming_the_field(value: object, reason: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        exact_number(value, "weapons.0.size")
    assert caught.value.field == "weapons.0.size"
    assert reason in caught.value.reason


def test_a_unit_with_a_hostile_size_is_refused_by_its_field() -> None:
    with pytest.raises(InvalidInput) as caught:
        unit_from_dict({"name": "T", "size": "1e-100000", "structure_level": 1})
    assert caught.value.field == "size"
    with pytest.raises(InvalidInput) as caught:
        unit_from_dict(
            {"name": "T", "size": 3, "weapons": [{"type": "gun", "size": "0." + "0" * 5000}]}
        )
    assert caught.value.field == "weapons.0.size"


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (F(1, 10**4000), "1/1" + "0" * 4000),  # was a loop over 4000 digits
        (F(3, 2**10000), None),
        (F(1, 5**30), "0." + str(2**30).rjust(30, "0")),
        (F(7, 3 * 2**200), None),
        (F(-1, 64), "-0.015625"),
        (F(10**40 + 1, 10**20), "100000000000000000000.00000000000000000001"),
    ],
    ids=lambda v: repr(v)[:30],
)
def test_number_to_json_is_safe_for_any_fraction(number: F, text: str | None) -> None:
    out = number_to_json(number)
    assert out == number_text(number)
    if text is not None:
        assert out == text
    assert isinstance(out, str) and F(out) == number


@pytest.mark.parametrize(
    "text",
    ["a\x00b", "tab\there", "line\nbreak", "\x1b[31m", "del\x7f", "c1\x85", "\ud800"],
)
def test_single_line_text_refuses_control_characters(text: str) -> None:
    assert control_character_reason(text) is not None
    with pytest.raises(InvalidInput) as caught:
        plain_text(text, "name")
    assert caught.value.field == "name"


def test_multi_line_text_allows_tab_and_line_breaks_only() -> None:
    assert control_character_reason("a\tb\r\nc", multiline=True) is None
    assert control_character_reason("a\x00b", multiline=True) is not None
    assert control_character_reason("a\x0bb", multiline=True) is not None
    assert control_character_reason("Ünïcödé — fine ✓", multiline=False) is None


def test_unit_names_and_weapon_labels_refuse_control_characters() -> None:
    with pytest.raises(InvalidInput) as caught:
        unit_from_dict({"name": "T\x00", "kind": "minifig"})
    assert caught.value.field == "name"
    with pytest.raises(InvalidInput) as caught:
        unit_from_dict(
            {"name": "T", "size": 3, "weapons": [{"type": "gun", "size": 1, "label": "a\x00"}]}
        )
    assert caught.value.field == "weapons.0.label"


@pytest.mark.parametrize(
    "module", ["app.rules.numbers", "app.rules.text", "app.rules.errors", "app.rules.fields"]
)
def test_docstring_examples(module: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0
