"""Build validation (RULINGS §1.5 and chapter 8) and the text's examples."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from app.rules.brikwars import (
    BrikWarsOptions,
    Explosive,
    Payload,
    UnitSpec,
    WeaponSpec,
    activation_sets,
    army_cost,
    hold_classes,
    minifig,
    too_big,
    validate_army,
    validate_unit,
)
from app.rules.errors import InvalidInput


def creation(*weapons: WeaponSpec, **fields) -> UnitSpec:
    base = {"name": "Thing", "size": 3, "structure_level": 1, "mind_die": 6}
    base.update(fields)
    return UnitSpec(weapons=weapons, **base)


def codes(findings, severity=None):
    return [f.code for f in findings if severity is None or f.severity == severity]


def scorpiosaurus(size_damage=0) -> UnitSpec:
    return creation(
        WeaponSpec("melee_weapon", size=5, label="BioStinger"),
        WeaponSpec("melee_weapon", size=1, label="left claw"),
        WeaponSpec("melee_weapon", size=1, label="right claw"),
        name="Scorpiosaurus Rex",
        size=3,
        size_damage=size_damage,
    )


def test_scorpiosaurus_rex_power_6():
    """Chapter 8, "Power Limit Example: Scorpiosaurus Rex": Size 3", Power 6; the 5" stinger
    with one 1" claw, or the two claws; never all three."""
    rex = scorpiosaurus()
    assert rex.power == 6
    assert activation_sets(rex) == [(0, 1), (0, 2), (1, 2)]
    assert validate_unit(rex) == []


def test_scorpiosaurus_rex_after_size_damage():
    """Chapter 8, "Power Limit Example: Scorpiosaurus Rex": after an inch of Size Damage,
    Power 4; the stinger is too big (unless he Diverts All Power): two claws only."""
    rex = scorpiosaurus(size_damage=1)
    assert rex.effective_size == 2
    assert rex.power == 4
    assert activation_sets(rex) == [(1, 2)]
    findings = validate_unit(rex)
    assert [(f.severity, f.code, f.weapon) for f in findings] == [("warning", "too_big", 0)]
    assert "1 turn" in findings[0].message
    assert "BioStinger" in findings[0].message
    big = too_big(F(5), rex.power)
    assert (big.divert_turns, big.teamwork_power, big.helpers_power) == (1, 5, 1)


def test_missile_racks():
    """Chapter 8, "Payload Example: Missile Racks": a Size 3" Launcher loaded with six Size 1
    Explosives fires up to three per turn, with Use 6 Action Rolls."""
    racks = WeaponSpec("launcher", size=3, payload=Payload(Explosive(1, rounds=6), per_launch=3))
    titan = creation(racks, racks, name="Uber-Titan", size=6)
    assert racks.salvo_limit(1) == 3
    assert titan.weapon_stats(0).use == 6
    assert validate_unit(titan) == []
    four = WeaponSpec("launcher", size=3, payload=Payload(Explosive(1, rounds=6), per_launch=4))
    assert codes(validate_unit(creation(four, size=6))) == ["payload_too_big"]


@pytest.mark.parametrize(
    ("need", "power", "turns"),
    [(5, 4, 1), (8, 4, 1), (9, 4, 2), (12, 4, 2), (13, 4, 3), (3, 2, 1), (7, 1, 6)],
)
def test_divert_all_power_turns(need, power, turns):
    assert too_big(F(need), F(power)).divert_turns == turns


def test_divert_needs_power():
    big = too_big(F(2), F(0))
    assert big.divert_turns is None and big.teamwork_power == 2
    assert too_big(F(4), F(4)) is None


def test_size_zero_creation_warns_every_powered_weapon():
    dead = creation(
        WeaponSpec("gun", size=1),
        WeaponSpec("armor_plating", size=1),
        size=2,
        size_damage=2,
        structure_level=1,
    )
    findings = validate_unit(dead)
    assert [(f.code, f.weapon) for f in findings] == [("too_big", 0)]
    assert "cannot Divert" in findings[0].message


# ---- hand-held classes (RULINGS §1.5) ------------------------------------------------


@pytest.mark.parametrize(
    ("size", "cls"),
    [
        (1, "short"),
        (2, "short"),
        (F(5, 2), "bastard"),
        (3, "bastard"),
        (F(7, 2), "long"),
        (4, "long"),
        (F(9, 2), "too_big"),
    ],
)
def test_hold_classes_of_a_size_2_creation(size, cls):
    unit = creation(WeaponSpec("melee_weapon", size=size, mount="hand_held"), size=2)
    assert hold_classes(unit) == [cls]


def test_ranged_weapon_may_not_be_long():
    unit = creation(
        WeaponSpec("gun", size=4, mount="hand_held"),
        WeaponSpec("gun", size=3, mount="hand_held"),
        WeaponSpec("melee_weapon", size=4, mount="hand_held"),
        size=2,
    )
    findings = validate_unit(unit)
    assert [(f.code, f.weapon) for f in findings if f.severity == "error"] == [
        ("ranged_held_long", 0)
    ]


def test_hand_held_over_twice_size():
    unit = creation(WeaponSpec("melee_weapon", size=5, mount="hand_held"), size=2)
    assert codes(validate_unit(unit), "error") == ["too_big_to_hold"]
    mounted = creation(WeaponSpec("melee_weapon", size=5), size=2, structure_level=1)
    assert hold_classes(mounted) == [None]
    assert codes(validate_unit(mounted), "error") == []


def test_hand_held_class_compares_built_size_not_effective_size():
    """Ruling "hold by built Size" (docs/rulings.md)."""
    unit = creation(WeaponSpec("melee_weapon", size=3, mount="hand_held"), size=3, size_damage=2)
    assert hold_classes(unit) == ["short"]


def test_minifig_item_classes():
    trooper = minifig(
        weapons=(
            WeaponSpec("hand_weapon"),
            WeaponSpec("heavy_weapon"),
            WeaponSpec("two_handed_weapon"),
            WeaponSpec("shotgun"),
            WeaponSpec("body_armor"),
        )
    )
    assert hold_classes(trooper) == ["short", "bastard", "long", "bastard", None]


def test_heavy_wields_a_2_inch_machinegun_only_standing_still():
    """Chapter 8, "Compensating": most Heavies wield a Size 2" MachineGun; without
    Compensating it would be Long, which a Ranged weapon may not be."""
    gun = WeaponSpec("machinegun", size=2, mount="hand_held")
    heavy = minifig(specialties=("compensating",), weapons=(gun,))
    assert hold_classes(heavy) == ["short"]
    findings = validate_unit(heavy)
    assert codes(findings, "error") == []
    assert codes(findings, "warning") == ["compensating_standing_still"]
    assert codes(validate_unit(minifig(weapons=(gun,))), "error") == ["ranged_held_long"]


def test_heavy_wields_minifig_items_one_class_down():
    """Chapter 8, "Compensating": Heavy Weapons as Hand Weapons, Two-Handed Weapons as Heavy
    Weapons; a 4" Melee Weapon as a Two-Handed Weapon."""
    heavy = minifig(
        specialties=("compensating",),
        weapons=(
            WeaponSpec("heavy_weapon"),
            WeaponSpec("two_handed_weapon"),
            WeaponSpec("melee_weapon", size=4, mount="hand_held"),
        ),
    )
    assert hold_classes(heavy) == ["short", "bastard", "long"]


# ---- ammo, payload, turrets, structure, plating ----------------------------------------


@pytest.mark.parametrize(
    ("size", "x", "ok"),
    [(2, 2, True), (2, 3, False), (F(5, 2), 3, False), (5, 5, True), (1, 1, True)],
)
def test_cannon_ammo_limit(size, x, ok):
    unit = creation(WeaponSpec("cannon", size=size, ammo=Explosive(x)), size=5)
    assert ("ammo_too_big" not in codes(validate_unit(unit))) == ok


def test_cannon_without_ammo_warns():
    assert codes(validate_unit(creation(WeaponSpec("cannon", size=2)))) == ["no_ammo"]
    assert codes(validate_unit(creation(WeaponSpec("launcher", size=2)))) == ["no_payload"]


def test_bazooka_and_railgun_limits():
    ok = minifig(
        weapons=(
            WeaponSpec("bazooka", ammo=Explosive(1)),
            WeaponSpec("railgun", payload=Payload(Explosive(2))),
        )
    )
    assert codes(validate_unit(ok), "error") == []
    bad = minifig(
        weapons=(
            WeaponSpec("bazooka", ammo=Explosive(2)),
            WeaponSpec("railgun", payload=Payload(Explosive(1, rounds=3), per_launch=3)),
            WeaponSpec("railgun", payload=Payload(object_size=2)),
        )
    )
    assert [(f.code, f.weapon) for f in validate_unit(bad) if f.severity == "error"] == [
        ("ammo_too_big", 0),
        ("payload_too_big", 1),
        ("payload_too_big", 2),
    ]


@pytest.mark.parametrize(
    ("size", "obj", "ok"),
    [(1, 0, True), (1, F(1, 2), False), (3, 1, True), (3, 2, False), (4, 2, True)],
)
def test_launcher_object_payload_is_half_size_rounded_down(size, obj, ok):
    unit = creation(WeaponSpec("launcher", size=size, payload=Payload(object_size=obj)), size=5)
    assert ("payload_too_big" not in codes(validate_unit(unit))) == ok


def test_payload_carrying_fewer_rounds_than_a_launch_warns():
    unit = creation(WeaponSpec("launcher", size=3, payload=Payload(Explosive(1), per_launch=2)))
    assert codes(validate_unit(unit)) == ["payload_rounds"]


@pytest.mark.parametrize(
    ("mount", "size", "ok"),
    [
        ("small_turret", 2, True),
        ("small_turret", F(5, 2), False),
        ("large_turret", 4, True),
        ("large_turret", 5, False),
    ],
)
def test_turret_limits(mount, size, ok):
    unit = creation(WeaponSpec("gun", size=size, mount=mount), size=1)
    assert ("turret_limit" not in codes(validate_unit(unit))) == ok


def test_turret_rocket_counts_its_x():
    unit = creation(WeaponSpec("rocket", xsize=3, mount="small_turret"))
    assert codes(validate_unit(unit)) == ["turret_limit"]


@pytest.mark.parametrize(
    ("size", "level", "expected"),
    [
        (3, 3, []),
        (3, 4, ["structure_level_over_size"]),
        (6, 6, ["structure_level_over_5"]),
        (2, 6, ["structure_level_over_5", "structure_level_over_size"]),
        (F(1, 2), F(1, 2), []),
        (1, 0, []),
    ],
)
def test_structure_level_limits(size, level, expected):
    assert codes(validate_unit(creation(size=size, structure_level=level))) == expected


def test_armor_plating_cannot_fly():
    plate = WeaponSpec("armor_plating", size=2)
    assert codes(validate_unit(creation(plate, propulsion="flying", move=4))) == [
        "armor_plating_flying"
    ]
    assert codes(validate_unit(creation(plate))) == []


def test_armor_plating_cannot_cover_more_than_the_size():
    """Ruling "plating area" (docs/rulings.md)."""
    assert codes(validate_unit(creation(WeaponSpec("armor_plating", size=4)))) == [
        "armor_plating_area"
    ]


# ---- army --------------------------------------------------------------------------------


def test_army_budget():
    army = [minifig(), minifig(weapons=(WeaponSpec("hand_weapon"),)), creation(size=2)]
    assert army_cost(army) == 4 + 6 + (2 + 1)  # the creation: Size 2 × SL 1 + d6 Mind
    assert validate_army(army, budget=13) == []
    over = validate_army(army, budget=F(25, 2))
    assert [(f.severity, f.code, f.unit) for f in over] == [("error", "over_budget", None)]
    assert "13CP" in over[0].message and "12.5CP" in over[0].message
    lenient = validate_army(army, budget=10, options=BrikWarsOptions(allow_over_budget=True))
    assert [(f.severity, f.code) for f in lenient] == [("warning", "over_budget")]
    assert validate_army(army, budget=None) == []


def test_army_findings_carry_unit_and_weapon_indexes():
    army = [minifig(), scorpiosaurus(size_damage=1), creation(size=2, structure_level=3)]
    found = [(f.code, f.unit, f.weapon) for f in validate_army(army, budget=1000)]
    assert found == [("too_big", 1, 0), ("structure_level_over_size", 2, None)]


@pytest.mark.parametrize("bad", [-1, "lots", True])
def test_bad_budget(bad):
    with pytest.raises(InvalidInput) as err:
        validate_army([minifig()], budget=bad)
    assert err.value.field == "budget"


def test_heavy_swings_a_4_inch_melee_weapon_standing_still():
    """Chapter 8, "Compensating": a Heavy wields a Size 4" Melee Weapon as a Two-Handed
    Weapon. Ruling "Compensating Power" (docs/rulings.md): it counts as 1" larger for Power
    too, so it can swing it every turn while standing still, not while moving."""
    heavy = minifig(
        specialties=("compensating",),
        weapons=(WeaponSpec("melee_weapon", size=4, mount="hand_held"),),
    )
    assert heavy.base_power == 2
    assert heavy.standing_power == 4
    findings = validate_unit(heavy)
    assert [(f.severity, f.code) for f in findings] == [("warning", "compensating_standing_still")]
    assert "held as long" in findings[0].message
    assert "powered" in findings[0].message
    assert activation_sets(heavy) == [(0,)]
    assert activation_sets(heavy, moving=True) == [()]


def test_heavy_5_inch_weapon_is_too_big_even_standing():
    heavy = minifig(specialties=("compensating",), weapons=(WeaponSpec("melee_weapon", size=5),))
    # A minifig holds what it carries (ruling 19): 5" is more than twice its Size (+1").
    assert [(f.code, f.weapon) for f in validate_unit(heavy)] == [
        ("too_big_to_hold", 0),
        ("too_big", 0),
    ]


def test_launchers_and_cannons_count_as_ranged_when_held():
    """Ruling "explosive weapons are Ranged when held" (docs/rulings.md)."""
    unit = creation(
        WeaponSpec("launcher", size=4, mount="hand_held", payload=Payload(object_size=1)),
        WeaponSpec("cannon", size=4, mount="hand_held", ammo=Explosive(1)),
        WeaponSpec("launcher", size=3, mount="hand_held", payload=Payload(object_size=1)),
        size=2,
        structure_level=1,
    )
    errors = [(f.code, f.weapon) for f in validate_unit(unit) if f.severity == "error"]
    assert errors == [("ranged_held_long", 0), ("ranged_held_long", 1)]
