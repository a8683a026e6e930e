"""Calculating D20 attacks: shots and blows, automatic fire, explosions, defusing.

The attack is ``plan``'s (``plan.py``) of the targets as they stand in the situation
(``situation.py``); the API's stateless body is ``body.py``'s, the sample attacks
``samples.py``'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.rules.d20.attack import OUTCOMES, D20Attack
from app.rules.d20.body import from_body
from app.rules.d20.options import D20Options
from app.rules.d20.plan import plan
from app.rules.d20.samples import SAMPLE_ATTACKS
from app.rules.d20.situation import (
    MAX_TARGETS,
    SITUATION_FIELDS,
    TARGET_FIELDS,
    D20Situation,
    as_placed,
    check_figures,
    read_situation,
)
from app.rules.d20.units import D20Figurine
from app.rules.fields import FieldValue, InputField
from app.rules.ruleset import AllyInput, Column, SampleAttack, TargetInput, check_attack_shape

OUTCOME_COLUMNS = tuple(Column(k, label, numeric=True) for k, label in OUTCOMES)


class D20Calculating:
    """The calculating job of the D20 ruleset (see ``app.rules.ruleset.Calculating``)."""

    situation_fields: tuple[InputField, ...] = SITUATION_FIELDS
    target_fields: tuple[InputField, ...] = TARGET_FIELDS
    outcome_columns: tuple[Column, ...] = OUTCOME_COLUMNS
    # automatic fire and explosions strike several; MAX_TARGETS bounds the figurines (a squad
    # of N counts N), so the targets too
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
        check_figures([t.figures for t in targets])
        read = read_situation(situation)
        placed = [as_placed(t, n, read) for n, t in enumerate(targets)]
        return plan(attacker, weapons, placed, read, options)

    def attack_from_body(self, body: Mapping[str, Any]) -> D20Attack:
        # the API's stateless body gives an attack by its figures (Shot, Power, Reach, the
        # targets' PD...), not by figurines as the default's does
        return from_body(body)

    def decode_situation(self, values: Mapping[str, FieldValue]) -> D20Situation:
        # a typed situation, its unknown keys refused and its objects' DLs checked (a text
        # field's bounds cannot say "DLs, comma-separated")
        return read_situation(values)

    def default_weapons(self, unit: D20Figurine, options: D20Options) -> tuple[int, ...]:
        """The first gun, else the first hand-to-hand weapon, else the first weapon (the
        default's "first that fires" would pick a grenade before a gun)."""
        for kind in ("gun", "hth"):
            for i, weapon in enumerate(unit.weapons):
                if weapon.type == kind:
                    return (i,)
        return (0,) if unit.weapons else ()
