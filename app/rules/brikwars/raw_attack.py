"""A raw dice attack (no saved units): the body of the stateless ``POST /api/v1/brikwars/odds``
and ``/roll`` (``raw_attack``), and of the ruleset's ``/api/v1/rulesets/brikwars/odds``
(``attack_from_body``), behind the interface's ``Attack`` (``RawAttack``).

A d6 of Damage against a fixed Armour 4 (an automatic hit) does harm on a 5 or a 6:

>>> attack = raw_attack({"damage": {"dice": 1, "sides": 6}, "armor": {"fixed": 4}})
>>> round(RawAttack(attack).odds().decisive, 4)
0.3333
>>> raw_attack({"damage": {"dice": 1, "sides": 7}, "armor": {"fixed": 4}})
Traceback (most recent call last):
...
app.rules.errors.InvalidInput: damage.sides: must be one of 4, 6, 8, 10, 12, 20
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.rules.brikwars import attacks as atk
from app.rules.brikwars.attacks.single import INLINE_DICE as INLINE_DICE
from app.rules.brikwars.catalogue import DamageExpr
from app.rules.brikwars.options import BrikWarsOptions
from app.rules.brikwars.shapes import ON_FIRE, outcomes, rolled_die, words
from app.rules.brikwars.units import Armour
from app.rules.errors import InvalidInput, TooMuchWork
from app.rules.ruleset import (
    AttackBase,
    AttackOdds,
    AttackRoll,
    Effect,
    LineOdds,
    LineRoll,
    Outcome,
    TargetOdds,
)


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
class RawAttack(AttackBase):
    """One raw dice attack (no saved units) behind the interface's ``Attack``: no unit, so no
    Power to check (``problems`` none), and nothing remembered here (the dice core keeps
    what it summed in the worker that summed it)."""

    attack: atk.Attack

    def inline(self) -> bool:
        return atk.cheap([self.attack])

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
        target = TargetOdds(0, outcomes(values), (Outcome(*ON_FIRE, o.on_fire),))
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
            words(outcome),
            r.damage,
            ("on_fire",) if r.on_fire else (),
        )
        line = LineRoll("attack", "single", (), tuple(rolled_die(d) for d in r.dice), (effect,))
        return AttackRoll((line,))
