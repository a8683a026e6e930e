"""A D20 figurine's named actions in a battle besides attacking (``battle_state``'s rules):
a new turn; placing charges (a countdown, maybe secret; no timer; or a trap in a
passageway) and laying a mine; defusing a charge; and the devices going off: charges set off
by hand or when their countdown ran out, a trap tripped by a figurine passing, a mine
entered by a figurine. A device going off is the calculator's explosion (the ruleset's
``attack`` in mode ``explosion``: Power + 1D20 against each figurine's PD alone, cover as
the equipment respects it) on the figurines named in its radius, of any side, and each
object's DL; every die and effect is logged, and each figurine's state changes
(``ActionResult.others``), so Undo restores them all.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from app.rules import battle_log
from app.rules.d20 import battle_state as bs
from app.rules.d20.catalogue import D20, STAT_RANGE, TIMER_TURNS
from app.rules.d20.situation import DL_MAX, MAX_OBJECTS, MAX_TARGETS
from app.rules.d20.strike import destroyed_chance, destroys
from app.rules.d20.units import MAX_WEAPONS, D20Figurine
from app.rules.errors import InvalidFields, InvalidInput
from app.rules.fields import InputField
from app.rules.ruleset import ActionResult, BattleAttack, Fighter, TargetInput, UnitAction

LIST_MAX = 200  # characters of a comma-separated list
TIMERS = (
    ("countdown", "Countdown (turns)"),
    ("hand", "No timer: set off by hand"),
    ("trap", "Trap in a passageway (≤ 5 cm wide)"),
)

CHARGE_WEAPONS = InputField(
    "charge_weapons",
    "Charges to place (weapon indexes)",
    "text",
    "",
    high=LIST_MAX,
    help="Comma-separated, e.g. 2, 3: set together, their Power adds",
)
CHARGE_TIMER = InputField(
    "charge_timer",
    "Set off by",
    "choice",
    None,
    choices=TIMERS,
    optional=True,
    help="A countdown, by hand, or a trap tripped by a figurine passing",
)
CHARGE_TURNS = InputField(
    "charge_turns",
    "Countdown (turns)",
    "whole",
    None,
    low=TIMER_TURNS[0],
    high=TIMER_TURNS[1],
    optional=True,
    help="1-20, with a countdown",
)
CHARGE_SECRET = InputField(
    "charge_secret",
    "Secret countdown",
    "flag",
    False,
    help="Until it runs out, only its side's player and the host see it: not the other "
    "players, nor the read-only link",
)
TRAP_WIDTH = InputField(
    "trap_width",
    "Passageway's width (cm)",
    "whole",
    None,
    low=0,
    high=1000,
    optional=True,
    help="A trap: at most 5 cm",
)
MINE_WEAPON = InputField(
    "mine_weapon",
    "Mine to lay (weapon index)",
    "whole",
    None,
    low=0,
    high=MAX_WEAPONS - 1,
    optional=True,
)
DEFUSE_WEAPON = InputField(
    "defuse_weapon",
    "Charge to defuse (weapon index)",
    "whole",
    None,
    low=0,
    high=MAX_WEAPONS - 1,
    optional=True,
    help="Empty: the only charge on the table",
)
DEFUSE_DEXTERITY = InputField(
    "defuse_dexterity",
    "Dexterity of the figurine defusing",
    "whole",
    None,
    low=STAT_RANGE[0],
    high=STAT_RANGE[1],
    optional=True,
)
DETONATE_GROUP = InputField(
    "detonate_group",
    "Charges going off (group)",
    "whole",
    None,
    low=1,
    high=bs.MAX_GROUP,
    optional=True,
    help="The number of its badge; empty: the only one",
)
TRIP_UNIT = InputField(
    "trip_unit",
    "Figurine tripping it or coming within the radius (id or name)",
    "text",
    "",
    high=LIST_MAX,
)
DETONATE_UNITS = InputField(
    "detonate_units",
    "Other figurines in the radius (ids or names)",
    "text",
    "",
    high=LIST_MAX,
    help="Comma-separated, any side, the placer too",
)
DETONATE_COVER = InputField(
    "detonate_cover",
    "Of those, in cover (ids or names)",
    "text",
    "",
    high=LIST_MAX,
)
DETONATE_OBJECTS = InputField(
    "detonate_objects",
    "Objects in the radius (DLs)",
    "text",
    "",
    high=LIST_MAX,
    help=f"Comma-separated DLs, at most {MAX_OBJECTS}",
)
DETONATE_NOTHING = InputField(
    "detonate_nothing",
    "Nothing in the radius",
    "flag",
    False,
    help="Set off with no figurine or object caught",
)
BLAST = (DETONATE_GROUP, DETONATE_UNITS, DETONATE_COVER, DETONATE_OBJECTS)
UNIT_ACTIONS = (
    UnitAction("new_turn", "New turn: {unit}"),
    UnitAction(
        "place_charge",
        "Place charges: {unit}",
        (CHARGE_WEAPONS, CHARGE_TIMER, CHARGE_TURNS, CHARGE_SECRET, TRAP_WIDTH),
    ),
    UnitAction("lay_mine", "Lay a mine: {unit}", (MINE_WEAPON,)),
    UnitAction("defuse", "Defuse a charge of {unit}", (DEFUSE_WEAPON, DEFUSE_DEXTERITY)),
    UnitAction("detonate", "Set off charges of {unit}", (*BLAST, DETONATE_NOTHING), urgent=True),
    UnitAction("trip_trap", "A figurine trips the trap of {unit}", (TRIP_UNIT, *BLAST)),
    UnitAction("enter_mine", "A figurine comes within the mine of {unit}", (TRIP_UNIT, *BLAST)),
)


def _numbers(text: str, field: str, most: int, high: int) -> tuple[int, ...]:
    """A comma-separated list of whole numbers 0..``high`` (empty: none); refused by
    ``field``."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if len(parts) > most:
        raise InvalidInput(field, f"at most {most}")
    out = []
    for part in parts:
        if not part.isdigit() or len(part) > 4 or int(part) > high:
            raise InvalidInput(field, f"{part!r} is not a whole number from 0 to {high}")
        out.append(int(part))
    return tuple(out)


def _figurines(text: str, field: str, fighter: Fighter) -> list[Fighter]:
    """The battle's figurines a comma-separated list names, each by its battle unit id or its
    name (any side, the acting figurine too), in the order given; refused by ``field``."""
    everyone = (fighter, *fighter.others)
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if len(parts) > MAX_TARGETS:
        raise InvalidInput(field, f"at most {MAX_TARGETS} figurines")
    found: list[Fighter] = []
    for part in parts:
        if part.isdigit():
            named = [f for f in everyone if f.key == int(part)]
        else:
            named = [f for f in everyone if f.name.casefold() == part.casefold()]
        if not named:
            raise InvalidInput(field, f"{part!r} is not a figurine of this battle")
        if len(named) > 1:
            raise InvalidInput(field, f"{part!r} names several figurines: give its id")
        if named[0].key in {f.key for f in found}:
            raise InvalidInput(field, f"{named[0].name} is named twice")
        found.append(named[0])
    return found


def _group(state: bs.UnitState, name: str, group: int | None, uses: Sequence[str]) -> int:
    """The group of devices of ``uses`` going off: ``group``, or the only one there is."""
    groups = sorted({c.group for c in state.charges if c.use in uses})
    what = {"charge": "charges", "trap": "trap", "mine": "mine"}[uses[0]]
    if not groups:
        raise InvalidInput("unit", f"{name} has no {what} on the table")
    if group is None:
        if len(groups) > 1:
            raise InvalidInput(
                "detonate_group",
                f"{name} has {len(groups)} on the table: give the group "
                f"({', '.join(map(str, groups))})",
            )
        return groups[0]
    if group not in groups:
        raise InvalidInput("detonate_group", f"{name} has no {what} in group {group}")
    return group


def _explode(
    rules: Any,
    fighter: Fighter,
    group: int,
    caught: Sequence[Fighter],
    cover: set[int],
    objects: tuple[int, ...],
    rng: random.Random,
) -> tuple[dict[int, bs.UnitState], list[dict[str, Any]], dict[str, Any] | None, str]:
    """The group goes off: the calculator's explosion of its weapons on ``caught`` (PD alone,
    + cover where the equipment respects it) and ``objects``. The states after (the placer's
    with the group off the table and its weapons used, each figurine's as the roll left it),
    the log's dice lines, its odds and the words of what happened."""
    unit: D20Figurine = fighter.unit
    state: bs.UnitState = fighter.state
    weapons = tuple(sorted(c.weapon for c in state.charges if c.group == group))
    power = bs.group_power(state.charges, group)
    after: dict[int, bs.UnitState] = {fighter.key: bs.set_off(state, group)}
    words: list[str] = []
    dice: list[dict[str, Any]] = []
    odds: dict[str, Any] | None = None
    destroyed: list[bool] = []
    if caught:
        inputs = [
            TargetInput(bs.standing_unit(f.state, f.unit), {"cover": f.key in cover})
            for f in caught
        ]
        situation = {"mode": "explosion", "objects": ", ".join(map(str, objects))}
        made = rules.attack(
            bs.standing_unit(state, unit), weapons, inputs, situation, fighter.options
        )
        problems = made.problems()
        if problems:
            raise InvalidInput("detonate_group", " ".join(problems))
        shown = BattleAttack(made, fighter, tuple(caught), situation)
        odds = rules.log_odds(shown, made.odds())
        roll = made.roll(rng)
        dice = rules.log_roll(shown, roll)
        rolled = roll.detail.get("targets", []) if isinstance(roll.detail, Mapping) else []
        for index, f in enumerate(caught):
            got = rolled[index] if index < len(rolled) else {}
            before = after.get(f.key, f.state)
            hurt = bs.after_hurt(
                before, f.unit, int(got.get("cp_lost", 0)), bool(got.get("shaken"))
            )
            after[f.key] = hurt
        effects = [e for line in dice for e in line.get("effects", [])]
        words.extend(f"{e['name']} {rules.effect_words(e)}" for e in effects)
        destroyed = [bool(o.get("destroyed")) for o in roll.detail.get("objects", [])]
    else:
        # objects alone (no figurine to attack): each its own D20, by the engine's rule
        rolled_dice = []
        for dl in objects:
            natural = rng.randint(1, D20)
            destroyed.append(destroys(power, natural, dl))
            rolled_dice.append(
                {
                    "purpose": f"object DL {dl}",
                    "sides": D20,
                    "natural": natural,
                    "value": power + natural,
                    "bonus": False,
                    "unit_id": None,
                    "against": dl,
                    "odds": destroyed_chance(power, dl),
                }
            )
        if rolled_dice:
            dice = [
                {
                    "label": f"Explosion: P{power}",
                    "kind": "explosion",
                    "weapons": list(weapons),
                    "skipped": "",
                    "jammed": False,
                    "notes": [],
                    "dice": rolled_dice,
                    "effects": [],
                }
            ]
    words.extend(
        f"object DL {dl} {'destroyed' if gone else 'stands'}"
        for dl, gone in zip(objects, destroyed, strict=True)
    )
    return after, dice, odds, "; ".join(words) if words else "nothing caught"


def _blast(
    rules: Any,
    fighter: Fighter,
    read: Mapping[str, Any],
    uses: Sequence[str],
    first: Fighter | None,
    rng: random.Random,
) -> ActionResult:
    """A group of ``uses`` going off with the figurines and objects the fields name
    (``first``: the figurine tripping it or coming within the radius, caught first)."""
    unit: D20Figurine = fighter.unit
    state: bs.UnitState = fighter.state
    who = fighter.name
    group_field = read.get("detonate_group")
    group = _group(state, who, None if group_field is None else int(group_field), uses)
    members = [c for c in state.charges if c.group == group]
    if uses[0] == "charge" and not members[0].run_out:
        bs.require_fit(state, unit, who)
    caught = _figurines(str(read.get("detonate_units") or ""), "detonate_units", fighter)
    if first is not None:
        if first.key in {f.key for f in caught}:
            raise InvalidInput("detonate_units", f"{first.name} is named as tripping it already")
        caught = [first, *caught]
    for f in caught:
        if bs.out(f.state, f.unit):
            field = "trip_unit" if f is first else "detonate_units"
            raise InvalidInput(field, f"{f.name} is out (0 CP left)")
    if len(caught) > MAX_TARGETS:
        raise InvalidInput("detonate_units", f"at most {MAX_TARGETS} figurines")
    covered = _figurines(str(read.get("detonate_cover") or ""), "detonate_cover", fighter)
    for f in covered:
        if f.key not in {c.key for c in caught}:
            raise InvalidInput("detonate_cover", f"{f.name} is not named in the radius")
    objects = _numbers(
        str(read.get("detonate_objects") or ""), "detonate_objects", MAX_OBJECTS, DL_MAX
    )
    if not caught and not objects and not read.get("detonate_nothing"):
        raise InvalidFields(
            {
                "detonate_units": "name the figurines in the radius (ids or names), "
                "or tick 'Nothing in the radius'",
                "detonate_objects": "or give the DLs of the objects in the radius",
            }
        )
    words = bs.group_words(state.charges, group, reveal=True)
    after, dice, odds, what = _explode(
        rules, fighter, group, caught, {f.key for f in covered}, objects, rng
    )
    if first is not None:
        head = f"{first.name} {'trips' if uses[0] == 'trap' else 'comes within'} {words}"
    else:
        head = f"sets off {words}"
    own = after.pop(fighter.key)
    return ActionResult(own, f"{who}: {head}: {what}", tuple(dice), after, odds)


def _place(fighter: Fighter, read: Mapping[str, Any]) -> bs.Done:
    """Placing charges: every missing field named at once (no silent first charge, no
    silent "no timer")."""
    missing: dict[str, str] = {}
    text = str(read["charge_weapons"] or "")
    chosen = _numbers(text, "charge_weapons", MAX_WEAPONS, MAX_WEAPONS - 1)
    if not chosen:
        missing["charge_weapons"] = "name the charges to place (weapon indexes)"
    timer = read["charge_timer"]
    if timer is None:
        missing["charge_timer"] = "choose a countdown, no timer (by hand) or a trap"
    if timer == "countdown" and read["charge_turns"] is None:
        missing["charge_turns"] = "a countdown needs its turns (1-20)"
    if timer == "trap" and read["trap_width"] is None:
        missing["trap_width"] = "a trap needs the passageway's width (cm, at most 5)"
    if missing:
        raise InvalidFields(missing)
    turns, width = read["charge_turns"], read["trap_width"]
    return bs.place_charges(
        fighter.state,
        fighter.unit,
        fighter.name,
        chosen,
        str(timer),
        None if turns is None else int(turns),
        bool(read["charge_secret"]),
        None if width is None else int(width),
    )


def _passer(fighter: Fighter, read: Mapping[str, Any], trap: bool) -> Fighter:
    """The figurine tripping the trap (of another side: the placer's side knows where the
    thread is) or coming within the mine's radius (any side: "friend or opponent")."""
    found = _figurines(str(read.get("trip_unit") or ""), "trip_unit", fighter)
    if len(found) != 1:
        raise InvalidInput("trip_unit", "name the one figurine (id or name)")
    passer = found[0]
    if trap and passer.side == fighter.side:
        raise InvalidInput(
            "trip_unit",
            f"{passer.name} is on {fighter.name}'s side: only an opponent trips the thread",
        )
    return passer


def apply_action(
    rules: Any, name: str, fighter: Fighter, values: Mapping[str, Any], rng: random.Random
) -> ActionResult:
    """Take the named action (its fields read from ``values``): the state after, a summary,
    and its D20 rolls as log lines (none without a roll); a device going off also gives the
    other figurines' states and its odds. ``rules``: the ruleset (its ``attack``, ``log_odds``,
    ``log_roll`` and ``effect_words``)."""
    named, read = battle_log.read_action(UNIT_ACTIONS, name, values)
    unit: D20Figurine = fighter.unit
    state: bs.UnitState = fighter.state
    who = fighter.name
    if name == "detonate":
        return _blast(rules, fighter, read, ("charge",), None, rng)
    if name in ("trip_trap", "enter_mine"):
        use = "trap" if name == "trip_trap" else "mine"
        group = read["detonate_group"]
        _group(state, who, None if group is None else int(group), (use,))  # the device first
        return _blast(rules, fighter, read, (use,), _passer(fighter, read, use == "trap"), rng)
    if name == "new_turn":
        done = bs.new_turn(state)
    elif name == "place_charge":
        done = _place(fighter, read)
    elif name == "lay_mine":
        if read["mine_weapon"] is None:
            raise InvalidInput("mine_weapon", "name the mine to lay (its weapon index)")
        done = bs.lay_mine(state, unit, who, int(read["mine_weapon"]))
    else:
        dexterity = read["defuse_dexterity"]
        if dexterity is None:
            raise InvalidInput("defuse_dexterity", "is required")
        weapon = read["defuse_weapon"]
        done = bs.defuse(
            state, unit, who, None if weapon is None else int(weapon), int(dexterity), rng
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
