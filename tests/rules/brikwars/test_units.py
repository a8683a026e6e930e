"""Units: costs, Armour, Move, Power (RULINGS §1.2, §1.5)."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from app.rules.brikwars import (
    Explosive,
    Payload,
    UnitSpec,
    WeaponSpec,
    format_cp,
    hero,
    minifig,
)
from app.rules.errors import InvalidInput


def creation(**fields) -> UnitSpec:
    base = {"name": "Thing", "size": 3, "structure_level": 1}
    base.update(fields)
    return UnitSpec(**base)


def test_standard_minifig_costs_4cp():
    """RULINGS §1.5: a standard minifig (Size 1, flesh, Move 5", d6) costs 4CP."""
    trooper = minifig()
    assert trooper.cost == 4
    assert format_cp(trooper.cost) == "4CP"
    assert str(trooper.armour) == "4" and not trooper.armour.rolled
    assert trooper.move == 5 and trooper.action_die == 6


def test_hero_costs_11cp():
    """RULINGS §1.5: a Hero (d10, Move 7", Armour 2d6, Heroic Ego) costs 11CP."""
    h = hero()
    assert h.cost == 11
    assert (h.armour.dice, h.armour.sides) == (2, 6)
    assert h.specialties == ("heroic_ego",)
    assert hero(specialties=("heroic_ego", "pilot")).cost == 12


def test_minifig_with_weapons_and_armour():
    trooper = minifig(weapons=(WeaponSpec("hand_weapon"), WeaponSpec("body_armor")))
    assert trooper.cost == 4 + 2 + 1
    assert trooper.armour.fixed == 6
    assert str(hero(weapons=(WeaponSpec("body_armor"),)).armour) == "2d6+2"


def test_heavy_armor_halves_move_and_adds_a_layer():
    trooper = minifig(weapons=(WeaponSpec("heavy_armor"),))
    assert trooper.current_move == F(5, 2)
    assert trooper.armour.deflection == 1
    assert trooper.cost == 6


@pytest.mark.parametrize(
    ("mind", "cost"), [(4, F(1, 2)), (6, 1), (8, 2), (10, 4), (12, 8), (None, 0)]
)
def test_mind_costs(mind, cost):
    unit = creation(size=2, structure_level=2, move=0, mind_die=mind)
    assert unit.cost_breakdown.mind == cost
    assert unit.cost == 4 + cost


@pytest.mark.parametrize(
    ("specialty", "cost"),
    [
        ("gunnery", 1),
        ("compensating", 1),
        ("heroic_ego", 3),
        ("mechanik", 2),
        ("medik", 2),
        ("pilot", 1),
        ("scout", 1),
    ],
)
def test_specialty_costs(specialty, cost):
    assert minifig(specialties=(specialty,)).cost == 4 + cost


@pytest.mark.parametrize(
    ("propulsion", "move", "level", "cost"),
    [
        ("ground", 6, 1, 3),
        ("water", 5, 1, F(5, 2)),
        ("ground", 0, 1, 0),
        ("none", 0, 1, 0),
        ("flying", 6, 1, 9),  # (2+1) × 3
        ("flying", 5, 1, 9),  # (2+1) × ceil(2.5)
        ("flying", 8, 3, 20),  # (2+3) × 4
        ("flying", 4, 0, 4),  # (2+0) × 2
    ],
)
def test_propulsion_costs(propulsion, move, level, cost):
    unit = creation(size=3, structure_level=level, propulsion=propulsion, move=move)
    assert unit.cost_breakdown.propulsion == cost


def test_structure_cost_is_size_times_sl():
    unit = creation(size=4, structure_level=3)
    assert unit.cost_breakdown.structure == 12
    assert creation(size=F(5, 2), structure_level=F(1, 2)).cost_breakdown.structure == F(5, 4)


def test_full_creation_cost_adds_every_part():
    """A 3" SL2 flying d8 Pilot with a 2" Gun and a 1" MachineGun on a Small Turret:
    6 + (2+2)×ceil(6/2) + 2 + 1 + 6 + (4 + 1) = 32."""
    unit = creation(
        size=3,
        structure_level=2,
        propulsion="flying",
        move=6,
        mind_die=8,
        specialties=("pilot",),
        weapons=(WeaponSpec("gun", size=2), WeaponSpec("machinegun", size=1, mount="small_turret")),
    )
    assert unit.cost == 32
    assert unit.cost_breakdown.weapons == (6, 5)


def test_ammo_and_payload_rounds_are_paid_per_x():
    cannon = WeaponSpec("cannon", size=2, ammo=Explosive(2, rounds=3))
    assert cannon.cost == 6 + 6
    racks = WeaponSpec("launcher", size=3, payload=Payload(Explosive(1, rounds=6), per_launch=3))
    assert racks.cost == 9 + 6
    boulder = WeaponSpec("launcher", size=4, payload=Payload(object_size=2))
    assert boulder.cost == 12


def test_turret_costs():
    """Ruling "turret cost" (docs/rulings.md): Small 1CP, Large 2CP."""
    assert WeaponSpec("gun", size=2, mount="small_turret").cost == 7
    assert WeaponSpec("gun", size=4, mount="large_turret").cost == 14


@pytest.mark.parametrize(
    ("size", "level", "damage", "armour"),
    [
        (3, 2, 0, "2d10"),
        (3, 5, 0, "3d10"),  # SL capped by Size
        (3, 3, 1, "2d10"),  # capped by Effective Size 2
        (F(5, 2), 2, 0, "2d10"),
        (3, 1, F(5, 2), "1d10"),  # ES ½: still one die while alive (ruling "armour cap")
        (3, F(1, 2), 0, "1d6"),
        (3, 0, 0, "0"),
        (2, 2, 2, "0"),  # destroyed
    ],
)
def test_creation_armour(size, level, damage, armour):
    assert str(creation(size=size, structure_level=level, size_damage=damage).armour) == armour


@pytest.mark.parametrize(
    ("size", "damage", "propulsion", "power"),
    [
        (3, 0, "ground", 6),
        (3, 1, "ground", 4),
        (3, 0, "flying", 3),
        (3, 3, "ground", 0),
        (F(5, 2), 0, "water", 5),
        (3, F(1, 2), "flying", F(5, 2)),
    ],
)
def test_power(size, damage, propulsion, power):
    unit = creation(size=size, structure_level=1, size_damage=damage, propulsion=propulsion)
    assert unit.base_power == power
    assert unit.power == power


def test_turret_power_adds_to_power():
    unit = creation(
        weapons=(
            WeaponSpec("gun", size=2, mount="small_turret"),
            WeaponSpec("gun", size=4, mount="large_turret"),
        )
    )
    assert unit.base_power == 6
    assert unit.turret_power == 6
    assert unit.power == 12


def test_armor_plating_halves_move():
    unit = creation(move=6, weapons=(WeaponSpec("armor_plating", size=3),))
    assert unit.current_move == 3
    assert unit.cost_breakdown.propulsion == 3  # paid on the Move as built


def test_power_needs():
    assert WeaponSpec("gun", size=3).power_need == 3
    assert WeaponSpec("armor_plating", size=3).power_need == 0
    assert WeaponSpec("explosive", xsize=4).power_need == 4
    assert WeaponSpec("rocket", xsize=2).power_need == 2
    # a Cannon or Launcher needs only its own Size, whatever it fires
    assert WeaponSpec("cannon", size=2, ammo=Explosive(2)).power_need == 2
    assert (
        WeaponSpec(
            "launcher", size=3, payload=Payload(Explosive(1, rounds=6), per_launch=3)
        ).power_need
        == 3
    )


def test_cannon_damage_comes_from_its_ammo():
    unit = creation(
        weapons=(WeaponSpec("cannon", size=3, ammo=Explosive(2, variant="incendiary")),)
    )
    damage = unit.weapon_stats(0).damage
    assert (damage.dice, damage.sides, damage.fire) == (2, 4, True)


def test_melee_weapon_rolls_the_units_action_die():
    unit = creation(mind_die=10, weapons=(WeaponSpec("melee_weapon", size=2),))
    damage = unit.weapon_stats(0).damage
    assert (damage.dice, damage.sides) == (2, 10)
    vehicle = creation(weapons=(WeaponSpec("melee_weapon", size=2),))
    assert vehicle.weapon_stats(0).damage.sides == 6


def test_mount_defaults():
    assert WeaponSpec("hand_weapon").mount == "hand_held"
    assert WeaponSpec("gun", size=1).mount == "mounted"
    assert WeaponSpec("body_armor").mount == "mounted"


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"size": None}, "size"),
        ({"size": 0}, "size"),
        ({"size": -2}, "size"),
        ({"size": 101}, "size"),
        ({"size": "big"}, "size"),
        ({"structure_level": None}, "structure_level"),
        ({"structure_level": F(3, 2)}, "structure_level"),
        ({"structure_level": -1}, "structure_level"),
        ({"move": -1}, "move"),
        ({"propulsion": "none", "move": 4}, "move"),
        ({"propulsion": "teleport"}, "propulsion"),
        ({"mind_die": 7}, "mind_die"),
        ({"specialties": ("ninja",)}, "specialties"),
        ({"specialties": ("pilot", "pilot")}, "specialties"),
        ({"size_damage": 4}, "size_damage"),
        ({"size_damage": -1}, "size_damage"),
        ({"kind": "robot"}, "kind"),
        ({"weapons": ("gun",)}, "weapons"),
        ({"weapons": WeaponSpec("gun", size=1)}, "weapons"),
        ({"specialties": "pilot"}, "specialties"),
        ({"specialties": ("pilot", 3)}, "specialties"),
        ({"mind_die": "d6"}, "mind_die"),
        ({"name": None}, "name"),
    ],
)
def test_bad_unit_input_names_the_field(fields, field):
    with pytest.raises(InvalidInput) as err:
        creation(**fields)
    assert err.value.field == field


def test_minifig_size_is_fixed():
    with pytest.raises(InvalidInput) as err:
        minifig(size=2)
    assert err.value.field == "size"
    with pytest.raises(InvalidInput) as err:
        hero(structure_level=1)
    assert err.value.field == "structure_level"


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: WeaponSpec("laser", size=1), "type"),
        (lambda: WeaponSpec("gun"), "size"),
        (lambda: WeaponSpec("gun", size=0), "size"),
        (lambda: WeaponSpec("rocket", xsize=F(1, 2)), "xsize"),
        (lambda: WeaponSpec("gun", size=1, mount="pocket"), "mount"),
        (lambda: WeaponSpec("armor_plating", size=1, mount="hand_held"), "mount"),
        (lambda: WeaponSpec("hand_weapon", mount="small_turret"), "mount"),
        (lambda: WeaponSpec("gun", size=1, ammo=Explosive(1)), "ammo"),
        (lambda: WeaponSpec("cannon", size=1, payload=Payload(object_size=0)), "payload"),
        (lambda: WeaponSpec("gun", size=1, variant="phased"), "variant"),
        (lambda: WeaponSpec("explosive", xsize=1, variant="nuclear"), "variant"),
        (lambda: WeaponSpec("small_turret"), "type"),
        (lambda: Explosive(0), "xsize"),
        (lambda: Explosive(1, variant="nuclear"), "variant"),
        (lambda: Explosive(1, rounds=0), "rounds"),
        (lambda: Payload(), "payload"),
        (lambda: Payload(Explosive(1), object_size=1), "payload"),
        (lambda: Payload(object_size=-1), "payload"),
        (lambda: Payload(Explosive(1), per_launch=0), "per_launch"),
    ],
)
def test_bad_weapon_input_names_the_field(make, field):
    with pytest.raises(InvalidInput) as err:
        make()
    assert err.value.field == field


def test_power_needed_counts_only_weapons_on_the_units_own_power():
    """A turret powers its own weapon; Armor Plating needs none (RULINGS §1.5)."""
    from app.rules.brikwars import UnitSpec, WeaponSpec

    tank = UnitSpec(
        name="Tank",
        size=4,
        structure_level=2,
        weapons=(
            WeaponSpec("gun", size=3),
            WeaponSpec("melee_weapon", size=2, mount="hand_held"),
            WeaponSpec("gun", size=2, mount="small_turret"),
            WeaponSpec("armor_plating", size=2),
        ),
    )
    assert tank.power_needed_with() == 5
    assert tank.power == 8 + 2  # 2 × Size, plus the Small Turret's 2"


@pytest.mark.parametrize("make", [minifig, hero])
@pytest.mark.parametrize("mount", [None, "mounted"])
def test_a_minifigs_weapons_are_held_not_mounted(make, mount):
    """Ruling 19: a minifig or Hero has no body to mount a weapon on; a Gun 1" and a Melee
    Weapon 1" it carries are hand-held (Short: S up to its Size 1"), a turret stays a turret,
    and worn armour stays worn. A Creation's weapons are still mounted by default."""
    unit = make(
        weapons=(
            WeaponSpec("gun", size=1, mount=mount),
            WeaponSpec("melee_weapon", size=1, mount=mount),
            WeaponSpec("gun", size=1, mount="small_turret"),
            WeaponSpec("body_armor"),
        )
    )
    assert [w.mount for w in unit.weapons] == [
        "hand_held",
        "hand_held",
        "small_turret",
        "mounted",
    ]
    assert [unit.hold_class(i) for i in range(2)] == ["short", "short"]
    assert creation(weapons=(WeaponSpec("gun", size=1),)).weapons[0].mount == "mounted"
