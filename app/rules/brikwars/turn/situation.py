"""What a turn is asked to do: the situation the attacker fires in, further Arc targets and
allies joining a Combined Attack, and the limits on one request."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from app.rules.brikwars.attacks import Situation
from app.rules.brikwars.attacks.common import SmallTarget
from app.rules.brikwars.units import UnitSpec
from app.rules.errors import InvalidInput

MAX_WEAPONS = 12
MAX_ARC_TARGETS = 12
MAX_FIGURINES = 24
"""Most figurines over all of a turn's targets (a squad's figurines each count; ruling T7)."""
MAX_DIVERT_TURNS = 20


@dataclass(frozen=True)
class TurnSituation:
    """Where and how the attacker fires this turn (chapters 5 and 8).

    ``distance`` to the target in inches (None: close combat or not measured); ``height``
    above the target; ``visible_sections`` of a minifig target; ``visible_size``: the inches of
    a larger target that are visible and in range (cover; None: all of it); ``small``: aiming
    at a 2x2 or 1x1 part of it (-1, -2); ``homing_in``: the Gunnery
    bonus kept from earlier turns on the same point; ``arc``: points of Arc for Arc Fire;
    ``burst``: shots of a MachineGun Burst (0: none); ``combined``: sum the single attacks'
    Damage against one Armour roll; ``divert_turns``: turns of Diverting All Power saved;
    ``teamwork``: Power the helpers add for one Too Big weapon.
    """

    distance: Fraction | None = None
    height: Fraction = Fraction(0)
    visible_sections: int = 3
    visible_size: Fraction | None = None
    small: SmallTarget | None = None
    firing_blind: bool = False
    outnumbered: bool = False
    gunnery_support: int = 0
    homing_in: int = 0
    gunner: bool = False
    charge: bool = False
    arc: int = 1
    burst: int = 0
    combined: bool = False
    divert_turns: int = 0
    teamwork: Fraction = Fraction(0)

    def __post_init__(self) -> None:
        if self.distance is not None and self.distance < 0:
            raise InvalidInput("distance", "must be at least 0")
        if self.height < 0:
            raise InvalidInput("height", "must be at least 0")
        if not 0 <= self.divert_turns <= MAX_DIVERT_TURNS:
            raise InvalidInput("divert_turns", f"must be from 0 to {MAX_DIVERT_TURNS}")
        if self.teamwork < 0:
            raise InvalidInput("teamwork", "must be at least 0")
        if not 1 <= self.arc <= MAX_ARC_TARGETS:
            raise InvalidInput("arc", f"must be from 1 to {MAX_ARC_TARGETS}")
        if self.homing_in < 0:
            raise InvalidInput("homing_in", "must be at least 0")
        if self.visible_size is not None and self.visible_size < 0:
            raise InvalidInput("visible_size", "must be at least 0")
        if self.small not in (None, "2x2", "1x1"):
            raise InvalidInput("small", "must be 2x2, 1x1 or none")

    def engine_situation(self) -> Situation:
        """The chapter 5 modifiers shared by every line (Out of Range is per weapon)."""
        return Situation(
            firing_blind=self.firing_blind,
            outnumbered=self.outnumbered,
            gunnery_support=self.gunnery_support + self.homing_in,
        )


# Nothing measured and no modifiers (a frozen value: one instance serves every default).
DEFAULT_SITUATION = TurnSituation()


@dataclass(frozen=True)
class ArcFollower:
    """A further target: of Arc Fire, after the main target, in order along the Arc, at
    ``distance`` from the attacker; of an Explosive's blast, ``blast_distance`` from the main
    target (the blast centre; None: not in the blast). ``figures`` figurines of it (a squad:
    each a target of its own, along the Arc one after another, in the blast at its ring)."""

    unit: UnitSpec
    distance: Fraction | None = None
    spans: int = 0
    figures: int = 1
    blast_distance: Fraction | None = None

    def __post_init__(self) -> None:
        if self.blast_distance is not None and self.blast_distance < 0:
            raise InvalidInput("blast_distance", "must be at least 0")


@dataclass(frozen=True)
class Ally:
    """Another unit joining the attacker's Combined Attack with its chosen weapons (direct
    attacks only: the Damage of all that hit is summed against one Armour roll)."""

    unit: UnitSpec
    weapons: tuple[int, ...]
