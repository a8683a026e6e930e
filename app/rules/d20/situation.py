"""A D20 attack's situation: its mode (a shot, a blow, automatic fire, an explosion or a
defusing), the fields that describe it, each declaring the modes it applies to (``when``),
and the targets as an attack sees them (``Placed``).

What applies where (d20-weapons-and-equipment.txt; RULINGS 3.3): a distance is measured to
the target of a shot or automatic fire, or to a grenade's blast point (a blow is struck in
base contact; mines and charges are placed); cover counts against explosions only, and a
target's height only against a grenade's (it hits up to 5 cm above); the modifier counts
wherever a D20 is rolled against the targets, so not in a defusing (Dexterity + 1D20 against
the charge's DL, which is given for defusing only); a target Shaken (no Evasion) counts
against shots and blows only, since an explosion is set against PD alone ("Power of the
explosion + 1 D20 / Physical Defense"); objects are caught in explosions only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.rules.d20.catalogue import EQUIPMENT
from app.rules.d20.units import REACH_MAX, D20Figurine
from app.rules.errors import InvalidInput
from app.rules.fields import WEAPON_TYPE, InputField, parse_fields
from app.rules.ruleset import TargetInput

# The most figurines an attack counts, over all its targets (a squad of N standing where the
# attack reaches is N of them): 10 squads of 5 fit, and the odds of 60 stay a few ms.
MAX_TARGETS = 60
MAX_OBJECTS = 20
DL_MAX = 200
HEIGHT_MAX = 200  # cm
DISTANCE_MAX = REACH_MAX
MODES = (
    ("shot", "Single shot"),
    ("blow", "Hand-to-hand blow"),
    ("automatic", "Automatic fire"),
    ("explosion", "Explosion (grenade, mine, charges)"),
    ("defuse", "Defuse a charge"),
)
EXPLOSIVES = ("grenade", "mine", "charge")
GRENADES = tuple(e.id for e in EQUIPMENT.values() if e.category == "grenade")

# when a situation field applies (``InputField.when``)
# the distance is to a gun's target or a grenade's blast point: a mine or a charge has none
RANGED = tuple(e.id for e in EQUIPMENT.values() if e.category in ("gun", "grenade"))
AIMED = (("mode", ("shot", "automatic", "explosion")), (WEAPON_TYPE, RANGED))
STRIKING = (("mode", ("shot", "blow", "automatic", "explosion")),)
DODGEABLE = (("mode", ("shot", "blow", "automatic")),)  # against PD + Evasion
EXPLOSION = (("mode", ("explosion",)),)
GRENADE_BLAST = (*EXPLOSION, (WEAPON_TYPE, GRENADES))
DEFUSING = (("mode", ("defuse",)),)

SITUATION_FIELDS: tuple[InputField, ...] = (
    InputField("mode", "Attack", "choice", "shot", choices=MODES),
    InputField(
        "distance",
        "Distance (cm)",
        "whole",
        0,
        low=0,
        high=DISTANCE_MAX,
        help="To the target, or to a grenade's blast point; at most the weapon's Reach",
        when=AIMED,
    ),
    InputField(
        "modifier",
        "Modifier",
        "whole",
        0,
        low=-20,
        high=20,
        help="Bonuses and maluses",
        when=STRIKING,
    ),
    InputField(
        "cover",
        "First target in cover",
        "flag",
        False,
        help="Against explosions that cover protects from",
        when=EXPLOSION,
    ),
    InputField(
        "height",
        "First target's height (cm)",
        "whole",
        0,
        low=0,
        high=HEIGHT_MAX,
        help="Above the blast's level: grenades hit up to 5 cm above",
        when=GRENADE_BLAST,
    ),
    InputField("shaken", "First target Shaken", "flag", False, help="No Evasion", when=DODGEABLE),
    InputField(
        "objects",
        "Objects' DLs",
        "text",
        "",
        high=200,
        help=f"In the blast: their DLs, comma-separated, at most {MAX_OBJECTS}",
        when=EXPLOSION,
    ),
    InputField(
        "dl",
        "Charge's DL",
        "whole",
        None,
        low=0,
        high=DL_MAX,
        optional=True,
        help="Defusing: empty for the chosen charges' Power",
        when=DEFUSING,
    ),
)
TARGET_FIELDS: tuple[InputField, ...] = (
    InputField("cover", "In cover", "flag", False, when=EXPLOSION),
    InputField("height", "Height (cm)", "whole", 0, low=0, high=HEIGHT_MAX, when=GRENADE_BLAST),
    InputField("shaken", "Shaken", "flag", False, when=DODGEABLE),
)
_SITUATION_NAMES = frozenset(f.name for f in SITUATION_FIELDS)
_TARGET_NAMES = frozenset(f.name for f in TARGET_FIELDS)


@dataclass(frozen=True, slots=True)
class D20Situation:
    """The situation of an attack (see ``SITUATION_FIELDS``)."""

    mode: str = "shot"
    distance: int = 0
    modifier: int = 0
    cover: bool = False
    height: int = 0
    shaken: bool = False
    objects: str = ""
    dl: int | None = None


def read_objects(text: str) -> tuple[int, ...]:
    """The objects' DLs from their comma-separated text; InvalidInput names ``objects``."""
    parts = [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]
    if len(parts) > MAX_OBJECTS:
        raise InvalidInput("objects", f"at most {MAX_OBJECTS} objects")
    out: list[int] = []
    for part in parts:
        if not part.isdigit() or int(part) > DL_MAX:
            raise InvalidInput("objects", f"each DL must be a whole number from 0 to {DL_MAX}")
        out.append(int(part))
    return tuple(out)


def read_situation(values: Mapping[str, Any]) -> D20Situation:
    """The situation from its field values (missing: defaults); InvalidInput names a field."""
    for key in values:
        if key not in _SITUATION_NAMES:
            raise InvalidInput(str(key), "is not a situation field")
    parsed, errors = parse_fields(SITUATION_FIELDS, values)
    if errors:
        field, reason = next(iter(errors.items()))
        raise InvalidInput(field, reason)
    situation = D20Situation(**parsed)  # type: ignore[arg-type]
    read_objects(situation.objects)
    return situation


@dataclass(frozen=True, slots=True)
class Placed:
    """A target as the attack sees it: its Physical Defense, Evasion (0 while Shaken), CP
    left, where it stands and how many alike figurines of a squad stand there. A shot or a
    blow is set against ``defence`` (PD + Evasion), an explosion against ``pd`` alone
    (RULINGS 3.3: Evasion dodges shots and blows, not a blast)."""

    pd: int
    evasion: int
    cp: int
    cover: bool = False
    height: int = 0
    shaken: bool = False
    figures: int = 1  # a squad's figurines where the attack reaches (TargetInput.figures)

    @property
    def defence(self) -> int:
        """Against a shot or a blow: PD + Evasion, PD alone while Shaken."""
        return self.pd + (0 if self.shaken else self.evasion)


def check_figures(counts: Sequence[object]) -> None:
    """Each target's ``figures`` a whole number from 1, and at most ``MAX_TARGETS``
    figurines over all targets: checked before any work (InvalidInput names the target's
    ``targets.N.figures`` where the total goes over)."""
    total = 0
    for n, count in enumerate(counts):
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise InvalidInput(f"targets.{n}.figures", "must be a whole number, at least 1")
        total += count
        if total > MAX_TARGETS:
            raise InvalidInput(
                f"targets.{n}.figures", f"at most {MAX_TARGETS} figurines over all targets"
            )


def as_placed(target: TargetInput, n: int, situation: D20Situation) -> Placed:
    """Target ``n`` as the attack sees it: the first stands where the situation says (its
    own fields, where given, win), each further one where its ``TARGET_FIELDS`` say."""
    unit = target.unit
    if not isinstance(unit, D20Figurine):
        raise InvalidInput(f"targets.{n}", "is not a D20 figurine")
    if n == 0:
        values: Mapping[str, Any] = {
            "cover": situation.cover,
            "height": situation.height,
            "shaken": situation.shaken,
        }
        values = {**values, **{k: v for k, v in target.fields.items() if v not in (None, "")}}
    else:
        values = target.fields
    for key in values:
        if key not in _TARGET_NAMES:
            raise InvalidInput(f"targets.{n}.{key}", "is not a target field")
    parsed, errors = parse_fields(TARGET_FIELDS, values)
    if errors:
        field, reason = next(iter(errors.items()))
        raise InvalidInput(f"targets.{n}.{field}", reason)
    return Placed(
        unit.pd,
        unit.evasion,
        unit.cp,
        bool(parsed["cover"]),
        int(parsed["height"] or 0),
        bool(parsed["shaken"]),
        target.figures,
    )
