"""Homing In (chapter 8.5, RULINGS 1.7, ruling A18): Gunnery Support bonuses kept between
attacks at the same point, reset by a Critical Failure."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from app.rules.brikwars import Armour, UnitSpec, WeaponSpec
from app.rules.brikwars.attacks import Situation, Target, attack_of, homing_in
from app.rules.errors import InvalidInput
from tests.rules.brikwars.attack_support import Forced, action_faces

# A Size 4" Cannon-sized Gun crewed by Gunners: the firing team is at most 4 minifigs, so at
# most 3 supporters per attack.
BUNKER = UnitSpec(
    name="Bunker",
    size=Fraction(6),
    structure_level=Fraction(3),
    mind_die=6,
    specialties=("gunnery",),
    weapons=(WeaponSpec("gun", size=Fraction(4)),),
)
TANK = Target(Armour(dice=2, sides=10), kind="creation", reach=2, effective_size=4)


def test_bonuses_accumulate_while_nothing_moves() -> None:
    # The text: "For each new attack they can add new Gunnery Support bonuses to the bonuses
    # from the previous turn, accumulating +1s until it becomes almost impossible to miss."
    bonus = 0
    for turn, (supporters, natural) in enumerate([(2, 4), (3, 2), (1, 8), (3, 5)], start=1):
        bonus = homing_in(bonus, supporters, natural_action=natural, die=8)
        assert bonus == [2, 5, 6, 9][turn - 1]


def test_a_critical_failure_cancels_the_bonus() -> None:
    # "any Critical Failure cancels the Homing In bonus and requires the Gunners to start over"
    assert homing_in(9, 3, natural_action=1, die=8) == 0
    assert homing_in(0, 2, natural_action=1, die=4) == 0
    # A miss that is not a Critical Failure keeps it; a Critical Success keeps it too.
    assert homing_in(4, 0, natural_action=2, die=6) == 4
    assert homing_in(4, 1, natural_action=6, die=6) == 5


def test_the_kept_bonus_goes_into_the_attack_as_gunnery_support() -> None:
    """Three turns with forced Action dice: each attack's Action modifier is the bonus kept so
    far plus this turn's supporters, and the natural Action die decides what is kept."""
    gun = BUNKER.weapons[0]  # Gun S4: Use 6, Range 18"; a Gunner rolls a d8
    rng = Forced([2, 1, 2])  # three misses: no damage dice are rolled
    kept, modifiers, kept_after = 0, [], []
    for supporters in (2, 1, 2):
        attack = attack_of(
            BUNKER,
            gun,
            TANK,
            distance=12,
            gunner=True,
            situation=Situation(gunnery_support=kept + supporters),
        )
        modifiers.append(attack.action_roll().modifier)
        roll = attack.roll(rng)
        assert not roll.hit
        natural = roll.dice[0].natural
        kept = homing_in(kept, supporters, natural_action=natural, die=attack.action_roll().die)
        kept_after.append(kept)
    assert rng.done()
    # Target Size +1 (2" reached) every time; Gunnery Support 2, then 2 + 1, then 0 + 2.
    assert modifiers == [1 + 2, 1 + 3, 1 + 2]
    assert kept_after == [2, 0, 2]  # the Critical Failure of turn 2 started the team over


def test_a_critical_failure_starts_the_team_over_in_a_seeded_battle() -> None:
    rng = random.Random(20261130)
    gun = BUNKER.weapons[0]
    kept, history = 0, []
    for _ in range(40):
        attack = attack_of(
            BUNKER, gun, TANK, gunner=True, situation=Situation(gunnery_support=kept + 1)
        )
        roll = attack.roll(rng)
        natural = roll.dice[0].natural
        assert roll.dice[0].purpose == "action"
        new = homing_in(kept, 1, natural_action=natural, die=attack.action_roll().die)
        assert new == (0 if natural == 1 else kept + 1)
        history.append(new)
        kept = new
    assert 0 in history and max(history) >= 3  # some resets, some long streaks


def test_the_accumulated_bonus_raises_the_hit_chance_exactly() -> None:
    for kept in range(0, 8):
        attack = attack_of(
            BUNKER, BUNKER.weapons[0], TANK, gunner=True, situation=Situation(gunnery_support=kept)
        )
        odds = attack.odds()
        miss, _, _ = action_faces(8, 6, 1 + kept)
        assert odds.miss == pytest.approx(miss, abs=1e-12)
    # However large the bonus, the natural 1 still misses (1/8 for the Gunner's d8).
    assert odds.miss == pytest.approx(1 / 8, abs=1e-12)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ((0, 1, 0, 6), "natural_action"),
        ((0, 1, 7, 6), "natural_action"),
        ((-1, 1, 3, 6), "previous_bonus"),
        ((0, -1, 3, 6), "gunnery_support"),
        ((0, 1, 3, 7), "die"),
        ((0, 1, 3, True), "die"),
    ],
)
def test_bad_input_names_the_field(args: tuple[int, int, int, int], field: str) -> None:
    with pytest.raises(InvalidInput) as err:
        homing_in(*args)
    assert err.value.field == field
