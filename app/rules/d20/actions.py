"""A D20 figurine's named actions in a battle besides attacking (``battle_state``'s rules):
a new turn, placing charges (with a countdown, maybe secret), defusing one, setting charges
off with no figurine in their radius. Each action's D20 rolls are logged as one line.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from app.rules import battle_log
from app.rules.d20 import battle_state as bs
from app.rules.d20.catalogue import D20, STAT_RANGE, TIMER_TURNS
from app.rules.d20.units import MAX_WEAPONS, D20Figurine
from app.rules.errors import InvalidInput
from app.rules.fields import InputField
from app.rules.ruleset import ActionResult, Fighter, UnitAction

MAX_OBJECTS = 20
LIST_MAX = 100  # characters of a comma-separated list

CHARGE_WEAPONS = InputField(
    "charge_weapons",
    "Charges to set together (weapon indexes)",
    "text",
    "",
    high=LIST_MAX,
    help="Comma-separated, e.g. 2, 3: their Power adds. Empty: the first charge not placed",
)
CHARGE_TURNS = InputField(
    "charge_turns",
    "Countdown (turns)",
    "whole",
    None,
    low=TIMER_TURNS[0],
    high=TIMER_TURNS[1],
    optional=True,
    help="Empty: no timer (set off by hand)",
)
CHARGE_SECRET = InputField(
    "charge_secret",
    "Secret countdown",
    "flag",
    False,
    help="Not shown to others until it runs out",
)
DEFUSE_WEAPON = InputField(
    "defuse_weapon",
    "Charge to defuse (weapon index)",
    "whole",
    None,
    low=0,
    high=MAX_WEAPONS - 1,
    optional=True,
    help="Empty: the first charge placed",
)
DEFUSE_DEXTERITY = InputField(
    "defuse_dexterity",
    "Dexterity of the figurine defusing",
    "whole",
    None,
    low=STAT_RANGE[0],
    high=STAT_RANGE[1],
)
DETONATE_GROUP = InputField(
    "detonate_group",
    "Charges to set off (group)",
    "whole",
    None,
    low=1,
    high=bs.MAX_GROUP,
    optional=True,
    help="Empty: the first group placed",
)
DETONATE_OBJECTS = InputField(
    "detonate_objects",
    "Objects in the radius (DLs)",
    "text",
    "",
    high=LIST_MAX,
    help="Comma-separated DLs, at most 20",
)
UNIT_ACTIONS = (
    UnitAction("new_turn", "New turn: {unit}"),
    UnitAction(
        "place_charge", "Place charge: {unit}", (CHARGE_WEAPONS, CHARGE_TURNS, CHARGE_SECRET)
    ),
    UnitAction("defuse", "Defuse a charge of {unit}", (DEFUSE_WEAPON, DEFUSE_DEXTERITY)),
    UnitAction(
        "detonate",
        "Set off charges of {unit} (no figurine in reach)",
        (DETONATE_GROUP, DETONATE_OBJECTS),
    ),
)


def _numbers(text: str, field: str, most: int) -> tuple[int, ...]:
    """A comma-separated list of whole numbers (empty: none); refused by ``field``."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if len(parts) > most:
        raise InvalidInput(field, f"at most {most}")
    out = []
    for part in parts:
        if not part.isdigit() or len(part) > 4:
            raise InvalidInput(field, f"{part!r} is not a whole number")
        out.append(int(part))
    return tuple(out)


def apply_action(
    name: str, fighter: Fighter, values: Mapping[str, Any], rng: random.Random
) -> ActionResult:
    """Take the named action (its fields read from ``values``): the state after, a summary,
    and its D20 rolls as one log line (none without a roll)."""
    named, read = battle_log.read_action(UNIT_ACTIONS, name, values)
    unit: D20Figurine = fighter.unit
    state: bs.UnitState = fighter.state
    who = fighter.name
    if name == "new_turn":
        done = bs.new_turn(state)
    elif name == "place_charge":
        chosen = _numbers(str(read["charge_weapons"] or ""), "charge_weapons", MAX_WEAPONS)
        turns = read["charge_turns"]
        done = bs.place_charges(
            state,
            unit,
            who,
            chosen or None,
            int(turns) if turns is not None else None,
            bool(read["charge_secret"]),
        )
    elif name == "defuse":
        dexterity = read["defuse_dexterity"]
        if dexterity is None:
            raise InvalidInput("defuse_dexterity", "is required")
        weapon = read["defuse_weapon"]
        done = bs.defuse(
            state, unit, who, None if weapon is None else int(weapon), int(dexterity), rng
        )
    else:
        objects = _numbers(str(read["detonate_objects"] or ""), "detonate_objects", MAX_OBJECTS)
        group = read["detonate_group"]
        done = bs.detonate_objects(
            state, unit, who, None if group is None else int(group), objects, rng
        )
    dice = [
        {
            "purpose": purpose,
            "sides": D20,
            "natural": natural,
            "value": value,
            "bonus": False,
            "unit_id": fighter.key,
            "against": against,
            "odds": p,
        }
        for purpose, natural, value, against, p in done.dice
    ]
    line = battle_log.action_line(named, who, dice)
    return ActionResult(done.after, f"{who}: {done.summary}", (line,) if dice else ())
