"""The D20 Power/Reach words the pages use, explained once (``Ruleset.glossary``).

The text covers weapons and equipment only; BrikForge's RULINGS §3 fill in the figurines.
"""

from __future__ import annotations

from app.rules.ruleset import GlossaryTerm

_TEXT = "D20 Weapons and Equipment"

GLOSSARY: tuple[GlossaryTerm, ...] = (
    GlossaryTerm(
        "Shot",
        "Added to a ranged weapon's Power and 1D20: the shot wounds when it beats the PD.",
        "Rulings 3.1 Figurines; 3.3 Attacks",
    ),
    GlossaryTerm(
        "HtH",
        "Hand-to-hand: added to a melee blow's Power and 1D20.",
        "Rulings 3.1 Figurines; 3.3 Attacks",
    ),
    GlossaryTerm(
        "PD",
        "Physical Defense: an attack total greater than it wounds.",
        "Rulings 3.1 Figurines; 3.3 Attacks",
    ),
    GlossaryTerm(
        "Evasion",
        "Added to the PD against shots and blows, not explosions (lost while Shaken).",
        "Rulings 3.1 Figurines; 3.3 Attacks",
    ),
    GlossaryTerm(
        "Dex",
        "Dexterity: added to 1D20 to defuse a charge.",
        "Rulings 3.1 Figurines; 3.3 Attacks",
    ),
    GlossaryTerm(
        "CP",
        "Constitution Points: each wound removes 1; at 0 the figurine is out.",
        "Rulings 3.1 Figurines; 3.3 Attacks",
    ),
    GlossaryTerm(
        "Reach",
        "The weapon's maximum distance of effectiveness, in cm (0: hand-to-hand).",
        f"{_TEXT}, Weapons; Rulings 3.2",
        aliases=("Reach (cm)",),
    ),
    GlossaryTerm(
        "Power",
        "Added to Shot or HtH and 1D20 to make the strike's total.",
        f"{_TEXT}, Weapons; Rulings 3.2",
    ),
    GlossaryTerm(
        "Radius",
        "An explosion's radius: every figurine inside is attacked.",
        f"{_TEXT}, Grenades and charges; Rulings 3.3",
    ),
    GlossaryTerm(
        "Out",
        "The figurine has 0 Constitution Points left.",
        "Rulings 3.3 Attacks",
    ),
    GlossaryTerm(
        "Wounded",
        "The attack total was greater than the PD: the figurine loses CP.",
        "Rulings 3.3 Attacks",
    ),
    GlossaryTerm(
        "Unhurt",
        "The attack total did not beat the PD.",
        "Rulings 3.3 Attacks",
    ),
)
