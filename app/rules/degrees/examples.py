"""Degrees' sample army ("Start from an example"): the units of chapter 9's worked examples
(Weapons): the SWAT's sensory dampener on a suspect, the Thinny's p-gun, the gas gunner who
over-compresses, and the Simo of the Human heavy infantry."""

from __future__ import annotations

from app.rules.ruleset import SampleArmy

_SENSES = ["audition", "vision", "analgesia", "nociception"]  # 9.5.2's dampener order

SAMPLE_ARMY = SampleArmy(
    name="Degrees example: the chapter 9 examples",
    budget=40,
    notes=(
        "The units of Degrees' worked examples (chapter 9, Weapons): the SWAT unit's 4° "
        "sensory dampener on a suspect (Audition, Vision, Analgesia, Nociception), the "
        "Thinny's 4° p-gun, the gas gunner who over-compresses a 2-max gas gun, and a Simo "
        "of the Human heavy infantry."
    ),
    units=(
        {
            "name": "SWAT",
            "kind": "personnel",
            "degree": 3,
            "ap": 4,
            "senses": _SENSES,
            "weapons": [{"type": "sensory_dampener", "degree": 4}, {"type": "p_gun", "degree": 4}],
        },
        {"name": "Suspect", "kind": "personnel", "degree": 2, "senses": _SENSES, "weapons": []},
        {
            "name": "Thinny",
            "kind": "personnel",
            "degree": 2,
            "ap": 4,
            "weapons": [{"type": "p_gun", "degree": 4}],
        },
        {
            "name": "Gas gunner",
            "kind": "personnel",
            "degree": 2,
            "ap": 6,
            "op": 2,
            "weapons": [{"type": "gas_gun", "degree": 2}],
        },
        {
            "name": "Simo",
            "kind": "personnel",
            "degree": 3,
            "human": True,
            "weapons": [{"type": "inter_offer"}, {"type": "dousing_rod", "real_ammo": True}],
        },
    ),
)
