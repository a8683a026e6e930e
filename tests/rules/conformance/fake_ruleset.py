"""A small rule system written only against the ``Ruleset`` interface ("Coin War").

Units have Hits; each weapon rolls d6s, every die at or above the house rule's ``hit_on``
(one more in cover) is a point of damage; damage of at least the target's Hits kills it. It
exists to show that the interface alone is enough to add a rule system: the conformance
suite runs on it unchanged.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from app.rules.errors import InvalidInput
from app.rules.fields import FieldValue, FormSplit, InputField, parse_fields
from app.rules.ruleset import (
    ActionResult,
    AllyInput,
    AttackOdds,
    AttackRoll,
    BattleAttack,
    BattleWeapon,
    CatalogueEntry,
    Column,
    Effect,
    Fighter,
    Finding,
    LineOdds,
    LineRoll,
    Outcome,
    RolledDie,
    Ruleset,
    SampleAttack,
    Severity,
    Standing,
    TargetInput,
    TargetOdds,
    UnitAction,
    UnitFigures,
    WeaponFigures,
)
from app.rules.text import plain_field_words

OPTION_FIELDS = (
    InputField("hit_on", "Dice hit on", "choice", "4", choices=(("4", "4+"), ("5", "5+"))),
    InputField("generous_budget", "Over budget is only a warning", "flag", False),
)
DICE = InputField("dice", "Dice", "whole", 1, low=1, high=3)
HITS = InputField("hits", "Hits", "whole", 1, low=1, high=5)
BODY_DICE = InputField("dice", "Dice", "whole", 1, low=1, high=10)
LABELS = {"miss": "miss", "wounded": "wounded", "killed": "killed"}


@dataclass(frozen=True)
class CoinOptions:
    hit_on: int = 4
    generous_budget: bool = False


@dataclass(frozen=True)
class CoinState:
    """A unit's wounds in a battle (killed when they reach its Hits)."""

    wounds: int = 0


@dataclass(frozen=True)
class CoinSituation:
    cover: bool = False


@dataclass(frozen=True)
class CoinUnit:
    name: str
    hits: int
    weapons: tuple[int, ...]  # dice of each weapon


def _whole(field: InputField, value: object, path: str) -> int:
    values, errors = parse_fields((field,), {field.name: value})
    if errors:
        raise InvalidInput(path, errors[field.name])
    result = values[field.name]
    assert isinstance(result, int)
    return result


def _weapon_dice(data: object, path: str) -> int:
    if not isinstance(data, Mapping) or data.get("type") != "blaster":
        raise InvalidInput(f"{path}.type", "must be a blaster")
    for key in data:
        if key not in {"type", "dice"}:
            raise InvalidInput(f"{path}.{key}", "unknown field")
    return _whole(DICE, data.get("dice"), f"{path}.dice")


def _damage_pmf(dice: int, hit_on: int) -> list[float]:
    p = (7 - hit_on) / 6
    return [math.comb(dice, k) * p**k * (1 - p) ** (dice - k) for k in range(dice + 1)]


def _outcome(damage: int, hits: int) -> str:
    return "miss" if damage == 0 else "killed" if damage >= hits else "wounded"


@dataclass(frozen=True)
class CoinAttack:
    weapons: tuple[int, ...]  # dice of each firing weapon
    hits: int
    hit_on: int

    def inline(self) -> bool:
        return True

    def remember(self, odds: AttackOdds) -> None:
        pass

    def problems(self) -> tuple[str, ...]:
        return ()

    def odds(self) -> AttackOdds:
        lines = []
        survive = 1.0
        for i, dice in enumerate(self.weapons):
            p = {"miss": 0.0, "wounded": 0.0, "killed": 0.0}
            pmf = _damage_pmf(dice, self.hit_on)
            for damage, q in enumerate(pmf):
                p[_outcome(damage, self.hits)] += q
            survive *= 1 - p["killed"]
            outcomes = tuple(Outcome(k, LABELS[k], p[k]) for k in LABELS)
            lines.append(
                LineOdds(
                    label=f"weapon {i + 1}",
                    kind="single",
                    weapons=(i,),
                    targets=(TargetOdds(0, outcomes),),
                    damage=tuple((d, q) for d, q in enumerate(pmf)),
                    steps=(("dice", f"{dice}d6"), ("hit on", f"{self.hit_on}+")),
                )
            )
        expected = sum(line.main.probability("killed") for line in lines)
        return AttackOdds(tuple(lines), 1 - survive, expected=expected)

    def roll(self, rng: random.Random) -> AttackRoll:
        lines = []
        for i, dice in enumerate(self.weapons):
            rolled = [rng.randint(1, 6) for _ in range(dice)]
            damage = sum(1 for n in rolled if n >= self.hit_on)
            outcome = _outcome(damage, self.hits)
            lines.append(
                LineRoll(
                    label=f"weapon {i + 1}",
                    kind="single",
                    weapons=(i,),
                    dice=tuple(RolledDie("damage", 6, n, n) for n in rolled),
                    effects=(Effect(0, outcome, LABELS[outcome], damage),),
                )
            )
        return AttackRoll(tuple(lines))  # Coin War keeps no damage between attacks


class CoinWar:
    id = "coinwar"
    name = "Coin War"
    summary = "A test rule system: d6s against Hits."
    rules_version = "Coin War 1"
    glossary = ()
    # every field applies to every kind and type (a coin has no Creation-only fields)
    unit_form = FormSplit("kind", {})
    weapon_form = FormSplit("type", {})
    cost_unit = "pts"
    option_fields = OPTION_FIELDS
    unit_columns = (Column("hits", "Hits"),)
    weapon_columns = (Column("dice", "Dice"),)
    situation_fields = (InputField("cover", "Target in cover", "flag", False),)
    target_fields: tuple[InputField, ...] = ()
    outcome_columns = (
        Column("miss", "Miss"),
        Column("wounded", "Wounded"),
        Column("killed", "Killed"),
    )
    max_targets = 1
    sample_attacks = (
        SampleAttack(
            "one die against one Hit",
            {"name": "A", "hits": 1, "weapons": [{"type": "blaster", "dice": 1}]},
            (0,),
            ({"name": "B", "hits": 1, "weapons": []},),
        ),
        SampleAttack(
            "three dice against two Hits",
            {"name": "A", "hits": 1, "weapons": [{"type": "blaster", "dice": 3}]},
            (0,),
            ({"name": "B", "hits": 2, "weapons": [{"type": "blaster", "dice": 1}]},),
        ),
        SampleAttack(
            "two weapons against a covered target",
            {
                "name": "A",
                "hits": 1,
                "weapons": [{"type": "blaster", "dice": 2}, {"type": "blaster", "dice": 3}],
            },
            (0, 1),
            ({"name": "B", "hits": 3, "weapons": []},),
            {"cover": True},
        ),
    )

    def decode_options(self, data: Mapping[str, Any] | None) -> CoinOptions:
        data = dict(data or {})
        for key in data:
            if key not in {f.name for f in OPTION_FIELDS}:
                raise InvalidInput(str(key), "unknown rule option")
        values, errors = parse_fields(OPTION_FIELDS, data)
        if errors:
            field, reason = next(iter(errors.items()))
            raise InvalidInput(field, reason)
        return CoinOptions(int(str(values["hit_on"])), bool(values["generous_budget"]))

    def encode_options(self, options: CoinOptions) -> dict[str, Any]:
        return {"hit_on": str(options.hit_on), "generous_budget": options.generous_budget}

    def catalogue(self) -> tuple[CatalogueEntry, ...]:
        return (CatalogueEntry("blaster", "Blaster", "ranged", "Rolls its dice.", (DICE,)),)

    def decode_unit(self, data: Mapping[str, Any]) -> CoinUnit:
        if not isinstance(data, Mapping):
            raise InvalidInput("unit", "must be an object")
        for key in data:
            if key not in {"name", "kind", "hits", "weapons"}:
                raise InvalidInput(str(key), "unknown field")
        name = data.get("name")
        if not isinstance(name, str) or not name.strip():
            raise InvalidInput("name", "is required")
        if data.get("kind", "trooper") != "trooper":
            raise InvalidInput("kind", "must be trooper")
        weapons = data.get("weapons", [])
        if not isinstance(weapons, list):
            raise InvalidInput("weapons", "must be a list")
        return CoinUnit(
            name.strip(),
            _whole(HITS, data.get("hits"), "hits"),
            tuple(_weapon_dice(w, f"weapons.{i}") for i, w in enumerate(weapons)),
        )

    def encode_unit(self, unit: CoinUnit) -> dict[str, Any]:
        weapons = [{"type": "blaster", "dice": d} for d in unit.weapons]
        return {"name": unit.name, "kind": "trooper", "hits": unit.hits, "weapons": weapons}

    def unit_figures(self, unit: CoinUnit, options: CoinOptions) -> UnitFigures:
        weapons = tuple(self._weapon(unit, i) for i in range(len(unit.weapons)))
        cost = self.unit_cost(unit, options)
        return UnitFigures(
            unit.name, {"hits": str(unit.hits)}, cost, self.format_cost(cost), weapons, ()
        )

    def _weapon(self, unit: CoinUnit, index: int) -> WeaponFigures:
        dice = unit.weapons[index]
        return WeaponFigures(
            f"Blaster {dice}d6", {"dice": f"{dice}d6"}, dice, f"{dice} pts", type_name="Blaster"
        )

    def unit_cost(self, unit: CoinUnit, options: CoinOptions) -> int:
        return 2 * unit.hits + sum(unit.weapons)

    def weapon_cost(self, unit: CoinUnit, index: int, options: CoinOptions) -> int:
        return unit.weapons[index]

    def weapon_figures(self, unit: CoinUnit, index: int, options: CoinOptions) -> WeaponFigures:
        return self._weapon(unit, index)

    def weapon_name(self, unit: CoinUnit, index: int) -> str:
        return f"Blaster {unit.weapons[index]}d6"

    def budget_findings(
        self, total: float, budget: int | None, options: CoinOptions
    ) -> list[Finding]:
        if budget is None or total <= budget:
            return []
        severity: Severity = "warning" if options.generous_budget else "error"
        return [Finding(severity, "over_budget", f"{total:g} pts is over {budget}")]

    def format_cost_change(self, change: float) -> str:
        return f"{change:+g} pts"

    def field_words(self, data: Mapping[str, Any]) -> dict[str, str]:
        return plain_field_words(data)

    def unit_json(self, figures: UnitFigures) -> dict[str, Any]:
        return {"hits": int(figures.cells["hits"])}

    def weapon_json(self, figures: WeaponFigures) -> dict[str, Any]:
        return {"dice": figures.cost}

    def army_findings(
        self, units: Sequence[CoinUnit], budget: int | None, options: CoinOptions
    ) -> list[Finding]:
        return self.budget_findings(sum(self.unit_cost(u, options) for u in units), budget, options)

    def attack(
        self,
        attacker: CoinUnit,
        weapons: tuple[int, ...],
        targets: Sequence[TargetInput],
        situation: Mapping[str, Any],
        options: CoinOptions,
        allies: Sequence[AllyInput] = (),
    ) -> CoinAttack:
        if allies:
            raise InvalidInput("allies", "Coin War has no combined attacks")
        if len(targets) != 1:
            raise InvalidInput("target", "needs exactly one target")
        for index in weapons:
            if not 0 <= index < len(attacker.weapons):
                raise InvalidInput("weapons", f"{attacker.name} has no weapon {index + 1}")
        values, errors = parse_fields(self.situation_fields, situation)
        if errors:
            field, reason = next(iter(errors.items()))
            raise InvalidInput(field, reason)
        hit_on = options.hit_on + (1 if values["cover"] else 0)
        return CoinAttack(tuple(attacker.weapons[i] for i in weapons), targets[0].unit.hits, hit_on)

    def decode_situation(self, values: Mapping[str, FieldValue]) -> CoinSituation:
        return CoinSituation(bool(values["cover"]))

    def encode_situation(self, situation: CoinSituation) -> dict[str, FieldValue]:
        return {"cover": situation.cover}

    def default_weapons(self, unit: CoinUnit, options: CoinOptions) -> tuple[int, ...]:
        return (0,) if unit.weapons else ()

    def weapons_cost(self, unit: CoinUnit, weapons: tuple[int, ...], options: CoinOptions) -> int:
        return sum(unit.weapons[i] for i in weapons)

    def attack_from_body(self, body: Mapping[str, Any]) -> CoinAttack:
        for key in ("dice", "hits"):
            if key not in body:
                raise InvalidInput(key, "is required")
        dice = _whole(BODY_DICE, body["dice"], "dice")
        return CoinAttack((dice,), _whole(HITS, body["hits"], "hits"), 4)

    def format_cost(self, cost: float) -> str:
        return f"{cost:g} pts"

    def template_context(self) -> Mapping[str, Any]:
        return {}

    def unit_lines(self, unit: CoinUnit, options: CoinOptions) -> list[str]:
        figures = self.unit_figures(unit, options)
        return [f"{unit.name}: {unit.hits} Hits, {figures.cost_text}"] + [
            f"  {w.name}" for w in figures.weapons
        ]

    # battles: wounds pile up; a Rally heals one
    battle_situation_fields = situation_fields
    unit_actions = (UnitAction("rally", "Rally {unit}"),)

    def initial_state(self, unit: CoinUnit) -> CoinState:
        return CoinState()

    def decode_state(self, data: Mapping[str, Any]) -> CoinState:
        return CoinState(int(data.get("wounds", 0)))

    def encode_state(self, state: CoinState) -> dict[str, Any]:
        return {"wounds": state.wounds}

    def public_state(self, data: Mapping[str, Any]) -> dict[str, Any]:
        return dict(data)  # nothing in the state is secret

    def standing(self, fighter: Fighter) -> Standing:
        unit: CoinUnit = fighter.unit
        wounds = fighter.state.wounds
        left = max(unit.hits - wounds, 0)
        weapons = tuple(
            BattleWeapon(i, f"Blaster {d}d6", {"dice": f"{d}d6"})
            for i, d in enumerate(unit.weapons)
        )
        out = left == 0
        badges = ("killed",) if out else (f"{wounds} wounds",) if wounds else ()
        return Standing(
            unit=replace(unit, hits=max(left, 1)),
            cells={"hits": f"{left}/{unit.hits}"},
            weapons=weapons,
            badges=badges,
            out=out,
            status=", ".join((f"Hits {left}/{unit.hits}", *badges)),
            actions=("rally",) if wounds and not out else (),
            state_out=self.encode_state(fighter.state),
        )

    def battle_attack(
        self,
        attacker: Fighter,
        weapons: tuple[int, ...],
        targets: Sequence[tuple[Fighter, Mapping[str, Any]]],
        situation: Mapping[str, Any],
        *,
        moved: bool = False,
    ) -> BattleAttack:
        units = [TargetInput(self.standing(t).unit, fields) for t, fields in targets]
        attack = self.attack(attacker.unit, weapons, units, situation, attacker.options)
        return BattleAttack(attack, attacker, tuple(t for t, _ in targets), dict(situation))

    def after_attack(self, attack: BattleAttack, roll: AttackRoll) -> tuple[Any, ...]:
        after = [attack.attacker.state]
        for index, target in enumerate(attack.targets):
            damage = sum(
                e.damage or 0 for line in roll.lines for e in line.effects if e.target == index
            )
            after.append(CoinState(target.state.wounds + damage))
        return tuple(after)

    def log_odds(self, attack: BattleAttack, odds: AttackOdds) -> dict[str, Any]:
        names = [(t.key, t.name) for t in attack.targets]
        return {
            "any_destroying": odds.decisive,
            "lines": [
                {
                    "label": line.label,
                    "targets": [
                        {"unit_id": names[t.target][0], "name": names[t.target][1]}
                        | {o.key: o.probability for o in t.outcomes}
                        for t in line.targets
                    ],
                }
                for line in odds.lines
            ],
        }

    def log_roll(self, attack: BattleAttack, roll: AttackRoll) -> list[dict[str, Any]]:
        names = [(t.key, t.name) for t in attack.targets]
        return [
            {
                "label": line.label,
                "kind": line.kind,
                "weapons": list(line.weapons),
                "skipped": line.skipped,
                "jammed": False,
                "dice": [
                    {
                        "purpose": d.purpose,
                        "sides": d.sides,
                        "natural": d.natural,
                        "value": d.value,
                        "bonus": d.bonus,
                        "unit_id": None,
                    }
                    for d in line.dice
                ],
                "effects": [
                    {
                        "unit_id": names[e.target][0],
                        "name": names[e.target][1],
                        "outcome": e.outcome,
                        "damage": e.damage,
                    }
                    for e in line.effects
                ],
            }
            for line in roll.lines
        ]

    def apply_action(
        self, name: str, fighter: Fighter, values: Mapping[str, Any], rng: random.Random
    ) -> ActionResult:
        if name != "rally":
            raise InvalidInput("action", f"no such action: {name}")
        wounds = fighter.state.wounds
        if not wounds or self.standing(fighter).out:
            raise InvalidInput("unit", f"{fighter.name} has no wound to heal")
        return ActionResult(CoinState(wounds - 1), f"{fighter.name} Rallies")

    def effect_words(self, effect: Mapping[str, Any]) -> str:
        return f"{effect['outcome']} ({effect['damage']} damage)"

    def odds_words(self, odds: Mapping[str, Any]) -> list[str]:
        return [
            f"{line['label']} on {t['name']}: killed {100 * t['killed']:.1f}%"
            for line in odds.get("lines", [])
            for t in line["targets"]
        ]


RULESET = CoinWar()

_CHECK: Ruleset = RULESET  # the fake satisfies the interface (checked by mypy --strict)
