"""Single attacks and Combined Attacks: the rule texts' examples with forced dice, and the
exact odds against a brute-force enumeration of every face."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.rules.brikwars import Armour, DamageExpr
from app.rules.brikwars.attacks import (
    ActionRoll,
    Attack,
    CombinedAttack,
    Parry,
    Situation,
    Target,
    inches_out_of_range,
    parry_modifier,
)
from app.rules.brikwars.options import BrikWarsOptions
from app.rules.errors import InvalidInput, TooMuchWork
from tests.rules.brikwars.attack_support import (
    Forced,
    G,
    action_faces,
    armour_table,
    damage_vs_armour,
    depth_for,
)

MINIFIG = Target.minifig()
HERO = Target(Armour(dice=2, sides=6), kind="hero")
GUN = DamageExpr(1, 6)

# --------------------------------------------------------------------------- chapter 5


@pytest.mark.parametrize(
    ("damage_face", "outcome"),
    [(5, "destroyed"), (4, "something_bad"), (3, "no_effect")],
)
def test_chapter5_damage_greater_equal_less_than_armour(damage_face: int, outcome: str) -> None:
    """Chapter 5: greater than Armour destroys, equal is Something Bad, less is "ka-ping"."""
    attack = Attack(GUN, MINIFIG, ActionRoll(6, 3))
    rng = Forced([4, damage_face])
    r = attack.roll(rng)
    assert r.outcome == outcome and r.damage == damage_face and r.armour == 4
    assert [(d.purpose, d.natural) for d in r.dice] == [("action", 4), ("damage", damage_face)]
    assert rng.done()


def test_rolled_armour_is_logged_after_the_damage() -> None:
    r = Attack(GUN, HERO, ActionRoll(6, 3)).roll(Forced([3, 5, 2, 3]))
    assert [(d.purpose, d.natural) for d in r.dice] == [
        ("action", 3),
        ("damage", 5),
        ("armour", 2),
        ("armour", 3),
    ]
    assert (r.damage, r.armour, r.outcome) == (5, 5, "something_bad")


def test_action_criticals_ignore_modifiers() -> None:
    # Needs 10 on a d6: only the natural 6 hits, and goes Over the Top.
    attack = Attack(GUN, MINIFIG, ActionRoll(6, 10))
    r = attack.roll(Forced([6, 2, 3]))
    assert r.hit and r.over_the_top and r.damage == 5
    assert [d.purpose for d in r.dice] == ["action", "damage", "damage (Over the Top)"]
    # A natural 1 misses even with +10.
    assert Attack(GUN, MINIFIG, ActionRoll(6, 2, 10)).roll(Forced([1])).outcome == "miss"


def test_damage_critical_failure_has_no_effect_even_above_armour() -> None:
    """RULINGS 1.1: all ones is no effect at all, even with +10 damage and no Fire."""
    flame = DamageExpr(2, 4, modifier=10, fire=True)
    r = Attack(flame, MINIFIG).roll(Forced([1, 1]))
    assert r.critical_failure and r.outcome == "no_effect" and not r.on_fire
    odds = Attack(flame, MINIFIG).odds()
    assert odds.critical_failure == pytest.approx(1 / 16)
    assert odds.destroyed == pytest.approx(15 / 16, abs=1e-9)


def test_bonus_die_chains_and_option_d6() -> None:
    r = Attack(DamageExpr(1, 4), MINIFIG).roll(Forced([4, 4, 2]))
    assert [(d.natural, d.bonus) for d in r.dice] == [(4, False), (4, True), (2, True)]
    assert r.damage == 10
    d6 = Attack(DamageExpr(1, 4), MINIFIG, options=BrikWarsOptions(bonus_die="d6"))
    assert [d.sides for d in d6.roll(Forced([4, 6, 1])).dice] == [4, 6, 6]


def test_size_damage_instead_of_destruction() -> None:
    tank = Target(Armour(dice=2, sides=10), kind="creation", effective_size=3)
    r = Attack(DamageExpr(3, 6), tank).roll(Forced([6, 2, 5, 1, 1, 1]))
    assert r.outcome == "size_damage" and r.damage == 14 and r.armour == 2
    odds = Attack(DamageExpr(3, 6), tank).odds()
    assert odds.destroyed == 0 and odds.size_damage > 0.4
    small = Target(Armour(dice=1, sides=10), kind="creation", effective_size=1)
    assert Attack(DamageExpr(3, 6), small).roll(Forced([6, 2, 5, 1, 1])).outcome == "destroyed"


def test_deflection_removes_the_highest_die_with_its_bonus_dice() -> None:
    plated = Target(Armour(dice=1, sides=10, deflection=1), kind="creation", effective_size=1)
    r = Attack(DamageExpr(3, 6), plated).roll(Forced([6, 2, 3, 4, 5]))
    # 6+2 (a group of 8) is removed; 3 + 4 = 7 against Armour 5.
    assert r.damage == 7 and r.armour == 5 and r.outcome == "destroyed"


def test_chapter5_modifiers() -> None:
    assert inches_out_of_range(10, 8) == 2
    assert inches_out_of_range(Fraction(17, 2), 8) == 1  # ruling A1: a started inch counts
    assert inches_out_of_range(10, 8, height=3) == 0
    assert inches_out_of_range(20, 8, height=9) == 7  # Height Advantage at most +5"
    s = Situation(out_of_range=1, firing_blind=True, outnumbered=True, gunnery_support=2)
    assert s.action_total == -1 - 5 - 1 + 2
    assert Target(reach=Fraction(5)).size_modifier == 2
    assert Target(small="1x1").size_modifier == -2
    assert Target(visible_sections=2).size_modifier == -1
    attack = Attack(GUN, Target(reach=4, visible_sections=1), ActionRoll(6, 4), s)
    assert attack.action_roll() == ActionRoll(6, 4, -5 + 2 - 2)
    # Out of Range: each damage die -1, floored at 0 (not for Explosives).
    assert attack.pool().dice[0].per_die == -1
    # Target Size on the Damage only for area attacks.
    assert Attack(GUN, Target(reach=4), area=True).pool().modifier == 2
    assert Attack(GUN, Target(reach=4)).pool().modifier == 0


def test_bad_inputs_name_the_field() -> None:
    with pytest.raises(InvalidInput) as err:
        ActionRoll(7, 3)
    assert err.value.field == "action.die"
    with pytest.raises(InvalidInput) as err:
        ActionRoll(6, 101)
    assert err.value.field == "action.use"
    with pytest.raises(InvalidInput) as err:
        Attack(DamageExpr(100, 6), MINIFIG, ActionRoll(6, 3))
    assert err.value.field == "damage.dice"
    with pytest.raises(InvalidInput):
        Attack(DamageExpr(1, 10, explosion=True))


# --------------------------------------------------------------------------- oracle


def oracle_single(
    die: int | None,
    use: int,
    mod: int,
    groups: list[G],
    modifier: int,
    layers: int,
    armour: int | list[G],
) -> dict[str, float]:
    """Brute force: every Action face, every damage face (and Over-the-Top die)."""
    miss, hit, crit = (0.0, 1.0, 0.0) if die is None else action_faces(die, use, mod)
    table = armour_table(armour, 8 if isinstance(armour, int) else depth_for(armour[0].sides))
    depth = depth_for(groups[0].sides)
    plain = damage_vs_armour(groups, modifier, layers, table, depth)
    ott = damage_vs_armour([*groups, groups[0]], modifier, layers, table, depth)
    out = {"miss": miss}
    for key in ("greater", "equal", "less", "critical_failure", "left"):
        out[key] = hit * plain[key] + crit * ott[key]
    return out


def bracketed(engine: float, oracle: float, left: float, bound: float) -> bool:
    """The engine's value lies between the oracle's and the oracle's plus the mass the
    oracle's truncated chains left out (both within the engine's own bound)."""
    return oracle - bound - 1e-12 <= engine <= oracle + left + bound + 1e-12


CASES = [
    # (action die/use/mod, damage dice/sides/mod/per_die, armour, deflection)
    ((6, 4, 0), (1, 6, 0, 0), 4, 0),
    ((6, 4, -1), (2, 4, 1, -1), 4, 0),
    ((8, 5, 2), (2, 6, 0, 0), [G(6), G(6)], 1),
    ((4, 3, 0), (3, 4, -2, 0), [G(10)], 0),
    (None, (2, 6, 0, -1), [G(6), G(6)], 0),
    ((10, 9, -3), (1, 8, 2, -2), 6, 0),
    ((12, 6, 0), (2, 4, 0, 0), [G(4), G(4)], 2),
]


@pytest.mark.parametrize(("action", "damage", "armour", "layers"), CASES)
def test_single_attack_odds_match_enumeration(action, damage, armour, layers) -> None:  # type: ignore[no-untyped-def]
    n, sides, modifier, per_die = damage
    arm = (
        Armour(fixed=armour)
        if isinstance(armour, int)
        else Armour(dice=len(armour), sides=armour[0].sides, deflection=layers)
    )
    if isinstance(armour, int) and layers:
        arm = Armour(fixed=armour, deflection=layers)
    attack = Attack(
        DamageExpr(n, sides, modifier),
        Target(arm),
        None if action is None else ActionRoll(*action),
        per_die=per_die,
    )
    odds = attack.odds()
    die, use, mod = action or (None, 0, 0)
    want = oracle_single(die, use, mod, [G(sides, per_die)] * n, modifier, layers, armour)
    left, bound = want["left"], odds.truncation_bound
    assert left < 2e-3
    assert odds.miss == pytest.approx(want["miss"], abs=1e-12)
    assert bracketed(odds.destroyed, want["greater"], left, bound)
    assert bracketed(odds.something_bad, want["equal"], left, bound)
    assert odds.critical_failure == pytest.approx(want["critical_failure"], abs=1e-12)
    assert bracketed(odds.no_effect, want["less"] + want["critical_failure"], left, bound)
    total = odds.miss + odds.no_effect + odds.something_bad + odds.destroyed
    assert total == pytest.approx(1.0, abs=odds.truncation_bound + 1e-12)
    assert odds.truncation_bound < 1e-9
    assert sum(p for _, p in odds.damage_distribution) == pytest.approx(1.0, abs=1e-9)


def test_parry_cancels_or_adds_shield_layers() -> None:
    parry = Parry(ActionRoll(6, 2, parry_modifier(1, two_handed=True)))
    attack = Attack(GUN, MINIFIG, ActionRoll(6, 3), parry=parry)
    odds = attack.odds()
    p_hit = 4 / 6
    p_parry = 5 / 6  # natural 2..6 (2 + 1 >= 2; the natural 1 fumbles)
    assert odds.parried == pytest.approx(p_hit * p_parry)
    assert odds.disarmed == pytest.approx(p_hit / 6)
    r = attack.roll(Forced([3, 4]))
    assert r.parried and r.outcome == "no_effect"
    assert [d.purpose for d in r.dice] == ["action", "parry"]
    fumble = attack.roll(Forced([3, 1, 6, 2]))
    assert fumble.disarmed and fumble.outcome == "destroyed" and fumble.damage == 8
    # A Melee Shield of Size 2 adds two layers instead: 3d6 loses its two highest dice.
    shielded = Attack(DamageExpr(3, 6), MINIFIG, parry=Parry(ActionRoll(6, 4), shield_layers=2))
    r = shielded.roll(Forced([5, 5, 3, 2]))
    assert r.damage == 2 and r.outcome == "no_effect"
    want = damage_vs_armour([G(6)] * 3, 0, 2, {4: 1.0}, 4)
    plain = damage_vs_armour([G(6)] * 3, 0, 0, {4: 1.0}, 4)
    p = 3 / 6  # natural 4, 5, 6
    assert shielded.odds().destroyed == pytest.approx(
        p * want["greater"] + (1 - p) * plain["greater"], abs=2e-3
    )


def test_charge_adds_an_action_die_of_damage() -> None:
    lance = Attack(DamageExpr(1, 6, modifier=2), MINIFIG, ActionRoll(6, 3), charge_die=6)
    r = lance.roll(Forced([3, 2, 1]))
    assert r.damage == 5 and r.outcome == "destroyed"
    want = damage_vs_armour([G(6), G(6)], 2, 0, {4: 1.0}, 5)
    ott = damage_vs_armour([G(6), G(6), G(6)], 2, 0, {4: 1.0}, 5)
    assert lance.odds().destroyed == pytest.approx(
        3 / 6 * want["greater"] + 1 / 6 * ott["greater"], abs=1e-3
    )


# --------------------------------------------------------------------------- combined


def test_combined_attack_sums_damage_against_one_armour_roll() -> None:
    a = Attack(GUN, HERO, ActionRoll(6, 4))
    b = Attack(DamageExpr(1, 4, modifier=1), HERO, ActionRoll(8, 5))
    combined = CombinedAttack((a, b))
    # a hits with a 4, b with a 6 on its d8 (a plain hit); damage 3 + 2 + 1; Armour 1 + 3.
    r = combined.roll(Forced([4, 6, 3, 2, 1, 3]))
    assert [d.purpose for d in r.dice] == [
        "action (attacker 1)",
        "action (attacker 2)",
        "damage",
        "damage",
        "armour",
        "armour",
    ]
    assert (r.damage, r.armour, r.outcome) == (6, 4, "destroyed")
    odds = combined.odds()
    # Oracle: both hit patterns enumerated face by face.
    am, ah, ac = action_faces(6, 4, 0)
    bm, bh, bc = action_faces(8, 5, 0)
    table = armour_table([G(6), G(6)], 5)
    total = {"greater": 0.0, "equal": 0.0, "less": 0.0, "critical_failure": 0.0}
    for pa, ga in ((ah, [G(6)]), (ac, [G(6), G(6)]), (am, [])):
        for pb, gb in ((bh, [G(4)]), (bc, [G(4), G(4)]), (bm, [])):
            groups = ga + gb
            if not groups:
                continue
            mod = 1 if gb else 0
            res = damage_vs_armour(groups, mod, 0, table, 5)
            for k in total:
                total[k] += pa * pb * res[k]
    assert odds.miss == pytest.approx(am * bm)
    assert odds.destroyed == pytest.approx(total["greater"], abs=1e-3)
    assert odds.something_bad == pytest.approx(total["equal"], abs=1e-3)
    assert odds.critical_failure == pytest.approx(total["critical_failure"], abs=1e-9)


def test_combined_fire_needs_the_fire_weapon_to_hit() -> None:
    flame = Attack(DamageExpr(1, 4, fire=True), MINIFIG, ActionRoll(6, 4))
    gun = Attack(GUN, MINIFIG)  # an automatic hit
    odds = CombinedAttack((flame, gun)).odds()
    # On Fire: the FlameThrower hits (4, 5; 6 adds a d4) and the sum is not all ones.
    assert odds.on_fire == pytest.approx(2 / 6 * (1 - 1 / 24) + 1 / 6 * (1 - 1 / 96))
    r = CombinedAttack((flame, gun)).roll(Forced([2, 3]))
    assert r.damage == 3 and not r.on_fire


def test_combined_attack_refuses_too_much_work() -> None:
    with pytest.raises(TooMuchWork):
        CombinedAttack(tuple(Attack(GUN, MINIFIG, ActionRoll(6, 3)) for _ in range(7)))
