"""The Degrees words the pages use, explained once (``Ruleset.glossary``).

The text is chapter 9 of a larger game; BrikForge's RULINGS §2 fill in units and rolls.
"""

from __future__ import annotations

from app.rules.ruleset import GlossaryTerm

_CH9 = "Degrees ch. 9 Weapons"

GLOSSARY: tuple[GlossaryTerm, ...] = (
    GlossaryTerm(
        "Degree",
        "A unit's or weapon's grade, 1 to 10: a d10 roll at or under the degree succeeds.",
        f"{_CH9}, 9.1 Weapon Degrees; Rulings 2.1",
    ),
    GlossaryTerm(
        "Scale",
        "Personnel, Vehicular or Army: which table of chapter 9 the unit and its weapons use.",
        f"{_CH9}, 9.2 to 9.4; Rulings 2.2",
    ),
    GlossaryTerm(
        "Armour",
        "Front Armour, removed first by damage (back-line Armour protects the HP).",
        "Rulings 2.2 Units",
        aliases=("Armor",),
    ),
    GlossaryTerm(
        "HP",
        "Back-line hit points: at 0 the unit is destroyed, at 1 critically wounded.",
        "Rulings 2.2 Units",
    ),
    GlossaryTerm(
        "AP",
        "Action points per round: 1 to attack, 1 more for each extended degree.",
        "Rulings 2.1 Rolls; 2.3 Weapons",
    ),
    GlossaryTerm(
        "OP",
        "Points spent to move a roll's degree 1 in the roller's favour.",
        "Rulings 2.1 Rolls",
    ),
    GlossaryTerm(
        "Back line",
        "Whether the weapon's damage can go straight to the back line (HP).",
        f"{_CH9}; Rulings 2.2 Units",
    ),
    GlossaryTerm(
        "Critically wounded",
        "The unit is left with 1 HP.",
        "Rulings 2.2 Units",
    ),
    GlossaryTerm(
        "Type",
        "The weapon's kind (ballistic, direct radiation, gas gun...): its special rules follow.",
        f"{_CH9}, 9.5 Special Rules for Different Weapons; Rulings 2.3",
    ),
    GlossaryTerm(
        "Destroyed",
        "The unit's HP reached 0.",
        "Rulings 2.2 Units",
    ),
    GlossaryTerm(
        "Wounded",
        "The unit lost HP but has more than 1 left.",
        "Rulings 2.2 Units",
    ),
    GlossaryTerm(
        "Armour lost",
        "The damage stopped at the unit's Armour: it has less Armour left, its HP untouched.",
        "Rulings 2.2 Units",
    ),
    GlossaryTerm(
        "AP lost",
        "A stun gun or sensory dampener took action points instead of HP.",
        "Rulings 2.4 Attacks",
    ),
    GlossaryTerm(
        "Unharmed",
        "The attack failed or did nothing.",
        "Rulings 2.1 Rolls",
    ),
)
