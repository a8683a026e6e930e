"""D20 attacks and the calculator: shots and blows, automatic fire, explosions, defusing.

``plan`` turns the attacker, its chosen weapons, the targets and the situation into a
``D20Attack`` (``attack.py``) with the reasons it cannot be made, if any; ``from_body`` reads
the stateless body of ``POST /api/v1/rulesets/d20/odds`` and ``/roll``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.rules.d20.attack import OUTCOMES, D20Attack
from app.rules.d20.catalogue import (
    AUTO_MIN_TARGETS,
    AUTO_PENALTY_MAX,
    AUTO_PENALTY_STEP,
    CLUB_POWER,
    EQUIPMENT,
    GRENADE_HEIGHT_CM,
    STAT_RANGE,
)
from app.rules.d20.options import D20Options
from app.rules.d20.strike import Strike
from app.rules.d20.units import POWER_MAX, REACH_MAX, D20Figurine, D20Weapon
from app.rules.errors import InvalidInput
from app.rules.fields import FieldValue, InputField, fields_at, parse_fields, whole_value
from app.rules.ruleset import AllyInput, Column, SampleAttack, TargetInput, check_attack_shape

MAX_TARGETS = 60
MAX_OBJECTS = 20
DL_MAX = 200
HEIGHT_MAX = 200  # cm
DISTANCE_MAX = REACH_MAX
MODES = (
    ("shot", "Single shot"),
    ("blow", "Hand-to-hand blow"),
    ("automatic", "Automatic fire"),
    ("explosion", "Explosion (grenade, mine, charges)"),
    ("defuse", "Defuse a charge"),
)
EXPLOSIVES = ("grenade", "mine", "charge")

SITUATION_FIELDS: tuple[InputField, ...] = (
    InputField("mode", "Attack", "choice", "shot", choices=MODES),
    InputField(
        "distance",
        "Distance (cm)",
        "whole",
        0,
        low=0,
        high=DISTANCE_MAX,
        help="To the target, or to a grenade's blast point; at most the weapon's Reach",
    ),
    InputField("modifier", "Modifier", "whole", 0, low=-20, high=20, help="Bonuses and maluses"),
    InputField(
        "cover",
        "First target in cover",
        "flag",
        False,
        help="Against explosions that cover protects from",
    ),
    InputField(
        "height",
        "First target's height (cm)",
        "whole",
        0,
        low=0,
        high=HEIGHT_MAX,
        help="Above the blast's level: grenades hit up to 5 cm above",
    ),
    InputField("shaken", "First target Shaken", "flag", False, help="No Evasion"),
    InputField(
        "objects",
        "Objects' DLs",
        "text",
        "",
        high=200,
        help=f"In the blast: their DLs, comma-separated, at most {MAX_OBJECTS}",
    ),
    InputField(
        "dl",
        "Charge's DL",
        "whole",
        None,
        low=0,
        high=DL_MAX,
        optional=True,
        help="Defusing: empty for the chosen charges' Power",
    ),
)
TARGET_FIELDS: tuple[InputField, ...] = (
    InputField("cover", "In cover", "flag", False),
    InputField("height", "Height (cm)", "whole", 0, low=0, high=HEIGHT_MAX),
    InputField("shaken", "Shaken", "flag", False),
)
OUTCOME_COLUMNS = tuple(Column(k, label, numeric=True) for k, label in OUTCOMES)
_SITUATION_NAMES = frozenset(f.name for f in SITUATION_FIELDS)
_TARGET_NAMES = frozenset(f.name for f in TARGET_FIELDS)


@dataclass(frozen=True, slots=True)
class D20Situation:
    """The situation of an attack (see ``SITUATION_FIELDS``)."""

    mode: str = "shot"
    distance: int = 0
    modifier: int = 0
    cover: bool = False
    height: int = 0
    shaken: bool = False
    objects: str = ""
    dl: int | None = None


def read_objects(text: str) -> tuple[int, ...]:
    """The objects' DLs from their comma-separated text; InvalidInput names ``objects``."""
    parts = [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]
    if len(parts) > MAX_OBJECTS:
        raise InvalidInput("objects", f"at most {MAX_OBJECTS} objects")
    out: list[int] = []
    for part in parts:
        if not part.isdigit() or int(part) > DL_MAX:
            raise InvalidInput("objects", f"each DL must be a whole number from 0 to {DL_MAX}")
        out.append(int(part))
    return tuple(out)


def read_situation(values: Mapping[str, Any]) -> D20Situation:
    """The situation from its field values (missing: defaults); InvalidInput names a field."""
    for key in values:
        if key not in _SITUATION_NAMES:
            raise InvalidInput(str(key), "is not a situation field")
    parsed, errors = parse_fields(SITUATION_FIELDS, values)
    if errors:
        field, reason = next(iter(errors.items()))
        raise InvalidInput(field, reason)
    situation = D20Situation(**parsed)  # type: ignore[arg-type]
    read_objects(situation.objects)
    return situation


def auto_penalty(position: int) -> int:
    """The modifier of automatic fire on the target at ``position`` (0: the first): -1, -2,
    -3, then -4 for every further one."""
    return -min(AUTO_PENALTY_STEP * (position + 1), AUTO_PENALTY_MAX)


@dataclass(frozen=True, slots=True)
class Placed:
    """A target as the attack sees it: its Physical Defense, Evasion (0 while Shaken), CP
    left, and where it stands."""

    pd: int
    evasion: int
    cp: int
    cover: bool = False
    height: int = 0
    shaken: bool = False

    @property
    def defence(self) -> int:
        return self.pd + (0 if self.shaken else self.evasion)


def _placed(target: TargetInput, n: int, situation: D20Situation) -> Placed:
    unit = target.unit
    if not isinstance(unit, D20Figurine):
        raise InvalidInput(f"targets.{n}", "is not a D20 figurine")
    if n == 0:
        values: Mapping[str, Any] = {
            "cover": situation.cover,
            "height": situation.height,
            "shaken": situation.shaken,
        }
        values = {**values, **{k: v for k, v in target.fields.items() if v not in (None, "")}}
    else:
        values = target.fields
    for key in values:
        if key not in _TARGET_NAMES:
            raise InvalidInput(f"targets.{n}.{key}", "is not a target field")
    parsed, errors = parse_fields(TARGET_FIELDS, values)
    if errors:
        field, reason = next(iter(errors.items()))
        raise InvalidInput(f"targets.{n}.{field}", reason)
    return Placed(
        unit.pd,
        unit.evasion,
        unit.cp,
        bool(parsed["cover"]),
        int(parsed["height"] or 0),
        bool(parsed["shaken"]),
    )


def plan(
    attacker: D20Figurine,
    weapons: tuple[int, ...],
    placed: Sequence[Placed],
    situation: D20Situation,
    options: D20Options,
) -> D20Attack:
    """The attack, with every reason it cannot be made as declared."""
    problems: list[str] = []
    chosen = [attacker.weapons[i] for i in weapons]
    guns = [w for w in chosen if w.type == "gun"]
    if len(guns) >= 2 and len(placed) >= 2:
        problems.append(
            f"{attacker.name} carries two ranged weapons: it shoots one target per turn."
        )
    if situation.mode in ("shot", "blow", "automatic"):
        return _plan_strike(attacker, weapons, chosen, placed, situation, options, problems)
    if situation.mode == "defuse":
        return _plan_defuse(attacker, weapons, chosen, placed, situation, problems)
    return _plan_explosion(attacker, weapons, chosen, placed, situation, options, problems)


def _plan_strike(
    attacker: D20Figurine,
    weapons: tuple[int, ...],
    chosen: list[D20Weapon],
    placed: Sequence[Placed],
    situation: D20Situation,
    options: D20Options,
    problems: list[str],
) -> D20Attack:
    """A shot, a blow or automatic fire: one weapon (or bare hands) against each target."""
    mode, mods = situation.mode, situation.modifier
    if len(chosen) > 1:
        problems.append("Attack with one weapon at a time.")
    weapon = chosen[0] if chosen else None
    if mode == "blow":
        stat, stat_name = attacker.hth, "HtH"
        power, name = _blow_weapon(weapon, situation, problems)
        if len(placed) > 1:
            problems.append("A blow strikes one target.")
    else:
        stat, stat_name = attacker.shot, "Shot"
        power, name = _shot_weapon(weapon, len(placed), situation, problems)
    penalties = tuple(auto_penalty(i) if mode == "automatic" else 0 for i in range(len(placed)))
    bonus = stat + power + mods
    strikes = tuple(
        Strike(
            bonus + pen,
            t.defence,
            t.cp,
            margin_wounds=options.margin_wounds,
            naturals=options.naturals,
        )
        for t, pen in zip(placed, penalties, strict=True)
    )
    steps = (
        (stat_name, str(stat)),
        ("Power", f"{power} ({name})"),
        ("modifier", f"{mods:+d}"),
        *(
            (("automatic fire", ", ".join(f"{p:+d}" for p in penalties)),)
            if mode == "automatic"
            else ()
        ),
        ("+ 1D20 against", "PD + Evasion"),
    )
    label = {"shot": "Shot", "blow": "Blow", "automatic": "Automatic fire"}[mode]
    return D20Attack(
        mode,
        f"{label}: {name}",
        strikes,
        penalties,
        power=power,
        weapons=weapons,
        steps=steps,
        refused=tuple(problems),
    )


def _blow_weapon(
    weapon: D20Weapon | None, situation: D20Situation, problems: list[str]
) -> tuple[int, str]:
    """A blow's Power and what strikes it (a gun swung as a club; bare hands)."""
    if weapon is None:
        power, name = 0, "bare hands"
    elif weapon.type == "hth":
        power, name = weapon.power, weapon.name
    elif weapon.type == "gun":
        power, name = CLUB_POWER, f"{weapon.name} as a club"
    else:
        power, name = 0, weapon.name
        problems.append(f"{weapon.name} is not a hand-to-hand weapon.")
    if situation.distance > 0:
        problems.append("A blow is struck in base contact (distance 0 cm).")
    return power, name


def _shot_weapon(
    weapon: D20Weapon | None, targets: int, situation: D20Situation, problems: list[str]
) -> tuple[int, str]:
    """A shot's or automatic fire's Power and gun, with why it cannot fire as declared."""
    automatic = situation.mode == "automatic"
    if weapon is None or weapon.type != "gun":
        power, name = (weapon.power, weapon.name) if weapon else (0, "no weapon")
        problems.append(
            f"{'Automatic fire' if automatic else 'A shot'} needs a gun"
            f"{'' if weapon is None else f'; {weapon.name} is not one'}."
        )
    else:
        power, name = weapon.power, weapon.name
        if situation.distance > weapon.reach:
            problems.append(
                f"{situation.distance} cm is beyond {weapon.name}'s Reach ({weapon.reach} cm)."
            )
    if automatic:
        if weapon is not None and weapon.type == "gun" and not weapon.automatic:
            problems.append(f"{weapon.name} has no automatic fire.")
        if targets < AUTO_MIN_TARGETS:
            problems.append("Automatic fire needs at least two targets.")
    elif targets > 1:
        problems.append("A single shot strikes one target (automatic fire: several).")
    return power, name


def _plan_defuse(
    attacker: D20Figurine,
    weapons: tuple[int, ...],
    chosen: list[D20Weapon],
    placed: Sequence[Placed],
    situation: D20Situation,
    problems: list[str],
) -> D20Attack:
    """Defusing a charge: Dexterity + 1D20 against its DL (given, or the chosen charges')."""
    charges = [w for w in chosen if w.equipment.category == "charge"]
    dl = situation.dl
    if dl is None:
        dl = sum(w.power for w in charges)
        if not charges:
            problems.append("Give the charge's DL, or choose the charges to defuse.")
    strikes = tuple(Strike(0, t.defence, t.cp, hit=False) for t in placed)
    return D20Attack(
        situation.mode,
        f"Defuse DL {dl}",
        strikes,
        dexterity=attacker.dexterity,
        dl=dl,
        weapons=weapons,
        steps=(("Dexterity", str(attacker.dexterity)), ("+ 1D20 greater than DL", str(dl))),
        refused=tuple(problems),
    )


def _plan_explosion(
    attacker: D20Figurine,
    weapons: tuple[int, ...],
    chosen: list[D20Weapon],
    placed: Sequence[Placed],
    situation: D20Situation,
    options: D20Options,
    problems: list[str],
) -> D20Attack:
    """A grenade, a mine or charges set together, against everyone in the radius."""
    objects = read_objects(situation.objects)
    mods = situation.modifier
    _explosive_problems(attacker, chosen, situation, problems)
    grenade = bool(chosen) and chosen[0].equipment.category == "grenade"
    entries = [w.equipment for w in chosen]
    power = sum(w.power for w in chosen)
    rolled = all(e.roll for e in entries) if entries else True
    cover_counts = all(e.cover for e in entries) if entries else False
    shakes = any(e.shakes for e in entries)
    flat = max((e.flat_cp for e in entries), default=0)
    strikes = tuple(
        Strike(
            power + mods,
            t.defence + (options.cover_bonus if t.cover and cover_counts else 0),
            t.cp,
            rolled=rolled,
            hit=not (grenade and t.height > GRENADE_HEIGHT_CM),
            flat_cp=flat,
            shakes=shakes,
            margin_wounds=options.margin_wounds,
            naturals=options.naturals,
        )
        for t in placed
    )
    name = " + ".join(w.name for w in chosen) or "nothing"
    radius = max((e.radius or 0 for e in entries), default=0)
    steps = (
        ("Power", f"{power} ({name})"),
        ("radius", f"r{radius}"),
        ("modifier", f"{mods:+d}"),
        ("+ 1D20 against", "PD + Evasion" + (" (+ cover)" if cover_counts else "")),
    )
    return D20Attack(
        situation.mode,
        f"Explosion: {name}",
        strikes,
        power=power + mods,
        objects=objects,
        weapons=weapons,
        steps=steps,
        refused=tuple(problems),
    )


def _explosive_problems(
    attacker: D20Figurine, chosen: list[D20Weapon], situation: D20Situation, problems: list[str]
) -> None:
    """Why the chosen equipment cannot explode as declared."""
    kinds = {w.equipment.category for w in chosen}
    if not chosen:
        problems.append("Choose the grenade, mine or charges that explode.")
    elif not kinds <= set(EXPLOSIVES):
        problems.append("Only grenades, mines and charges explode.")
    elif len(kinds) > 1 or (kinds != {"charge"} and len(chosen) > 1):
        problems.append("Only charges set together explode together (their Power adds).")
    if chosen and chosen[0].equipment.category == "grenade":
        if not attacker.su:
            problems.append(f"Only SUs carry grenades; {attacker.name} is not an SU.")
        reach = chosen[0].reach
        if situation.distance > reach:
            problems.append(
                f"{situation.distance} cm is beyond {chosen[0].name}'s Reach ({reach} cm)."
            )


# ---------------------------------------------------------------- the stateless body

_EXPLOSIVES = tuple((e.id, e.name) for e in EQUIPMENT.values() if e.category in EXPLOSIVES)
_BODY_ATTACK = (
    InputField("stat", "Shot or HtH", "whole", None, low=STAT_RANGE[0], high=STAT_RANGE[1]),
    InputField("power", "Power", "whole", None, low=0, high=POWER_MAX, optional=True),
    InputField("modifier", "Modifier", "whole", 0, low=-20, high=20),
    InputField("automatic", "Automatic fire", "flag", False),
    InputField("reach", "Reach (cm)", "whole", None, low=0, high=REACH_MAX, optional=True),
    InputField("distance", "Distance (cm)", "whole", 0, low=0, high=DISTANCE_MAX),
    InputField("equipment", "Explosive", "choice", None, choices=_EXPLOSIVES, optional=True),
    InputField("charges", "Charges set together", "whole", 1, low=1, high=MAX_OBJECTS),
    InputField("su", "Thrown by an SU", "flag", True),
    InputField("objects", "Objects' DLs", "text", "", high=200),
    InputField("margin_wounds", "Wounds by margin", "flag", False),
    InputField("naturals", "Natural 20 and 1", "flag", False),
    InputField("cover_bonus", "Cover against explosions", "whole", 5, low=0, high=20),
)
_BODY_TARGET = (
    InputField("pd", "Physical Defense", "whole", None, low=STAT_RANGE[0], high=STAT_RANGE[1]),
    InputField("evasion", "Evasion", "whole", 0, low=STAT_RANGE[0], high=STAT_RANGE[1]),
    InputField("cp", "CP", "whole", 1, low=1, high=20),
    InputField("shaken", "Shaken", "flag", False),
    InputField("cover", "In cover", "flag", False),
    InputField("height", "Height (cm)", "whole", 0, low=0, high=HEIGHT_MAX),
)


def from_body(body: Mapping[str, Any]) -> D20Attack:
    """A shot, automatic fire or an explosion from the stateless body: ``{"attack": {"stat",
    "power", "modifier", "automatic", "reach", "distance", "equipment", "charges", "su",
    "objects", "margin_wounds", "naturals", "cover_bonus"}, "targets": [{"pd", "evasion",
    "cp", "shaken", "cover", "height"}]}``. ``equipment`` (a grenade, the mine or a charge,
    ``charges`` of them set together) makes it an explosion of the catalogue's Power.
    Refusals are ``InvalidInput`` naming the field."""
    if not isinstance(body, Mapping):
        raise InvalidInput("attack", "is required (an object)")
    for key in body:
        if key not in ("attack", "targets", "seed"):
            raise InvalidInput(str(key), "is not a known field")
    attack = fields_at(body.get("attack"), "attack", _BODY_ATTACK)
    equipment = attack["equipment"]
    if equipment is None and attack["power"] is None:
        raise InvalidInput("attack.power", "is required (or an explosive's equipment)")
    raw = body.get("targets")
    if not isinstance(raw, list) or not raw:
        raise InvalidInput("targets", "is required (a list of at least one target)")
    if len(raw) > MAX_TARGETS:
        raise InvalidInput("targets", f"at most {MAX_TARGETS} targets")
    targets = [fields_at(t, f"targets.{i}", _BODY_TARGET) for i, t in enumerate(raw)]
    automatic = bool(attack["automatic"])
    distance = whole_value(attack, "distance")
    if equipment is None:
        weapons = _body_gun(attack, len(targets))
    else:
        weapons = _body_explosives(attack, str(equipment))
    if attack["objects"] and equipment is None:
        raise InvalidInput("attack.objects", "objects are only caught in explosions")
    try:
        objects = str(attack["objects"] or "")
        read_objects(objects)
    except InvalidInput as err:
        raise InvalidInput("attack.objects", err.reason) from None
    shooter = D20Figurine(
        "Attacker", bool(attack["su"]), whole_value(attack, "stat"), 0, 10, 0, 0, 1, weapons=weapons
    )
    placed = [
        Placed(
            whole_value(t, "pd"),
            whole_value(t, "evasion"),
            whole_value(t, "cp"),
            bool(t["cover"]),
            whole_value(t, "height"),
            bool(t["shaken"]),
        )
        for t in targets
    ]
    mode = "explosion" if equipment else "automatic" if automatic else "shot"
    situation = D20Situation(
        mode=mode,
        distance=distance,
        modifier=whole_value(attack, "modifier"),
        objects=objects if equipment else "",
    )
    options = D20Options(
        margin_wounds=bool(attack["margin_wounds"]),
        naturals=bool(attack["naturals"]),
        cover_bonus=whole_value(attack, "cover_bonus"),
    )
    made = plan(shooter, tuple(range(len(weapons))), placed, situation, options)
    if made.problems():
        raise InvalidInput("attack", made.problems()[0])
    return made


def _body_gun(attack: Mapping[str, FieldValue], targets: int) -> tuple[D20Weapon, ...]:
    """The stateless body's gun (its Power and Reach), for a shot or automatic fire."""
    automatic = bool(attack["automatic"])
    distance = whole_value(attack, "distance")
    if automatic and targets < AUTO_MIN_TARGETS:
        raise InvalidInput("targets", "automatic fire needs at least two targets")
    if not automatic and targets != 1:
        raise InvalidInput("targets", "a single shot has exactly one target (else automatic)")
    reach = attack["reach"]
    if isinstance(reach, int) and distance > reach:
        raise InvalidInput("attack.distance", f"{distance} cm is beyond the Reach ({reach} cm)")
    return (
        D20Weapon(
            "gun",
            "Weapon",
            DISTANCE_MAX if reach is None else whole_value(attack, "reach"),
            whole_value(attack, "power"),
            automatic=automatic,
        ),
    )


def _body_explosives(attack: Mapping[str, FieldValue], equipment: str) -> tuple[D20Weapon, ...]:
    """The stateless body's explosive (``charges`` of them set together), from the catalogue."""
    entry = EQUIPMENT[equipment]
    distance = whole_value(attack, "distance")
    if attack["automatic"]:
        raise InvalidInput("attack.automatic", f"{entry.name} has no automatic fire")
    count = whole_value(attack, "charges")
    if count > 1 and entry.category != "charge":
        raise InvalidInput("attack.charges", "only charges are set together")
    if entry.category == "grenade" and not attack["su"]:
        raise InvalidInput("attack.su", "only SUs carry grenades")
    if entry.category == "grenade" and distance > (entry.reach or 0):
        raise InvalidInput(
            "attack.distance", f"{distance} cm is beyond the Reach ({entry.reach} cm)"
        )
    return tuple(
        D20Weapon(entry.id, entry.name, entry.reach or 0, entry.power or 0) for _ in range(count)
    )


# ---------------------------------------------------------------- samples


def _fig(name: str, weapons: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "kind": more.pop("kind", "figurine"),
        "shot": more.pop("shot", 8),
        "hth": more.pop("hth", 6),
        "pd": more.pop("pd", 20),
        "evasion": more.pop("evasion", 2),
        "dexterity": more.pop("dexterity", 5),
        "cp": more.pop("cp", 2),
        "points": more.pop("points", 10),
        "weapons": weapons,
    }


RIFLE = {
    "type": "gun",
    "name": "Assault rifle",
    "reach": 60,
    "power": 6,
    "automatic": True,
    "points": 4,
}
SAMPLE_ATTACKS: tuple[SampleAttack, ...] = (
    SampleAttack(
        "a single shot with an assault rifle",
        _fig("Trooper", [RIFLE]),
        (0,),
        (_fig("Chronos", [], pd=18, evasion=2, cp=1),),
        {"mode": "shot", "distance": 40},
    ),
    SampleAttack(
        "automatic fire at four figurines",
        _fig("Gunner", [RIFLE], shot=10),
        (0,),
        tuple(_fig(f"Chronos {n}", [], pd=14 + 2 * n, evasion=1) for n in range(1, 5)),
        {"mode": "automatic", "distance": 30},
    ),
    SampleAttack(
        "a Defensive Grenade on three figurines and two objects",
        _fig("SU", [{"type": "defensive_grenade"}], kind="su"),
        (0,),
        (_fig("A", [], pd=30, cp=3), _fig("B", [], pd=35, evasion=4), _fig("C", [], pd=40)),
        {"mode": "explosion", "distance": 15, "cover": True, "objects": "10, 40"},
    ),
)


class D20Calculator:
    """The calculator's side of the ruleset: situation fields, attacks and their odds."""

    situation_fields: tuple[InputField, ...] = SITUATION_FIELDS
    target_fields: tuple[InputField, ...] = TARGET_FIELDS
    outcome_columns: tuple[Column, ...] = OUTCOME_COLUMNS
    max_targets: int = MAX_TARGETS
    sample_attacks: tuple[SampleAttack, ...] = SAMPLE_ATTACKS

    def attack(
        self,
        attacker: D20Figurine,
        weapons: tuple[int, ...],
        targets: Sequence[TargetInput],
        situation: Mapping[str, Any],
        options: D20Options,
        allies: Sequence[AllyInput] = (),
    ) -> D20Attack:
        check_attack_shape(
            "D20", attacker.name, len(attacker.weapons), weapons, targets, allies, MAX_TARGETS
        )
        read = read_situation(situation)
        placed = [_placed(t, n, read) for n, t in enumerate(targets)]
        return plan(attacker, weapons, placed, read, options)

    def attack_from_body(self, body: Mapping[str, Any]) -> D20Attack:
        return from_body(body)

    def decode_situation(self, values: Mapping[str, FieldValue]) -> D20Situation:
        return read_situation(values)

    def encode_situation(self, situation: D20Situation) -> dict[str, FieldValue]:
        return {f.name: getattr(situation, f.name) for f in SITUATION_FIELDS}

    def default_weapons(self, unit: D20Figurine, options: D20Options) -> tuple[int, ...]:
        """The first gun, else the first hand-to-hand weapon, else the first weapon."""
        for kind in ("gun", "hth"):
            for i, weapon in enumerate(unit.weapons):
                if weapon.type == kind:
                    return (i,)
        return (0,) if unit.weapons else ()

    def weapons_cost(self, unit: D20Figurine, weapons: tuple[int, ...], options: D20Options) -> int:
        """The chosen weapons' points, as the player entered them."""
        return sum(unit.weapons[i].points for i in weapons)
