"""The Degrees ruleset on ``RulesetBase``: a unit's wrong fields named all at once, the unit
form's declared fields, and each situation field applying exactly where the rules read it."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.degrees.catalogue import WEAPONS
from app.rules.degrees.ruleset import RULESET
from app.rules.degrees.situation import SITUATION_FIELDS
from app.rules.errors import InvalidFields
from app.rules.fields import FieldValue, InputField
from app.rules.ruleset import TargetInput

FIELDS = {f.name: f for f in SITUATION_FIELDS}
OPTIONS = RULESET.decode_options(None)
TARGET = RULESET.decode_unit({"name": "T", "degree": 3, "back_armour": 1})


def test_a_unit_names_every_wrong_field_at_once_by_its_path() -> None:
    data = {
        "name": "Simo",
        "degree": 11,
        "hp": 0,
        "weapons": [{"type": "rifle"}, {"type": "rifle", "degree": 0}],
    }
    with pytest.raises(InvalidFields) as err:
        RULESET.decode_unit(data)
    assert set(err.value.reasons()) == {"degree", "hp", "weapons.1.degree"}
    assert err.value.field == "degree"  # a reader that shows one still names a real field


def test_an_unknown_key_a_bad_sense_and_a_bad_weapon_type_are_named_together() -> None:
    data = {
        "name": " ",
        "colour": "red",
        "senses": "Vision, smell",
        "weapons": [{"type": "blaster", "degree": 11}, {"type": "rifle", "real_ammo": True}],
    }
    with pytest.raises(InvalidFields) as err:
        RULESET.decode_unit(data)
    assert set(err.value.reasons()) == {
        "name",
        "colour",
        "senses",
        "weapons.0.type",
        "weapons.0.degree",
        "weapons.1.real_ammo",
    }


def test_the_unit_form_asks_every_field_encode_unit_writes_but_the_weapons() -> None:
    unit = RULESET.decode_unit(
        {"name": "U", "human": True, "senses": "Audition", "weapons": [{"type": "pistol"}]}
    )
    written = set(RULESET.encode_unit(unit)) - {"weapons"}
    assert [f.name for f in RULESET.unit_fields][:2] == ["name", "kind"]
    assert {f.name for f in RULESET.unit_fields} == written


def _changed(field: InputField) -> FieldValue:
    """A value of ``field`` other than its default that its rule reads."""
    return {
        "range": "far",
        "medium": "heavy",
        "revealed": True,
        "set_degree": 1,
        "compress_op": 2,
        "penetrate": "never",
        "pump": 2,
        "drawn": True,
        "stay_hidden": True,
        "visibility": "concealed",
        "environment": True,
        "stun_bloom": True,
        "jump_op": 5,
        "break_free": True,
    }[field.name]


def _result(weapon: str, situation: dict[str, Any]) -> tuple[Any, ...]:
    """Everything an attack with the one weapon makes of the situation."""
    scale = WEAPONS[weapon].scale
    unit = RULESET.decode_unit(
        {"name": "A", "kind": scale, "degree": 3, "ap": 12, "weapons": [{"type": weapon}]}
    )
    attack = RULESET.attack(unit, (0,), [TargetInput(TARGET)], situation, OPTIONS)
    return attack.odds(), attack.problems(), attack.ap_cost


WHEN_FIELDS = [f for f in SITUATION_FIELDS if f.when]
BASES: tuple[dict[str, Any], ...] = (
    {"range": "close"},
    {"range": "very_far"},
    {"range": "present", "carried": 2, "pump": 1},  # a gas gun pumped to its max
    {"range": "close", "bloom": 3},  # incandescent
    {"range": "close", "set_degree": 1},  # set to stun
)


def test_only_the_fields_some_weapons_ignore_declare_when_they_apply() -> None:
    assert [f.name for f in WHEN_FIELDS] == [
        "range",
        "medium",
        "revealed",
        "set_degree",
        "compress_op",
        "penetrate",
        "pump",
        "drawn",
        "stay_hidden",
        "visibility",
        "environment",
        "stun_bloom",
        "jump_op",
        "break_free",
    ]


def test_a_few_answers_of_applies() -> None:
    medium, revealed, pump = FIELDS["medium"], FIELDS["revealed"], FIELDS["pump"]
    assert medium.applies({}, ("rifle", "punch_gun")) and not medium.applies({}, ("rifle",))
    assert revealed.applies({"range": "very_far"}, ("inter_offer",))
    assert not revealed.applies({"range": "far"}, ("inter_offer",))
    assert not revealed.applies({"range": "very_far"}, ("rifle",))
    assert pump.applies({}, ("gas_gun",)) and not pump.applies({}, ("p_gun",))
    assert not FIELDS["penetrate"].applies({}, ("p_gun", "a_am_converter"))
    assert FIELDS["stay_hidden"].applies({}, ("pistol",))
    assert not FIELDS["stay_hidden"].applies({}, ("modern_pistol",))
    assert FIELDS["bloom"].applies({}, ("p_gun",)) and FIELDS["bloom"].applies({}, ())
    assert FIELDS["range"].applies({}, ("rifle",)) and FIELDS["range"].applies({}, ("gas_gun",))
    assert not FIELDS["range"].applies({}, ("katana",))  # a blade reads no range
    assert not FIELDS["range"].applies({}, ("grenade",))  # an explosive's reach is by location


@pytest.mark.parametrize("field", WHEN_FIELDS, ids=lambda f: f.name)
def test_a_field_changes_nothing_where_it_does_not_apply(field: InputField) -> None:
    for base in BASES:
        for weapon in WEAPONS:
            if field.applies(base, (weapon,)):
                continue
            changed = base | {field.name: _changed(field)}
            assert _result(weapon, changed) == _result(weapon, base), (weapon, base)


@pytest.mark.parametrize("field", WHEN_FIELDS, ids=lambda f: f.name)
def test_a_field_changes_some_attack_where_it_applies(field: InputField) -> None:
    def differs(weapon: str, base: dict[str, Any]) -> bool:
        changed = base | {field.name: _changed(field)}
        return _result(weapon, changed) != _result(weapon, base)

    assert any(
        differs(weapon, base)
        for base in BASES
        for weapon in WEAPONS
        if field.applies(base, (weapon,))
    )
