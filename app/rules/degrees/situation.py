"""How a Degrees attacker spends its round: the situation's fields, each declaring ``when`` it
applies, and the situation they read into.

A field that only some weapon types' rules read (9.5: punch guns' media, gas guns' pumping,
a p-gun's drawing, a classical ballistic's reveal, a stun gun's restraint) applies when one
of the chosen weapons is of such a type (the ``weapon_type`` switch: the weapons' catalogue
ids); the rest apply to every attack.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.rules.degrees.catalogue import (
    INCANDESCENT_FROM,
    MEDIA,
    RANGES,
    SENSES,
    VISIBILITY,
    WEAPON_TYPES,
    WEAPONS,
    WeaponType,
)
from app.rules.errors import InvalidInput
from app.rules.fields import WEAPON_TYPE, InputField, parse_fields

MAX_SHOTS = 10


def weapons_whose(rule: Callable[[WeaponType], bool]) -> tuple[tuple[str, tuple[str, ...]]]:
    """A field's ``when``: one of the chosen weapons is of a type that ``rule`` holds for."""
    return ((WEAPON_TYPE, tuple(w.id for w in WEAPONS.values() if rule(WEAPON_TYPES[w.type]))),)


def _penetrate_matters(kind: WeaponType) -> bool:
    """Whether the attacker's choice of the back line changes what a hit does: the type may
    penetrate (RULINGS 2.2) and, for an AP-draining one, a back-line hit does more."""
    can = not kind.never_penetrates and not kind.inverted and kind.penetrates_on > 0
    return can and (not kind.drains_ap or kind.back_line_bonus > 0)


GAS_GUNS = weapons_whose(lambda kind: kind.gas)
CLASSICAL = weapons_whose(lambda kind: kind.ballistic == "classical")
BLOOMING = weapons_whose(lambda kind: kind.energy or kind.senses)  # radiation weapons


def _range_matters(kind: WeaponType) -> bool:
    """Whether the range changes the type's attack: a gas gun's pumping, a punch gun's
    penalties, a Flashback's band bonus, an inter-offer's Very Far bonus, direct radiation's
    horizon, a ballistic's range in space (9.5); a blade's or an explosive's reads none."""
    return bool(
        kind.gas
        or kind.punch
        or kind.band_bonus
        or kind.very_far_revealed_bonus
        or kind.no_very_far
        or kind.ballistic
    )


SITUATION_FIELDS: tuple[InputField, ...] = (
    InputField(
        "range",
        "Range",
        "choice",
        "close",
        choices=tuple(RANGES.items()),
        when=weapons_whose(_range_matters),
    ),
    InputField(
        "medium",
        "Medium",
        "choice",
        "medium",
        choices=tuple((k, v.split(" (")[0]) for k, v in MEDIA.items()),
        help="Punch guns' range penalties",
        when=weapons_whose(lambda kind: kind.punch),
    ),
    # every weapon: energy weapons lose a degree per level, all of them one when incandescent
    InputField(
        "bloom", "Bloom level", "whole", 0, low=0, high=10, help="-1° to energy weapons per level"
    ),
    InputField(
        "revealed",
        "Target revealed",
        "flag",
        False,
        help="Inter-offers: +1° at Very Far",
        when=(("range", ("very_far",)), *weapons_whose(lambda kind: kind.very_far_revealed_bonus)),
    ),
    InputField(
        "set_degree",
        "Set to degree",
        "whole",
        0,
        low=0,
        high=10,
        help="0: the weapon's max",
        when=weapons_whose(lambda kind: not kind.gas),  # a gas gun's degree is its pumping
    ),
    InputField("extend", "Extended degrees (AP each)", "whole", 0, low=0, high=10),
    InputField("op", "OP spent on each shot", "whole", 0, low=0, high=10),
    InputField(
        "compress_op",
        "OP on the first over-compression roll",
        "whole",
        0,
        low=0,
        high=10,
        help="Gas guns",
        when=GAS_GUNS,
    ),
    InputField("shots", "Shots with each weapon", "whole", 1, low=1, high=MAX_SHOTS),
    InputField(
        "penetrate",
        "Penetrating hits",
        "choice",
        "best",
        choices=(("best", "Back line if worse"), ("never", "Always front")),
        when=weapons_whose(_penetrate_matters),
    ),
    InputField(
        "carried",
        "AP carried from last round",
        "whole",
        0,
        low=0,
        high=12,
        help="A begun attack, or AP pumped into a gas gun",
    ),
    InputField(
        "pump",
        "AP pumped into a gas gun",
        "whole",
        None,
        low=0,
        high=12,
        optional=True,
        help="Empty: the AP that reach the range, within the round's AP",
        when=GAS_GUNS,
    ),
    InputField(
        "drawn",
        "P-gun already drawn",
        "flag",
        False,
        when=weapons_whose(lambda kind: kind.draw_ap > 0),
    ),
    InputField(
        "stay_hidden",
        "Stay hidden (+1 AP)",
        "flag",
        False,
        help="Classical ballistics: no reveal",
        when=CLASSICAL,
    ),
    InputField(
        "visibility",
        "Attacker's visibility",
        "choice",
        "fogged",
        choices=tuple(VISIBILITY.items()),
        help="A classical ballistic's shot reveals it a step (fogged, concealed, revealed)",
        when=CLASSICAL,
    ),
    InputField(
        "dampened",
        "Attacker's senses dampened",
        "whole",
        0,
        low=0,
        high=len(SENSES),
        help="The first N of its dampener order: Fine Motor -1°, Nociception its place in AP",
    ),
    InputField(
        "environment",
        "Incandescent bloom's 1° attack on the target first",
        "flag",
        False,
        help="At the beginning of each round, on each unit in the hex",
        when=(("bloom", tuple(str(n) for n in range(INCANDESCENT_FROM, 11))),),
    ),
    InputField(
        "stun_bloom",
        "Bloom reduced with the degree",
        "flag",
        False,
        help="Set to stun: radiation weapons' bloom in lock-step with the degree",
        when=(("set_degree", tuple(str(n) for n in range(1, 10))), *BLOOMING),
    ),
    InputField(
        "jump_op",
        "OP spent to fire the jump flash",
        "whole",
        0,
        low=0,
        high=99,
        help="The text: 'costs loads of OPs'; how many is the players' to agree",
        when=weapons_whose(lambda kind: kind.id == "jump_flash"),
    ),
    InputField(
        "ap",
        "AP this round",
        "whole",
        None,
        low=0,
        high=12,
        optional=True,
        help="Empty: the unit's AP per round",
    ),
    InputField(
        "break_free",
        "Target tries to break free",
        "flag",
        False,
        help="Stun guns",
        when=weapons_whose(lambda kind: kind.restrains),
    ),
)
LOCATION = InputField(
    "location",
    "Location",
    "choice",
    "here",
    choices=(("here", "Here"), ("close", "Close (-1°)"), ("far", "Far (-2°)")),
)
TARGET_FIELDS: tuple[InputField, ...] = (LOCATION,)


@dataclass(frozen=True, slots=True)
class DegreesSituation:
    """How the attacker spends its round (see ``SITUATION_FIELDS``)."""

    range: str = "close"
    medium: str = "medium"
    bloom: int = 0
    revealed: bool = False
    set_degree: int = 0
    extend: int = 0
    op: int = 0
    compress_op: int = 0
    shots: int = 1
    penetrate: str = "best"
    carried: int = 0
    pump: int | None = None  # None: the AP that reach the range (``plan``)
    drawn: bool = False
    stay_hidden: bool = False
    visibility: str = "fogged"
    dampened: int = 0
    environment: bool = False
    stun_bloom: bool = False
    jump_op: int = 0
    ap: int | None = None
    break_free: bool = False


def read_situation(values: Mapping[str, Any]) -> DegreesSituation:
    """The situation from its field values (missing: defaults); InvalidInput names a field."""
    for key in values:
        if key not in {f.name for f in SITUATION_FIELDS}:
            raise InvalidInput(str(key), "is not a situation field")
    parsed, errors = parse_fields(SITUATION_FIELDS, values)
    if errors:
        field, reason = next(iter(errors.items()))
        raise InvalidInput(field, reason)
    return DegreesSituation(**parsed)  # type: ignore[arg-type]
