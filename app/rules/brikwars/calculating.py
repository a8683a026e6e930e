"""BrikWars' calculator behind the interface (``Calculating``): the situation's fields, a
turn of saved units as an ``Attack`` (``known_odds.TurnAttack``), and a raw dice attack from
a stateless body (``raw_attack``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from app.rules.brikwars.known_odds import TurnAttack
from app.rules.brikwars.options import BrikWarsOptions
from app.rules.brikwars.raw_attack import RawAttack, raw_attack
from app.rules.brikwars.situation_fields import (
    FOLLOWER_BLAST,
    FOLLOWER_DISTANCE,
    FOLLOWER_SPANS,
    SITUATION_FIELDS,
    situation_from_input,
)
from app.rules.brikwars.turn import (
    MAX_ARC_TARGETS,
    MAX_FIGURINES,
    Ally,
    ArcFollower,
    Turn,
    TurnSituation,
)
from app.rules.brikwars.units import UnitSpec
from app.rules.errors import InvalidInput
from app.rules.fields import FieldValue, InputField, parse_fields
from app.rules.ruleset import AllyInput, Column, RulesetBase, SampleAttack, TargetInput

_SITUATION_NAMES = frozenset(f.name for f in SITUATION_FIELDS)
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


def _check_figures(targets: Sequence[TargetInput]) -> None:
    """Each target's figurines (a squad's, 1..N) bounded before any work: at least 1 each,
    at most MAX_FIGURINES over all the targets (an Arc strikes each, a blast rolls for each;
    ruling T7)."""
    total = 0
    for i, t in enumerate(targets):
        field = f"targets.{i}.figures"
        n = t.figures
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise InvalidInput(field, "needs a whole number of figurines, at least 1")
        total += n
        if total > MAX_FIGURINES:
            raise InvalidInput(field, f"at most {MAX_FIGURINES} figurines over all the targets")


class BrikWarsCalculating(RulesetBase):
    """The calculator's members: the primitives, and the defaults BrikWars reads otherwise."""

    situation_fields: tuple[InputField, ...] = SITUATION_FIELDS
    target_fields: tuple[InputField, ...] = (FOLLOWER_DISTANCE, FOLLOWER_SPANS, FOLLOWER_BLAST)
    max_targets = MAX_ARC_TARGETS  # the points of an Arc
    outcome_columns: tuple[Column, ...] = (
        Column("miss", "Miss"),
        Column("no_effect", "No effect"),
        Column("something_bad", "Something Bad"),
        Column("size_damage", "Size Damage"),
        Column("destroyed", "Destroyed"),
    )
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
        _check_figures(targets)
        main, *more = targets
        followers = []
        for i, t in enumerate(more):
            values, more_errors = parse_fields(self.target_fields, t.fields)
            errors |= {f"targets.{i + 1}.{k}": v for k, v in more_errors.items()}
            followers.append(
                ArcFollower(
                    t.unit,
                    values["distance"],  # type: ignore[arg-type]
                    values["spans"],  # type: ignore[arg-type]
                    t.figures,
                    values["blast_distance"],  # type: ignore[arg-type]
                )
            )
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
            figures=main.figures,
        )
        return TurnAttack(turn)

    def attack_from_body(self, body: Mapping[str, Any]) -> RawAttack:
        # BrikWars' stateless body is a raw dice attack (no units), as /api/v1/brikwars/odds
        return RawAttack(raw_attack(body))

    def decode_situation(self, values: Mapping[str, FieldValue]) -> TurnSituation:
        # the engine's own situation type, not the default's field values
        return TurnSituation(**values)  # type: ignore[arg-type]

    def default_weapons(self, unit: UnitSpec, options: BrikWarsOptions) -> tuple[int, ...]:
        # the first weapon with Damage to roll: a Cannon without Ammo or a Launcher without
        # Payload `fires` (it makes attacks) but has nothing loaded
        for i, weapon in enumerate(unit.weapons):
            if weapon.payload is not None or unit.weapon_stats(i, options).damage is not None:
                return (i,)
        return ()
