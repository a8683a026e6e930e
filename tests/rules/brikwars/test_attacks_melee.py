"""Collisions and Charging Shoves: MOM against POP, Smash damage against an obstacle."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from app.rules.brikwars import Armour
from app.rules.brikwars.attacks import Collision, Target
from tests.rules.brikwars.attack_support import Forced, within


def test_collision_knockback_matches_enumeration() -> None:
    odds = Collision(Target.minifig()).odds()
    want: Counter = Counter()
    for mom in range(1, 7):
        for pop in range(1, 7):
            want[max(0, mom - pop)] += 1 / 36
    assert dict(odds.knockback) == pytest.approx(dict(want))
    assert odds.resisted == pytest.approx(21 / 36)
    assert odds.no_effect == pytest.approx(1.0)  # open ground: nothing is smashed


def test_charging_shove_into_a_wall() -> None:
    """A Shove (2" from a Melee Shield) plus the MOM's 1d6, no POP; a wall 3" behind."""
    minifig = Collision(Target.minifig(), pop=False, base_knockback=2, obstacle=3)
    odds = minifig.odds()
    # KnockBack 3..8; Smash = KnockBack - 3: 0..5 against Armour 4.
    assert dict(odds.smash) == pytest.approx({s: 1 / 6 for s in range(6)})
    assert odds.destroyed == pytest.approx(1 / 6)  # Smash 5
    assert odds.something_bad == pytest.approx(1 / 6)  # Smash 4
    assert odds.no_effect == pytest.approx(4 / 6)
    r = minifig.roll(Forced([5]))
    assert (r.knockback, r.smash, r.armour, r.outcome) == (7, 4, 4, "something_bad")
    assert [d.purpose for d in r.dice] == ["MOM KnockBack"]


@pytest.mark.slow
def test_collision_against_rolled_armour_matches_enumeration_and_rolls() -> None:
    hero = Collision(Target(Armour(dice=1, sides=4), kind="hero"), obstacle=0)
    odds = hero.odds()
    destroyed = 0.0
    for mom in range(1, 7):
        for pop in range(1, 7):
            smash = max(0, mom - pop)
            if not smash:
                continue
            # 1d4 Armour with Bonus dice: 4 chains (4 + 1..3 = 5..7, then 8+ ...).
            p_below = sum(1 / 4 for a in range(1, 4) if a < smash)
            p_below += sum(1 / 16 for b in range(1, 4) if 4 + b < smash)
            destroyed += p_below / 36
    assert odds.destroyed == pytest.approx(destroyed, abs=1e-3)
    rng = random.Random(7)
    n = 200_000
    tally = Counter(hero.roll(rng).outcome for _ in range(n))
    for name in ("destroyed", "something_bad", "no_effect"):
        assert within(tally[name], n, getattr(odds, name)), name
