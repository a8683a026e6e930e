"""BrikWars units as values: minifigs, Heroes and Creations, with their weapons.

Derived numbers follow ``shared/rules/RULINGS.md`` §1.2 and §1.5: Effective Size, Armour,
Move, Power and cost. A minifig and a Hero are modelled as Size 1" flesh (SL ½) units so that
the RULINGS costs come out exactly: a standard minifig 4CP, a Hero 11CP.

Bad values (an unknown specialty, a negative Move) raise ``InvalidInput`` when the spec is
built; legal-but-illegal builds (SL over Size, a Long Ranged weapon) are reported by
``validation.validate_unit``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Literal

from app.rules.brikwars.catalogue import (
    ACTION_DICE,
    MAX_SIZE,
    HandClass,
    WeaponStats,
    WeaponType,
    brick_count,
    explosive_variant,
    format_number,
    positive_size,
    to_fraction,
    weapon_size_of,
    weapon_stats,
    weapon_type,
)
from app.rules.brikwars.options import DEFAULT_OPTIONS, BrikWarsOptions
from app.rules.errors import InvalidInput
from app.rules.text import plain_text

Kind = Literal["minifig", "hero", "creation"]
Propulsion = Literal["ground", "water", "flying", "none"]
Mount = Literal["hand_held", "mounted", "small_turret", "large_turret"]
HoldClass = Literal["short", "bastard", "long", "too_big"]

KINDS: tuple[str, ...] = ("minifig", "hero", "creation")
PROPULSIONS: tuple[str, ...] = ("ground", "water", "flying", "none")
MOUNTS: tuple[str, ...] = ("hand_held", "mounted", "small_turret", "large_turret")
# A minifig or Hero has no body to mount a weapon on: it holds it or works a turret (ruling 19).
MOUNTS_OF_KIND: dict[str, tuple[str, ...]] = {
    "minifig": ("hand_held", "small_turret", "large_turret"),
    "hero": ("hand_held", "small_turret", "large_turret"),
    "creation": MOUNTS,
}
TURRET_OF_MOUNT: dict[str, str] = {"small_turret": "small_turret", "large_turret": "large_turret"}

MIND_COSTS: dict[int, Fraction] = {
    4: Fraction(1, 2),
    6: Fraction(1),
    8: Fraction(2),
    10: Fraction(4),
    12: Fraction(8),
}
SPECIALTY_COSTS: dict[str, int] = {
    "gunnery": 1,
    "compensating": 1,
    "heroic_ego": 3,
    "mechanik": 2,
    "medik": 2,
    "pilot": 1,
    "scout": 1,
}
FLESH = Fraction(1, 2)
MAX_STRUCTURE_LEVEL = 5

# Defaults of the fixed-size kinds (RULINGS §1.5): Size, SL, Move, Mind.
_KIND_DEFAULTS: dict[str, tuple[Fraction, Fraction, Fraction, int]] = {
    "minifig": (Fraction(1), FLESH, Fraction(5), 6),
    "hero": (Fraction(1), FLESH, Fraction(7), 10),
}


# --------------------------------------------------------------------------- munitions


@dataclass(frozen=True, slots=True)
class Explosive:
    """A stock of identical Explosives: ``rounds`` of ``xsize`` bricks each, one variant.

    Used as a Cannon's Ammo and as a Launcher's explosive Payload; each round costs X CP.
    """

    xsize: int
    variant: str = "standard"
    rounds: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "xsize", brick_count(self.xsize, "xsize"))
        explosive_variant(self.variant)
        rounds = to_fraction(self.rounds, "rounds")
        if rounds.denominator != 1 or not 1 <= rounds <= MAX_SIZE:
            raise InvalidInput("rounds", f"must be a whole number from 1 to {MAX_SIZE}")
        object.__setattr__(self, "rounds", int(rounds))

    @property
    def cost(self) -> Fraction:
        """X CP per round (variants cost the same as standard Explosives)."""
        return Fraction(self.xsize * self.rounds)


@dataclass(frozen=True, slots=True)
class Payload:
    """What a Launcher throws in one launch.

    Either ``explosive`` (a stock, of which ``per_launch`` rounds fly together: the Missile
    Racks fire three X1 rounds at once) or ``object_size`` (a boulder, a cow; not priced).
    """

    explosive: Explosive | None = None
    per_launch: int = 1
    object_size: Fraction | None = None

    def __post_init__(self) -> None:
        if (self.explosive is None) == (self.object_size is None):
            raise InvalidInput("payload", "give either an explosive or an object_size")
        if self.explosive is not None and not isinstance(self.explosive, Explosive):
            raise InvalidInput("payload", "explosive must be an Explosive")
        per_launch = to_fraction(self.per_launch, "per_launch")
        if per_launch.denominator != 1 or not 1 <= per_launch <= MAX_SIZE:
            raise InvalidInput("per_launch", f"must be a whole number from 1 to {MAX_SIZE}")
        object.__setattr__(self, "per_launch", int(per_launch))
        if self.object_size is not None:
            size = to_fraction(self.object_size, "payload")
            if size < 0 or size > MAX_SIZE:
                raise InvalidInput("payload", f"object Size must be from 0 to {MAX_SIZE}")
            object.__setattr__(self, "object_size", size)

    @property
    def launch_xsize(self) -> int:
        """Total XSize of one launch (0 for an object Payload)."""
        if self.explosive is None:
            return 0
        return self.explosive.xsize * self.per_launch

    @property
    def cost(self) -> Fraction:
        """The explosive rounds carried; object Payloads are free."""
        return self.explosive.cost if self.explosive is not None else Fraction(0)


# --------------------------------------------------------------------------- weapons


@dataclass(frozen=True, slots=True)
class WeaponSpec:
    """One weapon, item or piece of armour on a unit.

    ``size`` (inches) or ``xsize`` (bricks) as the catalogue entry requires; ``mount`` defaults
    to ``hand_held`` for minifig items and ``mounted`` otherwise; ``variant`` for Explosives
    and Rockets; ``ammo`` for Cannons and the Bazooka; ``payload`` for Launchers and the
    RailGun; ``label`` is free text ("left claw").
    """

    type: str
    size: Fraction | None = None
    xsize: int | None = None
    mount: Mount | None = None
    variant: str | None = None
    ammo: Explosive | None = None
    payload: Payload | None = None
    label: str = ""

    def __post_init__(self) -> None:
        entry = weapon_type(self.type)
        size, xsize = weapon_size_of(entry, self.size, self.xsize)
        object.__setattr__(self, "size", size)
        object.__setattr__(self, "xsize", xsize)
        if entry.category == "turret":
            raise InvalidInput("type", "a turret is a mount: set a weapon's mount instead")
        mount = self.mount
        if mount is None:
            mount = "hand_held" if entry.hand_held_only and entry.can_be_hand_held else "mounted"
            object.__setattr__(self, "mount", mount)
        if mount not in MOUNTS:
            raise InvalidInput("mount", f"must be one of {', '.join(MOUNTS)}")
        if not entry.can_be_hand_held and mount != "mounted":
            raise InvalidInput("mount", f"{entry.name} is worn or fitted, not held or turreted")
        if entry.hand_held_only and entry.can_be_hand_held and mount != "hand_held":
            raise InvalidInput("mount", f"{entry.name} is a minifig item, held by hand")
        if self.variant is not None:
            if entry.sized_by != "bricks":
                raise InvalidInput("variant", f"{entry.name} takes no Explosive variant")
            explosive_variant(self.variant)
        if self.ammo is not None:
            if not entry.takes_ammo:
                raise InvalidInput("ammo", f"{entry.name} takes no Ammo")
            if not isinstance(self.ammo, Explosive):
                raise InvalidInput("ammo", "Ammo is an Explosive")
        if self.payload is not None:
            if not entry.takes_payload:
                raise InvalidInput("payload", f"{entry.name} takes no Payload")
            if not isinstance(self.payload, Payload):
                raise InvalidInput("payload", "must be a Payload")
        plain_text(self.label, "label")

    @property
    def entry(self) -> WeaponType:
        """The catalogue entry."""
        return weapon_type(self.type)

    @property
    def measure(self) -> Fraction:
        """The weapon's Size for Power and holding: S, X, or a minifig item's nominal Size."""
        if self.size is not None:
            return self.size
        if self.xsize is not None:
            return Fraction(self.xsize)
        return self.entry.nominal_size

    @property
    def power_need(self) -> Fraction:
        """Power to activate it (RULINGS §1.5): S; X when dropped or a Rocket; the Cannon's
        or Launcher's S whatever it fires; none for Armor Plating and worn items."""
        return self.power_need_with(DEFAULT_OPTIONS)

    def power_need_with(self, options: BrikWarsOptions) -> Fraction:
        """``power_need`` under house rules (``minifig_item_power`` off: minifig items 0)."""
        if self.entry.sized_by == "fixed" and not options.minifig_item_power:
            return Fraction(0)
        return Fraction(weapon_stats_of(self).power)

    def salvo_limit(self, xsize: int) -> int:
        """How many Explosives of ``xsize`` bricks this Launcher fires in one launch.

        >>> WeaponSpec("launcher", size=3).salvo_limit(1)
        3
        """
        limit = self.entry.payload_max_xsize(self.size)
        if limit is None:
            raise InvalidInput("payload", f"{self.entry.name} takes no Payload")
        return math.floor(limit / brick_count(xsize, "xsize"))

    @property
    def cost(self) -> Fraction:
        """The weapon, its Ammo or Payload rounds, and its Small/Large Turret."""
        return self.cost_with(DEFAULT_OPTIONS)

    def cost_with(self, options: BrikWarsOptions) -> Fraction:
        """``cost`` under house rules (``turret_cost`` "free": turrets cost nothing)."""
        total = weapon_stats_of(self).cost
        if self.ammo is not None:
            total += self.ammo.cost
        if self.payload is not None:
            total += self.payload.cost
        if self.mount in TURRET_OF_MOUNT and options.turret_cost == "structure":
            total += weapon_stats(TURRET_OF_MOUNT[self.mount]).cost
        return total


def weapon_name(weapon: WeaponSpec) -> str:
    """The one way a weapon is named everywhere (builder, print, forum text, history, battle
    log, calculator): its size, its catalogue name, then its label.

    >>> weapon_name(WeaponSpec("gun", size=3)), weapon_name(WeaponSpec("explosive", xsize=2))
    ('3" Gun', 'X2 Explosive')
    >>> weapon_name(WeaponSpec("melee_weapon", size=1, label="left claw"))
    '1" Melee Weapon (left claw)'
    """
    entry = weapon.entry
    if weapon.size is not None:
        text = f'{format_number(weapon.size)}" {entry.name}'
    elif weapon.xsize is not None:
        text = f"X{weapon.xsize} {entry.name}"
    else:
        text = entry.name
    return f"{text} ({weapon.label})" if weapon.label else text


def weapon_stats_of(
    weapon: WeaponSpec,
    action_die: int | None = None,
    options: BrikWarsOptions = DEFAULT_OPTIONS,
) -> WeaponStats:
    """The catalogue stats of a WeaponSpec; a Cannon's damage comes from its Ammo.

    A Launcher's damage stays None: each launched round rolls its own Explosion (see
    ``WeaponSpec.payload``).
    """
    stats = weapon_stats(
        weapon.type,
        size=weapon.size,
        xsize=weapon.xsize,
        action_die=action_die,
        variant=weapon.variant,
        options=options,
    )
    if weapon.ammo is not None:
        variant = explosive_variant(weapon.ammo.variant)
        stats = stats.with_damage(variant.damage(weapon.ammo.xsize))
    return stats


# --------------------------------------------------------------------------- units


@dataclass(frozen=True, slots=True)
class Armour:
    """An Armour rating: ``dice`` d``sides`` plus ``fixed`` (a minifig: 0 dice, fixed 4).

    ``deflection`` counts layers from Armor Plating or Heavy Armor (over the covered area).
    """

    dice: int = 0
    sides: int = 0
    fixed: int = 0
    deflection: int = 0

    @property
    def rolled(self) -> bool:
        """True when the Armour is rolled (a Hero, a Creation) rather than fixed."""
        return self.dice > 0

    def __str__(self) -> str:
        if not self.dice:
            return str(self.fixed)
        text = f"{self.dice}d{self.sides}"
        return text + (f"+{self.fixed}" if self.fixed else "")


@dataclass(frozen=True, slots=True)
class CostBreakdown:
    """A unit's cost by part (all CP, exact)."""

    structure: Fraction
    propulsion: Fraction
    mind: Fraction
    specialties: Fraction
    weapons: tuple[Fraction, ...]

    @property
    def total(self) -> Fraction:
        """The sum of the parts."""
        return (
            self.structure
            + self.propulsion
            + self.mind
            + self.specialties
            + sum(self.weapons, Fraction(0))
        )


def _as_tuple(value: object, field_name: str) -> tuple[Any, ...]:
    """A list or tuple as a tuple; a single string or a non-sequence is refused."""
    if isinstance(value, list | tuple):
        return tuple(value)
    raise InvalidInput(field_name, "must be a list")


def _structure_level(value: object) -> Fraction:
    level = to_fraction(value, "structure_level")
    if level < 0:
        raise InvalidInput("structure_level", "must be 0, ½ (flesh) or a whole number")
    if level != FLESH and level.denominator != 1:
        raise InvalidInput("structure_level", "must be 0, ½ (flesh) or a whole number")
    if level > MAX_SIZE:
        raise InvalidInput("structure_level", f"must be at most {MAX_SIZE}")
    return level


@dataclass(frozen=True, slots=True)
class UnitSpec:
    """A unit as built.

    ``kind`` ``minifig`` or ``hero`` fixes Size 1" and flesh and defaults Move (5", 7") and
    Mind (d6, d10); a Hero always has Heroic Ego. A ``creation`` needs ``size`` and
    ``structure_level``; its ``mind_die`` may be None (a Vehicle without a Mind of its own).
    ``size_damage`` is the inches of Size already lost in battle.

    >>> UnitSpec(name="Trooper", kind="minifig").cost
    Fraction(4, 1)
    """

    name: str
    kind: Kind = "creation"
    size: Fraction | None = None
    structure_level: Fraction | None = None
    propulsion: Propulsion = "ground"
    move: Fraction | None = None
    mind_die: int | None = None
    specialties: tuple[str, ...] = ()
    size_damage: Fraction = Fraction(0)
    weapons: tuple[WeaponSpec, ...] = field(default=())

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        plain_text(self.name, "name")
        if self.kind not in KINDS:
            raise InvalidInput("kind", f"must be one of {', '.join(KINDS)}")
        if self.propulsion not in PROPULSIONS:
            raise InvalidInput("propulsion", f"must be one of {', '.join(PROPULSIONS)}")
        if self.kind in _KIND_DEFAULTS:
            self._settle_figure_body()
        else:
            self._settle_creation_body()
        move = to_fraction(self.move, "move")
        if move < 0 or move > MAX_SIZE:
            raise InvalidInput("move", f"must be from 0 to {MAX_SIZE} inches")
        if self.propulsion == "none" and move:
            raise InvalidInput("move", "a unit without propulsion has no Move")
        set_(self, "move", move)
        if self.mind_die is not None and (
            isinstance(self.mind_die, bool) or self.mind_die not in ACTION_DICE
        ):
            raise InvalidInput("mind_die", "must be one of d4, d6, d8, d10, d12")
        set_(self, "specialties", self._read_specialties())
        damage = to_fraction(self.size_damage, "size_damage")
        if damage < 0 or damage > Fraction(self.size):  # type: ignore[arg-type]
            raise InvalidInput("size_damage", "must be from 0 to the unit's Size")
        set_(self, "size_damage", damage)
        set_(self, "weapons", self._read_weapons())

    def _settle_figure_body(self) -> None:
        """A minifig's or Hero's fixed Size and flesh, and its default Move and Mind."""
        set_ = object.__setattr__
        size, level, move, mind = _KIND_DEFAULTS[self.kind]
        if self.size is not None and to_fraction(self.size, "size") != size:
            raise InvalidInput("size", f'a {self.kind} is Size 1"')
        if self.structure_level is not None and (
            to_fraction(self.structure_level, "structure_level") != level
        ):
            raise InvalidInput("structure_level", f"a {self.kind} is flesh (½)")
        set_(self, "size", size)
        set_(self, "structure_level", level)
        if self.move is None:
            set_(self, "move", move)
        if self.mind_die is None:
            set_(self, "mind_die", mind)

    def _settle_creation_body(self) -> None:
        """A Creation's own Size and Structure Level (both required); no Move unless given."""
        set_ = object.__setattr__
        if self.size is None:
            raise InvalidInput("size", "a Creation needs a Size in inches")
        if self.structure_level is None:
            raise InvalidInput("structure_level", "a Creation needs a Structure Level")
        set_(self, "size", positive_size(self.size, "size"))
        set_(self, "structure_level", _structure_level(self.structure_level))
        if self.move is None:
            set_(self, "move", Fraction(0))

    def _read_specialties(self) -> tuple[str, ...]:
        """The specialties, known and each once; a Hero's Heroic Ego first if not listed."""
        specialties = _as_tuple(self.specialties, "specialties")
        for specialty in specialties:
            if specialty not in SPECIALTY_COSTS:
                raise InvalidInput("specialties", f"unknown specialty {specialty!r}")
        if len(set(specialties)) != len(specialties):
            raise InvalidInput("specialties", "a specialty is listed twice")
        if self.kind == "hero" and "heroic_ego" not in specialties:
            specialties = ("heroic_ego", *specialties)
        return specialties

    def _read_weapons(self) -> tuple[WeaponSpec, ...]:
        weapons = _as_tuple(self.weapons, "weapons")
        for weapon in weapons:
            if not isinstance(weapon, WeaponSpec):
                raise InvalidInput("weapons", "each weapon must be a WeaponSpec")
        if self.kind in _KIND_DEFAULTS:
            # A minifig or Hero has no body to mount a weapon on: what it carries is held
            # (or sits on a turret it works), so "mounted" reads as hand-held (ruling 19).
            weapons = tuple(
                replace(w, mount="hand_held")
                if w.mount == "mounted" and w.entry.can_be_hand_held
                else w
                for w in weapons
            )
        return weapons

    # Sizes and mind -----------------------------------------------------------------

    @property
    def built_size(self) -> Fraction:
        """Size as built (inches)."""
        assert self.size is not None
        return Fraction(self.size)

    @property
    def level(self) -> Fraction:
        """Structure Level as built (0, ½ or whole)."""
        assert self.structure_level is not None
        return Fraction(self.structure_level)

    @property
    def move_as_built(self) -> Fraction:
        """Move (inches) as bought, before Half Speed."""
        assert self.move is not None
        return Fraction(self.move)

    @property
    def effective_size(self) -> Fraction:
        """Size minus Size Damage."""
        return self.built_size - self.size_damage

    @property
    def action_die(self) -> int:
        """The Action die (Mind); a mindless Creation is operated at d6 (ruling)."""
        return self.mind_die or 6

    def has(self, specialty: str) -> bool:
        """True when the unit has this specialty."""
        return specialty in self.specialties

    # Armour, Move, Power ------------------------------------------------------------

    @property
    def armour(self) -> Armour:
        """Armour per RULINGS §1.2 (minifig 4, Hero 2d6, Creation SL d10 capped by ES)."""
        bonus = sum(w.entry.armour_bonus for w in self.weapons)
        layers = (
            1
            if any(w.entry.half_speed and w.entry.category == "armour" for w in self.weapons)
            else 0
        )
        if self.kind == "minifig":
            return Armour(fixed=4 + bonus, deflection=layers)
        if self.kind == "hero":
            return Armour(dice=2, sides=6, fixed=bonus, deflection=layers)
        es = self.effective_size
        if es <= 0 or self.level == 0:
            return Armour(fixed=bonus, deflection=layers)
        if self.level == FLESH:
            return Armour(dice=1, sides=6, fixed=bonus, deflection=layers)
        # Ruling "armour cap": SL capped by full inches of ES, at least one die while alive.
        dice = min(int(self.level), max(1, math.floor(es)))
        return Armour(dice=dice, sides=10, fixed=bonus, deflection=layers)

    @property
    def half_speed(self) -> bool:
        """Armor Plating or Heavy Armor slows the unit to Half Speed."""
        return any(w.entry.half_speed for w in self.weapons)

    @property
    def current_move(self) -> Fraction:
        """Move in inches, halved by Armor Plating or Heavy Armor."""
        return self.move_as_built / 2 if self.half_speed else self.move_as_built

    @property
    def base_power(self) -> Fraction:
        """2 × Effective Size; 1 × while flying; 0 at Size 0 (RULINGS §1.5)."""
        es = self.effective_size
        if es <= 0:
            return Fraction(0)
        return es if self.propulsion == "flying" else 2 * es

    @property
    def standing_power(self) -> Fraction:
        """Base Power while standing still: a Compensating unit counts as 1" larger (ruling
        "Compensating Power"), so a Heavy minifig has 4" instead of 2"."""
        return self.standing_power_with(DEFAULT_OPTIONS)

    def standing_power_with(self, options: BrikWarsOptions) -> Fraction:
        """``standing_power`` under house rules (``compensating_power`` off: base Power)."""
        if not options.compensating_power:
            return self.base_power
        if not self.has("compensating") or self.effective_size <= 0:
            return self.base_power
        bonus = 1 if self.propulsion == "flying" else 2
        return self.base_power + bonus

    @property
    def turret_power(self) -> Fraction:
        """Power added by Small (+2") and Large (+4") Turrets, one per turreted weapon."""
        return Fraction(
            sum(
                weapon_type(TURRET_OF_MOUNT[w.mount]).turret_power
                for w in self.weapons
                if w.mount in TURRET_OF_MOUNT
            )
        )

    @property
    def power(self) -> Fraction:
        """Base Power plus turret Power."""
        return self.base_power + self.turret_power

    def power_needed_with(self, options: BrikWarsOptions = DEFAULT_OPTIONS) -> Fraction:
        """Power to use every weapon at once that draws on the unit's own Power (turreted
        weapons bring their own), to set against ``power``.

        >>> UnitSpec(name="T", kind="minifig", weapons=(WeaponSpec("short_ranged_weapon"),
        ...     WeaponSpec("gun", size=1, mount="small_turret"))).power_needed_with()
        Fraction(1, 1)
        """
        return sum(
            (w.power_need_with(options) for w in self.weapons if w.mount not in TURRET_OF_MOUNT),
            Fraction(0),
        )

    # Cost ------------------------------------------------------------------------------

    @property
    def cost_breakdown(self) -> CostBreakdown:
        """Size × SL + propulsion + Mind + specialties + weapons (RULINGS §1.5)."""
        return self.cost_breakdown_with(DEFAULT_OPTIONS)

    def cost_breakdown_with(self, options: BrikWarsOptions) -> CostBreakdown:
        """``cost_breakdown`` under house rules (turret cost)."""
        move = self.move_as_built
        if self.propulsion in ("ground", "water"):
            propulsion = move / 2
        elif self.propulsion == "flying":
            propulsion = (2 + self.level) * math.ceil(move / 2)
        else:
            propulsion = Fraction(0)
        return CostBreakdown(
            structure=self.built_size * self.level,
            propulsion=Fraction(propulsion),
            mind=MIND_COSTS[self.mind_die] if self.mind_die else Fraction(0),
            specialties=Fraction(sum(SPECIALTY_COSTS[s] for s in self.specialties)),
            weapons=tuple(w.cost_with(options) for w in self.weapons),
        )

    @property
    def cost(self) -> Fraction:
        """Total cost in CP (exact; show with ``format_cp``)."""
        return self.cost_breakdown.total

    def cost_with(self, options: BrikWarsOptions) -> Fraction:
        """Total cost in CP under house rules."""
        return self.cost_breakdown_with(options).total

    # Weapons ---------------------------------------------------------------------------

    def weapon_stats(self, index: int, options: BrikWarsOptions = DEFAULT_OPTIONS) -> WeaponStats:
        """Stats of weapon ``index`` with this unit's Action die (and the Cannon's Ammo)."""
        return weapon_stats_of(self.weapons[index], self.action_die, options)

    def hold_class(self, index: int) -> HoldClass | None:
        """How weapon ``index`` is held, or None when it is not hand-held."""
        return hold_class(self, self.weapons[index])


def _class_for(size: Fraction, holder: Fraction) -> HoldClass:
    if size <= holder:
        return "short"
    if size <= holder * Fraction(3, 2):
        return "bastard"
    if size <= 2 * holder:
        return "long"
    return "too_big"


_SHIFT_DOWN: dict[str, HoldClass] = {"short": "short", "bastard": "short", "long": "bastard"}


def hold_class(
    unit: UnitSpec, weapon: WeaponSpec, *, compensating: bool | None = None
) -> HoldClass | None:
    """The hand-held class (RULINGS §1.5) of a weapon held by this unit, or None if mounted.

    S <= Size: Short; <= 1.5×: Bastard; <= 2×: Long; larger: ``too_big``. Size is the unit's
    Size as built. ``compensating`` (default: the unit has the specialty) counts the holder as
    1" larger for sized weapons and moves a minifig item one class down (ruling).
    """
    if weapon.mount != "hand_held":
        return None
    entry = weapon.entry
    if compensating is None:
        compensating = unit.has("compensating")
    if entry.sized_by == "fixed":
        if entry.hand_class is None:
            return None
        cls: HandClass = entry.hand_class
        return _SHIFT_DOWN[cls] if compensating else cls
    holder = unit.built_size + (1 if compensating else 0)
    return _class_for(weapon.measure, holder)


def minifig(name: str = "Minifig", **fields: object) -> UnitSpec:
    """A standard minifig (Size 1", flesh, Move 5", d6: 4CP before weapons)."""
    return UnitSpec(name=name, kind="minifig", **fields)  # type: ignore[arg-type]


def hero(name: str = "Hero", **fields: object) -> UnitSpec:
    """A Hero (d10, Move 7", Armour 2d6, Heroic Ego: 11CP before weapons)."""
    return UnitSpec(name=name, kind="hero", **fields)  # type: ignore[arg-type]
