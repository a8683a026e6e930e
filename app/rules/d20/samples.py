"""Three attacks typical of D20 (the conformance suite rolls them): a single shot,
automatic fire, a grenade on figurines and objects."""

from __future__ import annotations

from typing import Any

from app.rules.ruleset import SampleAttack


def _fig(name: str, weapons: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "kind": more.pop("kind", "figurine"),
        "shot": more.pop("shot", 8),
        "hth": more.pop("hth", 6),
        "pd": more.pop("pd", 20),
        "evasion": more.pop("evasion", 2),
        "dexterity": more.pop("dexterity", 5),
        "cp": more.pop("cp", 2),
        "points": more.pop("points", 10),
        "weapons": weapons,
    }


RIFLE = {
    "type": "gun",
    "name": "Assault rifle",
    "reach": 60,
    "power": 6,
    "automatic": True,
    "points": 4,
}
SAMPLE_ATTACKS: tuple[SampleAttack, ...] = (
    SampleAttack(
        "a single shot with an assault rifle",
        _fig("Trooper", [RIFLE]),
        (0,),
        (_fig("Chronos", [], pd=18, evasion=2, cp=1),),
        {"mode": "shot", "distance": 40},
    ),
    SampleAttack(
        "automatic fire at four figurines",
        _fig("Gunner", [RIFLE], shot=10),
        (0,),
        tuple(_fig(f"Chronos {n}", [], pd=14 + 2 * n, evasion=1) for n in range(1, 5)),
        {"mode": "automatic", "distance": 30},
    ),
    SampleAttack(
        "a Defensive Grenade on three figurines and two objects",
        _fig("SU", [{"type": "defensive_grenade"}], kind="su"),
        (0,),
        (_fig("A", [], pd=30, cp=3), _fig("B", [], pd=35, evasion=4), _fig("C", [], pd=40)),
        {"mode": "explosion", "distance": 15, "cover": True, "objects": "10, 40"},
    ),
)
