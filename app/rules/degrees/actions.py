"""A Degrees unit's named actions in a battle besides attacking (``battle_state``'s rules): a
new round, breaking free, pumping a gas gun, drawing a p-gun, beginning an attack, moving to a
location. The dice an action rolls (breaking free, over-compressing) are logged as one line.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from app.rules import battle_log
from app.rules.degrees import battle_state as bs
from app.rules.degrees.round import die_purpose
from app.rules.degrees.shot import D10
from app.rules.degrees.units import DegreesUnit
from app.rules.fields import InputField
from app.rules.ruleset import ActionResult, Fighter, UnitAction

PUMP_WEAPON = InputField(
    "pump_weapon",
    "Gas gun to pump (weapon index)",
    "whole",
    None,
    low=0,
    high=39,
    optional=True,
    help="Empty: the unit's first gas gun",
)
PUMP_AP = InputField("pump_ap", "AP to pump", "whole", 1, low=1, high=12)
PUMP_OP = InputField("pump_op", "OP on the first compression roll", "whole", 0, low=0, high=20)
BEGIN_AP = InputField("begin_ap", "AP to put into a begun attack", "whole", 1, low=1, high=12)
LOCATION = InputField("location", "Location", "text", "", high=bs.LOCATION_MAX)
LOCATION_BLOOM = InputField(
    "location_bloom",
    "Bloom there",
    "whole",
    None,
    low=0,
    high=bs.MAX_BLOOM,
    optional=True,
    help="Empty: kept (0 on moving)",
)
UNIT_ACTIONS = (
    UnitAction("new_round", "New round: {unit}"),
    UnitAction("break_free", "Break free: {unit}", urgent=True),
    UnitAction("pump", "Pump: {unit}", (PUMP_WEAPON, PUMP_AP, PUMP_OP)),
    UnitAction("draw", "Draw p-gun: {unit}"),
    UnitAction("begin", "Begin an attack: {unit}", (BEGIN_AP,)),
    UnitAction("location", "Location: {unit}", (LOCATION, LOCATION_BLOOM)),
)


def _whole_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def act(name: str, fighter: Fighter, values: Mapping[str, Any], rng: random.Random) -> ActionResult:
    """The named action taken (its fields read from ``values``), with any dice it rolled as
    a log line."""
    named, read = battle_log.read_action(UNIT_ACTIONS, name, values)
    unit: DegreesUnit = fighter.unit
    state: bs.UnitState = fighter.state
    who = fighter.name
    if name == "new_round":
        bs.require_fighting(state, unit, who)
        after = bs.new_round(state, unit)
        left = bs.ap_left(after, unit)
        owed = f", {after.ap_lost} AP still owed" if after.ap_lost else ""
        return ActionResult(after, f"{who}: new round, {left} AP{owed}")
    if name == "break_free":
        rolled = bs.break_free(state, unit, who, rng)
    elif name == "pump":
        rolled = bs.pump(
            state,
            unit,
            who,
            _whole_or_none(read["pump_weapon"]),
            int(read["pump_ap"] or 1),
            int(read["pump_op"] or 0),
            rng,
        )
    else:
        if name == "draw":
            after, words = bs.draw(state, unit, who)
        elif name == "begin":
            after, words = bs.begin(state, unit, who, int(read["begin_ap"] or 1))
        else:
            location = " ".join(str(read["location"] or "").split())
            after, words = bs.set_location(
                state, unit, who, location, _whole_or_none(read["location_bloom"])
            )
        return ActionResult(after, f"{who} {words}")
    dice = [
        {
            "purpose": die_purpose(purpose, degree),
            "sides": D10,
            "natural": natural,
            "value": natural,
            "bonus": False,
            "unit_id": fighter.key,
            "against": degree,
        }
        for purpose, natural, degree in rolled.dice
    ]
    line = battle_log.action_line(named, who, dice)
    return ActionResult(rolled.after, f"{who} {rolled.summary}", (line,) if dice else ())
