"""Activation sets: maximal weapon combinations within Power (chapter 8, Power Limits)."""

from __future__ import annotations

import time
from fractions import Fraction as F
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.brikwars import (
    Explosive,
    Payload,
    UnitSpec,
    WeaponSpec,
    activation_sets,
    minifig,
)
from app.rules.brikwars import activation as activation_module
from app.rules.errors import TooMuchWork


def unit_with(*weapons: WeaponSpec, **fields) -> UnitSpec:
    base = {"name": "Thing", "size": 3, "structure_level": 1}
    base.update(fields)
    return UnitSpec(weapons=weapons, **base)


def brute_force(needs: list[F], power: F) -> list[tuple[int, ...]]:
    """Every subset that fits, kept when no other weapon could be added to it."""
    free = [i for i, n in enumerate(needs) if n == 0]
    rest = [i for i, n in enumerate(needs) if 0 < n <= power]
    found = []
    for r in range(len(rest) + 1):
        for combo in combinations(rest, r):
            used = sum((needs[i] for i in combo), F(0))
            if used > power:
                continue
            if any(needs[j] <= power - used for j in rest if j not in combo):
                continue
            found.append(tuple(sorted(free + list(combo))))
    return sorted(found)


def test_free_items_are_in_every_set():
    unit = unit_with(
        WeaponSpec("gun", size=4), WeaponSpec("armor_plating", size=3), WeaponSpec("gun", size=3)
    )
    assert activation_sets(unit) == [(0, 1), (1, 2)]


def test_turret_weapons_bring_their_own_power():
    """Ruling "turret power pools" (docs/rulings.md): a turreted weapon runs on its turret."""
    unit = unit_with(
        WeaponSpec("gun", size=2, mount="small_turret"), WeaponSpec("gun", size=6), size=3
    )
    assert unit.power == 8
    assert activation_sets(unit) == [(0, 1)]
    small = unit_with(
        WeaponSpec("gun", size=2, mount="small_turret"),
        WeaponSpec("gun", size=2),
        WeaponSpec("gun", size=2),
        size=1,
    )
    # base Power 2 runs one of the two mounted guns; the turret's surplus is not shared
    assert activation_sets(small) == [(0, 1), (0, 2)]


def test_cannon_and_launcher_need_only_their_own_size():
    unit = unit_with(
        WeaponSpec("cannon", size=2, ammo=Explosive(2, rounds=4)),
        WeaponSpec("launcher", size=3, payload=Payload(Explosive(1, rounds=6), per_launch=3)),
        WeaponSpec("explosive", xsize=2, label="dropped bomb"),
        size=3,
    )
    # Power 6: cannon 2 + launcher 3 = 5; a dropped X2 bomb needs 2
    assert activation_sets(unit) == [(0, 1), (0, 2), (1, 2)]


def test_flying_halves_power():
    unit = unit_with(
        WeaponSpec("gun", size=2), WeaponSpec("gun", size=2), propulsion="flying", move=6
    )
    assert unit.power == 3
    assert activation_sets(unit) == [(0,), (1,)]


def test_no_weapons_and_nothing_fits():
    assert activation_sets(unit_with()) == [()]
    assert activation_sets(unit_with(WeaponSpec("gun", size=7))) == [()]


def test_minifig_items():
    """Ruling "minifig item Power" (docs/rulings.md): nominal Sizes 1, 1.5, 2 against Power 2."""
    trooper = minifig(
        weapons=(
            WeaponSpec("hand_weapon"),
            WeaponSpec("short_ranged_weapon"),
            WeaponSpec("long_ranged_weapon"),
            WeaponSpec("shield"),
        )
    )
    assert activation_sets(trooper) == [(0, 1, 3), (2, 3)]


@settings(max_examples=300, deadline=None)
@given(
    needs=st.lists(st.sampled_from([F(1, 2), F(1), F(3, 2), F(2), F(3), F(5), F(0)]), max_size=9),
    size=st.sampled_from([F(1), F(3, 2), F(2), F(3), F(4)]),
)
def test_matches_brute_force(needs, size):
    weapons = tuple(
        WeaponSpec("armor_plating", size=1) if n == 0 else WeaponSpec("gun", size=n) for n in needs
    )
    unit = unit_with(*weapons, size=size)
    assert activation_sets(unit) == brute_force(list(needs), unit.base_power)


def test_twelve_weapons_is_fast():
    sizes = [1, 1, 2, 2, 3, 3, 1, 2, 3, 4, F(1, 2), F(3, 2)]
    unit = unit_with(*(WeaponSpec("gun", size=s) for s in sizes), size=5)
    start = time.perf_counter()
    sets = activation_sets(unit)
    assert time.perf_counter() - start < 0.5
    assert sets == brute_force([F(s) for s in sizes], F(10))


def test_too_many_combinations(monkeypatch):
    monkeypatch.setattr(activation_module, "MAX_SETS", 5)
    unit = unit_with(*(WeaponSpec("gun", size=1) for _ in range(8)), size=2)
    with pytest.raises(TooMuchWork):
        activation_sets(unit)


def test_armour_is_not_offered_as_a_weapon_to_fire():
    """Armor Plating makes no attack: the ruleset does not offer it as a weapon to fire
    (``fires``) and "Usable together in one turn" names only what a turn chooses between."""
    from app.rules.brikwars import DEFAULT_OPTIONS
    from app.rules.registry import get_ruleset

    rules = get_ruleset("brikwars")
    tank = UnitSpec(
        name="Tank",
        size=3,
        structure_level=2,
        weapons=(
            WeaponSpec("gun", size=3),
            WeaponSpec("armor_plating", size=1),
            WeaponSpec("melee_shield", size=1),
        ),
    )
    figures = rules.unit_figures(tank, DEFAULT_OPTIONS)
    assert [w.fires for w in figures.weapons] == [True, False, False]
    assert figures.detail["activation_text"] == '3" Gun + 1" Melee Shield'


def test_power_is_orange_only_with_a_finding_that_explains_it():
    """A Hero carrying 3" of minifig items has Power 2": it cannot use them all in one turn,
    which "Usable together" says; no weapon is Too Big, so Power is not flagged. A weapon
    Too Big on its own flags Power, and its ``too_big`` finding says why."""
    from app.rules.brikwars import DEFAULT_OPTIONS, hero
    from app.rules.registry import get_ruleset

    rules = get_ruleset("brikwars")
    h = hero(weapons=(WeaponSpec("long_ranged_weapon"), WeaponSpec("heavy_weapon")))
    figures = rules.unit_figures(h, DEFAULT_OPTIONS)
    assert figures.cells["power"] == '3/2"' and figures.flagged == frozenset()
    assert not figures.findings
    rex = UnitSpec(
        name="Rex", size=2, structure_level=1, weapons=(WeaponSpec("melee_weapon", size=5),)
    )
    figures = rules.unit_figures(rex, DEFAULT_OPTIONS)
    assert figures.flagged == {"power"}
    assert [f.code for f in figures.findings] == ["too_big"]
