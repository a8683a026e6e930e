"""The BrikWars words the pages use, explained once (``Ruleset.glossary``).

References name the section of the BrikWars 2010 text (chapter 5 "Combat", chapter 8
"Weaponry") and of BrikForge's RULINGS where they settle a reading.
"""

from __future__ import annotations

from app.rules.ruleset import GlossaryTerm

_CH5 = "BrikWars 2010, ch. 5 Combat"
_CH8 = "BrikWars 2010, ch. 8 Weaponry"

GLOSSARY: tuple[GlossaryTerm, ...] = (
    GlossaryTerm(
        "Use",
        "The number the attacker's Action Roll must reach to hit with this weapon.",
        f"{_CH5}, 5.1 Making Attacks; Rulings 1.1",
    ),
    GlossaryTerm(
        "Range",
        "How far the weapon reaches in inches; CC means Close Combat (touching only). "
        "Each inch beyond it costs -1 Action and -1 on each damage die.",
        f"{_CH5}, 5.3 Ranged Combat; Rulings 1.3",
    ),
    GlossaryTerm(
        "Damage",
        "The dice rolled against the target's Armour when the attack hits.",
        f"{_CH5}, 5.1 Making Attacks; Rulings 1.2",
    ),
    GlossaryTerm(
        "Armour",
        "What Damage must beat: 4 for a minifig, 2d6 for a Hero, a d10 per Structure Level "
        "for a Creation.",
        f"{_CH5}, 5.1 Making Attacks; Rulings 1.2",
        aliases=("Armor",),
    ),
    GlossaryTerm(
        "Size",
        "How big a unit or weapon is, in inches; a Creation's Size caps its Structure Level "
        "and sets its Power.",
        f"{_CH8}, Weapon Size; Rulings 1.5",
    ),
    GlossaryTerm(
        "Move",
        "How far the unit moves in a turn, in inches.",
        "BrikWars 2010, ch. 4 Movement; Rulings 1.5",
    ),
    GlossaryTerm(
        "Power",
        "How many inches of weapons a Creation can use in one turn (twice its Size); a "
        "weapon needs its Size of Power. The builder shows used/available.",
        f"{_CH8}, Power Limit; Rulings 1.5",
    ),
    GlossaryTerm(
        "Mount",
        "How a weapon is carried: hand-held, mounted on the Creation, or on a turret.",
        "BrikForge Rulings 1.4 (Weapons of Creations)",
    ),
    GlossaryTerm(
        "Deflection",
        "Each layer removes the highest damage die before it is compared with Armour "
        "(Armor Plating, a Parry with a Shield).",
        f"{_CH8}, Armor Plating; Rulings 1.2",
        aliases=("Defl.",),
    ),
    GlossaryTerm(
        "Something Bad",
        "Damage exactly equal to Armour: the defender picks Disarmed!, Struck to the Ground!, "
        "Mortally Wounded! or an Unexpected Twist!",
        f"{_CH5}, 5.1 Making Attacks; Rulings 1.2",
    ),
    GlossaryTerm(
        "Size Damage",
        'A Creation larger than 1" hit by Damage over its Armour loses 1" of Size instead '
        "of being destroyed.",
        f"{_CH5}, 5.1 Making Attacks; Rulings 1.2",
    ),
    GlossaryTerm(
        "Destroyed",
        "Damage greater than Armour: the target is out of the battle.",
        f"{_CH5}, 5.1 Making Attacks; Rulings 1.2",
    ),
    GlossaryTerm(
        "No effect",
        'Damage below Armour: the hit bounces off ("ka-ping").',
        f"{_CH5}, 5.1 Making Attacks; Rulings 1.2",
    ),
    GlossaryTerm(
        "Miss",
        "The Action Roll fell short of the weapon's Use (or was a natural 1).",
        f"{_CH5}, 5.1 Making Attacks; Rulings 1.1",
    ),
    GlossaryTerm(
        "Over the Top",
        "A Critical Success (the die's top face) adds one more damage die to the Damage Roll.",
        f"{_CH5}, Critical Success; Rulings 1.1",
    ),
    GlossaryTerm(
        "Too Big",
        "A weapon needs more Power than the Creation has: it must Divert All Power for some "
        "turns first, or use Teamwork.",
        f"{_CH8}, Power Limit; Rulings 1.5",
    ),
    GlossaryTerm(
        "Out of Range",
        "-1 Action and -1 on each damage die for every inch (a started inch counts) beyond "
        "the weapon's Range.",
        f"{_CH5}, 5.3 Ranged Combat; Rulings 1.3",
    ),
)
