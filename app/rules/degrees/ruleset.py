"""The Degrees rule system behind the ``Ruleset`` contract: its identity, and one part per
job, each in its own module: building armies (``building.py``: catalogue, unit fields,
figures), calculating attacks (``calculating.py``, its situation in ``situation.py``) and
battles (``battles.py``). ``RulesetBase`` derives the rest.
"""

from __future__ import annotations

from app.rules.degrees.battles import DegreesBattles
from app.rules.degrees.building import DegreesBuilding
from app.rules.degrees.calculating import DegreesCalculating
from app.rules.degrees.glossary import GLOSSARY
from app.rules.ruleset import Ruleset


class Degrees(DegreesBuilding, DegreesCalculating, DegreesBattles):
    id = "degrees"
    name = "Degrees"
    summary = (
        "A d10 roll-under system of weapon degrees on three scales: roll the degree or less, "
        "the roll is the damage, front Armour first, then the back line."
    )
    rules_version = "Degrees ch. 9 with BrikForge RULINGS §2 (2026-12)"
    glossary = GLOSSARY


RULESET = Degrees()

_CHECK: Ruleset = RULESET
