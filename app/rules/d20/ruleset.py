"""The D20 Power/Reach rule system behind the ``Ruleset`` interface: its identity, and one
part per job, each in its own module: building armies (``building.py``), calculating attacks
(``calculating.py``) and battles (``battles.py``). ``RulesetBase`` derives the rest.
"""

from __future__ import annotations

from app.rules.d20.battles import D20Battles
from app.rules.d20.building import D20Building
from app.rules.d20.calculating import D20Calculating
from app.rules.d20.glossary import GLOSSARY
from app.rules.ruleset import Ruleset, RulesetBase


class D20(D20Building, D20Calculating, D20Battles, RulesetBase):
    id = "d20"
    name = "D20 Power/Reach"
    summary = (
        "Shot or HtH + Power + 1D20 against the target's defence; automatic fire, grenades, "
        "hypersensor mines and demolition charges."
    )
    rules_version = "D20 weapons and equipment with BrikForge RULINGS §3 (2026-12)"
    glossary = GLOSSARY


RULESET = D20()
_CHECK: Ruleset = RULESET
