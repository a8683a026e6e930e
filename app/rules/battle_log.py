"""What a battle's log keeps of an attack, in the shape rulesets built on the interface's
shared results write it (Degrees and D20: their ``log_odds`` and ``log_roll``), and the reading
of a named action's fields.

The odds: ``{"decisive", "expected", "labels": {key: label}, "lines": [{"label", "kind",
"weapons", "steps", "notes": {key: p}, "targets": [{"unit_id", "name", "outcomes": {key: p},
"extras": {key: p}, "figure", "figures"}]}], "detail": <the ruleset's own>, "tallies": [{"key",
"label", "distribution", "expected"}]}``; the dice: ``[{"label", "kind", "weapons", "skipped",
"jammed", "notes", "dice": [{"purpose", "sides", "natural", "value", "bonus", "unit_id"}],
"effects": [{"unit_id", "name", "outcome", "damage", "flags", "amount", "words"}]}]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.rules.errors import InvalidInput
from app.rules.fields import FieldValue, parse_fields
from app.rules.ruleset.fighters import Fighter, UnitAction
from app.rules.ruleset.figures import JSON
from app.rules.ruleset.odds import AttackOdds, AttackRoll


def _names(targets: Sequence[Fighter]) -> list[tuple[int | None, str]]:
    return [(t.key, t.name) for t in targets]


def _who(names: list[tuple[int | None, str]], index: int | None) -> tuple[int | None, str]:
    if index is None or not 0 <= index < len(names):
        return None, ""
    return names[index]


def odds_json(targets: Sequence[Fighter], odds: AttackOdds) -> JSON:
    """The odds as the log keeps them, each target named by its battle unit's id."""
    names = _names(targets)
    labels: dict[str, str] = {}
    lines = []
    for line in odds.lines:
        shown = []
        for t in line.targets:
            labels |= {o.key: o.label for o in t.outcomes + t.extras}
            key, name = _who(names, t.target)
            shown.append(
                {
                    "unit_id": key,
                    "name": name,
                    "outcomes": {o.key: o.probability for o in t.outcomes},
                    "extras": {o.key: o.probability for o in t.extras},
                    "figure": t.figure,
                    "figures": t.figures,
                }
            )
        lines.append(
            {
                "label": line.label,
                "kind": line.kind,
                "weapons": list(line.weapons),
                "steps": [list(step) for step in line.steps],
                "notes": {n.key: n.probability for n in line.notes},
                "targets": shown,
            }
        )
    return {
        "decisive": odds.decisive,
        "expected": odds.expected,
        "labels": labels,
        "lines": lines,
        "detail": dict(odds.detail),
        "tallies": tallies_json(odds),
    }


def tallies_json(odds: AttackOdds) -> list[JSON]:
    """The odds' tallies (``AttackOdds.tallies``) as the log keeps them."""
    return [
        {
            "key": t.key,
            "label": t.label,
            "distribution": list(t.distribution),
            "expected": t.expected,
        }
        for t in odds.tallies
    ]


def roll_json(targets: Sequence[Fighter], roll: AttackRoll) -> list[JSON]:
    """The rolled lines as the log keeps them: every die, and each target's effect."""
    names = _names(targets)
    return [
        {
            "label": line.label,
            "kind": line.kind,
            "weapons": list(line.weapons),
            "skipped": line.skipped,
            "jammed": False,
            "notes": list(line.notes),
            "dice": [
                {
                    "purpose": d.purpose,
                    "sides": d.sides,
                    "natural": d.natural,
                    "value": d.value,
                    "bonus": d.bonus,
                    "unit_id": _who(names, d.target)[0],
                }
                for d in line.dice
            ],
            "effects": [
                {
                    "unit_id": _who(names, e.target)[0],
                    "name": _who(names, e.target)[1],
                    "outcome": e.outcome,
                    "damage": e.damage,
                    "flags": list(e.flags),
                    "amount": e.amount,
                    "words": e.words,
                }
                for e in line.effects
            ],
        }
        for line in roll.lines
    ]


def read_action(
    actions: Sequence[UnitAction], name: str, values: Mapping[str, Any]
) -> tuple[UnitAction, dict[str, FieldValue]]:
    """The named action and its field values (others in ``values`` ignored: a form carries
    every action's); an unknown action or a bad value is refused by name."""
    named = next((a for a in actions if a.name == name), None)
    if named is None:
        raise InvalidInput("action", f"no such action: {name}")
    wanted = {f.name for f in named.fields}
    read, errors = parse_fields(named.fields, {k: v for k, v in values.items() if k in wanted})
    if errors:
        field, reason = next(iter(errors.items()))
        raise InvalidInput(field, reason)
    return named, read


def odds_words(odds: Mapping[str, Any], words: Mapping[str, str]) -> list[str]:
    """Odds as ``odds_json`` keeps them, a line of text per attack line and target (the forum
    export): each outcome or extra that may happen, by its label (else ``words``)."""
    labels: Mapping[str, str] = odds.get("labels", {})
    out = []
    for line in odds.get("lines", []):
        for t in line.get("targets", []):
            parts = [
                f"{labels.get(k, words.get(k, k))} {100 * p:.1f}%"
                for k, p in {**t.get("outcomes", {}), **t.get("extras", {})}.items()
                if p > 0
            ]
            out.append(f"{line['label']} on {t['name']}: " + ", ".join(parts))
    return out


def action_line(action: UnitAction, who: str, dice: Sequence[JSON]) -> JSON:
    """A named action's dice as one log line (``roll_json``'s shape, no effects)."""
    return {
        "label": action.label.replace("{unit}", who).replace(": " + who, ""),
        "kind": action.name,
        "weapons": [],
        "skipped": "",
        "jammed": False,
        "dice": list(dice),
        "effects": [],
    }
