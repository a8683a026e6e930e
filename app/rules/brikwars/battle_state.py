"""What a battle remembers about a unit between turns, and how each action changes it.

A battle (the log of a game) keeps, per unit: the Size Damage taken, whether it is destroyed
or on Fire, its Inoperative weapons, the turns of Power saved by Diverting All Power, and the
Homing In bonus of its gunners. This module decides how an attack, a Reload, a Divert All
Power and a Burning Roll change that state (chapter 8; rulings B1-B6 in ``docs/rulings.md``).
Values in, values out: the service stores the result and logs every die.

>>> state = UnitState()
>>> divert(state, "Rex").diverted_turns
1
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from app.rules.brikwars.attacks import LoggedDie, homing_in
from app.rules.brikwars.attacks.common import MAX_MODIFIER
from app.rules.brikwars.serialize import number_to_json
from app.rules.brikwars.turn import MAX_DIVERT_TURNS, Effect, TurnRoll
from app.rules.brikwars.units import UnitSpec
from app.rules.errors import InvalidInput

# A minifig has two arms and two legs; a fifth point of Grinding Damage finishes him (B2).
MINIFIG_LIMBS = 4
BURNING_DIE = 4


@dataclass(frozen=True)
class UnitState:
    """One unit's condition in a battle.

    ``size_damage``: inches of Size lost; ``inoperative``: weapon indexes that need a Reload;
    ``diverted_turns``: turns of Power saved for the next weapon activation; ``homing_in``: the
    Gunnery bonus kept for attacks on ``homed_on`` (a unit key) with ``homed_weapons``;
    ``limbs_lost``: limbs made useless by Grinding Damage (Fire).
    """

    size_damage: Fraction = Fraction(0)
    destroyed: bool = False
    on_fire: bool = False
    inoperative: frozenset[int] = frozenset()
    diverted_turns: int = 0
    homing_in: int = 0
    homed_on: int | None = None
    homed_weapons: tuple[int, ...] = ()
    limbs_lost: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``state_to_dict``."""
        return state_to_dict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> UnitState:
        """``state_from_dict``."""
        return state_from_dict(data)

    def unit(self, spec: UnitSpec) -> UnitSpec:
        """The unit as it now stands: its Size Damage lowers Effective Size, Armour, Power."""
        return replace(spec, size_damage=min(self.size_damage, spec.built_size))


def state_to_dict(state: UnitState) -> dict[str, Any]:
    """The state as JSON: what a battle unit's ``state`` column and a log entry's before/after
    hold. Size Damage is exact (``number_to_json``: 1, "1.5", "1/3"); ``homed_on`` is the
    battle unit's id.

    >>> state = state_to_dict(UnitState(size_damage=Fraction(3, 2), inoperative=frozenset({2, 0})))
    >>> state["size_damage"], state["inoperative"], state["homed_on"]
    ('1.5', [0, 2], None)
    """
    return {
        "size_damage": number_to_json(state.size_damage),
        "destroyed": state.destroyed,
        "on_fire": state.on_fire,
        "inoperative": sorted(state.inoperative),
        "diverted_turns": state.diverted_turns,
        "homing_in": state.homing_in,
        "homed_on": state.homed_on,
        "homed_weapons": list(state.homed_weapons),
        "limbs_lost": state.limbs_lost,
    }


def state_from_dict(data: Mapping[str, Any]) -> UnitState:
    """The state from ``state_to_dict``'s JSON; a missing key takes its default (a fresh unit)."""
    homed_on = data.get("homed_on")
    return UnitState(
        size_damage=Fraction(str(data.get("size_damage", 0))),
        destroyed=bool(data.get("destroyed", False)),
        on_fire=bool(data.get("on_fire", False)),
        inoperative=frozenset(int(i) for i in data.get("inoperative", ())),
        diverted_turns=int(data.get("diverted_turns", 0)),
        homing_in=int(data.get("homing_in", 0)),
        homed_on=None if homed_on is None else int(homed_on),
        homed_weapons=tuple(int(i) for i in data.get("homed_weapons", ())),
        limbs_lost=int(data.get("limbs_lost", 0)),
    )


def require_fighting(state: UnitState, name: str, field: str) -> None:
    """Refuse an action by (or on) a destroyed unit."""
    if state.destroyed:
        raise InvalidInput(field, f"{name} is destroyed")


# --------------------------------------------------------------------------- Homing In


def homing_bonus(
    state: UnitState, *, target: int, weapons: tuple[int, ...], moved: bool = False
) -> int:
    """The Homing In bonus this attack may add (rulings A18, B3).

    Kept only while the same weapons keep firing at the same target and neither moved.
    """
    if moved or state.homed_on != target or tuple(sorted(weapons)) != state.homed_weapons:
        return 0
    return state.homing_in


def _homing_after(
    state: UnitState,
    *,
    target: int,
    weapons: tuple[int, ...],
    used: int,
    gunnery_support: int,
    roll: TurnRoll,
) -> UnitState:
    """The engine's Homing In (ruling A18) over the turn's Action rolls, in order: each adds
    this turn's Gunnery Support, a Critical Failure starts over from 0."""
    kept = used
    actions = [d for line in roll.lines for d in line.dice if d.purpose == "action"]
    for die in actions:
        kept = homing_in(min(kept, MAX_MODIFIER), gunnery_support, die.natural, die.sides)
    if not actions:  # automatic hits: the team still learns from the attack
        kept = used + gunnery_support
    if kept == 0:
        return replace(state, homing_in=0, homed_on=None, homed_weapons=())
    return replace(state, homing_in=kept, homed_on=target, homed_weapons=tuple(sorted(weapons)))


# --------------------------------------------------------------------------- an attack


def reloads_after_each_shot(spec: UnitSpec, index: int) -> bool:
    """A Cannon or a Bazooka "must be Reloaded after each shot" (chapter 8; ruling B4)."""
    return spec.weapons[index].entry.takes_ammo


def attacker_after(
    state: UnitState,
    spec: UnitSpec,
    *,
    weapons: tuple[int, ...],
    target: int,
    homing_in: int,
    gunnery_support: int,
    roll: TurnRoll,
) -> UnitState:
    """The attacker after its turn: jammed guns and fired Cannons need a Reload, saved Power is
    spent (B5), and its Homing In bonus grows or resets (B3)."""
    fired = {i for line in roll.lines if not line.skipped for i in line.weapons}
    empty = {i for i in fired if reloads_after_each_shot(spec, i)}
    after = replace(
        state,
        inoperative=state.inoperative | frozenset(roll.jammed) | frozenset(empty),
        diverted_turns=0,
    )
    return _homing_after(
        after,
        target=target,
        weapons=weapons,
        used=homing_in,
        gunnery_support=gunnery_support,
        roll=roll,
    )


def target_after(state: UnitState, unit_after: UnitSpec, effects: Iterable[Effect]) -> UnitState:
    """A target after the hits it took: ``unit_after`` is the engine's ``targets_after`` entry.

    Destroyed when a hit destroyed it or its Effective Size reached 0; on Fire when any hit
    set it on Fire (it stays on Fire until a Burning Roll puts it out).
    """
    effects = list(effects)
    destroyed = (
        state.destroyed
        or unit_after.effective_size <= 0
        or any(e.outcome == "destroyed" for e in effects)
    )
    on_fire = (state.on_fire or any(e.on_fire for e in effects)) and not destroyed
    return replace(state, size_damage=unit_after.size_damage, destroyed=destroyed, on_fire=on_fire)


# --------------------------------------------------------------------------- other actions


def reload(state: UnitState, name: str) -> UnitState:
    """Reload every Inoperative weapon of the unit (an Action; ruling B4)."""
    require_fighting(state, name, "unit")
    if not state.inoperative:
        raise InvalidInput("unit", f"{name} has no Inoperative weapon to Reload")
    return replace(state, inoperative=frozenset())


def divert(state: UnitState, name: str) -> UnitState:
    """Spend a turn Diverting All Power: one more turn of Power saved (chapter 8)."""
    require_fighting(state, name, "unit")
    if state.diverted_turns >= MAX_DIVERT_TURNS:
        raise InvalidInput("unit", f"{name} has already saved {MAX_DIVERT_TURNS} turns of Power")
    return replace(state, diverted_turns=state.diverted_turns + 1)


@dataclass(frozen=True)
class BurningRoll:
    """A Burning Roll: the d4, whether the Fire went out, and the unit afterwards."""

    die: LoggedDie
    put_out: bool
    grinding_damage: int
    after: UnitState

    @property
    def summary(self) -> str:
        if self.put_out:
            return "the Fire goes out"
        if self.after.destroyed:
            return "the Fire burns on: 1 point of Grinding Damage, and nothing is left to lose"
        if self.grinding_damage:
            return "the Fire burns on: 1 point of Grinding Damage (one limb made useless)"
        return "the Fire burns on"


def burning_roll(state: UnitState, spec: UnitSpec, rng: random.Random) -> BurningRoll:
    """The Burning Roll at the start of a burning unit's turn: 1d4, a 1 puts the Fire out;
    otherwise a minifig or Hero takes 1 point of Grinding Damage (chapter 8; rulings B1, B2).

    >>> roll = burning_roll(UnitState(on_fire=True), UnitSpec(name="M", kind="minifig"),
    ...                     random.Random(3))
    >>> roll.die.natural, roll.put_out, roll.after.limbs_lost
    (2, False, 1)
    """
    require_fighting(state, spec.name, "unit")
    if not state.on_fire:
        raise InvalidInput("unit", f"{spec.name} is not on Fire")
    natural = rng.randint(1, BURNING_DIE)
    die = LoggedDie("burning", BURNING_DIE, natural, natural, False)
    if natural == 1:
        return BurningRoll(die, True, 0, replace(state, on_fire=False))
    if spec.kind == "creation":  # B1: a Creation's Fire is a Field Hazard the players run
        return BurningRoll(die, False, 0, state)
    limbs = state.limbs_lost + 1
    if limbs > MINIFIG_LIMBS:
        after = replace(state, limbs_lost=limbs, destroyed=True, on_fire=False)
    else:
        after = replace(state, limbs_lost=limbs)
    return BurningRoll(die, False, 1, after)
