"""What a D20 battle remembers about a figurine between attacks, and how its actions change it
(rulings in ``docs/rulings.md``, "D20: battles").

Per figurine: CP lost (out at 0 CP left), Shaken (until its next turn: no action or shot, no
Evasion), and the devices it has placed on the table: each by the weapon it was (its index
on the figurine), its Power and radius, its use (a charge with a countdown or none, set off
by hand; a charge set as a trap in a passageway, set off by a figurine tripping it; a laid
hypersensor mine, set off by a figurine coming within its radius), its countdown (turns
left; None: none), whether the countdown is secret, the turns counted since it was placed,
and its group (charges set together go off together and add their Power). Values in, values
out: the battle service stores the result and logs every die.

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

from app.rules.d20.catalogue import CP_RANGE, D20, STAT_RANGE, TIMER_TURNS
from app.rules.d20.units import MAX_WEAPONS, POWER_MAX, D20Figurine
from app.rules.errors import InvalidInput

MAX_CHARGES = MAX_WEAPONS  # a figurine places at most the charges it carries
MAX_GROUP = 99
MAX_ELAPSED = 99
RADIUS_MAX = 1000
TRAP_WIDTH_MAX = 5  # cm: "The width of this passageway cannot exceed 5 cm"
USES = ("charge", "trap", "mine")  # set off by hand or countdown; tripped; entered


@dataclass(frozen=True, slots=True)
class Charge:
    """A device on the table: a demolition charge, or a laid mine (``use``). ``countdown``:
    turns left before it goes off (None: no timer); 0: it has run out and goes off now.
    ``elapsed``: the turns counted since it was placed (the D20 beside a secret charge).
    ``group``: charges set together share it."""

    weapon: int
    power: int
    radius: int
    countdown: int | None
    secret: bool
    group: int
    elapsed: int = 0
    use: str = "charge"

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
        "use": charge.use,
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


def owner_charge(charge: Charge) -> dict[str, Any]:
    """A charge as the battle's owner sees it: every number, and whether it has run out."""
    return {**encode_charge(charge), "run_out": charge.run_out}


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
    use = data.get("use", "charge")
    if use not in USES:
        raise InvalidInput("state.use", f"must be one of {', '.join(USES)}")
    return Charge(
        weapon=weapon,
        power=power,
        radius=radius,
        countdown=_int(data, "countdown", 0, TIMER_TURNS[1], None),
        secret=_flag(data, "secret"),
        group=_int(data, "group", 0, MAX_GROUP, 0),
        elapsed=_int(data, "elapsed", 0, MAX_ELAPSED, 0),
        use=use,
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
    """A group as the badges write it: 'P20/r10, 3 turns left'; a secret countdown,
    'secret countdown (2 turns counted)' (``reveal``: the battle's owner's view, which adds
    the turns left); a trap, 'trap in a passageway'; a laid mine, 'mine laid'. A secret
    countdown read through ``public_state`` has no countdown left: it stays secret."""
    members = [c for c in charges if c.group == group]
    radius = max(c.radius for c in members)
    head = f"{'F' if members[0].use == 'mine' else 'P'}{group_power(charges, group)}/r{radius}"
    if len(members) > 1:
        head += f" ({len(members)} charges set together)"
    first = members[0]
    if first.use == "trap":
        return head + ", trap in a passageway (goes off when a figurine trips it)"
    if first.use == "mine":
        return head + ", mine laid (goes off when a figurine comes within its radius)"
    counted = first.elapsed
    secret = f"secret countdown ({counted} turn{'s' * (counted != 1)} counted)"
    if first.countdown is None:
        return head + (", " + secret if first.secret else ", no timer")
    if first.run_out:
        return head + ", run out" + (f" after {first.elapsed} turns" if first.secret else "")
    left = first.countdown
    turns = f"{left} turn{'s' * (left != 1)} left"
    if first.secret:
        return head + ", " + secret + (f": {turns}" if reveal else "")
    return head + ", " + turns


def place_charges(
    state: UnitState,
    unit: D20Figurine,
    name: str,
    weapons: Sequence[int],
    timer: str,
    turns: int | None,
    secret: bool,
    width: int | None = None,
) -> Done:
    """Place charges set together (one group: their Power adds): ``timer`` "countdown"
    (``turns``, 1-20, public or secret), "hand" (no timer: set off by hand) or "trap" (a
    trap in a passageway of ``width`` cm, at most 5: set off by the figurine tripping it).
    ``weapons``: the figurine's charges by index. Each refusal names its field."""
    require_fit(state, unit, name)
    placed = _placed(state)
    if not weapons:
        raise InvalidInput("charge_weapons", "name the charges to place (weapon indexes)")
    seen: set[int] = set()
    for index in weapons:
        if not 0 <= index < len(unit.weapons) or not unit.weapons[index].equipment.timer:
            raise InvalidInput("charge_weapons", f"{name} has no charge at weapon index {index}")
        if index in placed or index in seen:
            raise InvalidInput("charge_weapons", f"{unit.weapons[index].name} is placed already")
        if index in state.spent:
            raise InvalidInput("charge_weapons", f"{unit.weapons[index].name} is used up")
        seen.add(index)
    if timer not in ("countdown", "hand", "trap"):
        raise InvalidInput("charge_timer", "choose a countdown, no timer (by hand) or a trap")
    if timer == "countdown" and turns is None:
        raise InvalidInput("charge_turns", "a countdown needs its turns (1-20)")
    if timer != "countdown" and turns is not None:
        raise InvalidInput("charge_turns", "only a countdown has turns")
    if secret and timer != "countdown":
        raise InvalidInput("charge_secret", "only a countdown is kept secret")
    if timer == "trap":
        if width is None:
            raise InvalidInput("trap_width", "a trap needs the passageway's width (cm)")
        if width > TRAP_WIDTH_MAX:
            raise InvalidInput(
                "trap_width", f"a trap's passageway is at most {TRAP_WIDTH_MAX} cm wide"
            )
    elif width is not None:
        raise InvalidInput("trap_width", "only a trap has a passageway")
    group = max((c.group for c in state.charges), default=0) + 1
    if group > MAX_GROUP:
        raise InvalidInput("unit", f"{name} has placed too many charges")
    new = tuple(
        Charge(
            weapon=i,
            power=unit.weapons[i].power,
            radius=unit.weapons[i].equipment.radius or 0,
            countdown=turns if timer == "countdown" else None,
            secret=secret,
            group=group,
            use="trap" if timer == "trap" else "charge",
        )
        for i in weapons
    )
    after = replace(state, charges=state.charges + new)
    names = ", ".join(unit.weapons[i].name for i in weapons)
    where = f" across a passageway {width} cm wide" if timer == "trap" else ""
    return Done(after, f"places {names}{where}: {group_words(after.charges, group)}")


def lay_mine(state: UnitState, unit: D20Figurine, name: str, weapon: int) -> Done:
    """Lay a hypersensor mine (``weapon``: its index): it goes off when any figurine, friend
    or opponent, comes within its radius (RULINGS D2F11)."""
    require_fit(state, unit, name)
    if not 0 <= weapon < len(unit.weapons) or unit.weapons[weapon].equipment.category != "mine":
        raise InvalidInput("mine_weapon", f"{name} has no mine at weapon index {weapon}")
    if weapon in _placed(state):
        raise InvalidInput("mine_weapon", f"{unit.weapons[weapon].name} is laid already")
    if weapon in state.spent:
        raise InvalidInput("mine_weapon", f"{unit.weapons[weapon].name} is used up")
    group = max((c.group for c in state.charges), default=0) + 1
    if group > MAX_GROUP:
        raise InvalidInput("unit", f"{name} has placed too many charges")
    mine = unit.weapons[weapon]
    laid = Charge(
        weapon=weapon,
        power=mine.power,
        radius=mine.equipment.radius or 0,
        countdown=None,
        secret=False,
        group=group,
        use="mine",
    )
    after = replace(state, charges=(*state.charges, laid))
    return Done(after, f"lays {mine.name}: {group_words(after.charges, group)}")


def set_off(state: UnitState, group: int) -> UnitState:
    """The group gone off: off the table, its weapons used up (a charge or mine explodes
    once)."""
    gone = {c.weapon for c in state.charges if c.group == group}
    return replace(take_group(state, group), spent=tuple(sorted(set(state.spent) | gone)))


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
    (``weapon``: its index; None: the only one on the table): Dexterity + 1D20 greater than
    its DL (= its Power) takes it off the table; otherwise it stays, its countdown running."""
    charges = [c for c in state.charges if c.use != "mine"]
    if not charges:
        raise InvalidInput("unit", f"{name} has no charge on the table")
    if weapon is None:
        if len(charges) > 1:
            raise InvalidInput("defuse_weapon", "name the charge to defuse (its weapon index)")
        charge = charges[0]
    else:
        found = [c for c in charges if c.weapon == weapon]
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
