"""Launchers loaded with objects (chapter 8, Payload Launchers; ruling A19): the Launcher's
Use and Range, the object's damage, odds against a face-by-face enumeration."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.rules.brikwars import Armour, Explosive, Payload, UnitSpec, WeaponSpec
from app.rules.brikwars.attacks import (
    ActionRoll,
    Target,
    attack_of,
    explosive_shot_of,
    launched_object_of,
)
from app.rules.brikwars.catalogue import DamageExpr
from app.rules.errors import InvalidInput
from tests.rules.brikwars.attack_support import Forced, G
from tests.rules.brikwars.test_attacks_single import bracketed, oracle_single

CREW = UnitSpec(name="Crew", kind="minifig")
GUNNER = UnitSpec(
    name="Siege tower",
    size=Fraction(8),
    structure_level=Fraction(2),
    mind_die=6,
    specialties=("gunnery",),
)
CATAPULT = WeaponSpec("launcher", size=Fraction(4), payload=Payload(object_size=2))
HERO = Target(Armour(dice=2, sides=6), kind="hero")


def test_a_boulder_does_a_d6_of_crash_damage_per_d10_of_its_armour() -> None:
    # "Other Payloads do Crash Damage ... doing a d6 of Damage for each d10 in their Armor
    # rating": a 2" boulder (as solid as its Size allows: SL 2, Armour 2d10) does 2d6.
    attack = attack_of(CREW, CATAPULT, HERO, distance=20)
    assert attack.action_roll() == ActionRoll(6, 8)  # Launcher S4: Use 2×S, Range 6×S" = 24"
    assert attack.damage == DamageExpr(2, 6)
    # The same boulder built as a unit, with the Structure Level its builder gave it:
    wood = UnitSpec(name="Log", size=Fraction(2), structure_level=Fraction(1))
    assert launched_object_of(CREW, CATAPULT, HERO, payload=wood).damage == DamageExpr(1, 6)
    heavy = UnitSpec(name="Anvil", size=Fraction(1), structure_level=Fraction(1))
    railgun = WeaponSpec("railgun", payload=Payload(object_size=1))
    assert launched_object_of(CREW, railgun, HERO, payload=heavy).damage == DamageExpr(1, 6)


def test_a_launched_melee_weapon_does_its_close_combat_damage() -> None:
    # "Launched Melee Weapons do Damage as if they had hit the target in a Close Combat
    # attack": a minifig Hand Weapon (1 Action die) and a Creation's 2" Melee Weapon (S ×
    # the Action die), with the operator's Action die.
    sling = WeaponSpec("launcher", size=Fraction(1), payload=Payload(object_size=0))
    axe = launched_object_of(CREW, sling, HERO, payload=WeaponSpec("hand_weapon"))
    assert axe.damage == DamageExpr(1, 6) and axe.action_roll() == ActionRoll(6, 2)
    blade = WeaponSpec("melee_weapon", size=Fraction(2))
    big = launched_object_of(GUNNER, CATAPULT, HERO, payload=blade, gunner=True)
    assert big.damage == DamageExpr(2, 8)  # the Gunner's d8 (ruling A12)


def test_out_of_range_lowers_the_action_and_every_damage_die() -> None:
    railgun = WeaponSpec("railgun", payload=Payload(object_size=1))  # Use 4, Range 8"
    attack = attack_of(CREW, railgun, Target.minifig(), distance=Fraction(19, 2))
    assert attack.action_roll() == ActionRoll(6, 4, -2)
    assert attack.situation.out_of_range == 2
    assert attack.pool().dice[0].per_die == -2


@pytest.mark.parametrize(
    ("attacker", "launcher", "target", "distance", "groups", "use", "mod", "armour"),
    [
        (CREW, CATAPULT, HERO, 24, [G(6), G(6)], 8, 0, [G(6), G(6)]),
        (CREW, CATAPULT, Target.minifig(), 26, [G(6, per_die=-2)] * 2, 8, -2, 4),
        (
            GUNNER,
            WeaponSpec("launcher", size=Fraction(2), payload=Payload(object_size=1)),
            Target(Armour(dice=1, sides=10), kind="object", reach=4),
            12,
            [G(6)],
            4,
            2,
            [G(10)],
        ),
    ],
)
def test_launched_object_odds_match_enumeration(  # type: ignore[no-untyped-def]
    attacker, launcher, target, distance, groups, use, mod, armour
) -> None:
    attack = attack_of(attacker, launcher, target, distance=distance)
    odds = attack.odds()
    die = attack.action_roll().die
    want = oracle_single(die, use, mod, groups, 0, 0, armour)
    left, bound = want["left"], odds.truncation_bound
    assert odds.miss == pytest.approx(want["miss"], abs=1e-12)
    assert bracketed(odds.destroyed + odds.size_damage, want["greater"], left, bound)
    assert bracketed(odds.something_bad, want["equal"], left, bound)
    assert bracketed(odds.no_effect, want["less"] + want["critical_failure"], left, bound)
    assert left < 5e-3


def test_a_launched_boulder_rolls_like_the_text() -> None:
    # Action 6 on a d6 against Use 8: a Critical Success hits whatever the Use and goes Over
    # the Top (one more d6); then 2d6 + 1d6 of Crash Damage against a minifig's Armour 4.
    roll = attack_of(CREW, CATAPULT, Target.minifig()).roll(Forced([6, 1, 2, 1]))
    assert roll.hit and roll.over_the_top and roll.damage == 4
    assert roll.outcome == "something_bad"
    assert [d.purpose for d in roll.dice] == [
        "action",
        "damage",
        "damage",
        "damage (Over the Top)",
    ]


@pytest.mark.parametrize(
    ("make", "field"),
    [
        # A Size 0 object has no d10 of Armour: no Crash Damage.
        (
            lambda: attack_of(
                CREW,
                WeaponSpec("launcher", size=Fraction(1), payload=Payload(object_size=0)),
                HERO,
            ),
            "payload",
        ),
        # A minifig (Armour 4) launched: no d10 either.
        (lambda: launched_object_of(CREW, CATAPULT, HERO, payload=CREW), "payload"),
        # Too big for the Launcher (objects up to floor(S/2) = 2").
        (
            lambda: launched_object_of(
                CREW,
                CATAPULT,
                HERO,
                payload=UnitSpec(name="Rock", size=Fraction(3), structure_level=Fraction(2)),
            ),
            "payload",
        ),
        # A Gun is not a melee weapon.
        (
            lambda: launched_object_of(
                CREW, CATAPULT, HERO, payload=WeaponSpec("gun", size=Fraction(1))
            ),
            "payload",
        ),
        # An Explosive Payload is an explosive shot, not a launched object.
        (
            lambda: attack_of(
                CREW,
                WeaponSpec("launcher", size=Fraction(3), payload=Payload(Explosive(1))),
                HERO,
            ),
            "weapon",
        ),
        (lambda: launched_object_of(CREW, WeaponSpec("gun", size=Fraction(2)), HERO), "weapon"),
    ],
)
def test_refusals_name_the_field(make, field: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidInput) as err:
        make()
    assert err.value.field == field


def test_explosive_payloads_still_explode() -> None:
    racks = WeaponSpec("launcher", size=Fraction(3), payload=Payload(Explosive(1, rounds=6), 3))
    shot = explosive_shot_of(CREW, racks)
    assert shot.action == ActionRoll(6, 6) and shot.explosion.ring_count == 1
