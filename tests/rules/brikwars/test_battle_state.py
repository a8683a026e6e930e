"""A unit's state between turns of a battle: attacks, Reloads, Divert All Power, Fire."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest

from app.rules.brikwars.battle_state import (
    MINIFIG_LIMBS,
    UnitState,
    attacker_after,
    burning_roll,
    divert,
    homing_bonus,
    reload,
    state_from_dict,
    state_to_dict,
    target_after,
)
from app.rules.brikwars.options import DEFAULT_OPTIONS
from app.rules.brikwars.turn import MAX_DIVERT_TURNS, Turn, TurnSituation
from app.rules.brikwars.units import Explosive, UnitSpec, WeaponSpec, minifig
from app.rules.errors import InvalidInput

GUN, MG = WeaponSpec("gun", size=3), WeaponSpec("machinegun", size=2)
CANNON = WeaponSpec("cannon", size=2, ammo=Explosive(2))


def tank() -> UnitSpec:
    return UnitSpec(name="Tank", size=4, structure_level=2, weapons=(GUN, MG, CANNON))


def walker(size_damage: int = 0) -> UnitSpec:
    return UnitSpec(name="Walker", size=3, structure_level=3, size_damage=size_damage)


def _roll_until(turn: Turn, predicate, tries: int = 500):  # type: ignore[no-untyped-def]
    for seed in range(tries):
        rolled = turn.roll(random.Random(seed))
        if predicate(rolled):
            return rolled
    raise AssertionError("no seed gave the wanted roll")


def test_state_round_trips_through_json():
    state = UnitState(
        size_damage=Fraction(3, 2),
        on_fire=True,
        inoperative=frozenset({2, 0}),
        diverted_turns=2,
        homing_in=3,
        homed_on=7,
        homed_weapons=(0, 1),
        limbs_lost=1,
    )
    assert state.to_dict()["size_damage"] == "1.5"
    assert UnitState.from_dict(state.to_dict()) == state
    assert state_from_dict(state_to_dict(state)) == state


@pytest.mark.parametrize(
    ("size_damage", "stored"), [(Fraction(0), 0), (Fraction(2), 2), (Fraction(1, 3), "1/3")]
)
def test_state_codec_keeps_size_damage_exact_in_the_logs_format(
    size_damage: Fraction, stored: int | str
) -> None:
    """Whole numbers as JSON numbers, others as exact text: as log entries have always held."""
    data = state_to_dict(UnitState(size_damage=size_damage, destroyed=True))
    assert data["size_damage"] == stored
    assert json.loads(json.dumps(data)) == data
    assert state_from_dict(data) == UnitState(size_damage=size_damage, destroyed=True)


def test_state_from_dict_reads_old_log_entries() -> None:
    """Entries logged before the state column stored Size Damage as text ("2") too."""
    old = {"size_damage": "2", "destroyed": False, "on_fire": True, "inoperative": [1],
           "diverted_turns": 0, "homing_in": 2, "homed_on": 5, "homed_weapons": [0],
           "limbs_lost": 0}  # fmt: skip
    state = state_from_dict(old)
    assert state.size_damage == 2 and state.homed_on == 5 and state.inoperative == {1}
    assert state_from_dict({}) == UnitState()


def test_state_gives_the_unit_its_size_damage():
    """A Creation that lost Size has less Power and fewer Armour dice."""
    hurt = UnitState(size_damage=Fraction(1)).unit(walker())
    assert hurt.effective_size == 2
    assert str(hurt.armour) == "2d10" and str(walker().armour) == "3d10"
    assert hurt.standing_power_with(DEFAULT_OPTIONS) == 4


def test_target_after_size_damage_and_destruction():
    turn = Turn(tank(), (0,), walker(), TurnSituation(distance=Fraction(2)))
    rolled = _roll_until(turn, lambda r: r.lines[0].effects[0].outcome == "size_damage")
    after = target_after(UnitState(), rolled.targets_after[0], rolled.lines[0].effects)
    assert after.size_damage == 1 and not after.destroyed
    gone = target_after(UnitState(), walker(size_damage=3), ())
    assert gone.destroyed


def test_a_minifig_set_on_fire_stays_on_fire():
    flamer = UnitSpec(
        name="Dragon", size=3, structure_level=1, weapons=(WeaponSpec("flamethrower", size=3),)
    )
    turn = Turn(flamer, (0,), minifig(), TurnSituation(distance=Fraction(2)))
    rolled = _roll_until(
        turn,
        lambda r: (
            r.lines[0].effects
            and r.lines[0].effects[0].outcome == "something_bad"
            and r.lines[0].effects[0].on_fire
        ),
    )
    after = target_after(UnitState(), rolled.targets_after[0], rolled.lines[0].effects)
    assert after.on_fire and not after.destroyed
    assert target_after(after, minifig(), ()).on_fire  # a later miss does not put it out


def test_a_jammed_machinegun_and_a_fired_cannon_need_a_reload():
    turn = Turn(tank(), (1,), minifig(), TurnSituation(burst=4))
    rolled = _roll_until(turn, lambda r: r.jammed == (1,))
    after = attacker_after(
        UnitState(), tank(), weapons=(1,), target=5, homing_in=0, gunnery_support=0, roll=rolled
    )
    assert after.inoperative == {1}
    with pytest.raises(InvalidInput, match="Inoperative until Reloaded"):
        Turn(tank(), (1,), minifig(), inoperative=after.inoperative)
    assert reload(after, "Tank").inoperative == frozenset()

    cannon = Turn(tank(), (2,), walker(), TurnSituation(distance=Fraction(4))).roll(
        random.Random(1)
    )
    fired = attacker_after(
        UnitState(), tank(), weapons=(2,), target=5, homing_in=0, gunnery_support=0, roll=cannon
    )
    assert fired.inoperative == {2}


def test_reload_refuses_when_nothing_is_inoperative():
    with pytest.raises(InvalidInput, match="no Inoperative weapon"):
        reload(UnitState(), "Tank")
    with pytest.raises(InvalidInput, match="destroyed"):
        reload(UnitState(destroyed=True, inoperative=frozenset({1})), "Tank")


def test_divert_all_power_saves_turns_that_the_next_attack_spends():
    state = divert(divert(UnitState(), "Rex"), "Rex")
    assert state.diverted_turns == 2
    turn = Turn(tank(), (0,), walker(), TurnSituation(distance=Fraction(2), divert_turns=2))
    after = attacker_after(
        state,
        tank(),
        weapons=(0,),
        target=1,
        homing_in=0,
        gunnery_support=0,
        roll=turn.roll(random.Random(4)),
    )
    assert after.diverted_turns == 0
    full = UnitState(diverted_turns=MAX_DIVERT_TURNS)
    with pytest.raises(InvalidInput, match="already saved"):
        divert(full, "Rex")


def test_homing_in_accumulates_gunnery_support_and_a_critical_failure_resets_it():
    turn = Turn(tank(), (0,), walker(), TurnSituation(distance=Fraction(2), gunnery_support=1))
    hit = _roll_until(turn, lambda r: not r.critical_failure)
    state = UnitState()
    for expected in (1, 2, 3):
        used = homing_bonus(state, target=9, weapons=(0,))
        state = attacker_after(
            state, tank(), weapons=(0,), target=9, homing_in=used, gunnery_support=1, roll=hit
        )
        assert (state.homing_in, state.homed_on) == (expected, 9)
    assert homing_bonus(state, target=9, weapons=(0,)) == 3
    assert homing_bonus(state, target=8, weapons=(0,)) == 0  # aimed somewhere else
    assert homing_bonus(state, target=9, weapons=(0, 1)) == 0  # another weapon
    assert homing_bonus(state, target=9, weapons=(0,), moved=True) == 0
    failed = _roll_until(turn, lambda r: r.critical_failure)
    reset = attacker_after(
        state, tank(), weapons=(0,), target=9, homing_in=3, gunnery_support=1, roll=failed
    )
    assert (reset.homing_in, reset.homed_on) == (0, None)


def test_burning_roll_of_a_minifig():
    """Chapter 8: a 1 puts the Fire out; otherwise 1 point of Grinding Damage (a limb)."""
    burning = UnitState(on_fire=True)
    seen = {burning_roll(burning, minifig(), random.Random(s)).die.natural for s in range(50)}
    assert seen == {1, 2, 3, 4}
    for seed in range(50):
        roll = burning_roll(burning, minifig(), random.Random(seed))
        assert roll.die.sides == 4 and roll.die.purpose == "burning"
        if roll.die.natural == 1:
            assert roll.put_out and not roll.after.on_fire and roll.after.limbs_lost == 0
        else:
            assert not roll.put_out and roll.after.on_fire and roll.after.limbs_lost == 1


def test_a_minifig_with_no_limbs_left_is_destroyed_by_the_next_grinding_point():
    state = UnitState(on_fire=True, limbs_lost=MINIFIG_LIMBS)
    for seed in range(20):
        roll = burning_roll(state, minifig(), random.Random(seed))
        if not roll.put_out:
            assert roll.after.destroyed and not roll.after.on_fire
            return
    raise AssertionError("no burning seed")


def test_a_burning_creation_takes_no_grinding_damage_from_the_roll():
    state = UnitState(on_fire=True)
    for seed in range(20):
        roll = burning_roll(state, walker(), random.Random(seed))
        assert roll.grinding_damage == 0 and roll.after.limbs_lost == 0
        assert roll.after.on_fire == (roll.die.natural != 1)


def test_burning_roll_refuses_a_unit_not_on_fire():
    with pytest.raises(InvalidInput, match="not on Fire"):
        burning_roll(UnitState(), minifig(), random.Random(1))
