"""D20 figurines, weapons and house rules read from JSON and written back (RULINGS 3.1-3.2)."""

from __future__ import annotations

import pytest

from app.rules.d20.catalogue import EQUIPMENT
from app.rules.d20.ruleset import RULESET
from app.rules.d20.units import decode_unit, encode_unit
from app.rules.errors import InvalidFields, InvalidInput

decode_options, encode_options = RULESET.decode_options, RULESET.encode_options
KNIFE_OK = {"type": "hth", "name": "Knife", "power": 2}
TROOPER = {
    "name": "Psy Chronos",
    "kind": "figurine",
    "shot": 8,
    "hth": 6,
    "pd": 18,
    "evasion": 2,
    "dexterity": 5,
    "cp": 3,
    "weapons": [
        {"type": "gun", "name": "Assault rifle", "reach": 60, "power": 6, "automatic": True},
        {"type": "hth", "name": "Knife", "power": 2},
    ],
}


def test_a_figurine_and_its_own_weapons_round_trip() -> None:
    unit = decode_unit(TROOPER)
    assert (unit.shot, unit.pd, unit.cp, unit.su) == (8, 18, 3, False)
    assert [(w.name, w.reach, w.power) for w in unit.weapons] == [
        ("Assault rifle", 60, 6),
        ("Knife", 0, 2),
    ]
    assert decode_unit(encode_unit(unit)) == unit


def test_the_texts_equipment_takes_its_figures_from_the_catalogue() -> None:
    unit = decode_unit({"name": "SU", "kind": "su", "weapons": [{"type": "typhoon_charge"}]})
    (charge,) = unit.weapons
    assert (charge.power, charge.reach, charge.equipment.radius) == (35, 0, 30)
    assert unit.su and decode_unit(encode_unit(unit)) == unit
    named = decode_unit({"name": "SU", "weapons": [{"type": "defensive_grenade", "name": "Frag"}]})
    assert named.weapons[0].name == "Frag" and decode_unit(encode_unit(named)) == named
    assert {e.category for e in EQUIPMENT.values()} == {"gun", "hth", "grenade", "mine", "charge"}


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"name": "x", "shot": 41}, "shot"),
        ({"name": "x", "pd": -1}, "pd"),
        ({"name": "x", "cp": 0}, "cp"),
        ({"name": "x", "cp": 21}, "cp"),
        ({"name": "x", "kind": "hero"}, "kind"),
        ({"name": "x", "weapons": [{"type": "laser"}]}, "weapons.0.type"),
        ({"name": "x", "weapons": [{"type": "gun", "name": "G", "power": 3}]}, "weapons.0.reach"),
        (
            {"name": "x", "weapons": [{"type": "gun", "name": "G", "reach": -5, "power": 3}]},
            "weapons.0.reach",
        ),
        (
            {"name": "x", "weapons": [{"type": "gun", "name": "G", "reach": 5, "power": -1}]},
            "weapons.0.power",
        ),
        ({"name": "x", "weapons": [{"type": "defensive_grenade", "power": 30}]}, "weapons.0.power"),
        (
            {"name": "x", "weapons": [{"type": "hth", "name": "K", "power": 1, "automatic": True}]},
            "weapons.0.automatic",
        ),
        ({"name": "x", "colour": "red"}, "colour"),
    ],
)
def test_bad_input_names_its_field(data: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidInput) as err:
        decode_unit(data)
    assert err.value.field == field


def test_every_wrong_field_is_named_at_once() -> None:
    data = {
        "name": "x",
        "shot": 41,
        "kind": "hero",
        "weapons": [KNIFE_OK, {"type": "gun", "name": "G", "reach": 5, "power": -1}],
    }
    with pytest.raises(InvalidFields) as err:
        decode_unit(data)
    assert err.value.reasons() == {
        "kind": "must be one of figurine, su",
        "shot": "must be from 0 to 40",
        "weapons.1.power": "must be from 0 to 100",
    }
    assert err.value.field == "kind"  # the first, for a reader that shows one


def test_a_weapon_of_unknown_type_still_has_its_other_fields_read() -> None:
    bad = {"type": "laser", "colour": "red", "points": -2}
    with pytest.raises(InvalidFields) as err:
        decode_unit({"name": "x", "weapons": [bad, {"type": "hth", "name": "", "power": 1}]})
    assert err.value.reasons() == {
        "weapons.0.colour": "is not a known field",
        "weapons.0.type": "is not D20 equipment (see the catalogue)",
        "weapons.0.points": "must be from 0 to 10000",
        "weapons.1.name": "a hand-to-hand weapon needs a name",
    }


def test_the_unit_fields_are_the_forms_named_as_encode_unit_writes_them() -> None:
    written = encode_unit(decode_unit(TROOPER))
    assert {f.name for f in RULESET.unit_fields} == set(written) - {"weapons"}
    by_name = {f.name: f for f in RULESET.unit_fields}
    assert (by_name["shot"].low, by_name["shot"].high) == (0, 40)
    assert (by_name["cp"].low, by_name["cp"].high) == (1, 20)
    assert by_name["kind"].choice_values == ("figurine", "su")


def test_house_rules_round_trip() -> None:
    options = decode_options({"margin_wounds": True, "cover_bonus": 3})
    assert decode_options(encode_options(options)) == options
    with pytest.raises(InvalidInput) as err:
        decode_options({"cover_bonus": 99})
    assert err.value.field == "cover_bonus"
