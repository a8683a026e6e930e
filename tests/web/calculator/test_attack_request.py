"""One attack request, three doors: the JSON bodies, the calculator's query string and the
battle page's form read the same attack into the same ``AttackRequest``, and each names a
bad field the way its callers know it."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from fastapi.exceptions import RequestValidationError

from app.rules.registry import get_ruleset
from app.services.calculator import Follower, Loadout
from app.web.api.calculator import SavedAttackIn, SavedRollIn
from app.web.attack_request import AttackRequest, Params, door_fields, from_form, from_query
from app.web.battle_schemas import AttackIn, RollIn
from app.web.errors import field_errors

BRIKWARS = get_ruleset("brikwars")
D20 = get_ruleset("d20")

# One BrikWars attack: unit 3 fires its weapons 1 and 3 at unit 4, then along the Arc at
# unit 5, from 6 inches up 1.5 with a charge; seed 7.
SITUATION = {"distance": 6, "height": 1.5, "charge": True, "small": "1x1"}
FORM_SITUATION = {"distance": "6", "height": "1.5", "charge": "on", "small": "1x1"}


def _query() -> AttackRequest:
    pairs = [("attacker", "3"), ("weapons", "1,3"), ("target", "4"), ("follower", "5")]
    pairs += [("follower_distance", "2.5"), ("follower_spans", "1"), *FORM_SITUATION.items()]
    request, errors = from_query(Params(pairs), BRIKWARS)
    assert errors == {}
    return request


def _saved_json() -> AttackRequest:
    body = SavedRollIn.model_validate(
        {
            "attacker": {"unit_id": 3, "weapon_ids": [1], "weapon_id": 3},
            "target": {"unit_id": 4},
            "situation": SITUATION,
            "followers": [{"unit_id": 5, "distance": 2.5, "spans": 1}],
            "seed": 7,
        }
    )
    return body.request(BRIKWARS)


def _battle_json() -> AttackRequest:
    body = RollIn.model_validate(
        {
            "attacker_id": 3,
            "weapons": [1, 3],
            "target_id": 4,
            "situation": SITUATION,
            "followers": [{"unit_id": 5, "distance": 2.5, "spans": 1}],
            "seed": 7,
        }
    )
    return body.request(BRIKWARS)


def _form() -> AttackRequest:
    form = {"attacker_id": "3", "weapon.3": "on", "weapon.1": "on", "target_id": "4"}
    form |= {"follower.0.unit_id": "5", "follower.0.distance": "2.5", "follower.0.spans": "1"}
    request, errors = from_form(form | FORM_SITUATION | {"seed": "7"}, BRIKWARS)
    assert errors == {} and request is not None
    return request


def _on_battle_fields(request: AttackRequest) -> AttackRequest:
    """The request with only the situation a battle carries (it keeps the rest itself)."""
    kept = {f.name for f in door_fields(BRIKWARS, "battle")}
    situation = {k: v for k, v in request.situation.items() if k in kept}
    return replace(request, situation=situation, seed=7)


def test_the_four_readers_give_one_request() -> None:
    expected = AttackRequest(
        attacker=Loadout(3, (1, 3)),
        target_id=4,
        situation={f.name: f.default for f in BRIKWARS.situation_fields}
        | {"distance": 6.0, "height": 1.5, "charge": True, "small": "1x1", "visible_size": None},
        followers=(Follower(5, Fraction(5, 2), 1, None),),  # no blast_distance (T8)
    )
    assert _query() == expected
    assert _saved_json() == replace(expected, seed=7)
    # a battle's situation is its battle_situation_fields (Homing In is the battle's own)
    assert _battle_json() == _form() == _on_battle_fields(expected)
    assert "homing_in" in expected.situation and "homing_in" not in _form().situation


def test_the_request_is_what_the_calculator_and_the_battle_take() -> None:
    calc = _query().calculation(BRIKWARS)
    assert calc.situation.distance == 6 and calc.situation.height == Fraction(3, 2)
    assert calc.followers == (Follower(5, Fraction(5, 2), 1, None),)
    attack = _form().battle_attack()
    assert attack["attacker_id"] == 3 and attack["weapons"] == (1, 3)
    assert attack["followers"] == [(5, Fraction(5, 2), 1, None)]
    assert attack["situation"]["height"] == 1.5 and "homing_in" not in attack["situation"]


def test_a_third_of_an_inch_stays_exact_through_the_query() -> None:
    request, errors = from_query({"height": "1/3"}, BRIKWARS)
    assert errors == {} and request.situation["height"] == Fraction(1, 3)
    assert request.calculation(BRIKWARS).situation.height == Fraction(1, 3)


def _json_fields(body: Any) -> list[tuple[str, str]]:
    with pytest.raises(RequestValidationError) as refused:
        body.request(BRIKWARS)
    return [(e["field"], e["reason"]) for e in field_errors(list(refused.value.errors()))]


def test_a_bad_distance_is_named_by_each_door_as_before() -> None:
    saved = SavedAttackIn.model_validate(
        {"attacker": {"unit_id": 3}, "target": {"unit_id": 4}, "situation": {"distance": -1}}
    )
    assert _json_fields(saved) == [("situation.distance", "must be at least 0.0")]
    battle = AttackIn.model_validate(
        {"attacker_id": 3, "weapons": [0], "target_id": 4, "situation": {"distance": -1}}
    )
    assert _json_fields(battle) == [("situation.distance", "must be at least 0.0")]
    _, errors = from_query({"distance": "-1"}, BRIKWARS)
    assert errors == {"distance": "must be from 0 to 1000 inches"}
    form = {"attacker_id": "3", "weapon.0": "on", "target_id": "4", "distance": "-1"}
    assert from_form(form, BRIKWARS) == (None, {"distance": "must be at least 0.0"})


def test_a_bad_further_target_is_named_by_each_door_as_before() -> None:
    follower = {"unit_id": 5, "distance": "far"}
    saved = SavedAttackIn.model_validate(
        {"attacker": {"unit_id": 3}, "target": {"unit_id": 4}, "followers": [follower]}
    )
    assert [f for f, _ in _json_fields(saved)] == ["followers.0.distance"]
    battle = AttackIn.model_validate(
        {"attacker_id": 3, "weapons": [0], "target_id": 4, "followers": [follower]}
    )
    reason = "needs a number of inches, like 6 or 2.5"
    assert _json_fields(battle) == [("followers.0.distance", reason)]
    _, errors = from_query({"follower": "5", "follower_distance": "far"}, BRIKWARS)
    assert errors == {"follower-0": reason}
    form = {"attacker_id": "3", "weapon.0": "on", "target_id": "4"}
    form |= {"follower.0.unit_id": "5", "follower.0.distance": "far"}
    assert from_form(form, BRIKWARS) == (None, {"followers": reason})


def test_a_battle_body_names_a_bad_situation_and_a_bad_further_target_at_once() -> None:
    battle = AttackIn.model_validate(
        {
            "attacker_id": 3,
            "weapons": [0],
            "target_id": 4,
            "situation": {"homing_in": 1},
            "followers": [{"unit_id": 5, "colour": "red"}],
        }
    )
    assert _json_fields(battle) == [
        ("situation.homing_in", "is not a known field"),
        ("followers.0.colour", "is not a known field"),
    ]


def test_the_form_names_its_own_fields_first_by_the_body_order() -> None:
    form = {"target_id": "x", "seed": "-1", "distance": "far", "follower.0.unit_id": "y"}
    request, errors = from_form(form, BRIKWARS)
    assert request is None
    assert errors == {
        "attacker_id": "choose a unit",
        "weapons": "tick at least one weapon",
        "target_id": "choose a unit",
        "distance": "Input should be a valid number, unable to parse string as a number",
        "followers": "must be a whole number",
        "seed": "must be at least 0",
    }
    assert list(errors) == ["attacker_id", "weapons", "target_id", "distance", "followers", "seed"]


def test_the_query_names_each_key_and_computes_on_with_defaults() -> None:
    params = {"attacker": "x", "weapons": "1,y", "bonus_die": "d20", "follower": "z"}
    request, errors = from_query(params, BRIKWARS)
    assert errors == {
        "follower-0": "needs a unit",
        "bonus_die": "must be one of same, d6, none",
        "attacker": "needs a unit number",
        "weapons": "needs unit or weapon numbers",
    }
    assert request == AttackRequest(
        attacker=Loadout(None, ()), situation=from_query({}, BRIKWARS)[0].situation
    )


def test_a_situation_the_ruleset_refuses_whole_leaves_the_query_on_defaults() -> None:
    # d20's objects are text the fields take, but its own reading refuses
    request, errors = from_query({"objects": "many", "distance": "12"}, D20)
    assert list(errors) == ["objects"]
    assert request.situation == from_query({}, D20)[0].situation


@pytest.mark.parametrize("cover", [1, 0, "on", "yes", "true"])
def test_a_battle_bodys_further_target_takes_true_or_false_only(cover: object) -> None:
    body = {"attacker_id": 3, "weapons": [0], "target_id": 4}
    follower = {"unit_id": 5, "cover": cover}
    with pytest.raises(RequestValidationError) as refused:
        AttackIn.model_validate(body | {"followers": [follower]}).request(D20)
    assert [e["field"] for e in field_errors(refused.value.errors())] == ["followers.0.cover"]
    for flag in (True, False):
        request = AttackIn.model_validate(
            body | {"followers": [{"unit_id": 5, "cover": flag}]}
        ).request(D20)
        cover_at = [f.name for f in D20.target_fields].index("cover")
        assert request.followers[0].values[cover_at] is flag
