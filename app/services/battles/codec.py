"""How a battle's log entries keep an attack: its situation, odds, dice and results as JSON.

The JSON shapes are what ``BattleEntry`` stores and what the pages and the API show:

- odds: ``{"any_destroying": p, "lines": [{"label", "kind", "weapons", "jam", "targets":
  [{"unit_id", "name", "miss", "no_effect", "something_bad", "destroyed", "size_damage",
  "on_fire"}]}]}``;
- dice: ``[{"label", "kind", "weapons", "skipped", "jammed", "dice": [{"purpose", "sides",
  "natural", "value", "bonus", "unit_id"}], "effects": [{"unit_id", "name", "outcome",
  "size_damage", "on_fire", "damage"}]}]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from app.rules.brikwars.attacks import LoggedDie
from app.rules.brikwars.serialize import number_to_json
from app.rules.brikwars.turn import TurnOdds, TurnRoll, TurnSituation


def situation_to_dict(situation: TurnSituation) -> dict[str, Any]:
    """A situation as JSON (exact numbers kept)."""
    out: dict[str, Any] = {}
    for key, value in asdict(situation).items():
        if value is None or isinstance(value, bool | str):
            out[key] = value
        else:
            out[key] = number_to_json(value)
    return out


def odds_to_dict(odds: TurnOdds, targets: Sequence[tuple[int, str]]) -> dict[str, Any]:
    """The main outcomes of every line; ``targets`` are (unit id, name) by target index."""
    return {
        "any_destroying": odds.any_destroying,
        "lines": [
            {
                "label": line.label,
                "kind": line.kind,
                "weapons": list(line.weapons),
                "jam": line.jam,
                "damage": [list(pair) for pair in line.damage],
                "steps": [[step.label, step.value] for step in line.steps],
                "targets": [
                    {
                        "unit_id": targets[t.index][0],
                        "name": targets[t.index][1],
                        "miss": t.miss,
                        "no_effect": t.no_effect,
                        "something_bad": t.something_bad,
                        "destroyed": t.destroyed,
                        "size_damage": t.size_damage,
                        "on_fire": t.on_fire,
                    }
                    for t in line.targets
                ],
            }
            for line in odds.lines
        ],
    }


def _die(die: LoggedDie, targets: Sequence[tuple[int, str]]) -> dict[str, Any]:
    return {
        "purpose": die.purpose,
        "sides": die.sides,
        "natural": die.natural,
        "value": die.value,
        "bonus": die.bonus,
        "unit_id": None if die.target is None else targets[die.target][0],
    }


def roll_to_dict(roll: TurnRoll, targets: Sequence[tuple[int, str]]) -> list[dict[str, Any]]:
    """Every line of a rolled turn with every die and what it did to whom."""
    return [
        {
            "label": line.label,
            "kind": line.kind,
            "weapons": list(line.weapons),
            "skipped": line.skipped,
            "jammed": line.jammed,
            "dice": [_die(d, targets) for d in line.dice],
            "effects": [
                {
                    "unit_id": targets[e.target][0],
                    "name": targets[e.target][1],
                    "outcome": e.outcome,
                    "size_damage": e.size_damage,
                    "on_fire": e.on_fire,
                    "damage": e.damage,
                }
                for e in line.effects
                if e.target < len(targets)
            ],
        }
        for line in roll.lines
    ]


def burning_roll_to_dict(die: LoggedDie, unit_id: int) -> list[dict[str, Any]]:
    """A Burning Roll's die in the dice shape of an attack (one line, no effects)."""
    return [
        {
            "label": "Burning Roll",
            "kind": "burning",
            "weapons": [],
            "skipped": "",
            "jammed": False,
            "dice": [
                {
                    "purpose": die.purpose,
                    "sides": die.sides,
                    "natural": die.natural,
                    "value": die.value,
                    "bonus": die.bonus,
                    "unit_id": unit_id,
                }
            ],
            "effects": [],
        }
    ]
