"""BrikWars behind the ``Ruleset`` interface: the registry's ``brikwars`` entry.

Everything here translates: the engine's own types (``UnitSpec``, ``BrikWarsOptions``,
``Turn``, ``Attack``) in, the interface's plain shapes out. No rule lives in this module.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from dataclasses import fields as dataclass_fields
from fractions import Fraction
from typing import Any

from app.rules.brikwars import attacks as atk
from app.rules.brikwars import battle
from app.rules.brikwars.activation import activation_sets
from app.rules.brikwars.attacks.single import INLINE_DICE as INLINE_DICE
from app.rules.brikwars.attacks.single import INLINE_WORK as INLINE_WORK
from app.rules.brikwars.battle_state import UnitState
from app.rules.brikwars.catalogue import (
    ACTION_DICE,
    DamageExpr,
    WeaponStats,
    WeaponType,
    catalogue,
    explosive_variants,
    format_cp,
    format_number,
)
from app.rules.brikwars.figures import (
    armour_text,
    field_words,
    inches,
    profile,
    size_text,
    weapon_line,
)
from app.rules.brikwars.glossary import GLOSSARY
from app.rules.brikwars.options import (
    DEFAULT_OPTIONS,
    OPTION_INFO,
    BrikWarsOptions,
)
from app.rules.brikwars.serialize import unit_from_dict, unit_to_dict
from app.rules.brikwars.situation_fields import (
    FOLLOWER_DISTANCE,
    FOLLOWER_SPANS,
    SITUATION_FIELDS,
    situation_from_input,
)
from app.rules.brikwars.turn import (
    MAX_ARC_TARGETS,
    Ally,
    ArcFollower,
    Turn,
    TurnOdds,
    TurnRoll,
    TurnSituation,
)
from app.rules.brikwars.units import (
    KINDS,
    MOUNTS,
    MOUNTS_OF_KIND,
    PROPULSIONS,
    SPECIALTY_COSTS,
    Armour,
    UnitSpec,
    weapon_name,
)
from app.rules.brikwars.validation import army_cost, budget_findings, validate_unit
from app.rules.errors import InvalidInput, TooMuchWork
from app.rules.fields import FieldValue, FormSplit, InputField, parse_fields
from app.rules.memo import BoundedMemo
from app.rules.ruleset import (
    ActionResult,
    AllyInput,
    AttackOdds,
    AttackRoll,
    BattleAttack,
    CatalogueEntry,
    Column,
    Effect,
    Fighter,
    Finding,
    LineOdds,
    LineRoll,
    Outcome,
    RolledDie,
    RulesetBase,
    SampleAttack,
    Standing,
    TargetInput,
    TargetOdds,
    UnitAction,
    UnitFigures,
    WeaponFigures,
    catalogue_split,
)

RULES_VERSION = "BrikWars 2010"
OUTCOME_LABELS: tuple[tuple[str, str], ...] = (
    ("miss", "miss"),
    ("no_effect", "hit, no effect"),
    ("something_bad", "Something Bad"),
    ("size_damage", "Size Damage"),
    ("destroyed", "destroyed"),
)
"""A target's mutually exclusive outcomes, in the order pages show them."""
ON_FIRE = ("on_fire", "on Fire")


# ------------------------------------------------------------------------ options


def _option_fields() -> tuple[InputField, ...]:
    out = []
    for info in OPTION_INFO:
        default = getattr(DEFAULT_OPTIONS, info.name)
        if info.choices is None:
            out.append(InputField(info.name, info.label, "flag", default))
        else:
            choices = tuple((c, c) for c in info.choices)
            out.append(InputField(info.name, info.label, "choice", default, choices=choices))
    return tuple(out)


# ------------------------------------------------------------------------ catalogue


def _weapon_fields(entry: WeaponType) -> tuple[InputField, ...]:
    fields: list[InputField] = []
    if entry.sized_by == "inches":
        fields.append(InputField("size", "Weapon Size", "inches", None, high=100))
    if entry.sized_by == "bricks":
        fields.append(InputField("xsize", "Size in bricks (X)", "whole", 1, low=1, high=100))
        variants = tuple((v.id, v.name) for v in explosive_variants())
        fields.append(
            InputField("variant", "Variant", "choice", None, choices=variants, optional=True)
        )
    if entry.can_be_hand_held and not entry.hand_held_only:
        mounts = tuple((m, m.replace("_", " ")) for m in MOUNTS)
        fields.append(InputField("mount", "Mount", "choice", "mounted", choices=mounts))
    fields.append(InputField("label", "Label", "text", "", high=120, help='e.g. "left claw"'))
    return tuple(fields)


def _entry(entry: WeaponType) -> CatalogueEntry:
    details = {
        "scale": entry.scale,
        "sized_by": entry.sized_by,
        "cost": entry.cost_text,
        "use": entry.use_text,
        "range": entry.range_text,
        "damage": entry.damage_text,
        "power": entry.power_text,
        "deflection": entry.deflection_text,
        "takes": "ammo" if entry.takes_ammo else "payload" if entry.takes_payload else "",
    }
    return CatalogueEntry(
        id=entry.id,
        name=entry.name,
        category=entry.category,
        summary=entry.notes,
        fields=_weapon_fields(entry),
        details={k: v for k, v in details.items() if v},
    )


# ------------------------------------------------------------------------ attack results


def _outcomes(values: Mapping[str, float]) -> tuple[Outcome, ...]:
    return tuple(Outcome(key, label, values[key]) for key, label in OUTCOME_LABELS)


def turn_odds(odds: TurnOdds) -> AttackOdds:
    """A turn's odds in the interface's shape."""
    lines = []
    for line in odds.lines:
        targets = tuple(
            TargetOdds(
                t.index,
                _outcomes(
                    {
                        "miss": t.miss,
                        "no_effect": t.no_effect,
                        "something_bad": t.something_bad,
                        "size_damage": t.size_damage,
                        "destroyed": t.destroyed,
                    }
                ),
                (Outcome(*ON_FIRE, t.on_fire),),
            )
            for t in line.targets
        )
        notes = (
            Outcome("over_the_top", "Over the Top", line.over_the_top),
            Outcome("jam", "jams (Inoperative until Reloaded)", line.jam),
        )
        lines.append(
            LineOdds(
                label=line.label,
                kind=line.kind,
                weapons=line.weapons,
                targets=targets,
                damage=line.damage,
                steps=tuple((s.label, s.value) for s in line.steps),
                notes=notes,
                truncation_bound=line.truncation_bound,
            )
        )
    return AttackOdds(
        tuple(lines), odds.any_destroying, odds.truncation_bound, odds.expected_destroying
    )


def _die(die: atk.LoggedDie) -> RolledDie:
    return RolledDie(die.purpose, die.sides, die.natural, die.value, die.bonus, die.target)


def _words(outcome: str, size_damage: int = 0) -> str:
    if outcome == "size_damage" and size_damage:
        return f'{size_damage}" of Size Damage'
    return dict(OUTCOME_LABELS).get(outcome, outcome)


def turn_roll(roll: TurnRoll) -> AttackRoll:
    """A rolled turn in the interface's shape (each target's damage: its Size lost)."""
    return AttackRoll(
        tuple(
            LineRoll(
                label=line.label,
                kind=line.kind,
                weapons=line.weapons,
                dice=tuple(_die(d) for d in line.dice),
                effects=tuple(
                    Effect(
                        e.target,
                        e.outcome,
                        _words(e.outcome, e.size_damage),
                        e.damage,
                        ("on_fire",) if e.on_fire else (),
                        e.size_damage,
                    )
                    for e in line.effects
                ),
                skipped=line.skipped,
                notes=("jammed",) if line.jammed else (),
            )
            for line in roll.lines
        ),
        tuple(float(unit.size_damage) for unit in roll.targets_after),
    )


# ------------------------------------------------------------------------ raw dice attacks


def _mapping(data: object, field: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise InvalidInput(field, "must be an object")
    return data


def _whole(
    data: Mapping[str, Any], key: str, path: str, low: int, high: int, default: int | None = None
) -> int:
    value = data.get(key, default)
    name = f"{path}.{key}" if path else key
    if value is None:
        raise InvalidInput(name, "is required")
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(name, "needs a whole number")
    if not low <= value <= high:
        raise InvalidInput(name, f"must be from {low} to {high}")
    return value


def _known(data: Mapping[str, Any], keys: set[str], path: str) -> None:
    for key in data:
        if key not in keys:
            raise InvalidInput(f"{path}.{key}" if path else str(key), "is not a known field")


DICE_LIMIT = 100
MODIFIER_LIMIT = 1000
SIDES = (4, 6, 8, 10, 12, 20)


def _sides(data: Mapping[str, Any], key: str, path: str, allowed: tuple[int, ...]) -> int:
    value = _whole(data, key, path, 1, 20)
    if value not in allowed:
        raise InvalidInput(f"{path}.{key}", f"must be one of {', '.join(map(str, allowed))}")
    return value


def raw_attack(body: Mapping[str, Any]) -> atk.Attack:
    """The engine's attack from the body of ``POST /api/v1/brikwars/odds`` (as plain data):
    ``action`` (die, use, modifier; absent: an automatic hit), ``damage`` (dice, sides,
    modifier, per_die_modifier, fire), ``armor`` (fixed, or dice and sides), ``deflection``,
    ``options``. Bounds are the API's: at most 100 dice, modifiers within ±1000."""
    body = _mapping(body, "body")
    _known(body, {"action", "damage", "armor", "deflection", "options", "seed"}, "")
    options = BrikWarsOptions.from_dict(body.get("options"))
    action = None
    if body.get("action") is not None:
        a = _mapping(body["action"], "action")
        _known(a, {"die", "use", "modifier"}, "action")
        action = atk.ActionRoll(
            _sides(a, "die", "action", (4, 6, 8, 10, 12)),
            _whole(a, "use", "action", 0, 100),
            _whole(a, "modifier", "action", -MODIFIER_LIMIT, MODIFIER_LIMIT, 0),
        )
    d = _mapping(body.get("damage"), "damage")
    _known(d, {"dice", "sides", "modifier", "per_die_modifier", "fire"}, "damage")
    fire = d.get("fire", False)
    if not isinstance(fire, bool):
        raise InvalidInput("damage.fire", "must be true or false")
    damage = DamageExpr(
        _whole(d, "dice", "damage", 1, DICE_LIMIT),
        _sides(d, "sides", "damage", SIDES),
        _whole(d, "modifier", "damage", -MODIFIER_LIMIT, MODIFIER_LIMIT, 0),
        fire=fire,
    )
    per_die = _whole(d, "per_die_modifier", "damage", -MODIFIER_LIMIT, MODIFIER_LIMIT, 0)
    r = _mapping(body.get("armor"), "armor")
    _known(r, {"fixed", "dice", "sides"}, "armor")
    fixed = _whole(r, "fixed", "armor", 0, 1000, 0)
    deflection = _whole(body, "deflection", "", 0, 100, 0)
    if "dice" in r or "sides" in r:
        armour = Armour(
            _whole(r, "dice", "armor", 1, DICE_LIMIT),
            _sides(r, "sides", "armor", SIDES),
            fixed,
            deflection,
        )
    elif "fixed" in r:
        armour = Armour(fixed=fixed, deflection=deflection)
    else:
        raise InvalidInput("armor", "needs fixed, or dice and sides")
    target = atk.Target(armour=armour)
    return atk.Attack(damage, target, action, per_die=per_die, options=options)


RAW_FIELDS = {"per_die": "damage.per_die_modifier", "count": "damage.dice", "layers": "deflection"}
"""The engine's names of what to reduce, as the raw attack body names them."""


@dataclass(frozen=True)
class RawAttack:
    """One raw dice attack (no saved units) behind the interface's ``Attack``."""

    attack: atk.Attack

    def problems(self) -> tuple[str, ...]:
        return ()  # no unit, no Power to check

    def inline(self) -> bool:
        return atk.cheap([self.attack])

    def remember(self, odds: AttackOdds) -> None:
        """Nothing kept here: the dice core keeps what it summed in the worker that summed it."""

    def odds(self) -> AttackOdds:
        try:
            o = self.attack.odds()
        except TooMuchWork as exc:  # named as the body names it
            raise exc.renamed(RAW_FIELDS) from None
        values = {
            "miss": o.miss,
            "no_effect": o.no_effect,
            "something_bad": o.something_bad,
            "size_damage": o.size_damage,
            "destroyed": o.destroyed,
        }
        target = TargetOdds(0, _outcomes(values), (Outcome(*ON_FIRE, o.on_fire),))
        line = LineOdds(
            label="attack",
            kind="single",
            weapons=(),
            targets=(target,),
            damage=tuple(o.damage_distribution),
            notes=(
                Outcome("over_the_top", "Over the Top", o.over_the_top),
                Outcome("critical_failure", "damage Critical Failure", o.critical_failure),
            ),
            truncation_bound=o.truncation_bound,
        )
        return AttackOdds((line,), o.destroyed + o.size_damage, o.truncation_bound)

    def roll(self, rng: random.Random) -> AttackRoll:
        r = self.attack.roll(rng)
        outcome = r.outcome
        effect = Effect(
            0,
            outcome,
            _words(outcome),
            r.damage,
            ("on_fire",) if r.on_fire else (),
        )
        line = LineRoll("attack", "single", (), tuple(_die(d) for d in r.dice), (effect,))
        return AttackRoll((line,))


def _turn_attack_odds(turn: Turn) -> AttackOdds:
    odds = turn_odds(turn.odds())
    if turn.target.kind == "creation":
        return odds
    # Only a Creation loses Size: the main target's table leaves that column out.
    return replace(
        odds,
        lines=tuple(
            replace(
                line,
                targets=(
                    replace(line.targets[0], inapplicable=("size_damage",)),
                    *line.targets[1:],
                ),
            )
            for line in odds.lines
        ),
    )


# A turn's odds depend on nothing but the turn (a frozen value, compared by value: its units,
# weapons, targets, situation and options), and the same turns come back: the calculator asks
# again as its inputs change and change back, and a club's players ask about the same units.
# Kept per process (a turn sent to a calculation worker is kept in that worker), within a byte
# budget: a line's damage distribution can run to hundreds of values.
def _odds_bytes(odds: AttackOdds) -> int:
    """About what a turn's odds (and the turn they are kept under) hold in memory."""
    return 4096 + sum(
        2048 + 96 * len(line.damage) + 1024 * len(line.targets) + 256 * len(line.steps)
        for line in odds.lines
    )


_KNOWN_ODDS: BoundedMemo[[Turn], AttackOdds] = BoundedMemo(
    _turn_attack_odds, maxsize=2048, max_bytes=32 << 20, size=_odds_bytes
)

_UNIT_FIELDS = tuple(f.name for f in dataclass_fields(UnitSpec) if f.name != "name")
_FOLLOWER_FIELDS = tuple(f.name for f in dataclass_fields(ArcFollower))
_TURN_FIELDS = tuple(f.name for f in dataclass_fields(Turn) if f.compare)


class _OddsKey:
    """What a turn's odds depend on: the turn less its units' names. A squad's Troopers or a
    club's copies of one Tank have equal odds (unit names appear nowhere in them; an ally's
    does, in a Combined Attack's line: that turn is kept under the whole turn). Hashed once."""

    __slots__ = ("_hash", "_parts")

    def __init__(self, parts: tuple[Any, ...]) -> None:
        self._parts = parts
        self._hash = hash(parts)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _OddsKey):
            return NotImplemented
        return self._hash == other._hash and self._parts == other._parts

    def __reduce__(self) -> tuple[Any, ...]:
        return (_OddsKey, (self._parts,))  # hashed anew: a string's hash differs by process

    @classmethod
    def of(cls, turn: Turn) -> _OddsKey:
        if turn.allies:
            return cls((turn,))
        parts: list[Any] = []
        for name in _TURN_FIELDS:
            value = getattr(turn, name)
            if isinstance(value, UnitSpec):
                value = _unit_key(value)
            elif name == "followers":
                value = tuple(_follower_key(f) for f in value)
            parts.append(value)
        return cls(tuple(parts))


def _unit_key(unit: UnitSpec) -> tuple[Any, ...]:
    return tuple(getattr(unit, name) for name in _UNIT_FIELDS)


def _follower_key(follower: ArcFollower) -> tuple[Any, ...]:
    return tuple(
        _unit_key(v) if isinstance(v, UnitSpec) else v
        for v in (getattr(follower, name) for name in _FOLLOWER_FIELDS)
    )


@dataclass(frozen=True)
class TurnAttack:
    """A turn of saved units (``Turn``) behind the interface's ``Attack``."""

    turn: Turn

    def inline(self) -> bool:
        return self._known() or self.turn.inline()

    def problems(self) -> tuple[str, ...]:
        if self._known():
            return ()  # (odds are only computed for a turn without problems)
        return self.turn.power().problems

    @functools.cached_property
    def _key(self) -> _OddsKey:
        return _OddsKey.of(self.turn)

    def _known(self) -> bool:
        """The odds of an equal turn (names aside) are kept: answered at once."""
        return _KNOWN_ODDS.get(self._key) is not None

    def odds(self) -> AttackOdds:
        return _KNOWN_ODDS.keyed(self._key, self.turn)

    def remember(self, odds: AttackOdds) -> None:
        """A worker's odds of this turn, kept as if computed here (equal key, equal odds)."""
        _KNOWN_ODDS.put(self._key, odds)

    def roll(self, rng: random.Random) -> AttackRoll:
        return turn_roll(self.turn.roll(rng))


# ------------------------------------------------------------------------ figures


def stats_json(stats: WeaponStats) -> dict[str, Any]:
    """A weapon's stats as the API writes them (``WeaponStatsOut``: inches and points as
    JSON floats)."""
    damage = stats.damage
    return {
        "use": stats.use,
        "range_inches": None if stats.range_inches is None else float(stats.range_inches),
        "damage": None
        if damage is None
        else {
            "dice": damage.dice,
            "sides": damage.sides,
            "modifier": damage.modifier,
            "text": str(damage),
            "minus_distance": damage.minus_distance,
            "fire": damage.fire,
            "explosion": damage.explosion,
        },
        "cost": float(stats.cost),
        "power": float(stats.power),
        "deflection": stats.deflection,
    }


def _weapon_figures(unit: UnitSpec, index: int, options: BrikWarsOptions) -> WeaponFigures:
    """Weapon ``index`` as the builder shows it (findings left to the caller). ``detail``:
    the weapon (``spec``), its ``stats``, how it is held (``hold``) and its table ``line``."""
    weapon = unit.weapons[index]
    stats = unit.weapon_stats(index, options)
    hold = unit.hold_class(index)
    line = weapon_line(weapon, stats, hold, options)
    cells = {
        "mount": line.mount,
        "use": line.use,
        "range": line.range,
        "damage": line.damage,
        "power": line.power,
    }
    return WeaponFigures(
        line.name,
        cells,
        weapon.cost_with(options),
        line.cost,
        type_name=weapon.entry.name,
        label=weapon.label or "",
        note=line.extra,
        detail={"spec": weapon, "stats": stats, "hold": hold, "line": line},
        fires=weapon.entry.attacks,
    )


# ------------------------------------------------------------------------ the ruleset

_TANK: dict[str, Any] = {
    "name": "Tank",
    "size": 4,
    "structure_level": 2,
    "weapons": [
        {"type": "gun", "size": 3},
        {"type": "machinegun", "size": 2},
        {"type": "cannon", "size": 4, "ammo": {"xsize": 2}},
    ],
}
_WALKER: dict[str, Any] = {"name": "Walker", "size": 3, "structure_level": 3}


class BrikWars(RulesetBase):
    """The ``brikwars`` ruleset."""

    id = "brikwars"
    name = "BrikWars"
    summary = "BrikWars 2010: chapters 5 (Combat) and 8 (Weaponry)."
    rules_version = RULES_VERSION
    glossary = GLOSSARY
    cost_unit = "CP"
    option_fields: tuple[InputField, ...] = _option_fields()
    # A minifig's and a Hero's Size and flesh are the rules'; they walk and take no Size
    # Damage (docs/rulings.md, BrikWars building ruling 20).
    unit_form = FormSplit(
        "kind",
        {
            name: frozenset({"creation"})
            for name in ("size", "structure_level", "propulsion", "size_damage")
        },
    )

    @property
    def weapon_form(self) -> FormSplit:
        return _WEAPON_FORM

    unit_columns: tuple[Column, ...] = (
        Column("size", "Size", numeric=True),
        Column("armour", "Armour"),
        Column("move", "Move", numeric=True),
        Column("power", "Power", numeric=True, heading="Power used/avail."),
    )
    weapon_columns: tuple[Column, ...] = (
        Column("mount", "Mount"),
        Column("use", "Use", numeric=True),
        Column("range", "Range", numeric=True),
        Column("damage", "Damage"),
        Column("power", "Power", numeric=True),
    )

    def decode_options(self, data: Mapping[str, Any] | None) -> BrikWarsOptions:
        return BrikWarsOptions.from_dict(None if data is None else dict(data))

    def encode_options(self, options: BrikWarsOptions) -> dict[str, Any]:
        return options.to_dict()

    def catalogue(self) -> tuple[CatalogueEntry, ...]:
        return _CATALOGUE

    def decode_unit(self, data: Mapping[str, Any]) -> UnitSpec:
        return unit_from_dict(data)  # any JSON value: it refuses a non-object by name

    def encode_unit(self, unit: UnitSpec) -> dict[str, Any]:
        return unit_to_dict(unit)

    def unit_figures(self, unit: UnitSpec, options: BrikWarsOptions) -> UnitFigures:
        findings = tuple(validate_unit(unit, options=options))
        weapons = tuple(_weapon_figures(unit, i, options) for i in range(len(unit.weapons)))
        power_needed = unit.power_needed_with(options)
        sets = tuple(activation_sets(unit, options=options))
        names = [weapon_name(w) for w in unit.weapons]
        # What a turn chooses between: the weapons that attack or draw on the Power (a
        # Melee Shield's Parry); armour and other free equipment are worn every turn.
        chosen_from = {
            i
            for i, w in enumerate(unit.weapons)
            if w.entry.attacks or w.power_need_with(options) > 0
        }
        cost = unit.cost_with(options)
        cells = {
            "size": size_text(unit),
            "armour": armour_text(unit),
            "move": inches(unit.current_move),
            "power": f"{format_number(power_needed)}/{inches(unit.power)}",
        }
        cost_text = format_cp(cost)
        detail = {
            "unit": unit,
            "size_text": cells["size"],
            "armour_text": cells["armour"],
            "move_text": cells["move"],
            "power_text": cells["power"],
            "cost_text": cost_text,
            "power_needed": power_needed,
            "activation_sets": sets,
            "activation_text": " · ".join(
                " + ".join(names[i] for i in chosen if i in chosen_from) or "nothing"
                for chosen in sets
            ),
        }
        return UnitFigures(
            unit.name,
            cells,
            cost,
            cost_text,
            weapons,
            findings,
            kind_text=unit.kind.capitalize() + (" · flying" if unit.propulsion == "flying" else ""),
            # Orange only with a finding that says why: a weapon Too Big for the Power on
            # its own. Needing more than the Power for every weapon at once is what
            # "Usable together in one turn" answers, not a problem.
            flagged=frozenset({"power"})
            if any(f.code == "too_big" for f in findings)
            else frozenset(),
            detail=detail,
            profile=profile(unit),
        )

    def army_findings(
        self, units: Sequence[UnitSpec], budget: int | None, options: BrikWarsOptions
    ) -> list[Finding]:
        if budget is None:
            return []
        return budget_findings(army_cost(units, options=options), budget, options=options)

    def budget_findings(
        self, total: Fraction, budget: int | None, options: BrikWarsOptions
    ) -> list[Finding]:
        return [] if budget is None else budget_findings(total, budget, options=options)

    def weapon_figures(self, unit: UnitSpec, index: int, options: BrikWarsOptions) -> WeaponFigures:
        found = tuple(f for f in validate_unit(unit, options=options) if f.weapon == index)
        return replace(_weapon_figures(unit, index, options), findings=found)

    def unit_cost(self, unit: UnitSpec, options: BrikWarsOptions) -> Fraction:
        return unit.cost_with(options)

    def weapon_cost(self, unit: UnitSpec, index: int, options: BrikWarsOptions) -> Fraction:
        return unit.weapons[index].cost_with(options)

    def weapon_name(self, unit: UnitSpec, index: int) -> str:
        return weapon_name(unit.weapons[index])

    def field_words(self, data: Mapping[str, Any]) -> dict[str, str]:
        return field_words(data)

    def format_cost_change(self, change: Fraction) -> str:
        sign = "+" if change >= 0 else "-"
        return f"{sign}{format_number(abs(change))} CP"

    def unit_json(self, figures: UnitFigures) -> dict[str, Any]:
        unit: UnitSpec = figures.detail["unit"]
        armour = unit.armour
        return {
            "effective_size": float(unit.effective_size),
            "armor": {
                "dice": armour.dice,
                "sides": armour.sides,
                "fixed": armour.fixed,
                "deflection": armour.deflection,
                "text": str(armour),
            },
            "move": float(unit.current_move),
            "power": float(unit.power),
            "power_needed": float(figures.detail["power_needed"]),
            "activation_sets": [list(s) for s in figures.detail["activation_sets"]],
        }

    def weapon_json(self, figures: WeaponFigures) -> dict[str, Any]:
        return {"stats": stats_json(figures.detail["stats"]), "hold": figures.detail["hold"]}

    situation_fields: tuple[InputField, ...] = SITUATION_FIELDS
    target_fields: tuple[InputField, ...] = (FOLLOWER_DISTANCE, FOLLOWER_SPANS)

    def attack(
        self,
        attacker: UnitSpec,
        weapons: tuple[int, ...],
        targets: Sequence[TargetInput],
        situation: Mapping[str, Any],
        options: BrikWarsOptions,
        allies: Sequence[AllyInput] = (),
    ) -> TurnAttack:
        if not targets:
            raise InvalidInput("target", "choose a target")
        for key in situation:
            if key not in _SITUATION_NAMES:
                raise InvalidInput(str(key), "unknown situation field")
        turn_situation, errors = situation_from_input(situation)
        main, *more = targets
        followers = []
        for i, t in enumerate(more):
            values, more_errors = parse_fields(self.target_fields, t.fields)
            errors |= {f"targets.{i + 1}.{k}": v for k, v in more_errors.items()}
            followers.append(ArcFollower(t.unit, values["distance"], values["spans"]))  # type: ignore[arg-type]
        if errors:
            field, reason = next(iter(errors.items()))
            raise InvalidInput(field, reason)
        turn = Turn(
            attacker,
            weapons,
            main.unit,
            turn_situation,
            tuple(followers),
            options,
            allies=tuple(Ally(a.unit, a.weapons) for a in allies),
        )
        return TurnAttack(turn)

    outcome_columns: tuple[Column, ...] = (
        Column("miss", "Miss"),
        Column("no_effect", "No effect"),
        Column("something_bad", "Something Bad"),
        Column("size_damage", "Size Damage"),
        Column("destroyed", "Destroyed"),
    )
    max_targets = MAX_ARC_TARGETS  # the points of an Arc

    def decode_situation(self, values: Mapping[str, FieldValue]) -> TurnSituation:
        return TurnSituation(**values)  # type: ignore[arg-type]

    def encode_situation(self, situation: TurnSituation) -> dict[str, FieldValue]:
        return {f.name: getattr(situation, f.name) for f in SITUATION_FIELDS}

    def default_weapons(self, unit: UnitSpec, options: BrikWarsOptions) -> tuple[int, ...]:
        for i, weapon in enumerate(unit.weapons):
            if weapon.payload is not None or unit.weapon_stats(i, options).damage is not None:
                return (i,)
        return ()

    def weapons_cost(
        self, unit: UnitSpec, weapons: tuple[int, ...], options: BrikWarsOptions
    ) -> Fraction:
        return sum((unit.weapons[i].cost_with(options) for i in weapons), Fraction(0))

    sample_attacks: tuple[SampleAttack, ...] = (
        SampleAttack(
            'a 3" Gun against a Size 3" Creation at 2"',
            _TANK,
            (0,),
            (_WALKER,),
            {"distance": Fraction(2)},
        ),
        SampleAttack(
            "a Scorpion's 5\" Stinger against a Hero in close combat",
            {
                "name": "Scorpion",
                "size": 5,
                "structure_level": 1,
                "weapons": [{"type": "melee_weapon", "size": 5}],
            },
            (0,),
            ({"name": "Hero", "kind": "hero"},),
            {"distance": Fraction(0)},
        ),
        SampleAttack(
            'a Cannon\'s X2 shell against a Size 3" Creation at 12"',
            _TANK,
            (2,),
            (_WALKER,),
            {"distance": Fraction(12)},
        ),
    )

    def attack_from_body(self, body: Mapping[str, Any]) -> RawAttack:
        return RawAttack(raw_attack(body))

    # battles (app.rules.brikwars.battle)
    battle_situation_fields: tuple[InputField, ...] = battle.SITUATION_FIELDS
    unit_actions: tuple[UnitAction, ...] = battle.UNIT_ACTIONS

    def initial_state(self, unit: UnitSpec) -> UnitState:
        return UnitState()

    def decode_state(self, data: Mapping[str, Any]) -> UnitState:
        return battle.decode_state(data)

    def encode_state(self, state: UnitState) -> dict[str, Any]:
        return battle.encode_state(state)

    def public_state(self, data: Mapping[str, Any]) -> dict[str, Any]:
        return dict(data)  # nothing in the state is secret

    def standing(self, fighter: Fighter) -> Standing:
        return battle.standing(fighter)

    def battle_attack(
        self,
        attacker: Fighter,
        weapons: tuple[int, ...],
        targets: Sequence[tuple[Fighter, Mapping[str, Any]]],
        situation: Mapping[str, Any],
        *,
        moved: bool = False,
    ) -> BattleAttack:
        return battle.battle_attack(
            self,
            attacker,
            weapons,
            targets,
            situation,
            moved=moved,
            odds_of=turn_odds,
            roll_of=turn_roll,
        )

    def after_attack(self, attack: BattleAttack, roll: AttackRoll) -> tuple[Any, ...]:
        return battle.after_attack(attack, roll)

    def log_odds(self, attack: BattleAttack, odds: AttackOdds) -> dict[str, Any]:
        return battle.log_odds(attack, odds)

    def log_roll(self, attack: BattleAttack, roll: AttackRoll) -> list[dict[str, Any]]:
        return battle.log_roll(attack, roll)

    def apply_action(
        self, name: str, fighter: Fighter, values: Mapping[str, Any], rng: random.Random
    ) -> ActionResult:
        return battle.apply_action(name, fighter, values, rng)

    def odds_words(self, odds: Mapping[str, Any]) -> list[str]:
        return battle.odds_words(odds)

    def effect_words(self, effect: Mapping[str, Any]) -> str:
        return battle.effect_words(effect)

    def format_cost(self, cost: Fraction | int) -> str:
        return format_cp(cost)

    def template_context(self) -> Mapping[str, Any]:
        return _TEMPLATE_CONTEXT

    def unit_lines(self, unit: UnitSpec, options: BrikWarsOptions) -> list[str]:
        figures = self.unit_figures(unit, options)
        c = figures.cells
        head = (
            f"{unit.name} ({unit.kind}) · Size {c['size']} · Armour {c['armour']} · Move "
            f"{c['move']} · Power {c['power']} · {figures.cost_text}"
        )
        lines = [head]
        for weapon in figures.weapons:
            line = weapon.detail["line"]
            # the mount and the Ammo or Payload change the figures and the cost: say them
            options_text = "".join(f" · {part}" for part in (line.mount_chosen, line.extra) if part)
            lines.append(
                f"   - {line.name}: Use {line.use} · Range {line.range} · "
                f"{line.damage} · Power {line.power} · {line.cost}{options_text}"
            )
        return lines


_CATALOGUE = tuple(_entry(e) for e in catalogue() if e.category != "turret")
_AMMO = frozenset(e.id for e in catalogue() if e.takes_ammo)
_PAYLOAD = frozenset(e.id for e in catalogue() if e.takes_payload)
_WEAPON_FORM = catalogue_split(
    _CATALOGUE,
    {
        **{f"ammo.{name}": _AMMO for name in ("xsize", "rounds", "variant")},
        **{
            f"payload.{name}": _PAYLOAD
            for name in (
                "explosive.xsize",
                "explosive.rounds",
                "explosive.variant",
                "per_launch",
                "object_size",
            )
        },
    },
)
"""The weapon form's fields by type: the catalogue's, with a Cannon's Ammo and a
Launcher's Payload."""
PICKER_GROUPS = (
    ("close_combat", "Close combat"),
    ("ranged", "Ranged"),
    ("explosive", "Explosives, Cannons, Launchers"),
    ("armour", "Armour"),
    ("equipment", "Equipment"),
)
"""The weapon picker's groups, in the order of the weapon tables."""
_SITUATION_NAMES = frozenset(f.name for f in SITUATION_FIELDS)
_SIZED = {"inches": ' (S")', "bricks": " (X bricks)"}
_TEMPLATE_CONTEXT: Mapping[str, Any] = {
    "weapon_groups": tuple(
        (
            label,
            tuple(
                (t.id, t.name + _SIZED.get(t.sized_by, ""))
                for t in catalogue()
                if t.category == group
            ),
        )
        for group, label in PICKER_GROUPS
    ),
    "variant_choices": (
        ("", "standard"),
        *tuple((v.id, v.name) for v in explosive_variants() if v.id != "standard"),
    ),
    "kind_choices": tuple((k, k.capitalize()) for k in KINDS),
    "propulsion_choices": tuple((p, p.capitalize()) for p in PROPULSIONS),
    "mount_choices": (("", "default"), *tuple((m, m.replace("_", " ")) for m in MOUNTS)),
    "mount_choices_of_kind": {
        kind: (("", "default"), *tuple((m, m.replace("_", " ")) for m in mounts))
        for kind, mounts in MOUNTS_OF_KIND.items()
    },
    "mind_choices": (("", "none / default"), *tuple((d, f"d{d}") for d in ACTION_DICE)),
    "specialties": tuple(SPECIALTY_COSTS),
}
RULESET = BrikWars()
