"""What a D20 battle remembers about a figurine between attacks, and how its actions change it
(rulings in ``docs/rulings.md``, "D20: battles").

Per figurine: CP lost (out at 0 CP left), Shaken (until its next turn: no action or shot, no
Evasion), and the demolition charges it has placed on the table: each by the weapon it was
(its index on the figurine), its Power and radius, its countdown (turns left; None: no timer,
set off by hand), whether the countdown is secret, the turns counted since it was placed, and
its group (charges set together go off together and add their Power). Values in, values out:
the battle service stores the result and logs every die.

>>> fig = D20Figurine("Chrono", False, 8, 6, 12, 4, 5, 3)
>>> state = UnitState(cp_lost=1, shaken=True)
>>> standing_unit(state, fig).cp, standing_unit(state, fig).evasion
(2, 0)
>>> standing_unit(new_turn(state).after, fig).evasion
4
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from app.rules.d20.catalogue import CP_RANGE, D20, OBJECT_MARGIN, STAT_RANGE, TIMER_TURNS
from app.rules.d20.units import MAX_WEAPONS, POWER_MAX, D20Figurine
from app.rules.errors import InvalidInput

MAX_CHARGES = MAX_WEAPONS  # a figurine places at most the charges it carries
MAX_GROUP = 99
MAX_ELAPSED = 99
RADIUS_MAX = 1000


@dataclass(frozen=True, slots=True)
class Charge:
    """A demolition charge on the table. ``countdown``: turns left before it goes off (None:
    no timer); 0: it has run out and goes off now. ``elapsed``: the turns counted since it was
    placed (the D20 beside a secret charge). ``group``: charges set together share it."""

    weapon: int
    power: int
    radius: int
    countdown: int | None
    secret: bool
    group: int
    elapsed: int = 0

    @property
    def run_out(self) -> bool:
        return self.countdown == 0


@dataclass(frozen=True, slots=True)
class UnitState:
    """One figurine's condition in a D20 battle (a fresh one: every default)."""

    cp_lost: int = 0
    shaken: bool = False
    charges: tuple[Charge, ...] = ()
    spent: tuple[int, ...] = ()  # grenades thrown and mines set off (weapon indexes, sorted)


# ------------------------------------------------------------------------ JSON


def encode_charge(charge: Charge) -> dict[str, Any]:
    return {
        "weapon": charge.weapon,
        "power": charge.power,
        "radius": charge.radius,
        "countdown": charge.countdown,
        "secret": charge.secret,
        "group": charge.group,
        "elapsed": charge.elapsed,
    }


def encode_state(state: UnitState) -> dict[str, Any]:
    """The state as stored (a battle unit's row, a log entry's before and after: what Undo
    restores). It keeps a secret countdown: the pages and the API show ``public_state``."""
    return {
        "cp_lost": state.cp_lost,
        "shaken": state.shaken,
        "charges": [encode_charge(c) for c in state.charges],
        "spent": list(state.spent),
    }


def public_charge(charge: Charge) -> dict[str, Any]:
    """A charge as others see it: a secret countdown is None until it runs out."""
    shown = encode_charge(charge)
    if charge.secret and not charge.run_out:
        shown["countdown"] = None
    shown["run_out"] = charge.run_out
    return shown


def _int(data: Mapping[str, Any], key: str, low: int, high: int, default: int | None) -> Any:
    value = data.get(key, default)
    if value is None and default is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(f"state.{key}", f"must be a whole number from {low} to {high}")
    return value


def _flag(data: Mapping[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise InvalidInput(f"state.{key}", "must be true or false")
    return value


def _charge(data: object) -> Charge:
    if not isinstance(data, Mapping):
        raise InvalidInput("state.charges", "each charge must be an object")
    weapon = _int(data, "weapon", 0, MAX_WEAPONS - 1, None)
    power = _int(data, "power", 0, POWER_MAX, None)
    radius = _int(data, "radius", 0, RADIUS_MAX, None)
    if weapon is None or power is None or radius is None:
        raise InvalidInput("state.charges", "a charge needs its weapon, power and radius")
    return Charge(
        weapon=weapon,
        power=power,
        radius=radius,
        countdown=_int(data, "countdown", 0, TIMER_TURNS[1], None),
        secret=_flag(data, "secret"),
        group=_int(data, "group", 0, MAX_GROUP, 0),
        elapsed=_int(data, "elapsed", 0, MAX_ELAPSED, 0),
    )


def decode_state(data: Mapping[str, Any]) -> UnitState:
    """The state from ``encode_state``'s JSON; a missing key takes its fresh value."""
    if not isinstance(data, Mapping):
        raise InvalidInput("state", "must be an object")
    charges = data.get("charges", [])
    if not isinstance(charges, list | tuple) or len(charges) > MAX_CHARGES:
        raise InvalidInput("state.charges", f"must be a list of at most {MAX_CHARGES} charges")
    placed = tuple(_charge(c) for c in charges)
    if len({c.weapon for c in placed}) != len(placed):
        raise InvalidInput("state.charges", "a weapon is placed at most once")
    spent = data.get("spent", [])
    if (
        not isinstance(spent, list | tuple)
        or len(spent) > MAX_WEAPONS
        or any(isinstance(i, bool) or not isinstance(i, int) for i in spent)
        or any(not 0 <= i < MAX_WEAPONS for i in spent)
        or len(set(spent)) != len(spent)
    ):
        raise InvalidInput("state.spent", "must list weapon indexes, each once")
    return UnitState(
        cp_lost=_int(data, "cp_lost", 0, CP_RANGE[1], 0),
        shaken=_flag(data, "shaken"),
        charges=placed,
        spent=tuple(sorted(spent)),
    )


# ------------------------------------------------------------------------ the figurine as it stands


def cp_left(state: UnitState, unit: D20Figurine) -> int:
    return max(0, unit.cp - state.cp_lost)


def out(state: UnitState, unit: D20Figurine) -> bool:
    """At 0 CP the figurine is out (RULINGS 3.3)."""
    return cp_left(state, unit) <= 0


def standing_unit(state: UnitState, unit: D20Figurine) -> D20Figurine:
    """The figurine as attacks use it: CP left as its CP, Evasion 0 while Shaken."""
    return replace(unit, cp=cp_left(state, unit), evasion=0 if state.shaken else unit.evasion)


def after_hurt(state: UnitState, unit: D20Figurine, cp_lost: int, shaken: bool) -> UnitState:
    """The state after an attack took ``cp_lost`` CP (this attack's) and maybe Shook it
    (charges it placed stay on the table, their countdown running, even once it is out)."""
    lost = min(unit.cp, state.cp_lost + max(0, cp_lost))
    return replace(state, cp_lost=lost, shaken=state.shaken or shaken)


def require_fit(state: UnitState, unit: D20Figurine, name: str, field: str = "unit") -> None:
    """Out or Shaken: no action or shot (RULINGS 3.3)."""
    if out(state, unit):
        raise InvalidInput(field, f"{name} is out (0 CP left)")
    if state.shaken:
        raise InvalidInput(field, f"{name} is Shaken: no move, action or shot until its next turn")


# ------------------------------------------------------------------------ actions


@dataclass(frozen=True, slots=True)
class Done:
    """An action's result: the state after, its summary (without the figurine's name) and
    its D20 rolls as (purpose, natural, value, against, P(success))."""

    after: UnitState
    summary: str
    dice: tuple[tuple[str, int, int, int, float], ...] = ()


def _placed(state: UnitState) -> set[int]:
    return {c.weapon for c in state.charges}


def new_turn(state: UnitState) -> Done:
    """The figurine's next turn: Shaken ends (Evasion back) and the countdown of each of its
    timed charges goes down by one turn (a charge at 0 has run out: it goes off now)."""
    charges = tuple(
        replace(
            c,
            countdown=None if c.countdown is None else max(0, c.countdown - 1),
            elapsed=min(MAX_ELAPSED, c.elapsed + 1),
        )
        for c in state.charges
    )
    words = ["new turn"]
    if state.shaken:
        words.append("no longer Shaken")
    newly = sorted({c.group for c in state.charges if c.countdown == 1})
    if newly:
        words.append(
            "charges run out: "
            + "; ".join(group_words(charges, g, reveal=True) for g in newly)
            + " (go off now)"
        )
    return Done(replace(state, shaken=False, charges=charges), ", ".join(words))


def group_power(charges: Sequence[Charge], group: int) -> int:
    """Charges set together add their Power (two P10 are P20)."""
    return sum(c.power for c in charges if c.group == group)


def group_words(charges: Sequence[Charge], group: int, *, reveal: bool = False) -> str:
    """A group as the badges write it: 'P20/r10, 3 turns left' (a secret countdown:
    'secret countdown, 2 turns counted')."""
    members = [c for c in charges if c.group == group]
    radius = max(c.radius for c in members)
    head = f"P{group_power(charges, group)}/r{radius}"
    if len(members) > 1:
        head += f" ({len(members)} charges set together)"
    first = members[0]
    if first.countdown is None:
        return head + ", no timer"
    if first.run_out:
        return head + ", run out" + (f" after {first.elapsed} turns" if first.secret else "")
    if first.secret and not reveal:
        counted = first.elapsed
        return head + f", secret countdown ({counted} turn{'s' * (counted != 1)} counted)"
    left = first.countdown
    return head + f", {left} turn{'s' * (left != 1)} left"


def place_charges(
    state: UnitState,
    unit: D20Figurine,
    name: str,
    weapons: Sequence[int] | None,
    turns: int | None,
    secret: bool,
) -> Done:
    """Place charges set together (one group: their Power adds), with a countdown of 1-20
    turns (None: no timer), public or secret. ``weapons``: the figurine's charges by index
    (None: its first charge not yet placed)."""
    require_fit(state, unit, name)
    placed = _placed(state)
    if weapons is None:
        free = [i for i, w in enumerate(unit.weapons) if w.equipment.timer and i not in placed]
        if not free:
            raise InvalidInput("unit", f"{name} has no charge left to place")
        weapons = free[:1]
    seen: set[int] = set()
    for index in weapons:
        if not 0 <= index < len(unit.weapons) or not unit.weapons[index].equipment.timer:
            raise InvalidInput("charge_weapons", f"{name} has no charge at weapon index {index}")
        if index in placed or index in seen:
            raise InvalidInput("charge_weapons", f"{unit.weapons[index].name} is placed already")
        seen.add(index)
    if secret and turns is None:
        raise InvalidInput("charge_secret", "a secret countdown needs its turns")
    group = max((c.group for c in state.charges), default=0) + 1
    if group > MAX_GROUP:
        raise InvalidInput("unit", f"{name} has placed too many charges")
    new = tuple(
        Charge(
            weapon=i,
            power=unit.weapons[i].power,
            radius=unit.weapons[i].equipment.radius or 0,
            countdown=turns,
            secret=secret,
            group=group,
        )
        for i in weapons
    )
    after = replace(state, charges=state.charges + new)
    names = ", ".join(unit.weapons[i].name for i in weapons)
    return Done(after, f"places {names}: {group_words(after.charges, group)}")


def defuse_odds(dexterity: int, dl: int) -> float:
    """P(Dexterity + 1D20 > DL), by counting the D20's faces."""
    return sum(dexterity + d > dl for d in range(1, D20 + 1)) / D20


def defuse(
    state: UnitState,
    unit: D20Figurine,
    name: str,
    weapon: int | None,
    dexterity: int,
    rng: random.Random,
) -> Done:
    """A figurine of Dexterity ``dexterity`` tries to defuse one of this figurine's charges
    (``weapon``: its index; None: the first placed): Dexterity + 1D20 greater than its DL (=
    its Power) takes it off the table; otherwise it stays, its countdown running."""
    if not state.charges:
        raise InvalidInput("unit", f"{name} has no charge on the table")
    if weapon is None:
        charge = state.charges[0]
    else:
        found = [c for c in state.charges if c.weapon == weapon]
        if not found:
            raise InvalidInput("defuse_weapon", f"no charge of {name} at weapon index {weapon}")
        charge = found[0]
    if not STAT_RANGE[0] <= dexterity <= STAT_RANGE[1]:  # the field's bounds hold it already
        raise InvalidInput("defuse_dexterity", "is out of range")
    dl = charge.power
    p = defuse_odds(dexterity, dl)
    natural = rng.randint(1, D20)
    total = dexterity + natural
    label = unit.weapons[charge.weapon].name if charge.weapon < len(unit.weapons) else "charge"
    die = (f"defuse vs DL {dl}", natural, total, dl, p)
    if total > dl:
        after = replace(state, charges=tuple(c for c in state.charges if c is not charge))
        return Done(
            after, f"{label} defused (Dexterity {dexterity} + D20 {natural} > DL {dl})", (die,)
        )
    return Done(
        state, f"{label} not defused (Dexterity {dexterity} + D20 {natural} ≤ DL {dl})", (die,)
    )


def object_odds(power: int, dl: int) -> float:
    """P(an object of DL ``dl`` is destroyed): DL at least 1 lower than Power + 1D20."""
    return sum(dl <= power + d - OBJECT_MARGIN for d in range(1, D20 + 1)) / D20


def take_group(state: UnitState, group: int) -> UnitState:
    return replace(state, charges=tuple(c for c in state.charges if c.group != group))


def groups_of(state: UnitState, weapons: Sequence[int]) -> tuple[int, ...]:
    """The groups of the placed charges ``weapons`` name; refused (field ``weapons``) unless
    they are placed charges making up whole groups (charges set together go off together)."""
    by_weapon = {c.weapon: c for c in state.charges}
    groups = []
    for index in weapons:
        if index not in by_weapon:
            raise InvalidInput("weapons", f"the charge at weapon index {index} is not placed")
        groups.append(by_weapon[index].group)
    chosen = set(groups)
    whole = {c.weapon for c in state.charges if c.group in chosen}
    if whole != set(weapons):
        raise InvalidInput("weapons", "charges set together go off together: tick all of them")
    return tuple(sorted(chosen))


def detonate_objects(
    state: UnitState,
    unit: D20Figurine,
    name: str,
    group: int | None,
    objects: Sequence[int],
    rng: random.Random,
) -> Done:
    """A group of charges goes off with no figurine in its radius: Power + 1D20 against each
    object's DL (one D20 each), the charges taken off the table."""
    if not state.charges:
        raise InvalidInput("unit", f"{name} has no charge on the table")
    groups = sorted({c.group for c in state.charges})
    if group is None:
        group = groups[0]
    if group not in groups:
        raise InvalidInput("detonate_group", f"{name} has no group of charges {group}")
    members = [c for c in state.charges if c.group == group]
    if not members[0].run_out:
        require_fit(state, unit, name)
    power = group_power(state.charges, group)
    words = group_words(state.charges, group, reveal=True)
    dice = []
    results = []
    for dl in objects:
        natural = rng.randint(1, D20)
        destroyed = dl <= power + natural - OBJECT_MARGIN
        dice.append((f"P{power} vs DL {dl}", natural, power + natural, dl, object_odds(power, dl)))
        results.append(f"DL {dl} {'destroyed' if destroyed else 'stands'}")
    summary = f"sets off {words}" + (": " + ", ".join(results) if results else "")
    return Done(take_group(state, group), summary, tuple(dice))
