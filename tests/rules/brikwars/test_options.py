"""House rules: defaults from RULINGS, round trip, strict keys."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from app.rules.brikwars import (
    UnitSpec,
    WeaponSpec,
    activation_sets,
    army_cost,
    minifig,
    validate_army,
    validate_unit,
    weapon_stats,
)
from app.rules.brikwars.options import DEFAULT_OPTIONS, BrikWarsOptions
from app.rules.errors import InvalidInput


def test_defaults_follow_rulings():
    assert DEFAULT_OPTIONS.allow_over_budget is False
    assert DEFAULT_OPTIONS.bonus_die == "same"
    # BrikForge's own build rulings (docs/rulings.md) are on by default
    assert DEFAULT_OPTIONS.fractional_dice == "floor"
    assert DEFAULT_OPTIONS.turret_cost == "structure"
    assert DEFAULT_OPTIONS.compensating_power is True
    assert DEFAULT_OPTIONS.minifig_item_power is True
    assert BrikWarsOptions.from_dict(None) == DEFAULT_OPTIONS
    assert BrikWarsOptions.from_dict({}) == DEFAULT_OPTIONS


def test_round_trip():
    options = BrikWarsOptions(allow_over_budget=True, bonus_die="d6")
    data = options.to_dict()
    assert data == {
        "allow_over_budget": True,
        "bonus_die": "d6",
        "fractional_dice": "floor",
        "turret_cost": "structure",
        "compensating_power": True,
        "minifig_item_power": True,
    }
    assert BrikWarsOptions.from_dict(data) == options


def test_unknown_key_names_it():
    with pytest.raises(InvalidInput) as err:
        BrikWarsOptions.from_dict({"allow_over_budget": True, "colour": "red"})
    assert err.value.field == "colour"


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"bonus_die": "d8"}, "bonus_die"),
        ({"allow_over_budget": "yes"}, "allow_over_budget"),
        ({"allow_over_budget": 1}, "allow_over_budget"),
        ({"fractional_dice": "ceil"}, "fractional_dice"),
        ({"turret_cost": 0}, "turret_cost"),
        ({"compensating_power": None}, "compensating_power"),
        ({"minifig_item_power": "no"}, "minifig_item_power"),
    ],
)
def test_bad_values(data, field):
    with pytest.raises(InvalidInput) as err:
        BrikWarsOptions.from_dict(data)
    assert err.value.field == field


def test_not_a_mapping():
    with pytest.raises(InvalidInput) as err:
        BrikWarsOptions.from_dict(["allow_over_budget"])  # type: ignore[arg-type]
    assert err.value.field == "options"


# ---- each build ruling's option changes the outcome it names -----------------------------


@pytest.mark.parametrize(
    ("rounding", "size", "dice"),
    [
        ("floor", F(5, 2), 2),
        ("nearest", F(5, 2), 3),
        ("nearest", F(12, 5), 2),
        ("up", F(21, 10), 3),
        ("floor", F(1, 2), 1),
        ("nearest", F(1, 3), 1),
    ],
)
def test_fractional_dice_option(rounding, size, dice):
    options = BrikWarsOptions(fractional_dice=rounding)
    assert weapon_stats("gun", size=size, options=options).damage.dice == dice
    assert weapon_stats("melee_shield", size=size, options=options).deflection == dice
    # cost, Use and Range do not depend on it
    assert weapon_stats("gun", size=size, options=options).cost == 3 * size


def test_turret_cost_option():
    unit = UnitSpec(
        name="Tank",
        size=2,
        structure_level=1,
        weapons=(WeaponSpec("gun", size=2, mount="small_turret"),),
    )
    assert unit.cost == 2 + 6 + 1
    free = BrikWarsOptions(turret_cost="free")
    assert unit.cost_with(free) == 2 + 6
    assert army_cost([unit, unit], options=free) == 16
    findings = validate_army([unit], budget=8, options=free)
    assert findings == []
    assert [f.code for f in validate_army([unit], budget=8)] == ["over_budget"]


def test_compensating_power_option():
    heavy = minifig(
        specialties=("compensating",),
        weapons=(WeaponSpec("melee_weapon", size=4, mount="hand_held"),),
    )
    off = BrikWarsOptions(compensating_power=False)
    assert heavy.standing_power_with(off) == 2
    assert activation_sets(heavy, options=off) == [()]
    codes = sorted(f.code for f in validate_unit(heavy, options=off))
    assert codes == ["compensating_standing_still", "too_big"]


def test_minifig_item_power_option():
    trooper = minifig(
        weapons=(
            WeaponSpec("hand_weapon"),
            WeaponSpec("long_ranged_weapon"),
            WeaponSpec("two_handed_weapon"),
        )
    )
    assert activation_sets(trooper) == [(0,), (1,), (2,)]
    off = BrikWarsOptions(minifig_item_power=False)
    assert activation_sets(trooper, options=off) == [(0, 1, 2)]
