"""The one interface every rule system implements, and the result shapes they all share.

A ruleset is a package under ``app.rules`` with one object that satisfies ``Ruleset``; the
registry (``app.rules.registry``) finds it by id. Services, pages and the API see a rule system
only through this interface, so adding one touches its own package, its template folder
(``templates/rulesets/<id>/``) and one line of the registry.

The package, by job:

- ``figures``, ``odds``, ``fighters``: the shared shapes (what the builder shows, what an
  attack gives, a unit in a battle). Specs (units, weapons), options and battle state are the
  ruleset's own types: the product only passes them back to the ruleset; what it reads is
  these shapes and the input fields (``app.rules.fields``).
- ``contract``: the members the product needs, split into ``Building``, ``Calculating`` and
  ``Battles``; ``Ruleset`` is the three.
- ``base``: ``RulesetBase``, which derives all but a few primitives and which every ruleset
  subclasses, overriding only what differs (as a python-chess variant overrides ``Board``).
- ``reading``: reading options and situations through the declared fields.
"""

from app.rules.ruleset.base import (
    NAME_FIELD,
    AttackBase,
    RememberingAttack,
    RulesetBase,
    Values,
    check_fields,
)
from app.rules.ruleset.contract import Battles, Building, Calculating, Ruleset
from app.rules.ruleset.fighters import (
    ActionResult,
    BattleAttack,
    BattleWeapon,
    Fighter,
    Standing,
    TurnReset,
    UnitAction,
)
from app.rules.ruleset.figures import (
    JSON,
    CatalogueEntry,
    Column,
    Finding,
    GlossaryTerm,
    SampleArmy,
    Severity,
    UnitFigures,
    WeaponFigures,
    catalogue_split,
    glossary_term,
)
from app.rules.ruleset.odds import (
    AllyInput,
    Attack,
    AttackOdds,
    AttackRoll,
    Effect,
    LineOdds,
    LineRoll,
    Outcome,
    RolledDie,
    SampleAttack,
    Tally,
    TargetInput,
    TargetOdds,
)
from app.rules.ruleset.reading import (
    check_attack_shape,
    read_options,
    read_situation,
    situation_inputs,
)

__all__ = [
    "JSON",
    "NAME_FIELD",
    "ActionResult",
    "AllyInput",
    "Attack",
    "AttackBase",
    "AttackOdds",
    "AttackRoll",
    "BattleAttack",
    "BattleWeapon",
    "Battles",
    "Building",
    "Calculating",
    "CatalogueEntry",
    "Column",
    "Effect",
    "Fighter",
    "Finding",
    "GlossaryTerm",
    "LineOdds",
    "LineRoll",
    "Outcome",
    "RememberingAttack",
    "RolledDie",
    "Ruleset",
    "RulesetBase",
    "SampleArmy",
    "SampleAttack",
    "Severity",
    "Standing",
    "Tally",
    "TargetInput",
    "TargetOdds",
    "TurnReset",
    "UnitAction",
    "UnitFigures",
    "Values",
    "WeaponFigures",
    "catalogue_split",
    "check_attack_shape",
    "check_fields",
    "glossary_term",
    "read_options",
    "read_situation",
    "situation_inputs",
]
