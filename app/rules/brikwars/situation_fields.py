"""The attack situation's inputs, declared once: names, labels, kinds, defaults and bounds.

The calculator page's query string, its JSON API and the battle routes all read the situation
through these fields (``situation_from_input``), so a value is refused the same way through
every door, and a calculation is written back as the inputs that make it
(``situation_to_input``).

>>> situation, errors = situation_from_input({"distance": "2.5", "arc": "13"})
>>> situation.distance, situation.arc, errors
(Fraction(5, 2), 1, {'arc': 'must be from 1 to 12'})
>>> situation_to_input(situation)
{'distance': '2.5'}

A Burst or an Arc applies only where a weapon fired can make one:

>>> burst = next(f for f in SITUATION_FIELDS if f.name == "burst")
>>> burst.applies({}, ("gun", "machinegun")), burst.applies({}, ("flamethrower",))
(True, False)
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from app.rules.brikwars.attacks.build import AUTO_WEAPONS
from app.rules.brikwars.catalogue import catalogue
from app.rules.brikwars.turn import MAX_ARC_TARGETS, MAX_DIVERT_TURNS, TurnSituation
from app.rules.errors import InvalidInput
from app.rules.fields import WEAPON_TYPE, InputField, format_field, parse_fields

MAX_INCHES = 1000
MAX_SUPPORT = 100  # Gunnery Support and Homing In: far beyond any table
MAX_BURST = 20

SMALL_PARTS = (("2x2", "2x2 studs (-1)"), ("1x1", "1x1 stud (-2)"))
# The weapons that fire a Burst (a MachineGun or an AutoGun) and an Arc of several points
# (those and the FlameThrowers; a BlastGun's spray is its own): ``attacks.build.AUTO_WEAPONS``.
BURST_WEAPONS = tuple(t for t, auto in AUTO_WEAPONS.items() if auto == "machinegun")
ARC_WEAPONS = tuple(t for t, auto in AUTO_WEAPONS.items() if auto != "blastgun")
# The weapons a Charge may add its MOM to: Close Combat weapons (5.4: "A Charging attack is
# treated as a special kind of Close Combat maneuver"; bare hands for a body slam).
CLOSE_COMBAT = tuple(w.id for w in catalogue() if w.category == "close_combat")
# The weapons whose shot can explode: the Explosives, and those Ammo or a Payload loads.
BLAST_WEAPONS = tuple(
    w.id for w in catalogue() if w.category == "explosive" or w.takes_ammo or w.takes_payload
)


def _inches(name: str, label: str, default: Fraction | None, help: str) -> InputField:
    return InputField(
        name, label, "inches", default, high=MAX_INCHES, help=help, optional=default is None
    )


# In TurnSituation's order: the calculator's URLs list the fields in this order.
SITUATION_FIELDS: tuple[InputField, ...] = (
    _inches("distance", "Distance", None, "inches"),
    _inches("height", "Height above target", Fraction(0), "inches above the target"),
    InputField(
        "visible_sections",
        "Minifig target: visible sections",
        "whole",
        3,
        low=1,
        high=3,
        help="of a minifig target",
    ),
    _inches(
        "visible_size",
        "Larger target: visible Size",
        None,
        "inches of a larger target in view (cover)",
    ),
    InputField(
        "small",
        "Aiming at a small part",
        "choice",
        None,
        choices=SMALL_PARTS,
        help="aiming at a part",
        optional=True,
    ),
    InputField("firing_blind", "Firing blind (-5)", "flag", False),
    InputField("outnumbered", "Outnumbered (-1)", "flag", False),
    InputField(
        "gunnery_support",
        "Gunnery Support (+1 each)",
        "whole",
        0,
        high=MAX_SUPPORT,
        help="supporting Gunners",
    ),
    InputField(
        "homing_in", "Homing In bonus", "whole", 0, high=MAX_SUPPORT, help="Gunnery bonus kept"
    ),
    InputField("gunner", "Fired by a Gunner (d8)", "flag", False),
    InputField(
        "charge",
        "Charge: spend MOM (+1 Action die of Damage)",
        "flag",
        False,
        help="a Charging attack with a Close Combat weapon (5.4)",
        when=((WEAPON_TYPE, CLOSE_COMBAT),),
    ),
    InputField(
        "arc",
        "Arc points (MachineGun, FlameThrower)",
        "whole",
        1,
        low=1,
        high=MAX_ARC_TARGETS,
        help="points of Firing Arc",
        when=((WEAPON_TYPE, ARC_WEAPONS),),
    ),
    InputField(
        "burst",
        "Burst shots (MachineGun)",
        "whole",
        0,
        high=MAX_BURST,
        help="shots of a MachineGun Burst",
        when=((WEAPON_TYPE, BURST_WEAPONS),),
    ),
    InputField(
        "combined",
        "Combined Attack (sum the weapons' Damage)",
        "flag",
        False,
        help="sum the single attacks (Combined)",
    ),
    InputField(
        "divert_turns",
        "Turns of Diverted Power saved",
        "whole",
        0,
        high=MAX_DIVERT_TURNS,
        help="turns of Power saved, spent now",
    ),
    _inches("teamwork", "Teamwork Power lent", Fraction(0), "inches of Power lent"),
)

# A further target of Arc Fire: its distance, and the full points of Arc before it (an Arc
# has at most MAX_ARC_TARGETS points).
FOLLOWER_DISTANCE = InputField(
    "distance", "Its distance", "inches", None, high=MAX_INCHES, help="inches", optional=True
)
FOLLOWER_SPANS = InputField(
    "spans", "Full points of Arc", "whole", 0, high=MAX_ARC_TARGETS, help="full points of Arc"
)

# A further target in an Explosive's blast (aimed at the main target, the blast centre): its
# distance from that centre, which decides its ring (ruling T8). An Arc reads ``distance``
# (from the attacker) instead: a turn may fire both.
FOLLOWER_BLAST = InputField(
    "blast_distance",
    "From the blast centre",
    "inches",
    None,
    high=MAX_INCHES,
    help='inches from the main target (the blast centre); ring 0 within 2", then every 2"',
    optional=True,
    when=((WEAPON_TYPE, BLAST_WEAPONS),),
)

# A battle keeps each unit's Homing In itself: its attack requests don't carry it.
BATTLE_SITUATION_FIELDS = tuple(f for f in SITUATION_FIELDS if f.name != "homing_in")


def situation_from_input(data: Mapping[str, Any]) -> tuple[TurnSituation, dict[str, str]]:
    """The situation ``data`` describes (form text, a query string or JSON values; a missing
    or empty field takes its default) and the fields refused, field -> reason. A refused
    field keeps its default, so the rest of the situation still counts."""
    values, errors = parse_fields(SITUATION_FIELDS, data)
    try:
        return TurnSituation(**values), errors  # type: ignore[arg-type]
    except InvalidInput as err:  # defensive: the fields' bounds already hold the engine's
        errors[err.field] = err.reason
        return TurnSituation(), errors


def situation_to_input(situation: TurnSituation) -> dict[str, str]:
    """The inputs that give ``situation`` back, as a form or query string carries them;
    defaults are left out."""
    out: dict[str, str] = {}
    for field in SITUATION_FIELDS:
        value = getattr(situation, field.name)
        if value != field.default:
            out[field.name] = format_field(field, value)
    return out
