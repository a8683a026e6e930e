"""The D20 catalogue as data: the text's grenades, mine and demolition charges, and the two
kinds of weapon players define themselves (guns and hand-to-hand weapons).

Nothing here computes: the engine, the builder and the pages read these tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal

Category = Literal["gun", "hth", "grenade", "mine", "charge"]


@dataclass(frozen=True, slots=True)
class Equipment:
    """A kind of weapon or equipment.

    ``power``/``radius``/``reach`` in the text's units (cm); None where the player gives
    them (their own guns and hand-to-hand weapons). ``roll``: Power + 1D20 is rolled against
    each figurine (False: the Searing Grenade's automatic effect). ``cover``: cover protects
    from it. ``shakes``: every figurine in the radius is Shaken. ``flat_cp``: CP every
    figurine in the radius loses besides the roll (the Flaming Grenade's fireball).
    ``su_only``: only SUs carry it. ``timer``: a charge's countdown of 1-20 turns."""

    id: str
    name: str
    category: Category
    summary: str
    power: int | None = None
    radius: int | None = None
    reach: int | None = None
    roll: bool = True
    cover: bool = True
    shakes: bool = False
    flat_cp: int = 0
    su_only: bool = False
    timer: bool = False
    fire: bool = False  # an F (fire) Power rather than a P


_EQUIPMENT: tuple[Equipment, ...] = (
    Equipment(
        "gun",
        "Gun",
        "gun",
        "A handgun or assault rifle of your own: name, Reach in cm, Power. Single shots at "
        "one target, or automatic fire at two or more (-1, -2, -3, then -4 each).",
    ),
    Equipment(
        "hth",
        "Hand-to-hand weapon",
        "hth",
        "A hand-to-hand weapon of your own: name and Power (Reach 0). A ranged weapon used "
        "as a club has Power 1.",
        reach=0,
    ),
    Equipment(
        "searing_grenade",
        "Searing Grenade",
        "grenade",
        "P0, Reach 20 cm, r10. No roll: every figurine in the radius is Shaken for one Turn "
        "(blinded; loses its Evasion). Cover does not protect.",
        power=0,
        radius=10,
        reach=20,
        roll=False,
        cover=False,
        shakes=True,
        su_only=True,
    ),
    Equipment(
        "defensive_grenade",
        "Defensive Grenade",
        "grenade",
        "P25/r10 + 1D20, Reach 20 cm. Fragmentation against Physical Defense. Cover protects.",
        power=25,
        radius=10,
        reach=20,
        su_only=True,
    ),
    Equipment(
        "flaming_grenade",
        "Flaming Grenade",
        "grenade",
        "F15/r10 + 1D20, Reach 20 cm. A fireball: 2 CP to every figurine in the radius, "
        "friend or foe. Cover does not protect.",
        power=15,
        radius=10,
        reach=20,
        cover=False,
        flat_cp=2,
        su_only=True,
        fire=True,
    ),
    Equipment(
        "hypersensor_mine",
        "Hypersensor mine",
        "mine",
        "F25/r10 + 1D20, set off by any figurine entering its radius. Every figurine in the "
        "radius stops and is Shaken, hurt or not.",
        power=25,
        radius=10,
        reach=0,
        shakes=True,
        fire=True,
    ),
    Equipment(
        "lightning_charge",
        "Lightning-type charge",
        "charge",
        "P10/r10, home-made. DL 10 to defuse. Timer of 1-20 turns; charges set together "
        "add their Power.",
        power=10,
        radius=10,
        reach=0,
        timer=True,
    ),
    Equipment(
        "hurricane_charge",
        "Hurricane-type charge",
        "charge",
        "P15/r10, plastic explosive. DL 15 to defuse. Timer of 1-20 turns; charges set "
        "together add their Power.",
        power=15,
        radius=10,
        reach=0,
        timer=True,
    ),
    Equipment(
        "typhoon_charge",
        "Typhoon-type charge",
        "charge",
        "P35/r30, a bomb. DL 35 to defuse. Timer of 1-20 turns; charges set together add "
        "their Power.",
        power=35,
        radius=30,
        reach=0,
        timer=True,
    ),
)
EQUIPMENT: Final = MappingProxyType({e.id: e for e in _EQUIPMENT})

# Automatic fire: the first target at -1, each further one 1 more, at most -4 (1.1).
AUTO_PENALTY_STEP: Final = 1
AUTO_PENALTY_MAX: Final = 4
AUTO_MIN_TARGETS: Final = 2
CLUB_POWER: Final = 1  # a ranged weapon used in hand-to-hand (2.)
GRENADE_HEIGHT_CM: Final = 5  # grenades hit the same level or up to 5 cm above (1.2)
OBJECT_MARGIN: Final = 1  # an object's DL at least 1 lower than Power + 1D20 is destroyed
TIMER_TURNS: Final = (1, 20)
STAT_RANGE: Final = (0, 40)
CP_RANGE: Final = (1, 20)
D20: Final = 20
