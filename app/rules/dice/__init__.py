"""The dice core that every ruleset rolls with: dice pools, their exact distributions,
comparisons and seeded rolls.

A pool is groups of dice summed plus a modifier. Its options cover what the rulesets need:
Bonus dice (a die that shows its maximum earns another: BrikWars' rule, off with
``bonus_die="none"``), per-die modifiers, and totals without the highest groups (BrikWars'
Deflection and explosion rings; a ring against a Deflecting object, a BrikWars-only rule,
is ``app.rules.brikwars.plated``). Pure Python plus numpy; no web, database or template
imports. See docs/dice-engine.md.
"""

from app.rules.dice.compare import compare, compare_by_dice
from app.rules.dice.exact import (
    deflect,
    deflect_with_over_the_top,
    drop_highest,
    drop_highest_all,
    explosion_rings,
    total_distribution,
)
from app.rules.dice.results import (
    Comparison,
    ComparisonByDice,
    JointDistribution,
    TotalDistribution,
)
from app.rules.dice.rolling import (
    ExplosionRoll,
    PoolRoll,
    Ring,
    RolledDie,
    roll_explosion,
    roll_pool,
)
from app.rules.dice.spec import ALLOWED_SIDES, MAX_DICE, BonusDie, Dice, Pool, Ties

__all__ = [
    "ALLOWED_SIDES",
    "MAX_DICE",
    "BonusDie",
    "Comparison",
    "ComparisonByDice",
    "Dice",
    "ExplosionRoll",
    "JointDistribution",
    "Pool",
    "PoolRoll",
    "Ring",
    "RolledDie",
    "Ties",
    "TotalDistribution",
    "compare",
    "compare_by_dice",
    "deflect",
    "deflect_with_over_the_top",
    "drop_highest",
    "drop_highest_all",
    "explosion_rings",
    "roll_explosion",
    "roll_pool",
    "total_distribution",
]
