"""The Degrees rule system behind the ``Ruleset`` interface.

The class is put together from one part per area, each in its own module: the builder
(``builder.py``: catalogue, figures, findings, costs), attacks and the calculator
(``calculator.py``) and battles (``battles.py``). What they share (units, options) is here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.degrees import options as opts
from app.rules.degrees import units
from app.rules.degrees.battles import DegreesBattles
from app.rules.degrees.builder import DegreesBuilder
from app.rules.degrees.calculator import DegreesCalculator
from app.rules.degrees.glossary import GLOSSARY
from app.rules.ruleset import JSON, Ruleset, RulesetBase


class Degrees(DegreesBuilder, DegreesCalculator, DegreesBattles, RulesetBase):
    id = "degrees"
    name = "Degrees"
    summary = (
        "A d10 roll-under system of weapon degrees on three scales: roll the degree or less, "
        "the roll is the damage, front Armour first, then the back line."
    )
    rules_version = "Degrees ch. 9 with BrikForge RULINGS §2 (2026-12)"
    glossary = GLOSSARY
    cost_unit = "DP"
    option_fields = opts.OPTION_FIELDS

    def decode_options(self, data: Mapping[str, Any] | None) -> opts.DegreesOptions:
        return opts.decode_options(data)

    def encode_options(self, options: opts.DegreesOptions) -> JSON:
        return opts.encode_options(options)

    def decode_unit(self, data: Mapping[str, Any]) -> units.DegreesUnit:
        return units.decode_unit(data)

    def encode_unit(self, unit: units.DegreesUnit) -> JSON:
        return units.encode_unit(unit)


RULESET = Degrees()

_CHECK: Ruleset = RULESET
