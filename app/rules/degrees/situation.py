"""How a Degrees attacker spends its round: the situation's fields and the situation they
read into."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.rules.degrees.catalogue import MEDIA, RANGES
from app.rules.errors import InvalidInput
from app.rules.fields import InputField, parse_fields

MAX_SHOTS = 10


SITUATION_FIELDS: tuple[InputField, ...] = (
    InputField("range", "Range", "choice", "close", choices=tuple(RANGES.items())),
    InputField(
        "medium",
        "Medium",
        "choice",
        "medium",
        choices=tuple((k, v.split(" (")[0]) for k, v in MEDIA.items()),
        help="Punch guns' range penalties",
    ),
    InputField(
        "bloom", "Bloom level", "whole", 0, low=0, high=10, help="-1° to energy weapons per level"
    ),
    InputField(
        "revealed",
        "Target revealed",
        "flag",
        False,
        help="Inter-offers: +1° at Very Far",
    ),
    InputField(
        "set_degree",
        "Set to degree",
        "whole",
        0,
        low=0,
        high=10,
        help="0: the weapon's max",
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
    ),
    InputField("shots", "Shots with each weapon", "whole", 1, low=1, high=MAX_SHOTS),
    InputField(
        "penetrate",
        "Penetrating hits",
        "choice",
        "best",
        choices=(("best", "Back line if worse"), ("never", "Always front")),
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
    InputField("pump", "AP pumped into a gas gun", "whole", 0, low=0, high=12),
    InputField("drawn", "P-gun already drawn", "flag", False),
    InputField(
        "stay_hidden",
        "Stay hidden (+1 AP)",
        "flag",
        False,
        help="Classical ballistics: no reveal",
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
    pump: int = 0
    drawn: bool = False
    stay_hidden: bool = False
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
