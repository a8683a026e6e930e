"""The attack situation's declared fields agree with the engine and read every door's input."""

from __future__ import annotations

from dataclasses import fields
from fractions import Fraction

import pytest

from app.rules.brikwars.situation_fields import (
    BATTLE_SITUATION_FIELDS,
    SITUATION_FIELDS,
    situation_from_input,
    situation_to_input,
)
from app.rules.brikwars.turn import TurnSituation


def test_the_fields_are_the_situation_in_order_with_its_defaults() -> None:
    default = TurnSituation()
    assert [f.name for f in SITUATION_FIELDS] == [f.name for f in fields(TurnSituation)]
    assert {f.name: f.default for f in SITUATION_FIELDS} == {
        f.name: getattr(default, f.name) for f in fields(TurnSituation)
    }
    assert "homing_in" not in {f.name for f in BATTLE_SITUATION_FIELDS}


def test_form_text_and_json_values_give_the_same_situation() -> None:
    form = {"distance": "2.5", "height": "1/3", "small": "2x2", "gunner": "on", "arc": "3"}
    json = {"distance": 2.5, "height": "1/3", "small": "2x2", "gunner": True, "arc": 3}
    expected = TurnSituation(
        distance=Fraction(5, 2), height=Fraction(1, 3), small="2x2", gunner=True, arc=3
    )
    assert situation_from_input(form) == (expected, {})
    assert situation_from_input(json) == (expected, {})


@pytest.mark.parametrize(
    ("data", "field", "reason"),
    [
        ({"distance": "-1"}, "distance", "must be from 0 to 1000 inches"),
        ({"distance": "far"}, "distance", "needs a number of inches, like 6 or 2.5"),
        ({"visible_sections": "4"}, "visible_sections", "must be from 1 to 3"),
        ({"arc": "13"}, "arc", "must be from 1 to 12"),
        ({"burst": "21"}, "burst", "must be from 0 to 20"),
        ({"divert_turns": "21"}, "divert_turns", "must be from 0 to 20"),
        ({"homing_in": "x"}, "homing_in", "needs a whole number"),
        ({"small": "3x3"}, "small", "must be one of 2x2, 1x1"),
        ({"charge": "maybe"}, "charge", "must be on or off"),
    ],
)
def test_a_refused_field_is_named_and_keeps_its_default(data, field, reason) -> None:  # type: ignore[no-untyped-def]
    situation, errors = situation_from_input({**data, "height": "2"})
    assert errors == {field: reason}
    assert situation == TurnSituation(height=Fraction(2))


def test_to_input_leaves_defaults_out_and_reads_back() -> None:
    situation = TurnSituation(
        distance=Fraction(0), visible_size=Fraction(1, 3), small="1x1", combined=True, burst=4
    )
    data = situation_to_input(situation)
    assert data == {
        "distance": "0",
        "visible_size": "1/3",
        "small": "1x1",
        "burst": "4",
        "combined": "1",
    }
    assert situation_from_input(data) == (situation, {})
    assert situation_to_input(TurnSituation()) == {}
