"""Calculating Degrees attacks: single attacks, whole rounds, area attacks.

The situation (``situation.py``) says how the attacker spends its AP and OP this round;
``plan`` turns it and the units into a ``Round`` of shots (``round.py``) with its AP and its
problems; ``attack_from_body`` reads the stateless single-shot body of the API.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from app.rules.degrees import area
from app.rules.degrees.catalogue import (
    DEFAULT_SENSE_ORDER,
    GAS_GUN_RANGE,
    INCANDESCENT_FROM,
    PUNCH_GUN_PENALTY,
    RANGE_ORDER,
    RANGES,
    SCALES,
    WEAPON_TYPES,
)
from app.rules.degrees.options import DegreesOptions
from app.rules.degrees.round import OUTCOMES, PlannedShot, Round
from app.rules.degrees.shot import Shot, Target
from app.rules.degrees.situation import (
    LOCATION,
    SITUATION_FIELDS,
    TARGET_FIELDS,
    DegreesSituation,
    read_situation,
)
from app.rules.degrees.units import DegreesUnit, DegreesWeapon
from app.rules.errors import InvalidInput
from app.rules.fields import InputField, fields_at, parse_fields, whole_value
from app.rules.ruleset import (
    AllyInput,
    Column,
    RulesetBase,
    SampleAttack,
    TargetInput,
    check_attack_shape,
)

MAX_TARGETS = 100
MAX_ROUND_SHOTS = 24  # shots in one round, all weapons (0 AP dampener shots are not free)

OUTCOME_COLUMNS = tuple(Column(k, label, numeric=True) for k, label in OUTCOMES)


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


def modifiers(weapon: DegreesWeapon, situation: DegreesSituation) -> list[tuple[str, int]]:
    """The shot's degree modifiers besides its base (and a gas gun's pumping), by name."""
    kind = weapon.kind
    mods: list[tuple[str, int]] = []
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
) -> PlannedShot:
    """A gas gun's shot: pumped from ``start`` (AP carried in) by the situation's pump, at the
    main target only; a problem if it is pumped too little for the range."""
    pumped = start + situation.pump
    need = GAS_GUN_RANGE[situation.range]
    if pumped < need:
        problems.append(
            f"{weapon.name} pumped to {pumped}° cannot reach "
            f"{RANGES[situation.range]} (needs {need}°)."
        )
    penetrate = situation.penetrate == "best"
    shot = Shot.of(weapon.kind, 0, penetrate=penetrate, break_free=situation.break_free)
    steps = (
        ("pumped", f"{start} carried + {situation.pump} AP (max {weapon.degree})"),
        *((name, f"{m:+d}°") for name, m in mods),
        ("AP", str(start + situation.pump + ap)),
    )
    return PlannedShot(
        index,
        label,
        (shot,) + (None,) * (targets - 1),
        start + situation.pump + ap,
        gas=gas,
        start=start,
        pump=situation.pump,
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
) -> list[Shot | None]:
    """One shot's degree against each target (None past the first: not an area weapon),
    with each location's problem once."""
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
        per_target.append(
            Shot.of(kind, degree, penetrate=penetrate, break_free=situation.break_free)
        )
    return per_target


def plan(
    attacker: DegreesUnit,
    weapons: tuple[int, ...],
    targets: Sequence[TargetInput],
    situation: DegreesSituation,
) -> DegreesAttack:
    """The round: each chosen weapon fired ``shots`` times in order, against the targets."""
    problems: list[str] = []
    units: list[DegreesUnit] = [t.unit for t in targets]
    locations = [str(t.fields.get("location") or "here") for t in targets]
    shots: list[PlannedShot] = []
    gas_weapons = tuple(dict.fromkeys(i for i in weapons if attacker.weapons[i].kind.gas))
    gas_max = tuple(attacker.weapons[i].degree for i in gas_weapons)
    drawn = situation.drawn
    total_ap = 0
    extra_locations: int | None = None
    any_area = False
    for index in weapons:
        weapon = attacker.weapons[index]
        kind = weapon.kind
        if kind.no_very_far and situation.range == "very_far":
            problems.append(f"{weapon.name} cannot fire at Very Far (direct radiation).")
        if kind.one_shot and situation.shots > 1:
            problems.append(f"{weapon.name} has only one attack.")
        if kind.area:
            any_area = True
            most = area.most_targets(kind, weapon.degree)
            if len(units) > most:
                problems.append(f"{weapon.name} attacks at most {most} units; {len(units)} chosen.")
        mods = modifiers(weapon, situation)
        offset = sum(m for _, m in mods)
        for shot_no in range(situation.shots):
            first = not shots
            draw = bool(kind.draw_ap) and not drawn
            drawn = drawn or bool(kind.draw_ap)
            ap = shot_ap(weapon, situation, draw)
            label = weapon.name + (f", shot {shot_no + 1}" if situation.shots > 1 else "")
            if kind.gas:
                start = situation.carried if first else 0
                gas = gas_weapons.index(index)
                gas_shot = _gas_shot(
                    weapon, index, label, gas, start, ap, mods, situation, len(units), problems
                )
                shots.append(gas_shot)
                total_ap += gas_shot.ap
                continue
            per_target = _shots_at(weapon, attacker, units, locations, offset, situation, problems)
            main = per_target[0]
            assert main is not None
            if kind.area and extra_locations is None:
                extra_locations = max(0, main.degree)
            steps = (
                ("degree", f"{base_degree(weapon, attacker, units[0], situation)}°"),
                *((name, f"{m:+d}°") for name, m in mods),
                ("final degree", f"{main.degree}°"),
                ("AP", str(ap)),
            )
            shots.append(PlannedShot(index, label, tuple(per_target), ap, steps=steps))
            total_ap += ap
    if len(shots) > MAX_ROUND_SHOTS:
        problems.append(f"at most {MAX_ROUND_SHOTS} shots in one round; {len(shots)} chosen.")
    if len(units) > 1 and not any_area:
        problems.append("Only area weapons attack more than one unit.")
    needed = max(0, total_ap - situation.carried)
    available = attacker.ap if situation.ap is None else situation.ap
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
    )


# ---------------------------------------------------------------- the stateless body

_BODY_ATTACK = (
    InputField("degree", "Degree", "whole", None, low=1, high=10),
    InputField("modifier", "Modifier", "whole", 0, low=-20, high=20),
    InputField("penetrates_on", "Penetrates on", "whole", None, low=0, high=10, optional=True),
    InputField("type", "Type", "choice", "standard", choices=tuple((t, t) for t in WEAPON_TYPES)),
    InputField("op", "OP", "whole", 0, low=0, high=10),
)
_BODY_TARGET = (
    InputField("armour", "Armour", "whole", None, low=0, high=30),
    InputField("hp", "HP", "whole", None, low=1, high=30),
    InputField("back_armour", "Back-line Armour", "whole", 0, low=0, high=30),
    InputField("ap", "AP", "whole", 3, low=0, high=12),
)


def from_body(body: Mapping[str, Any]) -> DegreesAttack:
    """One shot from the stateless body: ``{"attack": {"degree", "modifier",
    "penetrates_on", "type", "op"}, "target": {"armour", "hp", "back_armour", "ap"}}``."""
    if not isinstance(body, Mapping):
        raise InvalidInput("attack", "is required (an object)")
    for key in body:
        if key not in ("attack", "target", "seed"):
            raise InvalidInput(str(key), "is not a known field")
    attack = fields_at(body.get("attack"), "attack", _BODY_ATTACK)
    target = fields_at(body.get("target"), "target", _BODY_TARGET)
    kind = WEAPON_TYPES[str(attack["type"])]
    degree = (
        whole_value(attack, "degree") + whole_value(attack, "modifier") + whole_value(attack, "op")
    )
    shot = Shot.of(kind, degree)
    if attack["penetrates_on"] is not None:
        shot = replace(shot, penetrates_on=whole_value(attack, "penetrates_on"))
    state = Target(
        whole_value(target, "armour"), whole_value(target, "back_armour"), whole_value(target, "hp")
    )
    planned = PlannedShot(
        0,
        f"{kind.name} {attack['degree']}°",
        (shot,),
        kind.attack_ap,
        steps=(("final degree", f"{degree}°"),),
    )
    return DegreesAttack(
        (planned,),
        (state,),
        (DEFAULT_SENSE_ORDER,),
        ap_needed=kind.attack_ap,
        target_ap=(whole_value(target, "ap"),),
    )


def _unit(name: str, degree: int, weapons: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "kind": "personnel",
        "degree": degree,
        "armour": more.pop("armour", degree),
        "back_armour": more.pop("back_armour", 0),
        "hp": more.pop("hp", degree),
        "ap": more.pop("ap", 3),
        "op": more.pop("op", 0),
        "weapons": weapons,
        **more,
    }


SAMPLE_ATTACKS: tuple[SampleAttack, ...] = (
    SampleAttack(
        "a rifle against a fresh 3°",
        _unit("Rifleman", 3, [{"type": "rifle", "degree": 3}]),
        (0,),
        (_unit("Trooper", 3, []),),
    ),
    SampleAttack(
        "a gas gun over-compressed, then fired extended",
        _unit("Gunner", 2, [{"type": "gas_gun", "degree": 2}], ap=6, op=2),
        (0,),
        (_unit("Trooper", 3, []),),
        {"carried": 2, "pump": 2, "compress_op": 1, "extend": 1, "range": "present"},
    ),
    SampleAttack(
        "a stun gun that may be broken free from",
        _unit("Thin Blue", 2, [{"type": "stun_gun", "degree": 2}], ap=4),
        (0,),
        (_unit("Rioter", 2, []),),
        {"shots": 2, "break_free": True},
    ),
    SampleAttack(
        "a sensory dampener turned up",
        _unit("SWAT", 3, [{"type": "sensory_dampener", "degree": 4}], ap=4),
        (0,),
        (_unit("Suspect", 2, [], senses=["audition", "vision", "analgesia", "nociception"]),),
        {"extend": 1},
    ),
    SampleAttack(
        "a grenade on three units",
        _unit("Grenadier", 2, [{"type": "grenade", "degree": 2}]),
        (0,),
        (_unit("A", 1, []), _unit("B", 2, []), _unit("C", 2, [], back_armour=1)),
    ),
    SampleAttack(
        "a punch gun at Close in air, then a γ-gun",
        _unit(
            "Marine",
            4,
            [{"type": "punch_gun", "degree": 4}, {"type": "gamma_gun", "degree": 5}],
            ap=3,
        ),
        (0, 1),
        (_unit("Raider", 3, [], back_armour=1),),
        {"range": "close", "medium": "light", "bloom": 1},
    ),
)


class DegreesCalculating(RulesetBase):
    """The calculating half of the Degrees ruleset: the situation's fields and attacks. The
    situation, its encoding, the default weapons (the first) and their cost are
    ``RulesetBase``'s."""

    situation_fields: tuple[InputField, ...] = SITUATION_FIELDS
    target_fields: tuple[InputField, ...] = TARGET_FIELDS
    outcome_columns: tuple[Column, ...] = OUTCOME_COLUMNS
    max_targets: int = MAX_TARGETS
    sample_attacks: tuple[SampleAttack, ...] = SAMPLE_ATTACKS

    def attack(
        self,
        attacker: DegreesUnit,
        weapons: tuple[int, ...],
        targets: Sequence[TargetInput],
        situation: Mapping[str, Any],
        options: DegreesOptions,
        allies: Sequence[AllyInput] = (),
    ) -> DegreesAttack:
        if not weapons:
            raise InvalidInput("weapons", "choose at least one weapon to fire")
        check_attack_shape(
            "Degrees", attacker.name, len(attacker.weapons), weapons, targets, allies, MAX_TARGETS
        )
        for n, target in enumerate(targets):
            for key in target.fields:
                if key != LOCATION.name:
                    raise InvalidInput(f"targets.{n}.{key}", "is not a target field")
            _, errors = parse_fields(TARGET_FIELDS, target.fields)
            if errors:
                raise InvalidInput(f"targets.{n}.location", errors["location"])
        return plan(attacker, weapons, targets, read_situation(situation))

    def attack_from_body(self, body: Mapping[str, Any]) -> DegreesAttack:
        # the stateless body is one shot's numbers (degree, type; Armour, HP), not units
        return from_body(body)
