"""The API's situation models are made from the declared situation fields, and nothing else."""

from __future__ import annotations

from fractions import Fraction

import pytest
from pydantic import ValidationError

from app.rules.brikwars.situation_fields import (
    BATTLE_SITUATION_FIELDS,
    SITUATION_FIELDS,
    situation_from_input,
)
from app.rules.brikwars.turn import TurnSituation
from app.rules.registry import DEFAULT_RULESET, get_ruleset
from app.web.api.calculator import follower_in, situation_in
from app.web.battle_schemas import SituationIn as BattleSituationIn

CalculatorSituationIn = situation_in(DEFAULT_RULESET)
FollowerIn = follower_in(DEFAULT_RULESET)


@pytest.mark.parametrize(
    ("model", "fields"),
    [(CalculatorSituationIn, SITUATION_FIELDS), (BattleSituationIn, BATTLE_SITUATION_FIELDS)],
)
def test_each_model_has_the_fields_names_defaults_and_bounds(model, fields) -> None:  # type: ignore[no-untyped-def]
    schema = model.model_json_schema()["properties"]
    assert list(schema) == [f.name for f in fields]
    for field in fields:
        prop = schema[field.name]
        if field.kind == "whole":
            assert (prop["minimum"], prop["maximum"]) == (field.low, field.high)
        if not field.optional:
            assert prop["default"] == field.default
    assert model().to_engine() == TurnSituation()


def test_the_model_and_the_page_reader_agree() -> None:
    data = {"distance": 2.5, "visible_size": "0.25", "small": "1x1", "arc": 4, "charge": True}
    model = CalculatorSituationIn.model_validate(data)
    assert model.to_engine() == situation_from_input(data)[0]
    assert model.to_engine().visible_size == Fraction(1, 4)


def test_the_battle_model_refuses_homing_in_which_the_battle_keeps() -> None:
    with pytest.raises(ValidationError):
        BattleSituationIn.model_validate({"homing_in": 1})


def test_the_further_target_model_is_made_from_the_target_fields() -> None:
    rules = get_ruleset(DEFAULT_RULESET)
    schema = FollowerIn.model_json_schema()["properties"]
    assert list(schema) == ["unit_id", "figures", *(f.name for f in rules.target_fields)]
    follower = FollowerIn.model_validate({"unit_id": 5, "distance": 2.5})
    assert follower.field_values() == (Fraction(5, 2), 0, None)  # no blast_distance
    assert follower.figures is None
    assert FollowerIn.model_validate({"unit_id": 5, "figures": 3}).figures == 3
    for bad in (0, "x", True):
        with pytest.raises(ValidationError):
            FollowerIn.model_validate({"unit_id": 5, "figures": bad})
    with pytest.raises(ValidationError):
        FollowerIn.model_validate({"unit_id": 5, "spans": rules.max_targets + 1})
