"""A situation field says which attacks it applies to (``InputField.when``): a Burst only
where a MachineGun or an AutoGun fires, an Arc where one of those or a FlameThrower does."""

from __future__ import annotations

import pytest

from app.rules.brikwars.ruleset import RULESET


@pytest.mark.parametrize(
    ("name", "weapon_types", "applies"),
    [
        ("burst", ("machinegun",), True),
        ("burst", ("gun", "autogun"), True),
        ("burst", ("flamethrower",), False),
        ("burst", ("gun",), False),
        ("arc", ("flamethrower",), True),
        ("arc", ("machinegun",), True),
        ("arc", ("blastgun",), False),
        ("arc", (), False),
        ("distance", ("gun",), True),
        ("distance", (), True),
    ],
)
def test_a_situation_field_applies_to_the_attacks_it_changes(name, weapon_types, applies):
    field = next(f for f in RULESET.situation_fields if f.name == name)
    assert field.applies({}, weapon_types) is applies


def test_a_battles_situation_fields_say_the_same():
    burst = next(f for f in RULESET.battle_situation_fields if f.name == "burst")
    assert not burst.applies({}, ("gun",))
