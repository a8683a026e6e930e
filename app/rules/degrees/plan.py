"""A Degrees attack planned: the situation (``situation.py``) and the units turned into a
``Round`` of shots (``round.py``) with its AP and its problems: each chosen weapon fired
``shots`` times in order, a gas gun pumped, an area weapon at every target."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from app.rules.degrees import area
from app.rules.degrees.catalogue import (
    FINE_MOTOR_PENALTY,
    GAS_GUN_RANGE,
    INCANDESCENT_FROM,
    PUNCH_GUN_PENALTY,
    RANGE_ORDER,
    RANGES,
    SCALES,
    SENSE_NOTES,
    SPACE_BALLISTIC_MAX,
    VISIBILITY,
    WEAPON_TYPES,
    more_visible,
)
from app.rules.degrees.options import DegreesOptions
from app.rules.degrees.round import PlannedShot, Round
from app.rules.degrees.shot import Shot, Target
from app.rules.degrees.situation import DegreesSituation
from app.rules.degrees.units import DegreesUnit, DegreesWeapon
from app.rules.ruleset import TargetInput

MAX_TARGETS = 100
MAX_UNITS = 300  # figurines over all targets (a 10° explosive's 100 in each of 3 locations)
MAX_ROUND_SHOTS = 24  # shots in one round, all weapons (0 AP dampener shots are not free)


def target_state(unit: DegreesUnit) -> Target:
    return Target(unit.armour, unit.back_armour, unit.hp)


def shot_ap(weapon: DegreesWeapon, situation: DegreesSituation, draw: bool) -> int:
    """The AP of one shot (a gas gun's pumping apart): the type's, drawing a p-gun, each
    extended degree, staying hidden with a classical ballistic."""
    kind = weapon.kind
    ap = (1 if kind.gas else kind.attack_ap) + situation.extend
    if draw:
        ap += kind.draw_ap
    if kind.ballistic == "classical" and situation.stay_hidden:
        ap += 1
    return ap


def dampened_senses(attacker: DegreesUnit, situation: DegreesSituation) -> tuple[str, ...]:
    """The attacker's dampened senses: the first ``dampened`` of its dampener order."""
    return attacker.senses[: situation.dampened]


def nociception_ap(attacker: DegreesUnit, situation: DegreesSituation) -> int:
    """The AP a dampened Nociception costs this round: "loosing additional APs to the degree
    nociception is in the list" (its place in the attacker's order, from 1; 0: not
    dampened)."""
    senses = dampened_senses(attacker, situation)
    return senses.index("nociception") + 1 if "nociception" in senses else 0


def modifiers(
    weapon: DegreesWeapon, situation: DegreesSituation, attacker: DegreesUnit
) -> list[tuple[str, int]]:
    """The shot's degree modifiers besides its base (and a gas gun's pumping), by name."""
    kind = weapon.kind
    mods: list[tuple[str, int]] = []
    if "fine_motor" in dampened_senses(attacker, situation):
        mods.append(("Fine Motor Control dampened", FINE_MOTOR_PENALTY))
    if situation.extend:
        mods.append(("extended", situation.extend))
    if weapon.real_ammo:
        mods.append(("real ammo", 1))
    if kind.band_bonus and RANGE_ORDER[situation.range]:
        mods.append(("Flashback band bonus", RANGE_ORDER[situation.range]))
    if kind.very_far_revealed_bonus and situation.range == "very_far" and situation.revealed:
        mods.append(("revealed at Very Far", 1))
    if kind.punch:
        penalty = PUNCH_GUN_PENALTY[(situation.range, situation.medium)]
        if penalty:
            mods.append((f"punch gun at {RANGES[situation.range]}", penalty))
    if (kind.energy or kind.senses) and situation.bloom:
        mods.append(("bloom", -situation.bloom))
    if situation.bloom >= INCANDESCENT_FROM:
        mods.append(("incandescent", -1))
    if situation.op:
        mods.append(("OP", situation.op))
    return mods


def base_degree(
    weapon: DegreesWeapon, attacker: DegreesUnit, target: DegreesUnit, situation: DegreesSituation
) -> int:
    """The degree chosen (set to stun: at most the max), or 10 for a higher-order weapon
    against a target of a smaller scale (RULINGS 2.3)."""
    if SCALES[weapon.entry.scale].order > SCALES[target.scale].order:
        return 10
    if situation.set_degree:
        return min(situation.set_degree, weapon.degree)
    return weapon.degree


@dataclass(frozen=True, slots=True)
class DegreesAttack(Round):
    """An attack as the interface computes it: a ``Round``, with its AP this round."""

    @property
    def ap_cost(self) -> int:
        return self.ap_needed


def gas_reach(pumped: int) -> str:
    """The farthest range a gas gun pumped to ``pumped``° reaches, in words ("" : none).

    >>> gas_reach(3), gas_reach(0)
    ('Far', '')
    """
    reached = [r for r, need in GAS_GUN_RANGE.items() if need <= pumped]
    return RANGES[reached[-1]] if reached else ""


def _gas_shot(
    weapon: DegreesWeapon,
    index: int,
    label: str,
    gas: int,
    start: int,
    ap: int,
    mods: Sequence[tuple[str, int]],
    situation: DegreesSituation,
    targets: int,
    problems: list[str],
    pump: int | None = None,
) -> PlannedShot:
    """A gas gun's shot: pumped from ``start`` (AP carried in) by the situation's pump (or,
    left empty, ``pump``: the AP ``plan`` chose), at the main target only; a problem if it is
    pumped too little for the range."""
    chosen = situation.pump is None
    pump = situation.pump if situation.pump is not None else (pump or 0)
    pumped = start + pump
    need = GAS_GUN_RANGE[situation.range]
    if pumped < need:
        reach = gas_reach(pumped)
        within = (
            f" Within its AP it is pumped to {pumped}°: "
            + (f"it reaches {reach}." if reach else "it reaches no range.")
            if chosen
            else ""
        )
        problems.append(
            f"{weapon.name} pumped to {pumped}° cannot reach "
            f"{RANGES[situation.range]} (needs {need}°).{within}"
        )
    penetrate = situation.penetrate == "best"
    shot = Shot.of(weapon.kind, 0, penetrate=penetrate, break_free=situation.break_free)
    why = f", chosen to reach {RANGES[situation.range]} (needs {need}°)" if chosen else ""
    steps = (
        ("pumped", f"{start} carried + {pump} AP (max {weapon.degree}){why}"),
        *((name, f"{m:+d}°") for name, m in mods),
        ("AP", str(start + pump + ap)),
    )
    return PlannedShot(
        index,
        label,
        (shot,) + (None,) * (targets - 1),
        start + pump + ap,
        gas=gas,
        start=start,
        pump=pump,
        compress_op=situation.compress_op,
        offset=sum(m for _, m in mods),
        range_need=need,
        steps=steps,
    )


def _shots_at(
    weapon: DegreesWeapon,
    attacker: DegreesUnit,
    units: Sequence[DegreesUnit],
    locations: Sequence[str],
    offset: int,
    situation: DegreesSituation,
    problems: list[str],
    nociception_at_hit: bool = False,
) -> list[Shot | None]:
    """One shot's degree against each target (None past the first: not an area weapon),
    with each location's problem once (house rule ``nociception_at_hit``: a dampener's shot
    knows where the target's Nociception is in its order)."""
    kind = weapon.kind
    penetrate = situation.penetrate == "best"
    per_target: list[Shot | None] = []
    for n, (unit, location) in enumerate(zip(units, locations, strict=True)):
        if n and not kind.area:
            per_target.append(None)
            continue
        base = base_degree(weapon, attacker, unit, situation)
        problem = area.location_problem(kind, base, location, weapon.name)
        if problem and problem not in problems:
            problems.append(problem)
        degree = base + offset + area.LOCATION_PENALTY.get(location, 0)
        shot = Shot.of(kind, degree, penetrate=penetrate, break_free=situation.break_free)
        if nociception_at_hit and kind.senses and "nociception" in unit.senses:
            shot = replace(shot, nociception=unit.senses.index("nociception") + 1)
        per_target.append(shot)
    return per_target


def _reveal(
    visibility: str, stay_hidden: bool, once: bool = False
) -> tuple[str, tuple[tuple[str, str]]]:
    """A classical ballistic's shot (9.5.1): the attacker a step more visible, unless it paid
    1 AP more to stay hidden (or, house rule ``reveal_once``, an earlier shot of the round
    revealed it); and that as the shot's step."""
    if stay_hidden:
        return visibility, (("attacker visibility", f"stays {VISIBILITY[visibility]} (+1 AP)"),)
    if once:
        words = f"stays {VISIBILITY[visibility]} (revealed once a round)"
        return visibility, (("attacker visibility", words),)
    after = more_visible(visibility)
    return after, (("attacker visibility", f"{VISIBILITY[visibility]} -> {VISIBILITY[after]}"),)


def _area_problems(
    weapon: DegreesWeapon, targets: Sequence[TargetInput], locations: Sequence[str]
) -> list[str]:
    """An area weapon's limits (9.5.4, RULINGS 2.4): at most its most units in a location
    (a squad counts its figurines)."""
    kind = weapon.kind
    units: dict[str, int] = {}
    for target, location in zip(targets, locations, strict=True):
        units[location] = units.get(location, 0) + target.figures
    return area.crowd_problems(weapon.name, area.most_targets(kind, weapon.degree), units)


ENVIRONMENT_DEGREE = 1  # "A 1° attack at the beginning of each round from the environment"


def _environment(situation: DegreesSituation, targets: int) -> tuple[PlannedShot, ...]:
    """The incandescent bloom's 1° attack on the main target (each of its figurines), first:
    it comes "at the beginning of each round" (no weapon, no AP)."""
    if not situation.environment or situation.bloom < INCANDESCENT_FROM:
        return ()
    shot = Shot.of(WEAPON_TYPES["standard"], ENVIRONMENT_DEGREE)
    planned = PlannedShot(
        -1,
        f"Incandescent bloom ({ENVIRONMENT_DEGREE}°)",
        (shot,) + (None,) * (targets - 1),
        0,
        steps=(("environment", f"{ENVIRONMENT_DEGREE}° at the beginning of the round"),),
        every_figure=True,
    )
    return (planned,)


def bloom_share(weapon: DegreesWeapon, situation: DegreesSituation) -> Fraction:
    """The bloom a weapon's fire causes, as a share of a γ-gun's round of fire: its type's
    rate (dousing rods 1/3), set to stun with ``stun_bloom`` in lock-step with the degree
    ("reduced in lock-step with the reduction in damage": set degree / max)."""
    share = weapon.kind.bloom_rate
    kind = weapon.kind
    stun = situation.set_degree and situation.set_degree < weapon.degree
    if share and stun and situation.stun_bloom and (kind.energy or kind.senses):
        share *= Fraction(situation.set_degree, weapon.degree)
    return share


def _weapon_notes(
    weapon: DegreesWeapon,
    situation: DegreesSituation,
    options: DegreesOptions,
    problems: list[str],
    more: dict[str, Any],
) -> list[tuple[str, str]]:
    """A weapon's steps that are not degrees (its problems, and ``more`` of the odds'
    detail): ballistics' range in space, the optional rule of blooms' range, a jump flash's
    OP, the bloom it causes."""
    kind = weapon.kind
    steps: list[tuple[str, str]] = []
    if options.in_space and kind.ballistic:
        # 9.5.1: "Ballistics in space are only ever 1° or 2° in mag & range"
        if RANGE_ORDER[situation.range] >= SPACE_BALLISTIC_MAX:
            problems.append(
                f"{weapon.name}: ballistics in space reach only Present or Close "
                f"(1° or 2° in range), not {RANGES[situation.range]}."
            )
        degree = min(situation.set_degree or weapon.degree, weapon.degree)
        if degree > SPACE_BALLISTIC_MAX:
            problems.append(f"{weapon.name}: ballistics in space are at most 2°, not {degree}°.")
    if options.bloom_range and kind.energy and situation.bloom:
        more["energy_range"] = f"1/{situation.bloom + 1}"
        steps.append(("range (optional rule)", more["energy_range"]))
    if kind.id == "jump_flash":
        more["jump_op"] = situation.jump_op
        steps.append(("OP to fire (the players' amount)", str(situation.jump_op)))
    share = bloom_share(weapon, situation)
    if share:
        steps.append(("bloom caused", f"{share} of a γ-gun's"))
    return steps


def plan(
    attacker: DegreesUnit,
    weapons: tuple[int, ...],
    targets: Sequence[TargetInput],
    situation: DegreesSituation,
    options: DegreesOptions | None = None,
) -> DegreesAttack:
    """The round: each chosen weapon fired ``shots`` times in order, against the targets
    (an area weapon at each figurine of each, a squad's counted as units of their own),
    after the incandescent environment's attack where asked.

    A gas gun's pump left empty (``pump`` None) is chosen: each gas shot in order is pumped
    the AP that reach the range from what it carries in, as far as the AP the round leaves
    after its other costs allow (the rest short: the farthest range it then reaches is
    named); why is told in the odds' detail (``gas_pump``) and the shot's steps."""
    gas_chosen = any(attacker.weapons[i].kind.gas for i in weapons)
    if situation.pump is not None or not gas_chosen:
        return _round(attacker, weapons, targets, situation, options, ())
    bare = _round(attacker, weapons, targets, situation, options, ())
    spare = max(0, bare.ap_available - bare.ap_needed)
    pumps: list[int] = []
    for shot in bare.shots:
        if shot.gas >= 0:
            pumps.append(min(max(0, shot.range_need - shot.start), spare))
            spare -= pumps[-1]
    attack = _round(attacker, weapons, targets, situation, options, tuple(pumps))
    notes = [
        _pump_note(shot, RANGES[situation.range], attack.ap_available)
        for shot in attack.shots
        if shot.gas >= 0
    ]
    return replace(attack, more=(*attack.more, ("gas_pump", notes)))


def _pump_note(shot: PlannedShot, range_name: str, available: int) -> str:
    """Why a gas shot's pump was chosen: 'pumped 2 AP to reach Close (needs 2°) within 3 AP'."""
    pumped = shot.start + shot.pump
    carried = f" ({shot.start} AP carried in)" if shot.start else ""
    if pumped >= shot.range_need:
        if not shot.pump:
            return (
                f"{shot.label}: not pumped: the {shot.start} AP carried in reach "
                f"{range_name} (needs {shot.range_need}°)"
            )
        return (
            f"{shot.label}: pumped {shot.pump} AP to reach {range_name} "
            f"(needs {shot.range_need}°) within {available} AP{carried}"
        )
    reach = gas_reach(pumped)
    return (
        f"{shot.label}: pumped {shot.pump} AP{carried}, all that {available} AP leave: "
        f"{pumped}° reaches {reach or 'no range'}; {range_name} needs {shot.range_need}°"
    )


def _round(
    attacker: DegreesUnit,
    weapons: tuple[int, ...],
    targets: Sequence[TargetInput],
    situation: DegreesSituation,
    options: DegreesOptions | None,
    pumps: tuple[int, ...],
) -> DegreesAttack:
    """``plan``'s round, each gas shot in order pumped ``pumps[k]`` when the situation's
    pump is empty (none given: 0)."""
    options = options or DegreesOptions()
    problems: list[str] = []
    units: list[DegreesUnit] = [t.unit for t in targets]
    locations = [str(t.fields.get("location") or "here") for t in targets]
    shots: list[PlannedShot] = []
    gas_weapons = tuple(dict.fromkeys(i for i in weapons if attacker.weapons[i].kind.gas))
    gas_max = tuple(attacker.weapons[i].degree for i in gas_weapons)
    drawn = situation.drawn
    total_ap = 0
    extra_locations: int | None = None
    reach = ""
    any_area = False
    visibility = situation.visibility
    classical = False  # only a classical ballistic's shot reads (and changes) the visibility
    shots.extend(_environment(situation, len(units)))
    share = Fraction(0)
    more: dict[str, Any] = {}
    for index in weapons:
        weapon = attacker.weapons[index]
        kind = weapon.kind
        if kind.no_very_far and situation.range == "very_far":
            problems.append(f"{weapon.name} cannot fire at Very Far (direct radiation).")
        if kind.one_shot and situation.shots > 1:
            problems.append(f"{weapon.name} has only one attack.")
        mods = modifiers(weapon, situation, attacker)
        offset = sum(m for _, m in mods)
        notes = _weapon_notes(weapon, situation, options, problems, more)
        share = max(share, bloom_share(weapon, situation))
        if kind.area:
            any_area = True
            base = base_degree(weapon, attacker, units[0], situation)
            for problem in _area_problems(weapon, targets, locations):
                if problem not in problems:
                    problems.append(problem)
            if extra_locations is None:
                extra_locations = area.further_locations(base, base + offset)
                reach = f"{weapon.name} attacks {area.reach(base, base + offset)}."
        for shot_no in range(situation.shots):
            first = not any(p.weapon >= 0 for p in shots)
            draw = bool(kind.draw_ap) and not drawn
            drawn = drawn or bool(kind.draw_ap)
            ap = shot_ap(weapon, situation, draw)
            label = weapon.name + (f", shot {shot_no + 1}" if situation.shots > 1 else "")
            if kind.gas:
                start = situation.carried if first else 0
                gas = gas_weapons.index(index)
                k = sum(1 for p in shots if p.gas >= 0)
                gas_shot = _gas_shot(
                    weapon,
                    index,
                    label,
                    gas,
                    start,
                    ap,
                    mods,
                    situation,
                    len(units),
                    problems,
                    pumps[k] if k < len(pumps) else 0,
                )
                shots.append(gas_shot)
                total_ap += gas_shot.ap
                continue
            per_target = _shots_at(
                weapon,
                attacker,
                units,
                locations,
                offset,
                situation,
                problems,
                options.nociception_at_hit,
            )
            main = per_target[0]
            assert main is not None
            seen: tuple[tuple[str, str], ...] = ()
            if kind.ballistic == "classical":
                once = options.reveal_once and classical
                classical = True
                visibility, seen = _reveal(visibility, situation.stay_hidden, once)
            steps = (
                ("degree", f"{base_degree(weapon, attacker, units[0], situation)}°"),
                *((name, f"{m:+d}°") for name, m in mods),
                ("final degree", f"{main.degree}°"),
                ("AP", str(ap)),
                *notes,
                *seen,
            )
            shots.append(
                PlannedShot(
                    index,
                    label,
                    tuple(per_target),
                    ap,
                    steps=steps,
                    every_figure=bool(kind.area),
                    reuses_ap=kind.reuses_ap,
                    # a missed Flashback's AP: all of them, or (house rule) its attack AP
                    reused=(min(ap, kind.attack_ap) if options.flashback_attack_ap else ap)
                    if kind.reuses_ap
                    else 0,
                )
            )
            total_ap += ap
    if len(shots) > MAX_ROUND_SHOTS:
        problems.append(f"at most {MAX_ROUND_SHOTS} shots in one round; {len(shots)} chosen.")
    if len(units) > 1 and not any_area:
        problems.append("Only area weapons attack more than one unit.")
    needed = max(0, total_ap - situation.carried)
    # Nociception's AP come off the unit's AP per round; a given ``ap`` is what is left
    # (house rule ``nociception_at_hit``: they were lost at the hit, not each round)
    noci = 0 if options.nociception_at_hit else nociception_ap(attacker, situation)
    available = max(0, attacker.ap - noci)
    if situation.ap is not None:
        available = situation.ap
    if needed > available:
        problems.append(f"needs {needed} AP; {attacker.name} has {available} this round.")
    return DegreesAttack(
        tuple(shots),
        tuple(target_state(u) for u in units),
        tuple(u.senses for u in units),
        gas_max,
        gas_weapons,
        needed,
        available,
        situation.carried,
        tuple(problems),
        extra_locations,
        any_area,
        tuple(u.ap for u in units),
        tuple(t.figures for t in targets),
        reach,
        sense_notes=tuple(
            SENSE_NOTES[s] for s in dampened_senses(attacker, situation) if s in SENSE_NOTES
        ),
        nociception_ap=noci if situation.ap is None else 0,
        visibility_before=situation.visibility if classical else "",
        visibility=visibility if classical else "",
        more=tuple(more.items()) + ((("bloom_share", str(share)),) if share else ()),
    )
