"""BrikWars' sample army ("Start from an example"): the units of the worked examples of
chapter 8 (Weaponry) of the text, each as its example builds it."""

from __future__ import annotations

from app.rules.ruleset import SampleArmy

SAMPLE_ARMY = SampleArmy(
    name="BrikWars example: the chapter 8 examples",
    budget=60,
    notes=(
        "The units of BrikWars' worked examples (chapter 8, Weaponry): the Trooper's "
        "Flamegun on Your Mama (Arc Example), Grundy's Shotgun at the wedding (BlastGun "
        "Example), Scorpiosaurus Rex's claws and BioStinger (Power Limit Example) and the "
        "Dragon's Flamethrower (Fire Example: Burnination)."
    ),
    units=(
        {"name": "Trooper", "kind": "minifig", "weapons": [{"type": "flamegun"}]},
        {"name": "Your Mama", "kind": "creation", "size": 4, "structure_level": 1},
        {"name": "Grundy", "kind": "minifig", "weapons": [{"type": "shotgun"}]},
        {"name": "Constance", "kind": "minifig", "notes": "the bride"},
        {
            "name": "Scorpiosaurus Rex",
            "kind": "creation",
            "size": 3,
            "structure_level": 1,
            "weapons": [
                {"type": "melee_weapon", "size": 1, "label": "left claw"},
                {"type": "melee_weapon", "size": 1, "label": "right claw"},
                {"type": "melee_weapon", "size": 5, "label": "BioStinger"},
            ],
        },
        {
            "name": "Dragon",
            "kind": "creation",
            "size": 3,
            "structure_level": 1,
            "propulsion": "flying",
            "weapons": [{"type": "flamethrower", "size": 3}],
        },
    ),
)
