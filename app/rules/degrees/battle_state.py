"""What a Degrees battle remembers about a unit between attacks, and how each action changes
it (rulings in ``docs/rulings.md``, "Degrees: battles").

Per unit: front Armour, back-line Armour and HP left (None: as built); AP spent this round
and AP owed (``ap_lost``: lost AP come out of what is left of the round, the rest is owed and
paid first from the next rounds); a stun gun's restraint; dampened senses and the rounds
they last; each gas gun's pumped AP and (damaged) max; a drawn p-gun; AP carried in a begun
attack; the unit's location, its bloom level and whether energy weapons fired there this
round. Values in, values out: the battle service stores the result and logs every die.

>>> unit = DegreesUnit("Thinny", "personnel", 2, 2, 2)
>>> state = lose_ap(UnitState(), unit, 5)
>>> state.ap_spent, state.ap_lost, ap_left(state, unit)
(3, 2, 0)
>>> after = new_round(state, unit)
>>> after.ap_spent, after.ap_lost, ap_left(after, unit)
(2, 0, 1)
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from math import floor
from typing import Any

from app.rules.degrees.catalogue import INCANDESCENT_FROM, SENSES, VISIBILITY, WEAPON_TYPES
from app.rules.degrees.gas import pump_with
from app.rules.degrees.options import DegreesOptions
from app.rules.degrees.shot import D10, Shot, Target, resolve, succeeds
from app.rules.degrees.units import DegreesUnit, DegreesWeapon
from app.rules.errors import InvalidInput

MAX_STAT = 30  # Armour and HP are at most 30 (units.py)
MAX_AP = 99  # AP owed, spent or carried, kept in a battle
MAX_BLOOM = 10
MAX_CARRIED = 12  # AP carried or pumped into one attack (the calculator's bound)
DAMPENED_ROUNDS = 2  # "the rest of this round and the next"
SUPPRESSED_ROUNDS = 2  # the text gives none: as long as dampening (rulings)
LOCATION_MAX = 60


@dataclass(frozen=True, slots=True)
class GasGun:
    """A gas gun's AP pumped (carried to its next shot) and its max (lowered by damage; 0 or
    less: wrecked)."""

    pumped: int
    max: int


@dataclass(frozen=True, slots=True)
class UnitState:
    """One unit's condition in a Degrees battle (a fresh unit: every default)."""

    armour: int | None = None
    back_armour: int | None = None
    hp: int | None = None
    ap_lost: int = 0
    ap_spent: int = 0
    restrained: bool = False
    dampened: tuple[str, ...] = ()
    dampened_rounds: int = 0
    gas: tuple[tuple[int, GasGun], ...] = ()  # by weapon index, sorted
    drawn: bool = False
    carried: int = 0
    location: str = ""
    # the location's bloom level, exact (a dousing rod's 1/3, a set-to-stun share): its whole
    # part is the level attacks suffer; ``bloom_build`` is the fire short of a pre-bloom
    bloom: Fraction = Fraction(0)
    pre_bloom: bool = False
    energy_fired: Fraction = Fraction(0)  # this round's largest bloom share fired there
    bloom_build: Fraction = Fraction(0)
    custody: bool = False  # restrained when the scenario ended: in Thinny custody
    visibility: str = "fogged"  # fogged, concealed or revealed (9.5.1)
    suppressed_rounds: int = 0  # a dousing rod's hit: this round and the next (rulings)
    # AP a missed Flashback gave back this round: for anything but a direct attack (DK14)
    ap_reused: int = 0

    def gun(self, index: int, weapon: DegreesWeapon) -> GasGun:
        """Gas gun ``index``'s pumped AP and max (untouched: 0 pumped, its built max)."""
        return dict(self.gas).get(index, GasGun(0, weapon.degree))

    def with_gun(self, index: int, gun: GasGun) -> UnitState:
        guns = dict(self.gas) | {index: gun}
        return replace(self, gas=tuple(sorted(guns.items())))


# ------------------------------------------------------------------------ JSON


def encode_state(state: UnitState) -> dict[str, Any]:
    """The state as JSON (a battle unit's row, a log entry's before and after)."""
    return {
        "armour": state.armour,
        "back_armour": state.back_armour,
        "hp": state.hp,
        "ap_lost": state.ap_lost,
        "ap_spent": state.ap_spent,
        "restrained": state.restrained,
        "dampened": list(state.dampened),
        "dampened_rounds": state.dampened_rounds,
        "gas": {str(i): {"pumped": g.pumped, "max": g.max} for i, g in state.gas},
        "drawn": state.drawn,
        "carried": state.carried,
        "location": state.location,
        "bloom": fraction_json(state.bloom),
        "pre_bloom": state.pre_bloom,
        "energy_fired": fraction_json(state.energy_fired),
        "bloom_build": fraction_json(state.bloom_build),
        "custody": state.custody,
        "visibility": state.visibility,
        "suppressed_rounds": state.suppressed_rounds,
        "ap_reused": state.ap_reused,
    }


def fraction_json(value: Fraction) -> int | str:
    """An exact share as JSON: a whole number, or ``"a/b"``."""
    return int(value) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


_FRACTION = re.compile(r"([0-9]{1,6})/([0-9]{1,6})")


def _fraction(data: Mapping[str, Any], key: str, high: int) -> Fraction:
    """A share or level from ``fraction_json`` (``true``/``false`` read as 1 and 0: a
    state stored before bloom was kept exactly), from 0 to ``high``."""
    value = data.get(key, 0)
    read: Fraction | None = None
    if isinstance(value, bool):
        read = Fraction(int(value))
    elif isinstance(value, int):
        read = Fraction(value)
    elif isinstance(value, str) and (match := _FRACTION.fullmatch(value)):
        top, bottom = int(match.group(1)), int(match.group(2))
        read = Fraction(top, bottom) if bottom else None
    if read is None or not 0 <= read <= high:
        raise InvalidInput(f"state.{key}", f"must be a whole number or a/b from 0 to {high}")
    return read


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


def _gas(data: object) -> tuple[tuple[int, GasGun], ...]:
    if not isinstance(data, Mapping) or len(data) > 40:
        raise InvalidInput("state.gas", "must map weapon indexes to pumped AP and max")
    guns = []
    for key, gun in data.items():
        if not str(key).isdigit() or int(key) >= 40 or not isinstance(gun, Mapping):
            raise InvalidInput("state.gas", f"{key!r} is not a weapon index")
        pumped = _int(gun, "pumped", 0, MAX_CARRIED, 0)
        top = _int(gun, "max", -D10, D10, None)
        if top is None:
            raise InvalidInput("state.gas", "a gas gun needs its max")
        guns.append((int(key), GasGun(pumped, top)))
    return tuple(sorted(guns))


def decode_state(data: Mapping[str, Any]) -> UnitState:
    """The state from ``encode_state``'s JSON; a missing key takes its fresh value."""
    if not isinstance(data, Mapping):
        raise InvalidInput("state", "must be an object")
    senses = data.get("dampened", [])
    if not isinstance(senses, list | tuple) or any(s not in SENSES for s in senses):
        raise InvalidInput("state.dampened", "must list senses of the table")
    location = data.get("location", "")
    if not isinstance(location, str) or len(location) > LOCATION_MAX:
        raise InvalidInput("state.location", f"must be at most {LOCATION_MAX} characters")
    visibility = data.get("visibility", "fogged")
    if visibility not in VISIBILITY:
        raise InvalidInput("state.visibility", "must be fogged, concealed or revealed")
    return UnitState(
        armour=_int(data, "armour", 0, MAX_STAT, None),
        back_armour=_int(data, "back_armour", 0, MAX_STAT, None),
        hp=_int(data, "hp", 0, MAX_STAT, None),
        ap_lost=_int(data, "ap_lost", 0, MAX_AP, 0),
        ap_spent=_int(data, "ap_spent", 0, MAX_AP, 0),
        restrained=_flag(data, "restrained"),
        dampened=tuple(senses),
        dampened_rounds=_int(data, "dampened_rounds", 0, DAMPENED_ROUNDS, 0),
        gas=_gas(data.get("gas", {})),
        drawn=_flag(data, "drawn"),
        carried=_int(data, "carried", 0, MAX_CARRIED, 0),
        location=location,
        bloom=_fraction(data, "bloom", MAX_BLOOM),
        pre_bloom=_flag(data, "pre_bloom"),
        energy_fired=_fraction(data, "energy_fired", 1),
        bloom_build=_fraction(data, "bloom_build", 1),
        custody=_flag(data, "custody"),
        visibility=visibility,
        suppressed_rounds=_int(data, "suppressed_rounds", 0, SUPPRESSED_ROUNDS, 0),
        ap_reused=_int(data, "ap_reused", 0, MAX_AP, 0),
    )


# ------------------------------------------------------------------------ the unit as it stands


def armour_left(state: UnitState, unit: DegreesUnit) -> int:
    return unit.armour if state.armour is None else state.armour


def back_armour_left(state: UnitState, unit: DegreesUnit) -> int:
    return unit.back_armour if state.back_armour is None else state.back_armour


def hp_left(state: UnitState, unit: DegreesUnit) -> int:
    return unit.hp if state.hp is None else state.hp


def destroyed(state: UnitState, unit: DegreesUnit) -> bool:
    return hp_left(state, unit) <= 0


def ap_left(state: UnitState, unit: DegreesUnit) -> int:
    """The AP the unit may still use this round (none while any are owed)."""
    return max(0, unit.ap - state.ap_spent - state.ap_lost)


def attack_ap_left(state: UnitState, unit: DegreesUnit) -> int:
    """The AP left for a direct attack: a missed Flashback's AP are not (DK14)."""
    left = ap_left(state, unit)
    return left - min(left, state.ap_reused)


def gas_guns(unit: DegreesUnit) -> tuple[int, ...]:
    return tuple(i for i, w in enumerate(unit.weapons) if w.kind.gas)


def wrecked(state: UnitState, unit: DegreesUnit, index: int) -> bool:
    weapon = unit.weapons[index]
    return weapon.kind.gas and state.gun(index, weapon).max <= 0


def standing_unit(state: UnitState, unit: DegreesUnit) -> DegreesUnit:
    """The unit as attacks use it: Armour and HP left, AP per round less AP owed, each gas
    gun's damaged max as its degree (at least 1: a wrecked gun does not fire at all)."""
    weapons = tuple(
        replace(w, degree=max(1, state.gun(i, w).max)) if w.kind.gas else w
        for i, w in enumerate(unit.weapons)
    )
    return replace(
        unit,
        armour=armour_left(state, unit),
        back_armour=back_armour_left(state, unit),
        hp=hp_left(state, unit),
        ap=max(0, unit.ap - state.ap_lost),
        weapons=weapons,
    )


def bloom_level(state: UnitState) -> int:
    """The level the location's attacks suffer: its exact bloom rounded down."""
    return floor(state.bloom)


def bloom_words(state: UnitState) -> str:
    """The bloom as shown: its level, and the exact value where a share is building up
    (``1 (4/3)``)."""
    level = bloom_level(state)
    return str(level) if state.bloom == level else f"{level} ({state.bloom})"


def incandescent(state: UnitState) -> bool:
    return bloom_level(state) >= INCANDESCENT_FROM


def bloom_progress(state: UnitState) -> Fraction:
    """The location's bloom as one exact count of rounds of (a γ-gun's) fire: below 1 on
    the way to a pre-bloom, 1 pre-bloomed, 1 + N at bloom N."""
    if state.pre_bloom or state.bloom:
        return state.bloom + 1
    return state.bloom_build


def with_bloom_progress(state: UnitState, progress: Fraction) -> UnitState:
    progress = max(Fraction(0), min(Fraction(MAX_BLOOM + 1), progress))
    if progress >= 1:
        return replace(state, bloom=progress - 1, pre_bloom=True, bloom_build=Fraction(0))
    return replace(state, bloom=Fraction(0), pre_bloom=False, bloom_build=progress)


def mark_bloom(state: UnitState, share: Fraction) -> UnitState:
    """Fire causing ``share`` of a γ-gun's bloom at the unit's location this round (a round
    of fire counts once: its largest share)."""
    return replace(state, energy_fired=max(state.energy_fired, share))


# ------------------------------------------------------------------------ AP


def lose_ap(state: UnitState, unit: DegreesUnit, lost: int) -> UnitState:
    """AP lost to a hit: paid from what is left of this round, the rest owed."""
    paid = min(lost, ap_left(state, unit))
    after = replace(
        state,
        ap_spent=min(MAX_AP, state.ap_spent + paid),
        ap_lost=min(MAX_AP, state.ap_lost + lost - paid),
    )
    return replace(after, ap_reused=min(after.ap_reused, ap_left(after, unit)))


def spend(
    state: UnitState, unit: DegreesUnit, ap: int, name: str, what: str, *, attack: bool = False
) -> UnitState:
    """``ap`` AP spent from this round's; refused (field ``unit``) beyond what is left. A
    missed Flashback's AP (``ap_reused``) go first to anything but an attack; AP put into
    an attack (``attack``: beginning one, pumping a gas gun) may not use them (DK14)."""
    left = attack_ap_left(state, unit) if attack else ap_left(state, unit)
    if ap > left:
        why = f" ({state.ap_reused} only for non-attacks)" if attack and state.ap_reused else ""
        raise InvalidInput("unit", f"{what} needs {ap} AP; {name} has {left} left this round{why}")
    reused = state.ap_reused if attack else max(0, state.ap_reused - ap)
    after = replace(state, ap_spent=state.ap_spent + ap)
    return replace(after, ap_reused=min(reused, ap_left(after, unit)))


def require_fighting(state: UnitState, unit: DegreesUnit, name: str) -> None:
    if destroyed(state, unit):
        raise InvalidInput("unit", f"{name} is destroyed")


def require_free(state: UnitState, name: str, field: str = "unit") -> None:
    if state.restrained:
        raise InvalidInput(field, f"{name} is restrained: it may only try to break free")


# ------------------------------------------------------------------------ actions


def new_round(
    state: UnitState, unit: DegreesUnit, options: DegreesOptions | None = None
) -> UnitState:
    """The next round: AP owed are paid first from its AP, dampening counts down, and the
    location's bloom builds up by the round's fire (its exact share of a γ-gun's: pre-bloomed
    after one round's worth, then a level a round's worth) or dissipates a level after a
    round without."""
    options = options or DegreesOptions()
    paid = min(state.ap_lost, unit.ap)
    rounds = max(0, state.dampened_rounds - 1)
    progress = bloom_progress(state)
    if state.energy_fired:
        progress += state.energy_fired
    else:
        progress -= 1
    after = with_bloom_progress(state, progress)
    after = replace(
        after,
        ap_lost=state.ap_lost - paid,
        ap_spent=paid,
        dampened=state.dampened if rounds else (),
        dampened_rounds=rounds,
        energy_fired=Fraction(0),
        suppressed_rounds=max(0, state.suppressed_rounds - 1),
        ap_reused=0,
    )
    after = replace(after, visibility=bloom_visibility(state.visibility, bloom_level(after)))
    # a dampened Nociception: "loosing additional APs to the degree nociception is in the
    # list", in each round it is still dampened (not the round of the hit: the text's SWAT
    # example loses the roll's 4 AP only); house rule ``nociception_at_hit``: at the hit
    if "nociception" in after.dampened and not options.nociception_at_hit:
        after = lose_ap(after, unit, unit.senses.index("nociception") + 1)
    return after


ENVIRONMENT_DEGREE = 1  # "A 1° attack at the beginning of each round from the environment"


def environment_attack(state: UnitState, unit: DegreesUnit, rng: random.Random) -> Rolled:
    """An incandescent location's "1° attack at the beginning of each round from the
    environment on each unit in that hex": a standard shot at 1° (a natural 1 hits for 1,
    on the back line where that is worse, as any standard shot), no AP, no weapon. Its OP/AP
    and anti-bloom defences are the players'."""
    shot = Shot.of(WEAPON_TYPES["standard"], ENVIRONMENT_DEGREE)
    before = Target(armour_left(state, unit), back_armour_left(state, unit), hp_left(state, unit))
    natural = rng.randint(1, D10)
    hit = resolve(shot, before, natural)
    after = state  # a stat never changed stays "as built" (None)
    if hit.armour != before.armour:
        after = replace(after, armour=hit.armour)
    if hit.back_armour != before.back_armour:
        after = replace(after, back_armour=hit.back_armour)
    if hit.hp != before.hp:
        after = replace(after, hp=hit.hp)
    if hit.hp <= 0:
        after = replace(
            after, restrained=False, dampened=(), dampened_rounds=0, suppressed_rounds=0
        )
    if hit == before:
        words = "unharmed"
    else:
        words = (
            f"Armour {hit.armour}/{unit.armour}, back Armour {hit.back_armour}/"
            f"{unit.back_armour}, HP {hit.hp}/{unit.hp}" + " (destroyed)" * (hit.hp <= 0)
        )
    summary = (
        f"is attacked by the incandescent bloom at {ENVIRONMENT_DEGREE}°: d10 {natural}, "
        + ("hits for 1: " if shot.hits(natural) else "misses: ")
        + words
    )
    return Rolled(after, (("environment", natural, ENVIRONMENT_DEGREE),), summary)


def bloom_visibility(visibility: str, bloom: int) -> str:  # the bloom's level
    """What the location's bloom makes of a unit's visibility (9.5.2 Bloom): a bloomed
    location (1 or 2) reveals it ("Blooming reveals all units in the bloomed hexes"); an
    incandescent one (3 or more) obscures it: concealed ("automatically concealed and become
    re-concealed after the end of the round"); no bloom leaves it as it is."""
    if bloom >= INCANDESCENT_FROM:
        return "concealed"
    return "revealed" if bloom > 0 else visibility


def set_visibility(
    state: UnitState, unit: DegreesUnit, name: str, visibility: str
) -> tuple[UnitState, str]:
    """The host sets how visible the unit is (a recon, moving out of sight: the players')."""
    require_fighting(state, unit, name)
    if visibility not in VISIBILITY:
        raise InvalidInput("set_visibility", "must be fogged, concealed or revealed")
    return replace(state, visibility=visibility), f"is {VISIBILITY[visibility].lower()}"


@dataclass(frozen=True, slots=True)
class Rolled:
    """An action's d10 rolls as (purpose, natural, degree rolled against) and its summary."""

    after: UnitState
    dice: tuple[tuple[str, int, int], ...]
    summary: str


def break_free(state: UnitState, unit: DegreesUnit, name: str, rng: random.Random) -> Rolled:
    """A restrained unit spends 1 AP on a d10: a raw 1 ends the restraint."""
    require_fighting(state, unit, name)
    if not state.restrained:
        raise InvalidInput("unit", f"{name} is not restrained")
    after = spend(state, unit, 1, name, "Breaking free")
    natural = rng.randint(1, D10)
    if natural == 1:
        return Rolled(replace(after, restrained=False), (("break_free", 1, 1),), "breaks free")
    return Rolled(after, (("break_free", natural, 1),), "stays restrained")


def pump(
    state: UnitState,
    unit: DegreesUnit,
    name: str,
    index: int | None,
    ap: int,
    op: int,
    rng: random.Random,
) -> Rolled:
    """``ap`` AP pumped into a gas gun (the first one when ``index`` is None). Each AP beyond
    its max is a roll against the new pumped degree (the first one less ``op``): success
    damages the gun by the roll (its max drops; 0: wrecked) and stops the pumping, that AP
    still pumped and the rest not spent (the engine's ``gas.pump_with``)."""
    require_fighting(state, unit, name)
    require_free(state, name)
    guns = gas_guns(unit)
    if index is None:
        if not guns:
            raise InvalidInput("unit", f"{name} has no gas gun")
        index = guns[0]
    if index not in guns:
        raise InvalidInput("pump_weapon", f"{name} has no gas gun at weapon index {index}")
    if op > unit.op:
        raise InvalidInput("pump_op", f"{name} has {unit.op} OP")
    weapon = unit.weapons[index]
    gun = state.gun(index, weapon)
    if gun.max <= 0:
        raise InvalidInput("pump_weapon", f"{weapon.name} is wrecked")
    spend(state, unit, ap, name, "Pumping", attack=True)  # refuses beyond the AP left
    if gun.pumped + ap > MAX_CARRIED:
        raise InvalidInput("pump_ap", f"at most {MAX_CARRIED} AP pumped into one shot")
    rolled = pump_with(gun.max, gun.pumped, ap, op, lambda: rng.randint(1, D10))
    pumped, top, spent = rolled.degree, rolled.max, rolled.ap
    dice = tuple(("compress", natural, degree) for natural, degree in rolled.rolls)
    words = []
    for natural, degree in rolled.rolls:
        if succeeds(natural, degree):
            words.append(
                f"compression d10 {natural} against {degree}°: damaged, "
                + (f"now {top}-max" if top > 0 else "wrecked after its next shot")
            )
        else:
            words.append(f"compression d10 {natural} against {degree}°: holds")
    after = spend(state, unit, spent, name, "Pumping", attack=True)
    after = after.with_gun(index, GasGun(pumped, top))
    summary = f"pumps {weapon.name} with {spent} AP: {pumped}° pumped"
    if words:
        summary += " (" + "; ".join(words) + ")"
    return Rolled(after, dice, summary)


def draw(state: UnitState, unit: DegreesUnit, name: str) -> tuple[UnitState, str]:
    """Draw a p-gun (its draw AP, 1), so its attacks no longer pay for it."""
    require_fighting(state, unit, name)
    require_free(state, name)
    guns = [w for w in unit.weapons if w.kind.draw_ap]
    if not guns:
        raise InvalidInput("unit", f"{name} has no weapon to draw")
    if state.drawn:
        raise InvalidInput("unit", f"{name} has its {guns[0].name} drawn already")
    after = spend(state, unit, guns[0].kind.draw_ap, name, "Drawing")
    return replace(after, drawn=True), f"draws {guns[0].name}"


def begin(state: UnitState, unit: DegreesUnit, name: str, ap: int) -> tuple[UnitState, str]:
    """Begin an attack: ``ap`` AP of this round carried into the next attack."""
    require_fighting(state, unit, name)
    require_free(state, name)
    after = spend(state, unit, ap, name, "Beginning an attack", attack=True)
    if state.carried + ap > MAX_CARRIED:
        raise InvalidInput("begin_ap", f"at most {MAX_CARRIED} AP carried into one attack")
    after = replace(after, carried=state.carried + ap)
    return after, f"begins an attack: {after.carried} AP carried into its next attack"


def set_location(
    state: UnitState, unit: DegreesUnit, name: str, location: str, bloom: int | None
) -> tuple[UnitState, str]:
    """Where the unit is, and that location's bloom level (None: kept, or 0 on moving)."""
    require_fighting(state, unit, name)
    moved = location != state.location
    if bloom is None:
        after = with_bloom_progress(state, Fraction(0)) if moved else state
    else:
        pre = bloom > 0 or (state.pre_bloom and not moved)
        build = Fraction(0) if moved or pre else state.bloom_build
        after = replace(state, bloom=Fraction(bloom), pre_bloom=pre, bloom_build=build)
    after = replace(
        after,
        location=location,
        visibility=bloom_visibility(state.visibility, bloom_level(after)),
    )
    where = location or "no named location"
    return after, f"is at {where}, bloom {bloom_words(after)}" + (
        " (incandescent)" * incandescent(after)
    )
