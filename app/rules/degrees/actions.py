"""A Degrees unit's named actions in a battle besides attacking (``battle_state``'s rules): a
new round, breaking free, pumping a gas gun, drawing a p-gun, beginning an attack, moving to a
location, a recon roll. The dice an action rolls (breaking free, over-compressing, recon) are
logged as one line.

A recon is 1 AP and a d10 against the unit's degree ("SWAT unit recons a location | 1 AP |
It's a 4° roll that they get with a 2"), with the text's modifiers (``recon_degree``); what
it reveals is left to the players.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from app.rules import battle_log
from app.rules.degrees import battle_state as bs
from app.rules.degrees.catalogue import VISIBILITY as VISIBILITY_WORDS
from app.rules.degrees.round import die_purpose
from app.rules.degrees.shot import D10, succeeds
from app.rules.degrees.units import DegreesUnit
from app.rules.errors import InvalidInput
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
LEFT_TO_PLAYERS = "what a recon reveals is left to the players"
RECON_WEASELS = InputField(
    "recon_weasels",
    "Recon: looking for Least Weasels (-5°)",
    "flag",
    False,
    help=f"they are detected at -5° recon rolls; {LEFT_TO_PLAYERS}",
)
RECON_WEASEL_NEAR = InputField(
    "recon_weasel_near",
    "Recon: within a Least Weasel's ambient range (+2)",
    "flag",
    False,
    help="a Weasel of this side still flying; its range is the players' to judge",
)
RECON_BLOOM = InputField(
    "recon_bloom",
    "Recon: into or through a -3 or greater bloom (-1)",
    "flag",
    False,
    help="out of one is read from the unit's own bloom; where lines pass is the players'",
)
RECON_OP = InputField("recon_op", "OP on the recon roll (+1° each)", "whole", 0, low=0, high=20)
RECON_FIELDS = (RECON_WEASELS, RECON_WEASEL_NEAR, RECON_BLOOM, RECON_OP)
RECON_AP = 1  # "SWAT unit recons a location | 1 | 1"
WEASEL_DETECTION = -5  # "They are detected at -5° recon rolls"
WEASEL_RECON = 2  # "give that Ferret (etc.) +2 recon within the Weasel's ambient range"
BLOOM_RECON = -1  # "Recon rolls made into / out of / through -3 or greater blooms have a -1 mod"
ACTUAL_RECON = -1  # Actual: "-1° on defense, evasion, and recon rolls"
VISIBILITY = InputField(
    "set_visibility",
    "Visibility",
    "choice",
    "fogged",
    choices=tuple(VISIBILITY_WORDS.items()),
    help="Fogged, concealed or revealed: a recon or moving out of sight is the players' to judge",
)
UNIT_ACTIONS = (
    UnitAction("new_round", "New round: {unit}"),
    UnitAction("break_free", "Break free: {unit}", urgent=True),
    UnitAction("pump", "Pump: {unit}", (PUMP_WEAPON, PUMP_AP, PUMP_OP)),
    UnitAction("draw", "Draw p-gun: {unit}"),
    UnitAction("begin", "Begin an attack: {unit}", (BEGIN_AP,)),
    UnitAction("location", "Location: {unit}", (LOCATION, LOCATION_BLOOM)),
    UnitAction("recon", "Recon: {unit}", RECON_FIELDS),
    UnitAction("visibility", "Visibility: {unit}", (VISIBILITY,)),
)


@dataclass(frozen=True, slots=True)
class Recon:
    """A recon roll's degree: the unit's degree with each modifier as (words, change)."""

    base: int
    mods: tuple[tuple[str, int], ...]

    @property
    def degree(self) -> int:
        return self.base + sum(m for _, m in self.mods)

    @property
    def chance(self) -> Fraction:
        """P(a d10 succeeds against it): a natural roll of the degree or less."""
        return Fraction(max(0, min(D10, self.degree)), D10)


def recon_degree(
    unit: DegreesUnit,
    state: bs.UnitState,
    *,
    weasels: bool = False,
    weasel_near: bool = False,
    through_bloom: bool = False,
    op: int = 0,
) -> Recon:
    """The degree a recon rolls against: the unit's degree, -5° looking for Least Weasels,
    +2 within a Weasel's ambient range, -1 into, out of (the unit's own location at -3 or
    greater) or through a -3 or greater bloom (once: it is one mod), -1° with Actual
    dampened, +1° per OP."""
    mods: list[tuple[str, int]] = []
    if weasels:
        mods.append(("Least Weasels are detected at -5°", WEASEL_DETECTION))
    if weasel_near:
        mods.append(("a Least Weasel's ambient range", WEASEL_RECON))
    if through_bloom or bs.incandescent(state):
        mods.append(("a -3 or greater bloom", BLOOM_RECON))
    if "actual" in state.dampened:
        mods.append(("Actual dampened", ACTUAL_RECON))
    if op:
        mods.append((f"{op} OP", op))
    return Recon(unit.degree, tuple(mods))


def _weasel_of_side(fighter: Fighter) -> bool:
    """A Least Weasel of the unit's side still flying (the battle's other units)."""
    return any(
        o.side == fighter.side and o.unit.weasel and not bs.destroyed(o.state, o.unit)
        for o in fighter.others
    )


def recon(fighter: Fighter, read: Mapping[str, Any], rng: random.Random) -> bs.Rolled:
    """1 AP and a d10 against ``recon_degree``; refused while restrained, with Telepathy
    dampened ("cannot use or devote APs to psionic telepathy or recon actions"), beyond the
    unit's OP, or +2 from a Weasel with no Weasel of its side flying."""
    unit: DegreesUnit = fighter.unit
    state: bs.UnitState = fighter.state
    name = fighter.name
    bs.require_fighting(state, unit, name)
    bs.require_free(state, name)
    if "telepathy" in state.dampened:
        raise InvalidInput("unit", f"{name} has Telepathy dampened: no AP to recon actions")
    op = int(read.get("recon_op") or 0)
    if op > unit.op:
        raise InvalidInput("recon_op", f"{name} has {unit.op} OP")
    near = bool(read.get("recon_weasel_near"))
    if near and not _weasel_of_side(fighter):
        raise InvalidInput("recon_weasel_near", f"no Least Weasel of {name}'s side is flying")
    roll = recon_degree(
        unit,
        state,
        weasels=bool(read.get("recon_weasels")),
        weasel_near=near,
        through_bloom=bool(read.get("recon_bloom")),
        op=op,
    )
    after = bs.spend(state, unit, RECON_AP, name, "A recon")
    natural = rng.randint(1, D10)
    seen = succeeds(natural, roll.degree)
    mods = "".join(f", {m:+d} {words}" for words, m in roll.mods)
    summary = (
        f"recons: d10 {natural} against {roll.degree}° ({unit.degree}°{mods}; "
        f"{float(roll.chance):.0%} chance): {'succeeds' if seen else 'fails'} "
        f"({LEFT_TO_PLAYERS})"
    )
    return bs.Rolled(after, (("recon", natural, roll.degree),), summary)


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
        after = bs.new_round(state, unit, fighter.options)
        left = bs.ap_left(after, unit)
        owed = f", {after.ap_lost} AP still owed" if after.ap_lost else ""
        summary = f"{who}: new round, {left} AP{owed}"
        if not bs.incandescent(after):
            return ActionResult(after, summary)
        # "A 1° attack at the beginning of each round from the environment on each unit in
        # that hex": the unit's own new round rolls it (DK16, DF8)
        rolled = bs.environment_attack(after, unit, rng)
        summary += f"; {who} {rolled.summary}"
    elif name == "break_free":
        rolled = bs.break_free(state, unit, who, rng)
    elif name == "recon":
        rolled = recon(fighter, read, rng)
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
        elif name == "visibility":
            after, words = bs.set_visibility(state, unit, who, str(read["set_visibility"]))
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
    if name != "new_round":
        summary = f"{who} {rolled.summary}"
    return ActionResult(rolled.after, summary, (line,) if dice else ())
