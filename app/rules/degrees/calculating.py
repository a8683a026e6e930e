"""Calculating Degrees attacks: the calculator's side of the ruleset.

The situation (``situation.py``) says how the attacker spends its AP and OP this round;
``plan`` (``plan.py``) turns it and the units into a ``Round`` of shots with its AP and its
problems; ``attack_from_body`` reads the stateless single-shot body (``body.py``); the sample
attacks are ``samples.py``'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.rules.degrees.body import from_body
from app.rules.degrees.options import DegreesOptions
from app.rules.degrees.plan import MAX_TARGETS, MAX_UNITS, DegreesAttack, plan
from app.rules.degrees.round import OUTCOMES
from app.rules.degrees.samples import SAMPLE_ATTACKS
from app.rules.degrees.situation import LOCATION, SITUATION_FIELDS, TARGET_FIELDS, read_situation
from app.rules.degrees.units import DegreesUnit
from app.rules.errors import InvalidInput
from app.rules.fields import InputField, parse_fields
from app.rules.ruleset import (
    AllyInput,
    Column,
    RulesetBase,
    SampleAttack,
    TargetInput,
    check_attack_shape,
)

OUTCOME_COLUMNS = tuple(Column(k, label, numeric=True) for k, label in OUTCOMES)


def check_figures(targets: Sequence[TargetInput]) -> None:
    """Each target's figurines a whole number from 1, at most ``MAX_UNITS`` over all targets
    (checked before any work: the odds and a roll grow with the figurines)."""
    total = 0
    for n, target in enumerate(targets):
        figures = target.figures
        if isinstance(figures, bool) or not isinstance(figures, int) or figures < 1:
            raise InvalidInput(f"targets.{n}.figures", "must be a whole number from 1")
        total += figures
        if total > MAX_UNITS:
            raise InvalidInput(
                f"targets.{n}.figures", f"at most {MAX_UNITS} figurines over all targets"
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
        check_figures(targets)
        for n, target in enumerate(targets):
            for key in target.fields:
                if key != LOCATION.name:
                    raise InvalidInput(f"targets.{n}.{key}", "is not a target field")
            _, errors = parse_fields(TARGET_FIELDS, target.fields)
            if errors:
                raise InvalidInput(f"targets.{n}.location", errors["location"])
        return plan(attacker, weapons, targets, read_situation(situation), options)

    def attack_from_body(self, body: Mapping[str, Any]) -> DegreesAttack:
        # the stateless body is one shot's numbers (degree, type; Armour, HP), not units
        return from_body(body)
