"""The attack engine's docstring examples, and the helpers that turn saved units and weapons
into attacks (what the calculator pages call)."""

from __future__ import annotations

import doctest
import importlib
from fractions import Fraction

import pytest

from app.rules.brikwars import UnitSpec, WeaponSpec
from app.rules.brikwars.attacks import (
    ArcTarget,
    Situation,
    Target,
    arc_fire_of,
    attack_of,
    burst_of,
    explosion_of,
    target_of,
)
from app.rules.brikwars.units import Explosive
from app.rules.errors import InvalidInput

MODULES = ["common", "single", "explosion", "area", "melee", "build"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(f"app.rules.brikwars.attacks.{name}")
    result = doctest.testmod(module)
    assert result.failed == 0 and result.attempted > 0


TANK = UnitSpec(
    name="Tank",
    size=Fraction(4),
    structure_level=Fraction(2),
    mind_die=6,
    specialties=("gunnery",),
    weapons=(WeaponSpec("gun", size=Fraction(2)), WeaponSpec("machinegun", size=Fraction(2))),
)
TROOPER = UnitSpec(name="Trooper", kind="minifig")


def test_a_saved_gun_against_a_saved_tank() -> None:
    target = target_of(TANK, reach=2)
    assert target.size_modifier == 1 and target.takes_size_damage
    attack = attack_of(TANK, TANK.weapons[0], target, distance=12, height=1, gunner=True)
    # Gun S2: Use 4, Range 10", 2d6; a Gunner rolls d8; 12" is 1" beyond 10" + 1" height.
    assert attack.action_roll().die == 8 and attack.situation.out_of_range == 1
    assert attack.action_roll().modifier == -1 + 1
    odds = attack.odds()
    assert odds.destroyed == 0 and odds.size_damage > 0


def test_saved_area_weapons_and_explosives() -> None:
    arc = arc_fire_of(TANK, TANK.weapons[1], (ArcTarget(Target.minifig()),), arc=2)
    assert arc.auto_penalty == 2 and arc.weapon == "machinegun"
    burst = burst_of(TROOPER, WeaponSpec("autogun"), Target.minifig(), 2)
    assert len(burst.shots()) == 2
    cannon = WeaponSpec("cannon", size=Fraction(3), ammo=Explosive(xsize=2))
    assert explosion_of(cannon).pool().dice_count == 2
    assert explosion_of(cannon, over_the_top=True).pool().dice_count == 3
    with pytest.raises(InvalidInput):
        attack_of(TANK, cannon, Target.minifig())
    with pytest.raises(InvalidInput):
        arc_fire_of(TANK, TANK.weapons[0], (ArcTarget(Target.minifig()),))
    charge = attack_of(
        TROOPER,
        WeaponSpec("two_handed_weapon"),
        Target.minifig(),
        charge=True,
        situation=Situation(outnumbered=True),
    )
    assert charge.charge_die == 6 and charge.action_roll().modifier == -1
