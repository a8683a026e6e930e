"""D20 build-time rules (RULINGS 3.1-3.2, docs/rulings.md "D20: building"): costs in points
and the findings of a figurine and its weapons. Pure functions of a decoded figurine.

- Cost (pts) = the figurine's own points + each weapon's points: the player enters them (the
  text has no costs), default 0.
- Findings, each with its severity, each a weapon's, in a fixed order: a grenade on a
  figurine that is not an SU (error: only SUs carry grenades), a second (third...) ranged
  weapon (warning: the figurine shoots one target per turn), a gun of Reach 0 (warning: it
  reaches nothing). An army over budget (an error; a warning under ``allow_over_budget``)
  is ``RulesetBase``'s finding (its words are the same as these costs').
"""

from __future__ import annotations

from app.rules.d20.units import D20Figurine
from app.rules.ruleset import Finding, Severity


def format_pts(cost: int) -> str:
    """A cost in points: ``12 pts``."""
    return f"{cost} pts"


def unit_cost(unit: D20Figurine) -> int:
    """The figurine's own points plus every weapon's."""
    return unit.points + sum(w.points for w in unit.weapons)


def _earlier_ranged(unit: D20Figurine, index: int) -> int:
    return sum(1 for w in unit.weapons[:index] if w.ranged)


def weapon_findings(unit: D20Figurine, index: int) -> list[Finding]:
    """What the build rules say of weapon ``index`` on the figurine, in a fixed order."""
    weapon = unit.weapons[index]
    entry = weapon.equipment
    found: list[Finding] = []

    def add(severity: Severity, code: str, message: str) -> None:
        found.append(Finding(severity, code, message, None, index))

    if entry.su_only and not unit.su:
        add(
            "error",
            "su_only",
            f"only SUs carry {entry.category}s; {unit.name} is not an SU.",
        )
    if weapon.ranged and _earlier_ranged(unit, index):
        add(
            "warning",
            "one_target",
            f"{unit.name}'s second ranged weapon: a figurine with two weapons shoots one "
            "target per turn.",
        )
    if weapon.type == "gun" and weapon.reach == 0:
        add(
            "warning",
            "reach_zero",
            "Reach 0 cm: it reaches no target (a hand-to-hand weapon has Reach 0; a gun "
            "used in hand-to-hand has Power 1).",
        )
    return found


def unit_findings(unit: D20Figurine) -> list[Finding]:
    """Every finding of the figurine: its weapons' in their order (its own fields are
    bounded when it is read, so none is about the figurine alone)."""
    return [f for i in range(len(unit.weapons)) for f in weapon_findings(unit, i)]
