"""One unit's attacks in one turn: the weapons it fires, whether its Power allows them, their
exact odds with a step-by-step breakdown, and a seeded roll.

This is what the calculator pages and battles call. A turn is a list of attack lines: each
weapon fires on its own (a single attack, an Arc Fire, a Burst or an Explosive shot), or the
single attacks are summed into one Combined Attack. Rolls resolve the lines in order against
the target as it is after the previous line (a Creation that lost Size has weaker Armour for
the next weapon; ruling T2).

The modules, one job each: ``situation`` (the request and its limits), ``power`` (the Power
check), ``build`` (which line each weapon fires), ``lines`` (each kind of line's odds and
roll), ``breakdown`` (the step-by-step text), ``results`` (the odds and roll shapes) and
``turn`` (the Turn that ties them together).
"""

from app.rules.brikwars.turn.power import PowerCheck, power_check
from app.rules.brikwars.turn.results import (
    Effect,
    LineKind,
    LineOdds,
    LineRoll,
    Step,
    TargetLine,
    TurnOdds,
    TurnRoll,
)
from app.rules.brikwars.turn.situation import (
    MAX_ARC_TARGETS,
    MAX_DIVERT_TURNS,
    MAX_FIGURINES,
    MAX_WEAPONS,
    Ally,
    ArcFollower,
    TurnSituation,
)
from app.rules.brikwars.turn.turn import Turn

__all__ = [
    "MAX_ARC_TARGETS",
    "MAX_DIVERT_TURNS",
    "MAX_FIGURINES",
    "MAX_WEAPONS",
    "Ally",
    "ArcFollower",
    "Effect",
    "LineKind",
    "LineOdds",
    "LineRoll",
    "PowerCheck",
    "Step",
    "TargetLine",
    "Turn",
    "TurnOdds",
    "TurnRoll",
    "TurnSituation",
    "power_check",
]

# doctest.testmod(this package), as tests/rules/brikwars/test_doctests.py runs it, finds only
# objects defined here: the re-exported ones with examples are named for it.
__test__ = {"power_check": power_check}
