"""Declared input fields: parse, refuse with the field named, format back, describe."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.rules.errors import InvalidInput
from app.rules.fields import (
    InputField,
    describe,
    format_field,
    json_schema,
    parse_field,
    parse_fields,
)

DISTANCE = InputField("distance", "Distance", "inches", Fraction(0), high=Fraction(1000))
ARC = InputField("arc", "Arc", "whole", 1, low=1, high=6)
BLIND = InputField("firing_blind", "Firing blind", "flag", False)
SMALL = InputField(
    "small", "Small", "choice", None, choices=(("2x2", "2x2"), ("1x1", "1x1")), optional=True
)
NOTE = InputField("note", "Note", "text", "", high=10)
FIELDS = (DISTANCE, ARC, BLIND, SMALL, NOTE)


@pytest.mark.parametrize(
    ("field", "raw", "value"),
    [
        (DISTANCE, "2.5", Fraction(5, 2)),
        (DISTANCE, "1/3", Fraction(1, 3)),
        (DISTANCE, 4, 4),
        (DISTANCE, 2.5, Fraction(5, 2)),  # a JSON number
        (DISTANCE, Fraction(1, 3), Fraction(1, 3)),  # already exact
        (DISTANCE, "", Fraction(0)),
        (ARC, "3", 3),
        (ARC, 6, 6),
        (BLIND, "on", True),
        (BLIND, "", False),
        (BLIND, True, True),
        (SMALL, "1x1", "1x1"),
        (SMALL, "", None),
        (NOTE, "hello", "hello"),
    ],
)
def test_values_are_read(field: InputField, raw: object, value: object) -> None:
    assert parse_field(field, raw) == value


@pytest.mark.parametrize(
    ("field", "raw", "reason"),
    [
        (DISTANCE, "-1", "must be from 0 to 1000 inches"),
        (DISTANCE, "far", "needs a number of inches"),
        (DISTANCE, True, "must not be true or false"),
        (DISTANCE, "1e-100000", "exponent"),
        (DISTANCE, 1e-100, "exponent"),
        (DISTANCE, Fraction(2000), "must be from 0 to 1000 inches"),
        (ARC, "7", "must be from 1 to 6"),
        (ARC, "2.5", "needs a whole number"),
        (ARC, "9" * 40, "needs a whole number"),
        (ARC, False, "must not be true or false"),
        (BLIND, "maybe", "must be on or off"),
        (SMALL, "3x3", "must be one of 2x2, 1x1"),
        (NOTE, "a" * 11, "at most 10 characters"),
        (NOTE, "a\x00b", "control characters"),
    ],
)
def test_refusals_name_the_field(field: InputField, raw: object, reason: str) -> None:
    with pytest.raises(InvalidInput) as err:
        parse_field(field, raw)
    assert err.value.field == field.name
    assert reason in err.value.reason


def test_a_form_parses_whole_with_every_refusal() -> None:
    values, errors = parse_fields(FIELDS, {"distance": "x", "arc": "2", "firing_blind": "1"})
    assert errors == {"distance": "needs a number of inches, like 6 or 2.5"}
    assert values == {
        "distance": Fraction(0),
        "arc": 2,
        "firing_blind": True,
        "small": None,
        "note": "",
    }


@pytest.mark.parametrize("value", [Fraction(5, 2), Fraction(1, 3), Fraction(7), 12])
def test_format_then_parse_is_the_identity(value: Fraction | int) -> None:
    assert parse_field(DISTANCE, format_field(DISTANCE, value)) == value


def test_schema_and_description_carry_the_bounds() -> None:
    assert json_schema(ARC) == {
        "type": "integer",
        "minimum": 1,
        "maximum": 6,
        "title": "Arc",
        "default": 1,
    }
    assert json_schema(SMALL)["enum"] == ["2x2", "1x1"]
    assert describe(DISTANCE) == {
        "name": "distance",
        "label": "Distance",
        "kind": "inches",
        "default": 0,
        "min": 0,
        "max": 1000,
    }


def test_a_json_body_s_flags_are_true_or_false_only() -> None:
    """``strict`` (a JSON body's values): a ticked box's words are form text, not booleans;
    a missing flag still takes its default (ruling G9)."""
    for word in ("on", "yes", "1", "0", "", 1, 0):
        if isinstance(word, str):
            assert parse_field(BLIND, word) is (word in ("on", "yes", "1"))  # form text
        with pytest.raises(InvalidInput) as caught:
            parse_field(BLIND, word, strict=True)
        assert caught.value.field == "firing_blind"
        assert caught.value.reason == "must be true or false"
    assert parse_field(BLIND, True, strict=True) is True
    assert parse_field(BLIND, None, strict=True) is BLIND.default
    # only flags are stricter: numbers keep their JSON number or numeric string
    assert parse_field(DISTANCE, "2.5", strict=True) == Fraction(5, 2)
    values, errors = parse_fields([BLIND, DISTANCE], {"firing_blind": "on"}, strict=True)
    assert errors == {"firing_blind": "must be true or false"} and values["firing_blind"] is False
