"""The battle page's odds: the generic template draws the shared log shape, and a ruleset's own
extends it with what only it shows (its caption, its detail, its headline)."""

from __future__ import annotations

from typing import Any

from app.web.templating import env

ODDS: dict[str, Any] = {
    "decisive": 0.75,
    "expected": 0.5,
    "labels": {"unhurt": "Unhurt", "out": "Out"},
    "lines": [
        {
            "label": "Rifle",
            "kind": "shot",
            "weapons": [0],
            "steps": [["Shot", "12"]],
            "notes": {},
            "targets": [
                {
                    "unit_id": 1,
                    "name": "Ann",
                    "outcomes": {"unhurt": 0.5, "out": 0.5},
                    "extras": {},
                },
                {"unit_id": 2, "name": "Bo", "outcomes": {"unhurt": 0.5, "out": 0.5}, "extras": {}},
            ],
        }
    ],
    "detail": {
        "wounded_count": {"0": 0.25, "1": 0.5, "2": 0.25},
        "objects": [{"dl": 5, "destroyed": 0.5}],
        "hp_left": {"3": 0.5, "0": 0.5},
        "expected_damage": 1.5,
    },
}


def _render(ruleset_id: str, shown: dict[str, Any]) -> str:
    return env.get_template(f"rulesets/{ruleset_id}/battle_odds.html").render(
        odds=ODDS, shown=shown
    )


def test_the_generic_odds_draw_every_line_target_and_step() -> None:
    html = _render("default", {"homing_in": 1})
    assert "Odds before rolling (homing in 1)" in html
    assert "Rifle → Ann" in html and "Rifle → Bo" in html
    assert 'data-label="Out">50.0%' in html and "<dt>Shot</dt><dd>12</dd>" in html
    assert "Number of figurines wounded" not in html  # a ruleset's own detail, not drawn


def test_d20_adds_its_caption_figurines_wounded_objects_and_headline() -> None:
    html = _render("d20", {"charge_power": 15, "shaken_targets": ["Ann"]})
    assert "(charges set off together: P15) (Ann Shaken: no Evasion)</caption>" in html
    assert "Rifle → Ann" in html and "<dt>Shot</dt><dd>12</dd>" in html  # the shared part
    assert "Number of figurines wounded" in html and "1: 50.0%" in html
    assert "Objects destroyed: DL 5 50.0%" in html
    assert "At least one figurine out: 75.0%" in html
    assert "At least one target destroyed" not in html  # its own headline replaces it


def test_degrees_adds_what_the_ap_left_and_what_the_target_keeps() -> None:
    html = _render("degrees", {"ap_left": 3, "carried": 2})
    assert "Odds before rolling (3 AP left, 2 carried)</caption>" in html
    assert "What the target keeps after the round" in html and "Expected damage" in html
    assert "Rifle → Bo" in html
