"""Explosions: Wall Demolition with forced dice, and every ring's odds and KnockBack against
a face-by-face enumeration."""

from __future__ import annotations

import itertools
import math

import pytest

from app.rules.brikwars import Armour, BrikWarsOptions, explosive_variant
from app.rules.brikwars.attacks import (
    ActionRoll,
    Explosion,
    ExplosionObject,
    ExplosiveShot,
    Target,
)
from app.rules.brikwars.catalogue import DamageExpr
from app.rules.errors import TooMuchWork
from tests.rules.brikwars.attack_support import Forced, G, armour_table, pool_outcomes

WALL = Target(Armour(dice=3, sides=10), kind="object")
GROUND = Target(Armour(dice=1, sides=10), kind="object")


def test_wall_demolition_16_9_3_and_the_knockback() -> None:
    """Chapter 8, "Explosion Example: Wall Demolition"."""
    missile = Explosion(explosive_variant("standard").damage(3))
    tower = Target(Armour(dice=2, sides=10), kind="object")
    objects = (
        ExplosionObject(WALL, 0),
        ExplosionObject(WALL, 1),
        ExplosionObject(GROUND, 1),
        ExplosionObject(GROUND, 2),
        ExplosionObject(tower, 1, loose=True),  # loose once the wall under it is gone
    )
    rng = Forced([3, 6, 7, 5, 5, 5, 5, 5, 5, 8, 8, 9, 9])
    r = missile.roll(rng, objects)
    assert rng.done()
    assert [d.natural for d in r.dice if d.purpose == "explosion"] == [3, 6, 7]
    assert r.rings == ((16, 3), (9, 2), (3, 1))
    wall0, wall1, ground1, ground2, tower1 = r.objects
    assert (wall0.armour, wall0.outcome, wall0.knockback) == (15, "destroyed", 3)
    assert (wall1.damage, wall1.outcome, wall1.knockback) == (9, "no_effect", 0)
    assert (ground1.armour, ground1.outcome) == (8, "destroyed")
    assert (ground2.damage, ground2.outcome) == (3, "no_effect")
    assert (tower1.outcome, tower1.knockback) == ("no_effect", 2)
    odds = missile.odds(WALL)
    assert [(x.from_inches, x.to_inches) for x in odds.rings] == [(0, 2), (2, 4), (4, 6)]


def oracle_rings(groups: list[G], modifier: int, armour: dict[int, float], depth: int):
    """Per ring: greater, equal, less (no Critical Failure), critical failure, KnockBack."""
    outcomes, left = pool_outcomes(groups, depth)
    n = len(groups)
    rings = [{"greater": 0.0, "equal": 0.0, "less": 0.0, "cf": 0.0, "kb": {}} for _ in range(n)]
    for values, dice, ones, p in outcomes:
        order = sorted(range(n), key=lambda g: (-values[g], -dice[g], g))
        for k in range(n):
            kept = order[k:]
            total = max(0, sum(values[g] for g in kept) + modifier)
            left_dice = sum(dice[g] for g in kept)
            ring = rings[k]
            if ones:
                ring["cf"] += p
                ring["kb"][0] = ring["kb"].get(0, 0.0) + p
                continue
            ring["kb"][left_dice] = ring["kb"].get(left_dice, 0.0) + p
            for a, q in armour.items():
                key = "greater" if total > a else "equal" if total == a else "less"
                ring[key] += p * q
    return rings, left


@pytest.mark.parametrize(
    ("dice", "sides", "modifier", "armour"),
    [(2, 10, 0, 4), (3, 6, -1, [G(6), G(6)]), (3, 10, 2, [G(10)]), (2, 4, 0, 3)],
)
def test_rings_match_enumeration(dice, sides, modifier, armour) -> None:  # type: ignore[no-untyped-def]
    boom = Explosion(DamageExpr(dice, sides, explosion=True), damage_modifier=modifier)
    arm = (
        Armour(fixed=armour)
        if isinstance(armour, int)
        else Armour(dice=len(armour), sides=armour[0].sides)
    )
    odds = boom.odds(Target(arm, kind="object"))
    depth = {4: 6, 6: 4}.get(sides, 3)
    table = armour_table(armour, depth if isinstance(armour, list) else 1)
    want, left = oracle_rings([G(sides)] * dice, modifier, table, depth)
    tol = 3e-3 if sides == 10 else 2e-3
    assert left < tol
    for got, w in zip(odds.rings, want, strict=True):
        assert got.destroyed == pytest.approx(w["greater"], abs=tol)
        assert got.something_bad == pytest.approx(w["equal"], abs=tol)
        assert got.critical_failure == pytest.approx(w["cf"], abs=1e-12)
        assert got.no_effect == pytest.approx(w["less"] + w["cf"], abs=tol)
        kb = dict(got.knockback)
        for inches, p in w["kb"].items():
            assert kb.get(inches, 0.0) == pytest.approx(p, abs=tol)
        total = got.destroyed + got.something_bad + got.no_effect
        assert total == pytest.approx(1.0, abs=1e-9)


def test_target_size_modifies_explosion_damage_per_object() -> None:
    boom = Explosion(DamageExpr(1, 10, explosion=True))
    pants = boom.odds(Target(visible_sections=1)).rings[0]  # only his pants: -2 Damage
    whole = boom.odds(Target()).rings[0]
    assert pants.destroyed == pytest.approx(0.4)  # needs a natural 7+ instead of 5+
    assert whole.destroyed == pytest.approx(0.6)


def test_deflection_armor_piercing_and_phased() -> None:
    plated = Target(Armour(fixed=6, deflection=1), kind="creation", effective_size=1)
    standard = Explosion(DamageExpr(2, 10, explosion=True))
    ring0 = standard.odds(plated).rings[0]
    # One layer removes the higher d10: the lower one must beat 6 (no Bonus dice for it
    # unless both show 10).
    assert ring0.destroyed < standard.odds(Target(Armour(fixed=6))).rings[0].destroyed
    pierce = Explosion(explosive_variant("armor_piercing").damage(2))
    assert pierce.damage.armor_piercing
    unplated = pierce.odds(Target(Armour(fixed=6), kind="creation", effective_size=1))
    assert pierce.odds(plated).rings[0].destroyed == pytest.approx(unplated.rings[0].destroyed)
    # Ring 1 has one AP die left: it still cancels the one layer.
    assert pierce.odds(plated).rings[1].destroyed == pytest.approx(unplated.rings[1].destroyed)
    phased = Explosion(explosive_variant("phased").damage(4))
    unplated_p = phased.odds(Target(Armour(fixed=6)))
    assert phased.odds(plated).rings[0].destroyed == pytest.approx(unplated_p.rings[0].destroyed)


def oracle_mixed_rings(
    groups: list[G], piercing: list[bool], layers: int, armour: int, depth: int
) -> tuple[list[dict[str, float]], float]:
    """Rings of a mixed explosion (Armor Piercing or Phased dice with standard d10s) against
    a fixed Armour with ``layers`` of Deflection, every face enumerated (ruling A17): the
    ring drops its highest groups (a plain one first on a tie); each Armor Piercing group
    left cancels a layer; the layers left remove the highest deflectable groups left."""
    outcomes, left = pool_outcomes(groups, depth)
    n = len(groups)
    plain = [g.deflectable and not ap for g, ap in zip(groups, piercing, strict=True)]
    rings = [{"greater": 0.0, "equal": 0.0, "less": 0.0, "cf": 0.0} for _ in range(n)]
    for values, dice, ones, p in outcomes:
        order = sorted(range(n), key=lambda g: (-values[g], -dice[g], not plain[g], g))
        for k in range(n):
            if ones:
                rings[k]["cf"] += p
                continue
            kept = order[k:]
            todo = max(0, layers - sum(1 for g in kept if piercing[g]))
            damage = 0
            for g in kept:
                if todo and groups[g].deflectable:
                    todo -= 1
                    continue
                damage += values[g]
            key = "greater" if damage > armour else "equal" if damage == armour else "less"
            rings[k][key] += p
    return rings, left


MIXED = [
    # Armor Piercing X2 gone Over the Top: two AP d6s and a standard d10
    ("armor_piercing", 2, [G(6), G(6), G(10)], [True, True, False]),
    # Phased X3: one d12 (ignores Deflection) and the odd standard d10
    ("phased", 3, [G(12, deflectable=False), G(10)], [False, False]),
    # Phased X2 gone Over the Top: one d12 and the Over-the-Top d10
    ("phased", 2, [G(12, deflectable=False), G(10)], [False, False]),
]


@pytest.mark.parametrize(("variant", "xsize", "groups", "piercing"), MIXED)
@pytest.mark.parametrize("layers", [1, 2, 3])
def test_mixed_explosions_against_deflection_match_enumeration(  # type: ignore[no-untyped-def]
    variant, xsize, groups, piercing, layers
) -> None:
    """Ruling A17: these were refused; now exact, against a face-by-face enumeration."""
    damage = explosive_variant(variant).damage(xsize)
    boom = Explosion(damage, over_the_top=len(groups) > damage.dice + (damage.extra is not None))
    assert boom.ring_count == len(groups)
    target = Target(Armour(fixed=6, deflection=layers), kind="object")
    odds = boom.odds(target)
    want, left = oracle_mixed_rings(groups, piercing, layers, 6, 3)
    tol = 2e-3
    assert left < tol
    for got, w in zip(odds.rings, want, strict=True):
        assert got.destroyed == pytest.approx(w["greater"], abs=tol)
        assert got.something_bad == pytest.approx(w["equal"], abs=tol)
        assert got.no_effect == pytest.approx(w["less"] + w["cf"], abs=tol)
        assert got.critical_failure == pytest.approx(w["cf"], abs=1e-12)


@pytest.mark.parametrize(("variant", "xsize", "groups", "piercing"), MIXED)
def test_mixed_explosion_rolls_agree_with_odds_face_by_face(  # type: ignore[no-untyped-def]
    variant, xsize, groups, piercing
) -> None:
    """Without Bonus dice every roll is finite: roll() with each face combination forced,
    weighted, must give odds() exactly (the roll and the sweep share no code)."""
    damage = explosive_variant(variant).damage(xsize)
    ott = len(groups) > damage.dice + (damage.extra is not None)
    boom = Explosion(damage, over_the_top=ott, options=BrikWarsOptions(bonus_die="none"))
    target = Target(Armour(fixed=5, deflection=2), kind="object")
    objects = tuple(ExplosionObject(target, k, loose=True) for k in range(len(groups)))
    tallies = [dict.fromkeys(("destroyed", "something_bad", "no_effect"), 0.0) for _ in groups]
    knock: list[dict[int, float]] = [{} for _ in groups]
    sides = [g.sides for g in groups]
    weight = 1.0 / math.prod(sides)
    for faces in itertools.product(*(range(1, s + 1) for s in sides)):
        rolled = boom.roll(Forced(faces), objects)
        for k, obj in enumerate(rolled.objects):
            tallies[k][obj.outcome] += weight
            knock[k][obj.knockback] = knock[k].get(obj.knockback, 0.0) + weight
    for k, ring in enumerate(boom.odds(target).rings):
        assert ring.destroyed == pytest.approx(tallies[k]["destroyed"], abs=1e-12)
        assert ring.something_bad == pytest.approx(tallies[k]["something_bad"], abs=1e-12)
        assert ring.no_effect == pytest.approx(tallies[k]["no_effect"], abs=1e-12)
        for inches, p in ring.knockback:
            assert p == pytest.approx(knock[k].get(inches, 0.0), abs=1e-12)


def test_concussion_knockback_against_pop() -> None:
    concussion = Explosion(explosive_variant("concussion").damage(1))
    ring = concussion.odds(Target()).rings[0]
    assert ring.destroyed == 0 and ring.no_effect == 1
    # 1d6 (Bonus dice on 6) minus a POP of 1d6, at least 0; all ones is a Dud.
    kb = dict(ring.knockback)
    p_zero = 1 / 6 + sum(1 / 36 for d in range(2, 6) for pop in range(1, 7) if d - pop <= 0)
    p_zero += sum(1 / 36 / 6 for b in range(1, 6) for pop in range(1, 7) if 6 + b - pop <= 0)
    assert kb[0] == pytest.approx(p_zero, abs=1e-3)
    r = concussion.roll(Forced([4, 2]), (ExplosionObject(Target(), 0),))
    assert r.objects[0].knockback == 2 and [d.purpose for d in r.dice] == ["explosion", "POP"]


def test_incendiary_sets_on_fire_and_over_the_top_adds_a_d10() -> None:
    fire = Explosion(explosive_variant("incendiary").damage(2), over_the_top=True)
    assert [(d.count, d.sides) for d in fire.pool().dice] == [(2, 4), (1, 10)]
    ring = fire.odds(Target()).rings[0]
    assert ring.on_fire == pytest.approx(1 - 1 / 160)  # all three dice showing 1
    r = fire.roll(Forced([2, 1, 7]), (ExplosionObject(Target(), 0),))
    assert r.objects[0].on_fire and r.dice[2].purpose == "explosion (Over the Top)"


def test_explosion_limits() -> None:
    # every ring's sweep together: 15d10 and 20d6 against Armor Plating are refused
    for count, sides in ((15, 10), (20, 6)):
        explosion = Explosion(DamageExpr(count, sides, explosion=True))
        with pytest.raises(TooMuchWork):
            explosion.odds(Target(Armour(fixed=4, deflection=1)))


def test_explosive_shot_action_roll_over_the_top_and_miss_distance() -> None:
    grenade = ExplosiveShot(ActionRoll(6, 3), Explosion(DamageExpr(1, 10, explosion=True)))
    odds = grenade.odds(Target.minifig())
    assert (odds.hit, odds.over_the_top, odds.miss) == pytest.approx((4 / 6, 1 / 6, 2 / 6))
    assert dict(odds.missed_by) == pytest.approx({2: 1 / 6, 1: 1 / 6})
    lucky = ExplosiveShot(ActionRoll(6, 1, 5), grenade.explosion).odds(Target.minifig())
    assert dict(lucky.missed_by) == pytest.approx({1: 1 / 6})  # a fumble misses by 1" at least
    plain, _ = oracle_rings([G(10)], 0, {4: 1.0}, 3)
    ott, _ = oracle_rings([G(10), G(10)], 0, {4: 1.0}, 3)
    want = (3 / 6 * plain[0]["greater"] + 1 / 6 * ott[0]["greater"]) / (4 / 6)
    assert odds.ring.destroyed == pytest.approx(want, abs=2e-3)
    assert odds.dud_option == pytest.approx(1 / 6 + 3 / 6 * 0.1 + 1 / 6 * 0.01)
    r = grenade.roll(Forced([6, 4, 3]), (ExplosionObject(Target.minifig(), 0),))
    assert r.over_the_top and r.explosion is not None and r.explosion.rings[0] == (7, 2)
    assert [d.purpose for d in r.dice] == ["action", "explosion", "explosion (Over the Top)"]
    miss = grenade.roll(Forced([2]))
    assert not miss.hit and miss.missed_by == 1 and miss.explosion is None


def test_saved_thrown_explosive() -> None:
    from app.rules.brikwars import UnitSpec, WeaponSpec
    from app.rules.brikwars.attacks import explosive_shot_of

    shot = explosive_shot_of(
        UnitSpec(name="T", kind="minifig"), WeaponSpec("thrown_explosive"), distance=4
    )
    # 1" Out of Range: -1 Action, but the Explosion's Damage is not reduced (chapter 5).
    assert shot.action == ActionRoll(6, 1, -1)
    assert shot.explosion.pool().dice[0].per_die == 0
