"""The weapon table (RULINGS §1.4) pinned row by row at several sizes.

Expected values are worked out by hand from the RULINGS table, not read back from the code.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from app.rules.brikwars.catalogue import (
    DamageExpr,
    catalogue,
    explosive_variant,
    explosive_variants,
    format_cp,
    weapon_stats,
    weapon_type,
    whole_use,
)
from app.rules.errors import InvalidInput

# (type, size, cost, use, range, dice, sides) -- sizes 1, 2, 3, 5 and a fractional 1.5.
INCH_ROWS = [
    # Melee Weapon: 2×S, S+1, CC, S × Action die (d6 by default)
    ("melee_weapon", 1, 2, 2, None, 1, 6),
    ("melee_weapon", 2, 4, 3, None, 2, 6),
    ("melee_weapon", 3, 6, 4, None, 3, 6),
    ("melee_weapon", 5, 10, 6, None, 5, 6),
    ("melee_weapon", F(3, 2), 3, 3, None, 1, 6),
    # Gun: 3×S, S+2, 4×S+2", S d6
    ("gun", 1, 3, 3, 6, 1, 6),
    ("gun", 2, 6, 4, 10, 2, 6),
    ("gun", 3, 9, 5, 14, 3, 6),
    ("gun", 5, 15, 7, 22, 5, 6),
    ("gun", F(3, 2), F(9, 2), 4, 8, 1, 6),
    # BlastGun: 3×S, S+1, 2×S+2", S d8 − distance
    ("blastgun", 1, 3, 2, 4, 1, 8),
    ("blastgun", 2, 6, 3, 6, 2, 8),
    ("blastgun", 3, 9, 4, 8, 3, 8),
    ("blastgun", 5, 15, 6, 12, 5, 8),
    ("blastgun", F(3, 2), F(9, 2), 3, 5, 1, 8),
    # MachineGun: 4×S, S+2, 3×S+2", S d6
    ("machinegun", 1, 4, 3, 5, 1, 6),
    ("machinegun", 2, 8, 4, 8, 2, 6),
    ("machinegun", 3, 12, 5, 11, 3, 6),
    ("machinegun", 5, 20, 7, 17, 5, 6),
    ("machinegun", F(3, 2), 6, 4, F(13, 2), 1, 6),
    # FlameThrower: 3×S, S+1, 2×S+2", S d4 Fire
    ("flamethrower", 1, 3, 2, 4, 1, 4),
    ("flamethrower", 2, 6, 3, 6, 2, 4),
    ("flamethrower", 3, 9, 4, 8, 3, 4),
    ("flamethrower", 5, 15, 6, 12, 5, 4),
    ("flamethrower", F(5, 2), F(15, 2), 4, 7, 2, 4),
    # Cannon: 3×S, S+3, 4×S", damage by Ammo
    ("cannon", 1, 3, 4, 4, None, None),
    ("cannon", 2, 6, 5, 8, None, None),
    ("cannon", 3, 9, 6, 12, None, None),
    ("cannon", 5, 15, 8, 20, None, None),
    ("cannon", F(3, 2), F(9, 2), 5, 6, None, None),
    # Launcher: 3×S, 2×S, 6×S", damage by Payload
    ("launcher", 1, 3, 2, 6, None, None),
    ("launcher", 2, 6, 4, 12, None, None),
    ("launcher", 3, 9, 6, 18, None, None),
    ("launcher", 5, 15, 10, 30, None, None),
    ("launcher", F(3, 2), F(9, 2), 3, 9, None, None),
]


@pytest.mark.parametrize(("type_id", "size", "cost", "use", "rng", "dice", "sides"), INCH_ROWS)
def test_inch_weapon_rows(type_id, size, cost, use, rng, dice, sides):
    stats = weapon_stats(type_id, size=size)
    assert stats.cost == cost
    assert isinstance(stats.cost, F)
    assert stats.use == use
    assert stats.range_inches == rng
    assert stats.power == size
    if dice is None:
        assert stats.damage is None
    else:
        assert (stats.damage.dice, stats.damage.sides, stats.damage.modifier) == (dice, sides, 0)


def test_damage_flags_follow_the_table():
    assert weapon_stats("blastgun", size=2).damage.minus_distance
    assert not weapon_stats("gun", size=2).damage.minus_distance
    assert weapon_stats("flamethrower", size=2).damage.fire
    assert not weapon_stats("machinegun", size=2).damage.fire


@pytest.mark.parametrize("die", [4, 6, 8, 10, 12])
def test_melee_weapon_damage_uses_the_wielders_action_die(die):
    damage = weapon_stats("melee_weapon", size=3, action_die=die).damage
    assert (damage.dice, damage.sides) == (3, die)


def test_ripper_blade():
    """Chapter 8, "Weapon Size Example: The Ripper Blade": a 4" Melee Weapon costs 8CP, has
    Use 5 and does 4 Action dice of Damage."""
    stats = weapon_stats("melee_weapon", size=4)
    assert stats.cost == 8
    assert stats.use == 5
    assert (stats.damage.dice, stats.damage.sides) == (4, 6)
    assert str(stats.damage) == "4d6"


def test_burnination_flamethrower():
    """Chapter 8, "Fire Example: Burnination": a 3" FlameThrower is Use 4, Range 8", 3d4
    Fire."""
    stats = weapon_stats("flamethrower", size=3)
    assert (stats.use, stats.range_inches, str(stats.damage)) == (4, 8, "3d4 Fire")


def test_wall_demolition_missile():
    """Chapter 8, "Explosion Example: Wall Demolition": a Size 3 Missile is a 3d10
    Explosion."""
    damage = weapon_stats("rocket", xsize=3).damage
    assert (damage.dice, damage.sides, damage.explosion) == (3, 10, True)


@pytest.mark.parametrize(
    ("size", "cost", "layers", "use"),
    [(1, 1, 1, 2), (2, 2, 2, 4), (3, 3, 3, 6), (5, 5, 5, 10), (F(3, 2), F(3, 2), 1, 3)],
)
def test_melee_shield(size, cost, layers, use):
    stats = weapon_stats("melee_shield", size=size)
    assert (stats.cost, stats.deflection, stats.use, stats.damage) == (cost, layers, use, None)
    assert stats.range_inches is None


@pytest.mark.parametrize(("area", "cost"), [(1, 2), (2, 3), (3, 4), (5, 6), (F(3, 2), F(5, 2))])
def test_armor_plating_costs_covered_area_plus_one_and_needs_no_power(area, cost):
    stats = weapon_stats("armor_plating", size=area)
    assert stats.cost == cost
    assert stats.power == 0
    assert stats.deflection == 1
    assert stats.use is None and stats.damage is None


@pytest.mark.parametrize("x", [1, 2, 3, 5])
def test_explosive_rows(x):
    stats = weapon_stats("explosive", xsize=x)
    assert stats.cost == x
    assert stats.use is None and stats.range_inches is None
    assert (stats.damage.dice, stats.damage.sides, stats.damage.explosion) == (x, 10, True)
    assert stats.power == x


@pytest.mark.parametrize(
    ("x", "cost", "use", "rng"), [(1, 2, 2, 6), (2, 4, 4, 12), (3, 6, 6, 18), (5, 10, 10, 30)]
)
def test_rocket_rows(x, cost, use, rng):
    stats = weapon_stats("rocket", xsize=x)
    assert (stats.cost, stats.use, stats.range_inches, stats.power) == (cost, use, rng, x)
    assert (stats.damage.dice, stats.damage.sides) == (x, 10)


@pytest.mark.parametrize(
    ("variant", "x", "expected"),
    [
        ("standard", 3, (3, 10)),
        ("incendiary", 3, (3, 4)),
        ("armor_piercing", 2, (2, 6)),
        ("concussion", 5, (5, 6)),
        ("phased", 4, (2, 12)),
    ],
)
def test_explosive_variants_replace_the_d10s(variant, x, expected):
    damage = weapon_stats("explosive", xsize=x, variant=variant).damage
    assert (damage.dice, damage.sides) == expected
    assert damage.extra is None
    assert weapon_stats("explosive", xsize=x, variant=variant).cost == x


def test_variant_flags():
    assert explosive_variant("incendiary").damage(1).fire
    assert explosive_variant("armor_piercing").damage(1).armor_piercing
    assert explosive_variant("concussion").damage(1).knockback_only
    assert explosive_variant("phased").damage(2).ignores_deflection
    assert [v.id for v in explosive_variants()] == [
        "standard",
        "incendiary",
        "armor_piercing",
        "concussion",
        "phased",
    ]


def test_phased_odd_x_keeps_one_standard_d10():
    """Ruling "phased odd X" (docs/rulings.md)."""
    damage = weapon_stats("explosive", xsize=3, variant="phased").damage
    assert (damage.dice, damage.sides) == (1, 12)
    assert damage.extra == DamageExpr(dice=1, sides=10, explosion=True)
    one = weapon_stats("rocket", xsize=1, variant="phased").damage
    assert (one.dice, one.sides, one.ignores_deflection) == (1, 10, False)


# ---- minifig items and bastard guns: (id, cost, use, range, damage text)
FIXED_ROWS = [
    ("hand_weapon", 2, 2, None, "1d6"),
    ("heavy_weapon", 3, 3, None, "1d6+2"),
    ("two_handed_weapon", 4, 4, None, "2d6"),
    ("short_ranged_weapon", 3, 3, 6, "1d6"),
    ("long_ranged_weapon", 5, 3, 10, "1d6+1"),
    ("thrown_explosive", 1, 1, 3, "1d10 Explosion"),
    ("shield", 1, 2, None, None),
    ("heavy_shield", 1, 3, None, None),
    ("body_armor", 1, None, None, None),
    ("heavy_armor", 2, None, None, None),
    ("minifig_tool", 1, 3, None, "1d6-1"),
    ("bare_hands", 0, 0, None, None),
    ("shotgun", 4, 3, 6, "1d8+1 − distance"),
    ("autogun", 6, 3, 8, "1d6+1"),
    ("flamegun", 4, 2, 5, "1d4+1 Fire"),
    ("bazooka", 4, 4, 6, None),
    ("railgun", 4, 4, 8, None),
]


@pytest.mark.parametrize(("type_id", "cost", "use", "rng", "damage"), FIXED_ROWS)
def test_fixed_rows(type_id, cost, use, rng, damage):
    stats = weapon_stats(type_id)
    assert stats.cost == cost
    assert stats.use == use
    assert stats.range_inches == rng
    assert (None if stats.damage is None else str(stats.damage)) == damage


def test_minifig_close_combat_weapons_scale_with_the_action_die():
    assert str(weapon_stats("hand_weapon", action_die=10).damage) == "1d10"
    assert str(weapon_stats("heavy_weapon", action_die=8).damage) == "1d8+2"
    assert str(weapon_stats("two_handed_weapon", action_die=4).damage) == "2d4"


def test_minifig_armour_items():
    assert weapon_type("body_armor").armour_bonus == 2
    assert weapon_stats("heavy_armor").deflection == 1
    assert weapon_type("heavy_armor").half_speed


def test_bastard_ammo_and_payload_limits():
    assert weapon_type("bazooka").ammo_max_xsize() == 1
    assert weapon_type("railgun").payload_max_xsize() == 2
    assert weapon_type("railgun").payload_max_object_size() == 1


@pytest.mark.parametrize(
    ("size", "ammo", "x", "obj"),
    [(1, 1, 1, 0), (2, 2, 2, 1), (3, 3, 3, 1), (5, 5, 5, 2), (F(5, 2), 2, F(5, 2), 1)],
)
def test_cannon_ammo_and_launcher_payload_limits(size, ammo, x, obj):
    assert weapon_type("cannon").ammo_max_xsize(F(size)) == ammo
    assert weapon_type("launcher").payload_max_xsize(F(size)) == x
    assert weapon_type("launcher").payload_max_object_size(F(size)) == obj
    assert weapon_type("gun").ammo_max_xsize(F(size)) is None


def test_turrets():
    small, large = weapon_type("small_turret"), weapon_type("large_turret")
    assert (small.turret_power, small.turret_mount_limit, small.nominal_size) == (2, 2, 1)
    assert (large.turret_power, large.turret_mount_limit, large.nominal_size) == (4, 4, 2)


def test_catalogue_lists_every_required_id_once():
    ids = [w.id for w in catalogue()]
    assert len(ids) == len(set(ids))
    for required in (
        "melee_weapon",
        "melee_shield",
        "gun",
        "blastgun",
        "machinegun",
        "flamethrower",
        "explosive",
        "rocket",
        "cannon",
        "launcher",
        "armor_plating",
        "small_turret",
        "large_turret",
        "hand_weapon",
        "shotgun",
        "autogun",
        "flamegun",
        "bazooka",
        "railgun",
    ):
        assert required in ids


def test_every_entry_renders_its_formulas():
    for entry in catalogue():
        for text in (entry.cost_text, entry.use_text, entry.range_text, entry.damage_text):
            assert text, entry.id
    assert weapon_type("gun").cost_text == "3×S"
    assert weapon_type("gun").use_text == "S+2"
    assert weapon_type("gun").range_text == '4×S+2"'
    assert weapon_type("gun").damage_text == "S d6"


def test_unknown_type():
    with pytest.raises(InvalidInput) as err:
        weapon_type("death_ray")
    assert err.value.field == "type"
    with pytest.raises(InvalidInput) as err:
        weapon_stats("death_ray", size=1)
    assert err.value.field == "type"


@pytest.mark.parametrize("bad", [0, -1, F(-1, 2), 101, "three", None, True, float("nan"), [1]])
def test_bad_sizes_name_the_field(bad):
    with pytest.raises(InvalidInput) as err:
        weapon_stats("gun", size=bad)
    assert err.value.field == "size"


def test_size_limits_are_inclusive():
    assert weapon_stats("gun", size=100).cost == 300
    assert weapon_stats("gun", size="0.5").use == 3
    assert weapon_stats("gun", size=0.1).cost == F(3, 10)


@pytest.mark.parametrize("bad", [0, -2, F(3, 2), 1.5, 101, "x", None])
def test_bad_xsizes_name_the_field(bad):
    with pytest.raises(InvalidInput) as err:
        weapon_stats("explosive", xsize=bad)
    assert err.value.field == "xsize"


def test_wrong_measure_names_the_field():
    with pytest.raises(InvalidInput) as err:
        weapon_stats("gun", xsize=2)
    assert err.value.field == "xsize"
    with pytest.raises(InvalidInput) as err:
        weapon_stats("rocket", size=2)
    assert err.value.field == "size"
    with pytest.raises(InvalidInput) as err:
        weapon_stats("hand_weapon", size=2)
    assert err.value.field == "size"


@pytest.mark.parametrize("bad", [3, 7, 20, "d6", True])
def test_bad_action_die(bad):
    with pytest.raises(InvalidInput) as err:
        weapon_stats("melee_weapon", size=1, action_die=bad)
    assert err.value.field == "action_die"


def test_bad_variant():
    with pytest.raises(InvalidInput) as err:
        weapon_stats("explosive", xsize=1, variant="nuclear")
    assert err.value.field == "variant"
    with pytest.raises(InvalidInput) as err:
        weapon_stats("gun", size=1, variant="phased")
    assert err.value.field == "variant"


@pytest.mark.parametrize(
    ("cost", "text"),
    [
        (F(4), "4CP"),
        (F(9, 2), "4.5CP"),
        (F(11), "11CP"),
        (F(1, 3), "0.3CP"),
        (F(0), "0CP"),
        (F(1, 4), "0.3CP"),  # halves round up
        (F(5, 4), "1.3CP"),
        (F(99, 20), "5CP"),
        (F(1, 20), "0.1CP"),
        (F(1, 100), "0CP"),
    ],
)
def test_format_cp(cost, text):
    assert format_cp(cost) == text


def test_fractional_sizes_count_full_inches_of_dice_and_round_use_up():
    """Ruling "fractional sizes" (docs/rulings.md)."""
    assert weapon_stats("gun", size=F(5, 2)).damage.dice == 2
    assert weapon_stats("gun", size=F(1, 2)).damage.dice == 1
    assert weapon_stats("gun", size=F(5, 2)).use == 5  # 4.5 -> a roll of 5
    assert whole_use(F(4)) == 4


def test_entries_render_to_json():
    import json

    rows = [entry.to_dict() for entry in catalogue()]
    json.dumps(rows)
    gun = weapon_type("gun").to_dict()
    assert gun["id"] == "gun" and gun["cost_text"] == "3×S" and gun["sized_by"] == "inches"
    assert not any(key.startswith("_") for key in gun)
    assert weapon_type("heavy_weapon").to_dict()["nominal_size"] == "3/2"


def test_memoised_stats_keep_argument_types_apart():
    """The cache must not answer ``size=True`` with the stats of ``size=1``."""
    import pytest

    from app.rules.brikwars import weapon_stats
    from app.rules.errors import InvalidInput

    assert weapon_stats("gun", size=1).use == 3
    with pytest.raises(InvalidInput):
        weapon_stats("gun", size=True)
    with pytest.raises(InvalidInput):
        weapon_stats("gun", size=[1])  # unhashable: still a clean InvalidInput
