"""Units to and from JSON-ready dicts."""

from __future__ import annotations

import json
from fractions import Fraction as F

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rules.brikwars import Explosive, Payload, UnitSpec, WeaponSpec, hero, minifig
from app.rules.brikwars.serialize import number_to_json, unit_from_dict, unit_to_dict
from app.rules.errors import InvalidInput

TANK = UnitSpec(
    name="Tank",
    size=F(7, 2),
    structure_level=3,
    propulsion="ground",
    move=6,
    mind_die=None,
    specialties=("pilot",),
    size_damage=1,
    weapons=(
        WeaponSpec("cannon", size=3, ammo=Explosive(2, variant="armor_piercing", rounds=4)),
        WeaponSpec("launcher", size=3, payload=Payload(Explosive(1, rounds=6), per_launch=3)),
        WeaponSpec("launcher", size=4, payload=Payload(object_size=F(3, 2))),
        WeaponSpec("machinegun", size=1, mount="small_turret", label="coax"),
        WeaponSpec("rocket", xsize=2, variant="phased"),
        WeaponSpec("armor_plating", size=3),
    ),
)


@pytest.mark.parametrize("unit", [TANK, minifig(), hero(weapons=(WeaponSpec("body_armor"),))])
def test_round_trip_through_json(unit):
    data = json.loads(json.dumps(unit_to_dict(unit)))
    assert unit_from_dict(data) == unit
    assert unit_from_dict(data).cost == unit.cost


def test_dict_shape():
    data = unit_to_dict(TANK)
    assert data["size"] == "3.5"
    assert data["weapons"][0] == {
        "type": "cannon",
        "mount": "mounted",
        "size": 3,
        "ammo": {"xsize": 2, "variant": "armor_piercing", "rounds": 4},
    }
    assert data["weapons"][2]["payload"] == {"per_launch": 1, "object_size": "1.5"}


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (F(3), 3),
        (F(3, 2), "1.5"),
        (F(1, 3), "1/3"),
        (F(1, 8), "0.125"),
        (F(-5, 2), "-2.5"),
        (F(1, 2**40), "0." + str(5**40).rjust(40, "0")),
    ],
)
def test_number_to_json(number, text):
    assert number_to_json(number) == text
    assert F(text) == number


@given(st.fractions(min_value=-100, max_value=100, max_denominator=1000))
def test_numbers_survive(number):
    assert F(str(number_to_json(number))) == number


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ("tank", "unit"),
        ({"name": "T", "size": 3, "structure_level": 1, "colour": "red"}, "colour"),
        ({"name": "T", "size": 0, "structure_level": 1}, "size"),
        ({"name": "T", "size": 3, "structure_level": 1, "weapons": {}}, "weapons"),
        ({"name": "T", "size": 3, "structure_level": 1, "weapons": ["gun"]}, "weapons.0"),
        (
            {
                "name": "T",
                "size": 3,
                "structure_level": 1,
                "weapons": [{"type": "gun", "size": 1}, {"type": "gun", "size": "x"}],
            },
            "weapons.1.size",
        ),
        (
            {
                "name": "T",
                "size": 3,
                "structure_level": 1,
                "weapons": [{"type": "cannon", "size": 2, "ammo": {"xsize": 0}}],
            },
            "weapons.0.ammo.xsize",
        ),
        (
            {
                "name": "T",
                "size": 3,
                "structure_level": 1,
                "weapons": [
                    {
                        "type": "launcher",
                        "size": 2,
                        "payload": {"explosive": {"xsize": 1, "boom": 1}},
                    }
                ],
            },
            "weapons.0.payload.explosive.boom",
        ),
        (
            {
                "name": "T",
                "size": 3,
                "structure_level": 1,
                "weapons": [{"type": "launcher", "size": 2, "payload": {"per_launch": 2}}],
            },
            "weapons.0.payload",
        ),
        (
            {
                "name": "T",
                "size": 3,
                "structure_level": 1,
                "weapons": [{"type": "gun", "size": 2, "ammo": {"xsize": 1}}],
            },
            "weapons.0.ammo",
        ),
        (
            {"name": "T", "size": 3, "structure_level": 1, "weapons": [{"type": "ray"}]},
            "weapons.0.type",
        ),
    ],
)
def test_errors_name_the_path(data, field):
    with pytest.raises(InvalidInput) as err:
        unit_from_dict(data)
    assert err.value.field == field


def test_missing_required_fields_name_the_field() -> None:
    """A weapon without a type, a unit without a name: InvalidInput, never a TypeError."""
    import pytest

    from app.rules.brikwars import unit_from_dict
    from app.rules.errors import InvalidInput

    with pytest.raises(InvalidInput) as no_type:
        unit_from_dict({"name": "T", "kind": "minifig", "weapons": [{"size": 1}]})
    assert (no_type.value.field, no_type.value.reason) == ("weapons.0.type", "is required")
    with pytest.raises(InvalidInput) as no_name:
        unit_from_dict({"kind": "minifig"})
    assert no_name.value.field == "name"
    with pytest.raises(InvalidInput) as no_xsize:
        unit_from_dict(
            {
                "name": "T",
                "size": 3,
                "structure_level": 1,
                "weapons": [{"type": "cannon", "size": 2, "ammo": {"rounds": 2}}],
            }
        )
    assert no_xsize.value.field == "weapons.0.ammo.xsize"
