"""The BrikWars weapon and equipment table, declared once as data.

Every entry carries both the formulas (small callables the engine evaluates) and their
human-readable text (what pages and the API show), so the two cannot drift apart. Numbers come
from ``shared/rules/RULINGS.md`` §1.4 (which restores the chapter 8 table); the choices the
texts leave open are in ``docs/rulings.md`` ("BrikWars: building armies").

``S`` is the Weapon Size in inches, ``X`` the Explosive Size in bricks.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache
from typing import Literal

from app.rules.brikwars.options import DEFAULT_OPTIONS, BrikWarsOptions
from app.rules.errors import InvalidInput
from app.rules.numbers import exact_number, one_decimal

Category = Literal["close_combat", "ranged", "explosive", "armour", "equipment", "turret"]
SizedBy = Literal["inches", "bricks", "fixed"]
HandClass = Literal["short", "bastard", "long"]
Scale = Literal["creation", "minifig", "bastard", "turret"]

ACTION_DICE: tuple[int, ...] = (4, 6, 8, 10, 12)
MAX_SIZE = 100
"""Largest Weapon Size (inches) or Explosive Size (bricks) the engine accepts."""


# --------------------------------------------------------------------------- numbers


def to_fraction(value: object, field_name: str) -> Fraction:
    """An exact number from an int, Fraction, Decimal, float or numeric string.

    The format is bounded (``app.rules.numbers.exact_number``: at most 20 characters, steps
    of 1/100 or fractions like 1/3); booleans, NaN, infinities and non-numbers raise
    ``InvalidInput(field_name, ...)``.
    """
    return exact_number(value, field_name)


def positive_size(value: object, field_name: str = "size") -> Fraction:
    """A Weapon or Creation Size: a number above 0 and at most ``MAX_SIZE`` inches."""
    size = to_fraction(value, field_name)
    if size <= 0:
        raise InvalidInput(field_name, "must be greater than 0")
    if size > MAX_SIZE:
        raise InvalidInput(field_name, f"must be at most {MAX_SIZE}")
    return size


def brick_count(value: object, field_name: str = "xsize") -> int:
    """An Explosive Size: a whole number of bricks from 1 to ``MAX_SIZE``."""
    count = to_fraction(value, field_name)
    if count.denominator != 1:
        raise InvalidInput(field_name, "Explosive Size is a whole number of bricks")
    if count <= 0:
        raise InvalidInput(field_name, "must be at least 1 brick")
    if count > MAX_SIZE:
        raise InvalidInput(field_name, f"must be at most {MAX_SIZE} bricks")
    return int(count)


def whole_dice(size: Fraction, rounding: str = "floor") -> int:
    """Dice counted from a (possibly fractional) Size, at least one.

    ``floor`` (default, ruling "fractional sizes"): full inches only, a 2.5" Gun rolls 2d6;
    ``nearest``: halves round up (3d6); ``up``: any part of an inch counts (3d6).
    """
    if rounding == "nearest":
        count = math.floor(size + Fraction(1, 2))
    elif rounding == "up":
        count = math.ceil(size)
    else:
        count = math.floor(size)
    return max(1, count)


def whole_use(use: Fraction) -> int:
    """A Use rating as the smallest natural roll that meets it (roll >= 3.5 means roll >= 4)."""
    return math.ceil(use)


def plain(number: Fraction) -> Fraction | int:
    """An int when the Fraction is whole (friendlier for JSON and display)."""
    return int(number) if number.denominator == 1 else number


def format_number(number: Fraction | int) -> str:
    """A number with at most one decimal, halves rounded up: 4, 4.5, 0.3 (1/3), 0.3 (1/4)."""
    return one_decimal(number)


def format_cp(cost: Fraction | int) -> str:
    """A CP cost with at most one decimal, e.g. ``format_cp(Fraction(9, 2)) == "4.5CP"``."""
    return f"{format_number(cost)}CP"


# --------------------------------------------------------------------------- damage


@dataclass(frozen=True, slots=True)
class DamageExpr:
    """A damage roll: ``dice`` dice of ``sides`` sides plus ``modifier``.

    Flags carry the special effects: ``minus_distance`` (BlastGun: -1 per full inch),
    ``fire`` (Fire damage), ``explosion`` (radius rings and KnockBack), ``armor_piercing`` (each
    die cancels a layer of Deflection), ``knockback_only`` (Concussion: no damage),
    ``ignores_deflection`` (Phased d12s). ``extra`` holds a second group of dice of another
    type rolled with the first (a Phased Explosive of odd X keeps one standard d10).
    """

    dice: int
    sides: int
    modifier: int = 0
    minus_distance: bool = False
    fire: bool = False
    explosion: bool = False
    armor_piercing: bool = False
    knockback_only: bool = False
    ignores_deflection: bool = False
    extra: DamageExpr | None = None

    def __str__(self) -> str:
        text = f"{self.dice}d{self.sides}"
        if self.modifier:
            text += f"{self.modifier:+d}"
        if self.minus_distance:
            text += " − distance"
        if self.knockback_only:
            text += '" KnockBack'
        elif self.fire:
            text += " Fire"
        if self.armor_piercing:
            text += " Armor Piercing"
        if self.ignores_deflection:
            text += " Phased"
        if self.explosion and not self.extra:
            text += " Explosion"
        if self.extra is not None:
            text += f" + {self.extra}"
        return text


@dataclass(frozen=True, slots=True)
class ExplosiveVariant:
    """A die replacement for Explosives (chapter 8, Explosive Variants; RULINGS §1.6)."""

    id: str
    name: str
    sides: int
    bricks_per_die: int
    effect: str
    fire: bool = False
    armor_piercing: bool = False
    knockback_only: bool = False
    ignores_deflection: bool = False

    def damage(self, xsize: int) -> DamageExpr:
        """The Explosion dice of an Explosive of ``xsize`` bricks with this variant."""
        dice, left_over = divmod(xsize, self.bricks_per_die)
        extra = None
        if left_over:
            # Ruling "phased odd X": the brick that cannot pair stays a standard d10.
            extra = STANDARD_VARIANT.damage(left_over)
        if dice == 0 and extra is not None:
            return extra
        return DamageExpr(
            dice=dice,
            sides=self.sides,
            explosion=True,
            fire=self.fire,
            armor_piercing=self.armor_piercing,
            knockback_only=self.knockback_only,
            ignores_deflection=self.ignores_deflection,
            extra=extra,
        )


STANDARD_VARIANT = ExplosiveVariant(
    id="standard",
    name="Explosive",
    sides=10,
    bricks_per_die=1,
    effect='X d10 Explosion; 1" KnockBack per die',
)

_VARIANTS: tuple[ExplosiveVariant, ...] = (
    STANDARD_VARIANT,
    ExplosiveVariant(
        id="incendiary",
        name="Incendiary",
        sides=4,
        bricks_per_die=1,
        effect="each d10 becomes a d4 of Fire Damage",
        fire=True,
    ),
    ExplosiveVariant(
        id="armor_piercing",
        name="Armor Piercing",
        sides=6,
        bricks_per_die=1,
        effect="each d10 becomes a d6 that cancels one layer of Deflection",
        armor_piercing=True,
    ),
    ExplosiveVariant(
        id="concussion",
        name="Concussion",
        sides=6,
        bricks_per_die=1,
        effect='each d10 becomes a d6" of KnockBack, opposed by POP; no damage',
        knockback_only=True,
    ),
    ExplosiveVariant(
        id="phased",
        name="Phased",
        sides=12,
        bricks_per_die=2,
        effect="every two d10s become one d12 that ignores Deflection",
        ignores_deflection=True,
    ),
)
_VARIANTS_BY_ID = {v.id: v for v in _VARIANTS}


def explosive_variants() -> tuple[ExplosiveVariant, ...]:
    """Every Explosive variant, standard first."""
    return _VARIANTS


def explosive_variant(variant_id: str | None) -> ExplosiveVariant:
    """The variant with this id (``None`` means standard); ``InvalidInput("variant")`` else."""
    if variant_id is None:
        return STANDARD_VARIANT
    try:
        return _VARIANTS_BY_ID[variant_id]
    except (KeyError, TypeError):
        raise InvalidInput("variant", f"unknown Explosive variant {variant_id!r}") from None


# --------------------------------------------------------------------------- entries

SizeFn = Callable[[Fraction], Fraction]
UseFn = Callable[[Fraction], Fraction | None]
RangeFn = Callable[[Fraction], Fraction | None]
DamageFn = Callable[[Fraction, int, ExplosiveVariant], DamageExpr | None]


def _none(_s: Fraction) -> None:
    return None


def _no_damage(_s: Fraction, _die: int, _v: ExplosiveVariant) -> None:
    return None


def _const(value: int | Fraction) -> Callable[[Fraction], Fraction]:
    return lambda _s: Fraction(value)


@dataclass(frozen=True, slots=True)
class Linear:
    """A formula ``k × size + c`` (cost, Use, Range, Power), evaluated and rendered from
    the same two numbers so the text a page shows can never drift from the value.

    >>> Linear(4, 2, unit='"').text("S"), Linear(4, 2)(Fraction(3))
    ('4×S+2"', Fraction(14, 1))
    """

    k: int
    c: int = 0
    unit: str = ""

    def __call__(self, size: Fraction) -> Fraction:
        return self.k * Fraction(size) + self.c

    def text(self, symbol: str) -> str:
        term = symbol if self.k == 1 else f"{self.k}×{symbol}"
        return term + (f"+{self.c}" if self.c else "") + self.unit


@dataclass(frozen=True, slots=True)
class WeaponType:
    """One row of the weapon table.

    ``sized_by`` says what the formulas read: ``inches`` (S), ``bricks`` (X) or ``fixed``.
    The ``*_text`` fields render the formulas; the underscored callables evaluate them (use
    ``weapon_stats``). ``hand_class`` and ``nominal_size`` are for fixed minifig items: the
    Short/Bastard/Long class they are held as and the Weapon Size they stand for.
    """

    id: str
    name: str
    category: Category
    scale: Scale
    sized_by: SizedBy
    cost_text: str = ""
    use_text: str = ""
    range_text: str = ""
    damage_text: str = ""
    power_text: str = ""
    notes: str = ""
    ranged: bool = False
    hand_held_only: bool = False
    can_be_hand_held: bool = True
    hand_class: HandClass | None = None
    nominal_size: Fraction = Fraction(0)
    deflection_text: str = ""
    half_speed: bool = False
    no_flying: bool = False
    armour_bonus: int = 0
    takes_ammo: bool = False
    takes_payload: bool = False
    turret_power: int = 0
    turret_mount_limit: int = 0
    ammo_max_text: str = ""
    payload_max_text: str = ""
    _cost: SizeFn = field(default=_const(0), repr=False, compare=False)
    _use: UseFn = field(default=_none, repr=False, compare=False)
    _range: RangeFn = field(default=_none, repr=False, compare=False)
    _damage: DamageFn = field(default=_no_damage, repr=False, compare=False)
    _power: SizeFn = field(default=_const(0), repr=False, compare=False)
    _deflection: Callable[[Fraction], int | None] = field(default=_none, repr=False, compare=False)
    _ammo_max: Callable[[Fraction], int] | None = field(default=None, repr=False, compare=False)
    _payload_max_xsize: Callable[[Fraction], Fraction] | None = field(
        default=None, repr=False, compare=False
    )
    _payload_max_object: Callable[[Fraction], Fraction] | None = field(
        default=None, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        # A formula given as Linear renders its own text unless the entry words it itself.
        symbol = "X" if self.sized_by == "bricks" else "S"
        for name in ("cost", "use", "range", "power"):
            formula = getattr(self, f"_{name}")
            if not getattr(self, f"{name}_text") and isinstance(formula, Linear):
                object.__setattr__(self, f"{name}_text", formula.text(symbol))

    def to_dict(self) -> dict[str, object]:
        """The entry's public fields, JSON-ready (formulas as text; no callables).

        >>> weapon_type("gun").to_dict()["range_text"]
        '4×S+2"'
        """
        data: dict[str, object] = {}
        for name in self.__dataclass_fields__:
            if name.startswith("_"):
                continue
            value = getattr(self, name)
            if isinstance(value, Fraction):
                value = int(value) if value.denominator == 1 else str(value)
            data[name] = value
        return data

    @property
    def attacks(self) -> bool:
        """True when it makes attacks of its own: damage, or Ammo or a Payload to fire.
        Armour, shields, Bare Hands and turrets make none (they are not fired).

        >>> weapon_type("cannon").attacks, weapon_type("armor_plating").attacks
        (True, False)
        """
        return self._damage is not _no_damage or self.takes_ammo or self.takes_payload

    def ammo_max_xsize(self, size: Fraction | None = None) -> int | None:
        """Largest Ammo XSize this weapon fires (Cannon: X <= S), or None if it takes none."""
        if self._ammo_max is None:
            return None
        return self._ammo_max(Fraction(size or 0))

    def payload_max_xsize(self, size: Fraction | None = None) -> Fraction | None:
        """Largest total XSize of Explosives launched at once, or None if no Payload."""
        if self._payload_max_xsize is None:
            return None
        return self._payload_max_xsize(Fraction(size or 0))

    def payload_max_object_size(self, size: Fraction | None = None) -> Fraction | None:
        """Largest Size (inches) of an object Payload, or None if no Payload."""
        if self._payload_max_object is None:
            return None
        return self._payload_max_object(Fraction(size or 0))


def _dice(sides: int, *, minus_distance: bool = False, fire: bool = False) -> DamageFn:
    def damage(s: Fraction, _die: int, _v: ExplosiveVariant) -> DamageExpr:
        return DamageExpr(dice=whole_dice(s), sides=sides, minus_distance=minus_distance, fire=fire)

    return damage


def _explosion(x: Fraction, _die: int, variant: ExplosiveVariant) -> DamageExpr:
    return variant.damage(int(x))


def _fixed_dice(
    dice: int,
    sides: int,
    modifier: int = 0,
    *,
    minus_distance: bool = False,
    fire: bool = False,
    explosion: bool = False,
) -> DamageFn:
    def damage(_s: Fraction, _die: int, _v: ExplosiveVariant) -> DamageExpr:
        return DamageExpr(
            dice=dice,
            sides=sides,
            modifier=modifier,
            minus_distance=minus_distance,
            fire=fire,
            explosion=explosion,
        )

    return damage


def _action_dice(dice: int, modifier: int = 0) -> DamageFn:
    def damage(_s: Fraction, die: int, _v: ExplosiveVariant) -> DamageExpr:
        return DamageExpr(dice=dice, sides=die, modifier=modifier)

    return damage


def _melee(s: Fraction, die: int, _v: ExplosiveVariant) -> DamageExpr:
    return DamageExpr(dice=whole_dice(s), sides=die)


def _fixed(
    id: str,
    name: str,
    category: Category,
    *,
    cost: int,
    use: int | None,
    range_inches: int | None,
    damage: DamageFn = _no_damage,
    damage_text: str = "–",
    hand_class: HandClass | None = None,
    nominal_size: Fraction = Fraction(0),
    scale: Scale = "minifig",
    notes: str = "",
    ranged: bool = False,
    **extra: object,
) -> WeaponType:
    """A fixed-stat minifig item."""
    return WeaponType(
        id=id,
        name=name,
        category=category,
        scale=scale,
        sized_by="fixed",
        cost_text=f"{cost}",
        use_text="–" if use is None else f"{use}",
        range_text="CC"
        if range_inches is None and category == "close_combat"
        else ("–" if range_inches is None else f'{range_inches}"'),
        damage_text=damage_text,
        power_text=format_number(nominal_size),
        notes=notes,
        ranged=ranged,
        hand_held_only=True,
        hand_class=hand_class,
        nominal_size=nominal_size,
        _cost=_const(cost),
        _use=_const(use) if use is not None else _none,
        _range=_const(range_inches) if range_inches is not None else _none,
        _damage=damage,
        _power=_const(nominal_size),
        **extra,  # type: ignore[arg-type]
    )


_HALF = Fraction(1, 2)
_BASTARD = Fraction(3, 2)

_ENTRIES: tuple[WeaponType, ...] = (
    # ---- Creation weapons (chapter 8; RULINGS §1.4) ----
    WeaponType(
        id="melee_weapon",
        name="Melee Weapon",
        category="close_combat",
        scale="creation",
        sized_by="inches",
        range_text="CC",
        damage_text="S × Action die",
        _cost=Linear(2),
        _use=Linear(1, 1),
        _damage=_melee,
        _power=Linear(1),
    ),
    WeaponType(
        id="melee_shield",
        name="Melee Shield",
        category="close_combat",
        scale="creation",
        sized_by="inches",
        cost_text="1×S",
        range_text="CC",
        damage_text="–",
        deflection_text="S layers of Deflection on a Parry",
        notes='Parry or Shove only (2" KnockBack on Shove); can provide cover',
        _cost=Linear(1),
        _use=Linear(2),
        _power=Linear(1),
        _deflection=whole_dice,
    ),
    WeaponType(
        id="gun",
        name="Gun",
        category="ranged",
        scale="creation",
        sized_by="inches",
        damage_text="S d6",
        ranged=True,
        _cost=Linear(3),
        _use=Linear(1, 2),
        _range=Linear(4, 2, unit='"'),
        _damage=_dice(6),
        _power=Linear(1),
    ),
    WeaponType(
        id="blastgun",
        name="BlastGun",
        category="ranged",
        scale="creation",
        sized_by="inches",
        damage_text="S d8 − full inches of distance",
        notes='Firing Arc 1 fixed, no Auto Penalty; 1" KnockBack to minifigs (no Disruption)',
        ranged=True,
        _cost=Linear(3),
        _use=Linear(1, 1),
        _range=Linear(2, 2, unit='"'),
        _damage=_dice(8, minus_distance=True),
        _power=Linear(1),
    ),
    WeaponType(
        id="machinegun",
        name="MachineGun",
        category="ranged",
        scale="creation",
        sized_by="inches",
        damage_text="S d6",
        notes="Arc Fire or Burst; may jam and require Reload",
        ranged=True,
        _cost=Linear(4),
        _use=Linear(1, 2),
        _range=Linear(3, 2, unit='"'),
        _damage=_dice(6),
        _power=Linear(1),
    ),
    WeaponType(
        id="flamethrower",
        name="FlameThrower",
        category="ranged",
        scale="creation",
        sized_by="inches",
        damage_text="S d4 Fire",
        notes="Firing Arc of at least 1",
        ranged=True,
        _cost=Linear(3),
        _use=Linear(1, 1),
        _range=Linear(2, 2, unit='"'),
        _damage=_dice(4, fire=True),
        _power=Linear(1),
    ),
    WeaponType(
        id="explosive",
        name="Explosive",
        category="explosive",
        scale="creation",
        sized_by="bricks",
        cost_text="1×X",
        use_text="by Launcher, Cannon or thrown",
        range_text="by Launcher, Cannon or thrown",
        damage_text="X d10 Explosion",
        power_text="X (dropped); the launcher's S when fired from one",
        ranged=True,
        _cost=Linear(1),
        _damage=_explosion,
        _power=Linear(1),
    ),
    WeaponType(
        id="rocket",
        name="Rocket",
        category="explosive",
        scale="creation",
        sized_by="bricks",
        damage_text="X d10 Explosion",
        ranged=True,
        _cost=Linear(2),
        _use=Linear(2),
        _range=Linear(6, unit='"'),
        _damage=_explosion,
        _power=Linear(1),
    ),
    WeaponType(
        id="cannon",
        name="Cannon",
        category="explosive",
        scale="creation",
        sized_by="inches",
        damage_text="by its Ammo",
        notes="Ammo: one Explosive of X <= S; Reload after each shot",
        ranged=True,
        takes_ammo=True,
        ammo_max_text="X <= S",
        _cost=Linear(3),
        _use=Linear(1, 3),
        _range=Linear(4, unit='"'),
        _power=Linear(1),
        _ammo_max=lambda s: math.floor(s),
    ),
    WeaponType(
        id="launcher",
        name="Launcher",
        category="explosive",
        scale="creation",
        sized_by="inches",
        damage_text="by its Payload",
        notes="Payload: Explosives of total X <= S, or objects of Size <= floor(S/2)",
        ranged=True,
        takes_payload=True,
        payload_max_text="X <= S; objects of Size <= floor(S/2)",
        _cost=Linear(3),
        _use=Linear(2),
        _range=Linear(6, unit='"'),
        _power=Linear(1),
        _payload_max_xsize=lambda s: s,
        _payload_max_object=lambda s: Fraction(math.floor(s / 2)),
    ),
    WeaponType(
        id="armor_plating",
        name="Armor Plating",
        category="armour",
        scale="creation",
        sized_by="inches",
        cost_text="S+1 (S = Size of the covered area)",
        use_text="–",
        range_text="–",
        damage_text="–",
        power_text="0",
        deflection_text="1 layer of Deflection over the covered area",
        notes="Half Speed; no flying or other alternate Movement; needs no Power",
        can_be_hand_held=False,
        half_speed=True,
        no_flying=True,
        _cost=Linear(1, 1),
        _deflection=lambda _s: 1,
    ),
    # ---- Turrets (chapter 8, Turrets) ----
    WeaponType(
        id="small_turret",
        name="Small Turret",
        category="turret",
        scale="turret",
        sized_by="fixed",
        cost_text="1",
        use_text="–",
        range_text="–",
        damage_text="–",
        power_text='+2"',
        notes='1" in Size; mounts a weapon up to 2"; no Sprinting if carried; Action to Set Up',
        can_be_hand_held=False,
        turret_power=2,
        turret_mount_limit=2,
        nominal_size=Fraction(1),
        _cost=_const(1),
    ),
    WeaponType(
        id="large_turret",
        name="Large Turret",
        category="turret",
        scale="turret",
        sized_by="fixed",
        cost_text="2",
        use_text="–",
        range_text="–",
        damage_text="–",
        power_text='+4"',
        notes='2" in Size; mounts a weapon up to 4"; Half Speed if carried; Action to Set Up',
        can_be_hand_held=False,
        turret_power=4,
        turret_mount_limit=4,
        nominal_size=Fraction(2),
        _cost=_const(2),
    ),
    # ---- Minifig weapons and equipment (chapter 3; RULINGS §1.4) ----
    _fixed(
        "hand_weapon",
        "Hand Weapon",
        "close_combat",
        cost=2,
        use=2,
        range_inches=None,
        damage=_action_dice(1),
        damage_text="1 Action die",
        hand_class="short",
        nominal_size=Fraction(1),
    ),
    _fixed(
        "heavy_weapon",
        "Heavy Weapon",
        "close_combat",
        cost=3,
        use=3,
        range_inches=None,
        damage=_action_dice(1, 2),
        damage_text="Action die+2",
        hand_class="bastard",
        nominal_size=_BASTARD,
    ),
    _fixed(
        "two_handed_weapon",
        "Two-Handed Weapon",
        "close_combat",
        cost=4,
        use=4,
        range_inches=None,
        damage=_action_dice(2),
        damage_text="2 Action dice",
        hand_class="long",
        nominal_size=Fraction(2),
        notes="+1 to the defender's Parry against it",
    ),
    _fixed(
        "short_ranged_weapon",
        "Short-Ranged Weapon",
        "ranged",
        cost=3,
        use=3,
        range_inches=6,
        damage=_fixed_dice(1, 6),
        damage_text="1d6",
        hand_class="short",
        nominal_size=Fraction(1),
        ranged=True,
    ),
    _fixed(
        "long_ranged_weapon",
        "Long-Ranged Weapon (Bastard Gun)",
        "ranged",
        cost=5,
        use=3,
        range_inches=10,
        damage=_fixed_dice(1, 6, 1),
        damage_text="1d6+1",
        hand_class="bastard",
        nominal_size=_BASTARD,
        ranged=True,
    ),
    _fixed(
        "thrown_explosive",
        "Explosive (thrown)",
        "explosive",
        cost=1,
        use=1,
        range_inches=3,
        damage=_fixed_dice(1, 10, explosion=True),
        damage_text="1d10 Explosion",
        hand_class="short",
        nominal_size=Fraction(1),
        ranged=True,
        notes="an X1 Explosive thrown by hand",
    ),
    _fixed(
        "shield",
        "Shield",
        "close_combat",
        cost=1,
        use=2,
        range_inches=None,
        hand_class="short",
        notes="Parry only",
    ),
    _fixed(
        "heavy_shield",
        "Heavy Shield",
        "close_combat",
        cost=1,
        use=3,
        range_inches=None,
        hand_class="short",
        notes="Parry only",
    ),
    _fixed(
        "body_armor",
        "Body Armor",
        "armour",
        cost=1,
        use=None,
        range_inches=None,
        notes="Armour +2",
        armour_bonus=2,
        can_be_hand_held=False,
    ),
    _fixed(
        "heavy_armor",
        "Heavy Armor",
        "armour",
        cost=2,
        use=None,
        range_inches=None,
        deflection_text="1 layer of Deflection",
        notes="Half Speed",
        half_speed=True,
        can_be_hand_held=False,
        _deflection=lambda _s: 1,
    ),
    _fixed(
        "minifig_tool",
        "Minifig Tool",
        "equipment",
        cost=1,
        use=3,
        range_inches=None,
        damage=_fixed_dice(1, 6, -1),
        damage_text="1d6-1",
        hand_class="short",
        nominal_size=Fraction(1),
    ),
    _fixed(
        "bare_hands",
        "Bare Hands",
        "close_combat",
        cost=0,
        use=0,
        range_inches=None,
        notes="Parry with Use 0",
    ),
    # ---- Minifig Bastard guns (chapter 8; RULINGS §1.4) ----
    _fixed(
        "shotgun",
        "ShotGun (Bastard BlastGun)",
        "ranged",
        cost=4,
        use=3,
        range_inches=6,
        damage=_fixed_dice(1, 8, 1, minus_distance=True),
        damage_text="1d8+1 − distance",
        hand_class="bastard",
        nominal_size=_BASTARD,
        scale="bastard",
        ranged=True,
        notes='Firing Arc 1, no Auto Penalty; 1" KnockBack to minifigs or smaller',
    ),
    _fixed(
        "autogun",
        "AutoGun (Bastard MachineGun)",
        "ranged",
        cost=6,
        use=3,
        range_inches=8,
        damage=_fixed_dice(1, 6, 1),
        damage_text="1d6+1",
        hand_class="bastard",
        nominal_size=_BASTARD,
        scale="bastard",
        ranged=True,
        notes="may require Reload",
    ),
    _fixed(
        "flamegun",
        "FlameGun (Bastard FlameThrower)",
        "ranged",
        cost=4,
        use=2,
        range_inches=5,
        damage=_fixed_dice(1, 4, 1, fire=True),
        damage_text="1d4+1 Fire",
        hand_class="bastard",
        nominal_size=_BASTARD,
        scale="bastard",
        ranged=True,
    ),
    _fixed(
        "bazooka",
        "Bazooka (Bastard Cannon)",
        "ranged",
        cost=4,
        use=4,
        range_inches=6,
        damage_text="by its Ammo",
        hand_class="bastard",
        nominal_size=_BASTARD,
        scale="bastard",
        ranged=True,
        notes="Ammo X <= 1; Reload after each shot",
        takes_ammo=True,
        ammo_max_text="X <= 1",
        _ammo_max=lambda _s: 1,
    ),
    _fixed(
        "railgun",
        "RailGun (Bastard Launcher)",
        "ranged",
        cost=4,
        use=4,
        range_inches=8,
        damage_text="by its Payload",
        hand_class="bastard",
        nominal_size=_BASTARD,
        scale="bastard",
        ranged=True,
        notes='Payload: objects of Size <= 1", Explosives X <= 2',
        takes_payload=True,
        payload_max_text='X <= 2; objects of Size <= 1"',
        _payload_max_xsize=lambda _s: Fraction(2),
        _payload_max_object=lambda _s: Fraction(1),
    ),
)

_BY_ID: dict[str, WeaponType] = {w.id: w for w in _ENTRIES}
assert len(_BY_ID) == len(_ENTRIES), "duplicate weapon id in the catalogue"


def catalogue() -> tuple[WeaponType, ...]:
    """Every weapon, item and turret, in table order (creation weapons first).

    >>> [w.id for w in catalogue()][:3]
    ['melee_weapon', 'melee_shield', 'gun']
    """
    return _ENTRIES


def weapon_type(type_id: str) -> WeaponType:
    """The catalogue entry with this id; ``InvalidInput("type", ...)`` when unknown.

    >>> weapon_type("gun").cost_text
    '3×S'
    """
    try:
        return _BY_ID[type_id]
    except (KeyError, TypeError):
        raise InvalidInput("type", f"unknown weapon type {type_id!r}") from None


# --------------------------------------------------------------------------- stats


@dataclass(frozen=True, slots=True)
class WeaponStats:
    """A weapon's numbers at one size.

    ``use`` is the smallest natural Action total that hits (None: not rolled / decided by the
    launcher); ``range_inches`` is None for close combat; ``damage`` is None where Ammo or
    Payload decides; ``power`` is the Power the weapon needs when fired directly (the Power a
    turret adds is ``WeaponType.turret_power``); ``deflection`` counts layers.
    """

    type_id: str
    size: Fraction | None
    xsize: int | None
    use: int | None
    range_inches: Fraction | int | None
    damage: DamageExpr | None
    cost: Fraction
    power: Fraction | int
    deflection: int | None = None

    def with_damage(self, damage: DamageExpr | None) -> WeaponStats:
        """The same stats with the damage decided by Ammo or Payload."""
        return replace(self, damage=damage)


def action_die_value(action_die: object) -> int:
    """An Action die (4, 6, 8, 10, 12); ``None`` means the Trained d6."""
    if action_die is None:
        return 6
    if isinstance(action_die, bool) or not isinstance(action_die, int):
        raise InvalidInput("action_die", "must be one of d4, d6, d8, d10, d12")
    if action_die not in ACTION_DICE:
        raise InvalidInput("action_die", "must be one of d4, d6, d8, d10, d12")
    return action_die


def weapon_size_of(
    entry: WeaponType, size: object = None, xsize: object = None
) -> tuple[Fraction | None, int | None]:
    """Check that the right measure was given for this entry and return it exactly."""
    if entry.sized_by == "inches":
        if xsize is not None:
            raise InvalidInput("xsize", f"{entry.name} is sized in inches, not bricks")
        if size is None:
            raise InvalidInput("size", f"{entry.name} needs a Weapon Size in inches")
        return positive_size(size, "size"), None
    if entry.sized_by == "bricks":
        if size is not None:
            raise InvalidInput("size", f"{entry.name} is sized in bricks (xsize), not inches")
        if xsize is None:
            raise InvalidInput("xsize", f"{entry.name} needs an Explosive Size in bricks")
        return None, brick_count(xsize, "xsize")
    if size is not None:
        raise InvalidInput("size", f"{entry.name} has a fixed size")
    if xsize is not None:
        raise InvalidInput("xsize", f"{entry.name} has a fixed size")
    return None, None


def weapon_stats(
    type_id: str,
    *,
    size: object = None,
    xsize: object = None,
    action_die: object = None,
    variant: str | None = None,
    options: BrikWarsOptions = DEFAULT_OPTIONS,
) -> WeaponStats:
    """Evaluate a catalogue entry at a Weapon Size (inches) or Explosive Size (bricks).

    Memoised: a builder page asks for the same few weapons many times over. The cache is
    typed (it keeps each argument's type), so ``True`` is never taken for ``1``.

    >>> weapon_stats("gun", size=3).range_inches
    14
    """
    try:
        return _weapon_stats_cached(type_id, size, xsize, action_die, variant, options)
    except TypeError:  # an unhashable argument: the plain path says what is wrong with it
        return _weapon_stats(type_id, size, xsize, action_die, variant, options)


def _weapon_stats(
    type_id: str,
    size: object,
    xsize: object,
    action_die: object,
    variant: str | None,
    options: BrikWarsOptions,
) -> WeaponStats:
    """Evaluate a catalogue entry at a Weapon Size (inches) or Explosive Size (bricks).

    ``action_die`` is the wielder's Action die (Melee Weapons and minifig close-combat
    weapons; default d6); ``variant`` an Explosive variant id for Explosives and Rockets;
    ``options.fractional_dice`` decides the dice of a fractional Size.

    >>> s = weapon_stats("melee_weapon", size=4)
    >>> (s.cost, s.use, str(s.damage))
    (Fraction(8, 1), 5, '4d6')
    >>> weapon_stats("gun", size=3).range_inches
    14
    """
    entry = weapon_type(type_id)
    s, x = weapon_size_of(entry, size, xsize)
    die = action_die_value(action_die)
    chosen = explosive_variant(variant)
    if variant is not None and entry.sized_by != "bricks":
        raise InvalidInput("variant", f"{entry.name} takes no Explosive variant")
    measure = s if s is not None else Fraction(x) if x is not None else Fraction(0)
    # Dice and layers count whole inches; cost, Use, Range and Power use the exact Size.
    counted = Fraction(whole_dice(measure, options.fractional_dice)) if s is not None else measure
    use = entry._use(measure)
    range_inches = entry._range(measure)
    power = entry._power(measure)
    return WeaponStats(
        type_id=entry.id,
        size=s,
        xsize=x,
        use=None if use is None else whole_use(use),
        range_inches=None if range_inches is None else plain(range_inches),
        damage=entry._damage(counted, die, chosen),
        cost=Fraction(entry._cost(measure)),
        power=plain(power),
        deflection=entry._deflection(counted),
    )


_weapon_stats_cached = lru_cache(maxsize=4096, typed=True)(_weapon_stats)
