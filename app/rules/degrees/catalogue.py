"""The Degrees catalogue as data: scales (tables 9.2-9.4), weapon types (9.5) and every weapon
the tables name, with its scale, usual degree and type.

Nothing here computes: the engine, the builder and the pages read these tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Final, Literal

ScaleId = Literal["personnel", "vehicular", "army"]
RangeId = Literal["present", "close", "far", "very_far"]
MediumId = Literal["void", "light", "medium", "heavy"]


@dataclass(frozen=True, slots=True)
class Scale:
    id: ScaleId
    name: str
    table: str  # the chapter's table that lists its weapons
    order: int  # larger scales have higher orders


SCALES: Final = MappingProxyType(
    {
        "personnel": Scale("personnel", "Personnel", "9.2", 0),
        "vehicular": Scale("vehicular", "Vehicular, Building, Platoon/Company", "9.3", 1),
        "army": Scale("army", "Army, City, Hägg, Spaceship", "9.4", 2),
    }
)
SCALE_SHORT: Final = MappingProxyType(
    {"personnel": "Personnel", "vehicular": "Vehicular", "army": "Army"}
)


@dataclass(frozen=True, slots=True)
class WeaponType:
    """A weapon type of 9.5 and the special rules the engine and builder apply.

    ``penetrates_on``: the highest natural roll that may go to the back line (RULINGS 2.2);
    ``drains_ap``: hits remove AP instead of HP (stun guns, sensory dampeners);
    ``attack_ap``: the AP an attack with it costs before extended degrees (1; 0 for a
    sensory dampener's sustained attack; 2 for a percussion gun, whose use takes an
    additional AP); ``draw_ap``: AP to draw it first (a p-gun); ``energy``: it blooms
    gassy locations and suffers their bloom; ``no_very_far``: direct radiation does not shoot
    over the horizon; ``area``: an explosive (up to degree x 10 units, precision x 5).
    """

    id: str
    name: str
    section: str
    rules: tuple[str, ...]
    penetrates_on: int = 1
    ballistic: Literal["", "classical", "modern"] = ""
    drains_ap: bool = False
    restrains: bool = False
    senses: bool = False
    never_penetrates: bool = False
    penetrate_penalty: int = 0
    back_line_bonus: int = 0
    first_point_back: bool = False
    attack_ap: int = 1
    draw_ap: int = 0
    gas: bool = False
    energy: bool = False
    no_very_far: bool = False
    area: Literal["", "explosive", "precision"] = ""
    inverted: bool = False
    band_bonus: bool = False  # Flashbacks: +1 AP per band beyond Present
    very_far_revealed_bonus: bool = False  # inter-offers
    punch: bool = False
    real_ammo: bool = False  # dousing rods: Human units may take +1° "real ammo"
    one_shot: bool = False  # Least Weasels are destroyed by their attack
    suppresses: bool = False  # dousing rods: "Suppresses on any hit"
    reuses_ap: bool = False  # Flashbacks "only shoot if they hit": a miss's AP are reused
    # the bloom its fire causes, as a share of a γ-gun's (dousing rods: "1/3 the rate")
    bloom_rate: Fraction = Fraction(0)


_TYPES: tuple[WeaponType, ...] = (
    WeaponType(
        "standard",
        "Weapon",
        "9.1",
        ("Attacks at its degree; a natural 1 may go straight to the back line.",),
    ),
    WeaponType(
        "classical_ballistic",
        "Classical ballistic",
        "9.5.1",
        (
            "1°-3° only (chemical propellants); 1° or 2° in space.",
            "Firing it makes the attacker more visible (fogged to concealed, concealed to "
            "revealed) unless it spends 1 more AP.",
        ),
        ballistic="classical",
    ),
    WeaponType(
        "modern_ballistic",
        "Modern ballistic",
        "9.5.1",
        ("Rails: no reveal when fired.", "1° or 2° in space."),
        ballistic="modern",
    ),
    WeaponType(
        "dousing_rod",
        "Dousing rod",
        "9.5.1",
        (
            "A Human machine gun; suppresses on any hit.",
            "+1° with real ammo (Human units only).",
            "Blooms its host hex at 1/3 the rate of γ-guns.",
        ),
        ballistic="modern",
        real_ammo=True,
        suppresses=True,
        bloom_rate=Fraction(1, 3),
    ),
    WeaponType(
        "punch_gun",
        "Punch gun",
        "9.5.1",
        (
            "A penetrating attack (after a natural 1) is made at -2°: often safer to take the "
            "1 point on the front.",
            "Range penalties by medium (void, light, medium or heavy gas).",
        ),
        penetrate_penalty=2,
        punch=True,
    ),
    WeaponType(
        "gas_gun",
        "Gas gun",
        "9.5.1",
        (
            "Each AP pumped adds 1° up to its max; pumped AP carry over to the next shot.",
            "Range by the pumped degree: Present 1°, Close 2°, Far 3°, Very Far 4°+.",
            "Each AP beyond the max needs a roll against the new degree: success damages the "
            "gun by the roll (its max drops) and ends the pumping.",
        ),
        gas=True,
    ),
    WeaponType(
        "inter_offer",
        "Inter-offer",
        "9.5.1",
        ("Gains 1 AP per round when attacking revealed targets at Very Far range.",),
        ballistic="modern",
        very_far_revealed_bonus=True,
    ),
    WeaponType(
        "flashback",
        "Flashback",
        "9.5.2",
        (
            "Direct radiation: penetrates on a raw 1 or 2; cannot fire at Very Far.",
            "Gains 1 attack AP per band of distance (Close +1, Far +2).",
            "Its first point of damage goes to the back line. Causes bloom.",
            "Only shoots if it hits: a miss's AP may be reused.",
        ),
        penetrates_on=2,
        first_point_back=True,
        energy=True,
        no_very_far=True,
        band_bonus=True,
        reuses_ap=True,
        bloom_rate=Fraction(1),
    ),
    WeaponType(
        "gamma_gun",
        "γ-gun",
        "9.5.2",
        (
            "Direct radiation: penetrates on a raw 1 or 2; cannot fire at Very Far.",
            "Causes bloom; suffers the bloom of gassy locations.",
        ),
        penetrates_on=2,
        energy=True,
        no_very_far=True,
        bloom_rate=Fraction(1),
    ),
    WeaponType(
        "stun_gun",
        "Stun gun",
        "9.5.2",
        (
            "Penetrates armour: a hit removes AP equal to the roll instead of HP, and "
            "restrains the target.",
            "A back-line hit (natural 1) does 1° more and also takes 1 HP.",
            "The target may turn the first AP lost into a roll to break free (a raw 1).",
        ),
        drains_ap=True,
        restrains=True,
        back_line_bonus=1,
    ),
    WeaponType(
        "percussion_gun",
        "Percussion gun (p-gun)",
        "9.5.2",
        (
            "Hits hard but never penetrates.",
            "Using it takes an additional AP; drawing it takes 1 AP more.",
        ),
        never_penetrates=True,
        attack_ap=2,
        draw_ap=1,
    ),
    WeaponType(
        "sensory_dampener",
        "Sensory dampener",
        "9.5.2",
        (
            "A 0 AP sustained attack; +1 AP extended or p-gun to turn up the heat.",
            "A hit removes AP equal to the roll and dampens the first N senses of the "
            "target's list (N = the roll) for the rest of this round and the next.",
            "A radiation weapon: penetrates on a raw 1 or 2; cannot fire at Very Far.",
        ),
        penetrates_on=2,
        drains_ap=True,
        senses=True,
        attack_ap=0,
        no_very_far=True,
        bloom_rate=Fraction(1),
    ),
    WeaponType(
        "least_weasel",
        "Least Weasel",
        "9.5.3",
        (
            "A drone fired as a normal attack; 2 AP per round of its own.",
            "Destroyed by its one attack. 1 HP and 1° defences if detected.",
        ),
        one_shot=True,
    ),
    WeaponType(
        "explosive",
        "Area-effect explosive",
        "9.5.4",
        (
            "Attacks up to degree x 10 units in the location, each rolled separately.",
            "4°+: also Close locations at -1°; 6°+: Far locations at -2°; the number of extra "
            "locations is the attack's final degree.",
        ),
        area="explosive",
    ),
    WeaponType(
        "precision_explosive",
        "Precision explosive",
        "9.5.4",
        ("Attacks up to degree x 5 units, in the attacker's order, friendlies excluded.",),
        area="precision",
    ),
    WeaponType(
        "am_converter",
        "AM converter",
        "9.5.4",
        (
            "Its chance rolls are inverted: it needs a natural 1 to succeed.",
            "Typically placed and initiated by hand.",
        ),
        inverted=True,
    ),
    WeaponType(
        "jump_flash",
        "Jump flash",
        "9.5.4",
        ("Raw mass through a jump point: costly in OPs to fire and to recon.",),
    ),
)
WEAPON_TYPES: Final = MappingProxyType({t.id: t for t in _TYPES})


@dataclass(frozen=True, slots=True)
class CatalogueWeapon:
    """A weapon the tables name: its scale, usual degree, type and the table's words."""

    id: str
    name: str
    scale: ScaleId
    degree: int
    type: str
    note: str = ""


def _w(
    scale: ScaleId, degree: int, type_id: str, *names: tuple[str, str], note: str = ""
) -> tuple[CatalogueWeapon, ...]:
    return tuple(CatalogueWeapon(i, n, scale, degree, type_id, note) for i, n in names)


_WEAPONS: tuple[CatalogueWeapon, ...] = (
    # 9.2 Personnel Combat
    *_w(
        "personnel",
        1,
        "standard",
        ("succubus_sting", "Succubus sting"),
        ("bayonet", "Bayonet"),
        ("broken_bottle", "Broken bottle"),
        ("bare_chested", "Bare-chested barbarian"),
    ),
    *_w("personnel", 1, "classical_ballistic", ("pistol", "Pistol")),
    *_w(
        "personnel",
        2,
        "standard",
        ("glaive", "Glaive"),
        ("katana", "Katana"),
        ("open_hand", "Trained open-hand combat"),
        ("blattid_psionics", "Blattid psionics"),
    ),
    *_w("personnel", 2, "gas_gun", ("gas_gun", "Gas gun")),
    *_w(
        "personnel",
        2,
        "classical_ballistic",
        ("smg", "SMG"),
        ("shotgun", "Shotgun"),
        ("carbine", "Carbine"),
    ),
    *_w("personnel", 2, "stun_gun", ("stun_gun", "Stun gun")),
    *_w("personnel", 2, "punch_gun", ("punch_gun", "Punch gun")),
    *_w("personnel", 3, "classical_ballistic", ("rifle", "Rifle"), ("machine_gun", "Machine gun")),
    *_w("personnel", 3, "modern_ballistic", ("modern_pistol", "Modern small arms (pistol)")),
    *_w("personnel", 3, "flashback", ("flashback", "Flashback")),
    *_w("personnel", 4, "inter_offer", ("inter_offer", "Inter-offing rifle")),
    *_w("personnel", 4, "dousing_rod", ("dousing_rod", "Dousing rod")),
    *_w("personnel", 4, "percussion_gun", ("p_gun", "Percussion gun (p-gun)")),
    *_w("personnel", 4, "sensory_dampener", ("sensory_dampener", "Sensory dampener")),
    *_w("personnel", 5, "gamma_gun", ("gamma_gun", "Anti-personnel γ-gun")),
    *_w("personnel", 5, "modern_ballistic", ("am_slug", "AM slug")),
    *_w("personnel", 6, "explosive", ("missile", "Tactical propulsive (missile)")),
    *_w("personnel", 6, "least_weasel", ("least_weasel", "Least Weasel")),
    *_w("personnel", 2, "explosive", ("grenade", "Explosive (grenade)")),
    *_w("personnel", 2, "precision_explosive", ("precision_charge", "Precision explosive")),
    *_w(
        "personnel",
        10,
        "standard",
        ("higher_order", "Higher-order weaponry"),
        note="Building- or ship-level weapons used on personnel-level battles",
    ),
    # 9.3 Vehicular, Building, and Platoon/Company
    *_w("vehicular", 1, "standard", ("v_impulse_drive", "Impulse drive"), ("v_flak", "Flak")),
    *_w("vehicular", 2, "classical_ballistic", ("v_mg_nest", "Hardened machine gun nest")),
    *_w("vehicular", 2, "gamma_gun", ("v_anti_am_gamma", "Anti-AM γ-gun (point defense)")),
    *_w("vehicular", 3, "standard", ("v_tertiary", "Tertiary weapon")),
    *_w("vehicular", 4, "standard", ("v_secondary", "Secondary weapon")),
    *_w("vehicular", 5, "standard", ("v_main", "Main weapon")),
    *_w("vehicular", 5, "gamma_gun", ("v_gamma_gun", "Mounted γ-gun")),
    *_w(
        "vehicular",
        7,
        "explosive",
        ("v_cruise_missile", "Cruise missile"),
        ("v_torpedo", "Self-guiding torpedo"),
    ),
    *_w(
        "vehicular",
        9,
        "explosive",
        ("v_howitzer", "Howitzer"),
        ("v_tactical_nuke", "Tactical nuke"),
    ),
    # 9.4 Army, City, Hägg, Spaceship
    *_w("army", 1, "standard", ("a_impulse_drive", "Impulse drive"), ("a_flak", "Flak")),
    *_w("army", 2, "classical_ballistic", ("a_mg_nest", "Hardened machine gun nest")),
    *_w("army", 2, "gamma_gun", ("a_anti_am_gamma", "Anti-AM γ-gun (point defense)")),
    *_w("army", 3, "standard", ("a_tertiary", "Tertiary weapon")),
    *_w("army", 3, "flashback", ("a_flashback", "Flashback")),
    *_w("army", 4, "standard", ("a_secondary", "Secondary weapon")),
    *_w("army", 5, "gamma_gun", ("a_gamma_gun", "γ-gun")),
    *_w("army", 6, "explosive", ("a_am_rocket", "AM rocket")),
    *_w(
        "army",
        7,
        "explosive",
        ("a_cruise_missile", "Cruise missile"),
        ("a_torpedo", "Self-guiding torpedo"),
    ),
    *_w("army", 8, "explosive", ("a_nuke", "Nuke")),
    *_w(
        "army", 8, "flashback", ("a_flashback_cannon", "Planet-tethered defense (Flashback cannon)")
    ),
    *_w("army", 8, "standard", ("a_hagg_defender", "Hägg defender (Snail, Urchin, Crab)")),
    *_w("army", 9, "standard", ("a_hagg_cannon", "Hägg main cannon")),
    *_w(
        "army",
        10,
        "am_converter",
        ("a_am_converter", "AM converter"),
        note="Typically placed and initiated by hand",
    ),
    *_w("army", 10, "jump_flash", ("a_jump_flash", "Jump flash")),
)
WEAPONS: Final = MappingProxyType({w.id: w for w in _WEAPONS})


@dataclass(frozen=True, slots=True)
class Sense:
    id: str
    name: str
    note: str


_SENSES: tuple[Sense, ...] = (
    Sense("vision", "Vision", ""),
    Sense("audition", "Audition", ""),
    Sense(
        "nociception",
        "Nociception",
        "Constant severe pain: loses more AP, by its place in the list",
    ),
    Sense("analgesia", "Analgesia", "Cannot feel pain or notice new damage"),
    Sense("thermal", "Thermal", "Made to feel burning hot or freezing cold"),
    Sense("proprioception", "Proprioception", "Cannot keep balance or move without falling"),
    Sense("tactile", "Tactile", "Cannot know if in contact with anything"),
    Sense("homeoception", "Homeoception", "-1° psionic defence; no AP to psionic defences"),
    Sense("self", "Self", "Psionic attacks have a .5 chance of being self-directed"),
    Sense("clairvoyance", "Clairvoyance", "No AP to clairvoyance"),
    Sense("prescience", "Prescience", "No AP to prescience"),
    Sense("telepathy", "Telepathy", "No AP to telepathy or recon"),
    Sense("fine_motor", "Fine Motor Control", "-1° attack and evasion; -1 AP for movement"),
    Sense("gross_motor", "Gross Motor Control", "-2 AP for movement"),
    Sense("orientation", "Orientation", "Cannot relate one's location to others"),
    Sense("actual", "Actual", "-1° on defence, evasion and recon rolls"),
)
SENSES: Final = MappingProxyType({s.id: s for s in _SENSES})
# What a dampened sense of the attacker does outside the attack's odds (the table beside
# tbl-sensory_dampener): movement, defence, evasion, recon and psionics are the players'.
SENSE_NOTES: Final = MappingProxyType(
    {
        "fine_motor": "Fine Motor Control: -1° evasion rolls and -1 AP for movements",
        "gross_motor": "Gross Motor Control: -2 AP for movements",
        "actual": "Actual: -1° on defence, evasion and recon rolls",
        "homeoception": "Homeoception: -1° psionic defence rolls; no AP to psionic defences",
        "self": "Self: psionic attacks have a .5 chance of being self-directed",
        "proprioception": "Proprioception: cannot move without falling down",
        "telepathy": "Telepathy: no AP to telepathy or recon",
        "clairvoyance": "Clairvoyance: no AP to clairvoyance",
        "prescience": "Prescience: no AP to prescience",
    }
)
FINE_MOTOR_PENALTY: Final = -1  # "-1° attack and evasion rolls"
DEFAULT_SENSE_ORDER: Final = tuple(SENSES)

RANGES: Final = MappingProxyType(
    {"present": "Present", "close": "Close", "far": "Far", "very_far": "Very Far"}
)
RANGE_ORDER: Final = MappingProxyType({r: i for i, r in enumerate(RANGES)})
MEDIA: Final = MappingProxyType(
    {
        "void": "Void",
        "light": "Light gas (dust clouds, thin atmospheres)",
        "medium": "Medium gas (Earth-like atmospheres)",
        "heavy": "Heavy gas (smoke clouds, gas giants)",
    }
)

# The punch guns' range penalties (9.5.1), by range and medium.
PUNCH_GUN_PENALTY: Final = MappingProxyType(
    {
        ("present", "void"): 0,
        ("present", "light"): 0,
        ("present", "medium"): 0,
        ("present", "heavy"): -1,
        ("close", "void"): 0,
        ("close", "light"): -1,
        ("close", "medium"): -2,
        ("close", "heavy"): -3,
        ("far", "void"): -1,
        ("far", "light"): -2,
        ("far", "medium"): -4,
        ("far", "heavy"): -5,
        ("very_far", "void"): -3,
        ("very_far", "light"): -4,
        ("very_far", "medium"): -8,
        ("very_far", "heavy"): -9,
    }
)
# The least pumped degree at which a gas gun reaches each band (9.5.1 "Range").
GAS_GUN_RANGE: Final = MappingProxyType({"present": 1, "close": 2, "far": 3, "very_far": 4})
# Classical ballistics are 1°-3°; any ballistic fired in space is at most 2° (9.5.1).
CLASSICAL_MAX: Final = 3
SPACE_BALLISTIC_MAX: Final = 2
# Explosives of 4°+ also attack Close locations at -1°, of 6°+ Far ones at -2° (9.5.4).
AREA_CLOSE_FROM: Final = 4
AREA_FAR_FROM: Final = 6
INCANDESCENT_FROM: Final = 3
# The attacker's visibility, least visible first (9.5.1: "going from fogged to concealed, or
# concealed to revealed").
VISIBILITY: Final = MappingProxyType(
    {"fogged": "Fogged", "concealed": "Concealed", "revealed": "Revealed"}
)


def more_visible(visibility: str) -> str:
    """One step more visible: fogged to concealed, concealed to revealed (revealed stays)."""
    order = tuple(VISIBILITY)
    return order[min(order.index(visibility) + 1, len(order) - 1)]
