"""A small rule system written only against the ``Ruleset`` interface ("Coin War").

Units have Hits; each weapon rolls d6s, every die at or above the house rule's ``hit_on``
(one more in cover) is a point of damage; damage of at least the target's Hits kills it. It
shows that the interface alone is enough to add a rule system: it writes only the primitives
``RulesetBase`` asks for, takes every derived member as it is, and passes the conformance suite.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from app.rules.errors import FieldErrors, InvalidInput
from app.rules.fields import FieldValue, InputField, read_object
from app.rules.ruleset import (
    NAME_FIELD,
    ActionResult,
    AllyInput,
    AttackBase,
    AttackOdds,
    AttackRoll,
    BattleAttack,
    BattleWeapon,
    CatalogueEntry,
    Column,
    Effect,
    Fighter,
    LineOdds,
    LineRoll,
    Outcome,
    RolledDie,
    Ruleset,
    RulesetBase,
    SampleAttack,
    Standing,
    TargetInput,
    TargetOdds,
    TurnReset,
    UnitAction,
    UnitFigures,
    Values,
    WeaponFigures,
    check_attack_shape,
    check_fields,
)

HITS = InputField("hits", "Hits", "whole", 1, low=1, high=5)
UNIT_FIELDS = (
    NAME_FIELD,
    InputField("kind", "Kind", "choice", "trooper", choices=(("trooper", "Trooper"),)),
    HITS,
)
WEAPON_FIELDS = (
    InputField("type", "Type", "choice", None, choices=(("blaster", "Blaster"),)),
    InputField("dice", "Dice", "whole", 1, low=1, high=3),
)
LABELS = {"miss": "Miss", "wounded": "Wounded", "killed": "Killed"}


@dataclass(frozen=True)
class CoinUnit:
    name: str
    hits: int
    weapons: tuple[int, ...]  # dice of each weapon


def _outcome(damage: int, hits: int) -> str:
    return "miss" if damage == 0 else "killed" if damage >= hits else "wounded"


@dataclass(frozen=True)
class CoinAttack(AttackBase):
    weapons: tuple[int, ...]  # dice of each firing weapon
    hits: int
    hit_on: int

    def odds(self) -> AttackOdds:
        lines, survive = [], 1.0
        p_die = (7 - self.hit_on) / 6
        for i, dice in enumerate(self.weapons):
            pmf = [
                math.comb(dice, k) * p_die**k * (1 - p_die) ** (dice - k) for k in range(dice + 1)
            ]
            p = dict.fromkeys(LABELS, 0.0)
            for damage, q in enumerate(pmf):
                p[_outcome(damage, self.hits)] += q
            survive *= 1 - p["killed"]
            outcomes = tuple(Outcome(k, label, p[k]) for k, label in LABELS.items())
            steps = (("dice", f"{dice}d6"), ("hit on", f"{self.hit_on}+"))
            lines.append(
                LineOdds(
                    f"weapon {i + 1}",
                    "single",
                    (i,),
                    (TargetOdds(0, outcomes),),
                    tuple(enumerate(pmf)),
                    steps,
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
            words = f"{LABELS[outcome].lower()} ({damage} damage)"
            effect = Effect(0, outcome, words, damage)
            dice_rolled = tuple(RolledDie("damage", 6, n, n) for n in rolled)
            lines.append(LineRoll(f"weapon {i + 1}", "single", (i,), dice_rolled, (effect,)))
        return AttackRoll(tuple(lines))  # Coin War keeps no damage between attacks


def _unit(name: str, hits: int, *dice: int) -> dict[str, Any]:
    """A unit's JSON, for the sample attacks."""
    return {"name": name, "hits": hits, "weapons": [{"type": "blaster", "dice": d} for d in dice]}


def _blaster(dice: int) -> WeaponFigures:
    return WeaponFigures(
        f"Blaster {dice}d6", {"dice": f"{dice}d6"}, dice, f"{dice} pts", type_name="Blaster"
    )


class CoinWar(RulesetBase):
    id = "coinwar"
    name = "Coin War"
    summary = "A test rule system: d6s against Hits."
    rules_version = "Coin War 1"
    option_fields = (
        InputField("hit_on", "Dice hit on", "choice", "4", choices=(("4", "4+"), ("5", "5+"))),
        InputField("allow_over_budget", "Over budget is only a warning", "flag", False),
    )
    unit_fields = UNIT_FIELDS
    unit_columns = (Column("hits", "Hits"),)
    weapon_columns = (Column("dice", "Dice"),)
    situation_fields = (InputField("cover", "Target in cover", "flag", False),)
    outcome_columns = tuple(Column(key, label) for key, label in LABELS.items())
    unit_actions = (UnitAction("rally", "Rally {unit}"),)  # a Rally heals a wound
    turn_reset = TurnReset("rally", "round")  # every wounded unit Rallies as a round begins
    sample_attacks = (
        SampleAttack("one die against one Hit", _unit("A", 1, 1), (0,), (_unit("B", 1),)),
        SampleAttack("three dice against two Hits", _unit("A", 1, 3), (0,), (_unit("B", 2, 1),)),
        SampleAttack(
            "two weapons against a covered target",
            _unit("A", 1, 2, 3),
            (0, 1),
            (_unit("B", 3),),
            {"cover": True},
        ),
    )

    def catalogue(self) -> tuple[CatalogueEntry, ...]:
        return (
            CatalogueEntry("blaster", "Blaster", "ranged", "Rolls its dice.", WEAPON_FIELDS[1:]),
        )

    def decode_unit(self, data: Mapping[str, Any], *, strict: bool = False) -> CoinUnit:
        errors = FieldErrors()
        also = frozenset({"weapons"})
        unit = read_object(data, "", self.unit_fields, errors, also=also, strict=strict)
        weapons = data.get("weapons", []) if isinstance(data, Mapping) else []
        if not isinstance(weapons, list):
            errors.add("weapons", "must be a list")
            weapons = []
        dice = [
            read_object(w, f"weapons.{i}", WEAPON_FIELDS, errors) for i, w in enumerate(weapons)
        ]
        errors.raise_any()  # every wrong field at once
        return CoinUnit(
            str(unit["name"]), int(unit["hits"] or 1), tuple(int(w["dice"] or 1) for w in dice)
        )

    def encode_unit(self, unit: CoinUnit) -> dict[str, Any]:
        weapons = [{"type": "blaster", "dice": d} for d in unit.weapons]
        return {"name": unit.name, "kind": "trooper", "hits": unit.hits, "weapons": weapons}

    def unit_figures(self, unit: CoinUnit, options: Values) -> UnitFigures:
        cost = 2 * unit.hits + sum(unit.weapons)
        weapons = tuple(_blaster(d) for d in unit.weapons)
        return UnitFigures(
            unit.name, {"hits": str(unit.hits)}, cost, self.format_cost(cost), weapons, ()
        )

    def attack(
        self,
        attacker: CoinUnit,
        weapons: tuple[int, ...],
        targets: Sequence[TargetInput],
        situation: Mapping[str, Any],
        options: Values,
        allies: Sequence[AllyInput] = (),
    ) -> CoinAttack:
        check_attack_shape(
            self.name, attacker.name, len(attacker.weapons), weapons, targets, allies, 1
        )
        cover = check_fields(self.situation_fields, situation)["cover"]
        hit_on = int(str(options.hit_on)) + (1 if cover else 0)
        return CoinAttack(tuple(attacker.weapons[i] for i in weapons), targets[0].unit.hits, hit_on)

    # battles: wounds pile up (the state is ``Values(wounds=N)``); a Rally heals one

    def standing(self, fighter: Fighter) -> Standing:
        unit: CoinUnit = fighter.unit
        wounds = int(fighter.state.get("wounds", 0))
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

    def after_attack(self, attack: BattleAttack, roll: AttackRoll) -> tuple[Any, ...]:
        after = [attack.attacker.state]
        for index, target in enumerate(attack.targets):
            hurt = sum(
                e.damage or 0 for line in roll.lines for e in line.effects if e.target == index
            )
            after.append(Values(wounds=int(target.state.get("wounds", 0)) + hurt))
        return tuple(after)

    def act_rally(
        self, fighter: Fighter, values: Mapping[str, FieldValue], rng: random.Random
    ) -> ActionResult:
        wounds = int(fighter.state.get("wounds", 0))
        if not wounds or self.standing(fighter).out:
            raise InvalidInput("unit", f"{fighter.name} has no wound to heal")
        return ActionResult(Values(wounds=wounds - 1), f"{fighter.name} Rallies")


RULESET = CoinWar()

_CHECK: Ruleset = RULESET  # the fake satisfies the interface (checked by mypy --strict)
