"""The D20 Power/Reach rule system behind the ``Ruleset`` interface.

The class is put together from one part per area, each in its own module: the builder
(``builder.py``: catalogue, figures, findings, costs), attacks and the calculator
(``calculator.py``) and battles (``battles.py``). What they share (units, options) is here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.d20 import options as opts
from app.rules.d20 import units
from app.rules.d20.battles import D20Battles
from app.rules.d20.builder import D20Builder
from app.rules.d20.calculator import D20Calculator
from app.rules.d20.glossary import GLOSSARY
from app.rules.ruleset import JSON, Ruleset, RulesetBase


class D20(D20Builder, D20Calculator, D20Battles, RulesetBase):
    id = "d20"
    name = "D20 Power/Reach"
    summary = (
        "Shot or HtH + Power + 1D20 against the target's defence; automatic fire, grenades, "
        "hypersensor mines and demolition charges."
    )
    rules_version = "D20 weapons and equipment with BrikForge RULINGS §3 (2026-12)"
    glossary = GLOSSARY
    cost_unit = "pts"
    option_fields = opts.OPTION_FIELDS
    unit_fields = units.UNIT_FIELDS

    def decode_options(self, data: Mapping[str, Any] | None) -> opts.D20Options:
        return opts.decode_options(data)

    def encode_options(self, options: opts.D20Options) -> JSON:
        return opts.encode_options(options)

    def decode_unit(self, data: Mapping[str, Any]) -> units.D20Figurine:
        return units.decode_unit(data)

    def encode_unit(self, unit: units.D20Figurine) -> JSON:
        return units.encode_unit(unit)


RULESET = D20()
_CHECK: Ruleset = RULESET
