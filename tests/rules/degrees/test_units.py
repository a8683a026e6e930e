"""Degrees units, weapons and house rules read from JSON and written back (RULINGS 2.2-2.3)."""

from __future__ import annotations

import pytest

from app.rules.degrees.catalogue import DEFAULT_SENSE_ORDER, WEAPON_TYPES, WEAPONS
from app.rules.degrees.options import decode_options, encode_options
from app.rules.degrees.units import decode_unit, encode_unit
from app.rules.errors import InvalidInput


def test_a_fresh_unit_has_armour_and_hp_of_its_degree_three_ap_and_no_op() -> None:
    unit = decode_unit({"name": "Simo", "kind": "personnel", "degree": 3})
    assert (unit.armour, unit.back_armour, unit.hp, unit.ap, unit.op) == (3, 0, 3, 3, 0)


def test_a_weapon_takes_the_tables_usual_degree_unless_given_another() -> None:
    unit = decode_unit(
        {
            "name": "Ferret",
            "degree": 4,
            "weapons": [{"type": "gamma_gun"}, {"type": "gas_gun", "degree": 7, "label": "big"}],
        }
    )
    assert [w.degree for w in unit.weapons] == [5, 7]
    assert unit.weapons[1].name == 'Gas gun 7-max "big"'
    assert decode_unit(encode_unit(unit)) == unit


def test_senses_are_ordered_as_chosen_then_the_table() -> None:
    unit = decode_unit({"name": "T", "senses": "Audition, vision, Analgesia, nociception"})
    assert unit.senses[:4] == ("audition", "vision", "analgesia", "nociception")
    assert sorted(unit.senses) == sorted(DEFAULT_SENSE_ORDER)
    assert decode_unit(encode_unit(unit)) == unit


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"name": "x", "degree": 0}, "degree"),
        ({"name": "x", "degree": 11}, "degree"),
        ({"name": "x", "kind": "galactic"}, "kind"),
        ({"name": "x", "armour": -1}, "armour"),
        ({"name": "x", "hp": 0}, "hp"),
        ({"name": "x", "ap": -1}, "ap"),
        ({"name": "x", "weapons": [{"type": "blaster"}]}, "weapons.0.type"),
        ({"name": "x", "weapons": [{"type": "rifle", "degree": 11}]}, "weapons.0.degree"),
        ({"name": "x", "weapons": [{"type": "rifle", "real_ammo": True}]}, "weapons.0.real_ammo"),
        ({"name": "x", "senses": "Vision, smell"}, "senses"),
        ({"name": "x", "senses": "Vision, vision"}, "senses"),
        ({"name": "x", "colour": "red"}, "colour"),
        ({"name": " "}, "name"),
    ],
)
def test_bad_input_names_its_field(data: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidInput) as err:
        decode_unit(data)
    assert err.value.field == field


def test_every_named_weapon_has_a_type_and_every_type_a_weapon() -> None:
    assert {w.type for w in WEAPONS.values()} == set(WEAPON_TYPES)
    assert all(1 <= w.degree <= 10 for w in WEAPONS.values())


def test_house_rules_round_trip_and_refuse_an_unknown_weapon() -> None:
    options = decode_options({"allow_over_budget": True, "costs": "gamma_gun = 7, pistol=0"})
    assert dict(options.costs) == {"gamma_gun": 7, "pistol": 0}
    assert decode_options(encode_options(options)) == options
    with pytest.raises(InvalidInput) as err:
        decode_options({"costs": "laser = 3"})
    assert err.value.field == "costs"
