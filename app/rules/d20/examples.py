"""D20 Power/Reach's sample army ("Start from an example"): the worked examples of the
weapons and equipment text: a Genetic SU (FCA) with its Searing Grenade and a demolition
charge, and the Psy Chronos holding the hall."""

from __future__ import annotations

from app.rules.ruleset import SampleArmy

SAMPLE_ARMY = SampleArmy(
    name="D20 example: the hall of the Psy Chronos",
    budget=60,
    notes=(
        "The weapons text's worked examples: a Genetic SU (FCA) throws its Searing Grenade "
        "into a hall held by Psy Chronos (three are Shaken), and sets off a Hurricane-type "
        "charge (P15/r10) against the cupboard blocking the hallway."
    ),
    units=(
        {
            "name": "Genetic SU",
            "kind": "su",
            "shot": 8,
            "hth": 6,
            "pd": 12,
            "evasion": 3,
            "dexterity": 9,
            "cp": 3,
            "points": 10,
            "weapons": [
                {
                    "type": "gun",
                    "name": "Assault rifle",
                    "reach": 60,
                    "power": 6,
                    "automatic": True,
                    "points": 4,
                },
                {"type": "searing_grenade", "points": 2},
                {"type": "hurricane_charge", "points": 3},
            ],
        },
        {
            "name": "Psy Chrono",
            "kind": "figurine",
            "count": 3,
            "shot": 7,
            "pd": 14,
            "evasion": 6,
            "dexterity": 4,
            "cp": 2,
            "points": 5,
            "weapons": [
                {"type": "gun", "name": "Psy pistol", "reach": 30, "power": 5, "points": 1}
            ],
        },
    ),
)
