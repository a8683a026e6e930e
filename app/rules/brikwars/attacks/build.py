"""From saved units and weapons to attacks: what the calculator pages call.

The calculator keeps units (``UnitSpec``) and their weapons (``WeaponSpec``); these helpers
read their stats from the catalogue and return the attack objects, whose ``odds()`` and
``roll(rng)`` do the rest.
"""

from __future__ import annotations

import math
from fractions import Fraction

from app.rules.brikwars.attacks.area import ArcFire, ArcTarget, AutoWeapon, Burst
from app.rules.brikwars.attacks.common import (
    NO_SITUATION,
    ActionRoll,
    Situation,
    SmallTarget,
    Target,
    inches_out_of_range,
)
from app.rules.brikwars.attacks.explosion import Explosion, ExplosiveShot
from app.rules.brikwars.attacks.single import Attack, Parry
from app.rules.brikwars.catalogue import DamageExpr
from app.rules.brikwars.options import DEFAULT_OPTIONS, BrikWarsOptions
from app.rules.brikwars.units import Armour, UnitSpec, WeaponSpec, weapon_stats_of
from app.rules.errors import InvalidInput

SPECIALIST_DIE = 8
MAX_OBJECT_LEVEL = 5
AUTO_WEAPONS: dict[str, AutoWeapon] = {
    "machinegun": "machinegun",
    "autogun": "machinegun",
    "flamethrower": "flamethrower",
    "flamegun": "flamethrower",
    "blastgun": "blastgun",
    "shotgun": "blastgun",
}


def target_of(
    unit: UnitSpec,
    *,
    reach: Fraction | int | None = None,
    small: SmallTarget | None = None,
    visible_sections: int = 3,
) -> Target:
    """A saved unit as a target: its Armour (Deflection included) and Effective Size.

    ``reach`` defaults to the whole Effective Size (the inches the attack can reach).

    >>> from app.rules.brikwars.units import UnitSpec
    >>> t = target_of(UnitSpec(name="Tank", size=Fraction(4), structure_level=Fraction(2)))
    >>> (str(t.armour), t.size_modifier, t.takes_size_damage)
    ('2d10', 2, True)
    """
    es = unit.effective_size
    return Target(
        armour=unit.armour,
        kind=unit.kind,
        reach=es if reach is None else reach,
        small=small,
        visible_sections=visible_sections,
        effective_size=es if unit.kind == "creation" else None,
    )


def action_die_of(attacker: UnitSpec, *, gunner: bool = False) -> int:
    """The attacker's Action die; a Gunner firing a mounted weapon rolls at least a d8."""
    die = attacker.action_die
    if gunner and attacker.has("gunnery"):
        return max(die, SPECIALIST_DIE)
    return die


def attack_of(
    attacker: UnitSpec,
    weapon: WeaponSpec,
    target: Target,
    *,
    distance: Fraction | int | None = None,
    height: Fraction | int = 0,
    situation: Situation = NO_SITUATION,
    gunner: bool = False,
    charge: bool = False,
    parry: Parry | None = None,
    options: BrikWarsOptions = DEFAULT_OPTIONS,
) -> Attack:
    """A single ranged or close-combat attack with a saved weapon.

    ``distance`` (inches, ranged weapons) sets Out of Range after ``height`` (Height
    Advantage); ``charge``: a Charging Weapon Strike spending its MOM (one more Action die of
    Damage); ``parry``: the defender's Parry (see ``parry_modifier``). Explosives are
    resolved with ``explosive_shot_of`` and ``explosion_of``; a Launcher (or RailGun) loaded
    with an object Payload fires it as ``launched_object_of`` does.

    >>> from app.rules.brikwars.units import UnitSpec, WeaponSpec
    >>> trooper = UnitSpec(name="T", kind="minifig")
    >>> a = attack_of(trooper, WeaponSpec("short_ranged_weapon"), Target.minifig(), distance=7)
    >>> (a.action_roll(), a.situation.out_of_range)
    (ActionRoll(die=6, use=3, modifier=-1), 1)
    """
    if weapon.payload is not None and weapon.payload.explosive is None:
        return launched_object_of(
            attacker,
            weapon,
            target,
            distance=distance,
            height=height,
            situation=situation,
            gunner=gunner,
            options=options,
        )
    die = action_die_of(attacker, gunner=gunner)
    stats = weapon_stats_of(weapon, die, options)
    if weapon.payload is not None:
        raise InvalidInput(
            "weapon", f"{weapon.entry.name} launches Explosives: use explosive_shot_of"
        )
    if stats.damage is None or stats.use is None:
        raise InvalidInput("weapon", f"{weapon.entry.name} has no attack of its own")
    if stats.damage.explosion:
        raise InvalidInput("weapon", "an Explosive weapon is resolved with explosion_of")
    out = 0
    if distance is not None and stats.range_inches is not None:
        out = inches_out_of_range(distance, stats.range_inches, height)
    situation = _situation_out_of_range(situation, out)
    return Attack(
        stats.damage,
        target,
        ActionRoll(die, stats.use),
        situation,
        area=stats.damage.minus_distance or stats.damage.fire,
        parry=parry,
        charge_die=die if charge else None,
        options=options,
    )


def _situation_out_of_range(situation: Situation, out: int) -> Situation:
    return Situation(
        out_of_range=situation.out_of_range + out,
        firing_blind=situation.firing_blind,
        outnumbered=situation.outnumbered,
        gunnery_support=situation.gunnery_support,
        action_modifier=situation.action_modifier,
        damage_modifier=situation.damage_modifier,
    )


def crash_damage(armour: Armour) -> DamageExpr:
    """Crash Damage of a launched object: one d6 for each d10 of its Armour (chapter 8,
    Payload Launchers). An object without a d10 (Size 0, flesh, a minifig) does none:
    ``InvalidInput("payload")``.

    >>> str(crash_damage(Armour(dice=2, sides=10)))
    '2d6'
    """
    dice = armour.dice if armour.sides == 10 else 0
    if dice < 1:
        raise InvalidInput(
            "payload",
            f"an object with Armour {armour} has no d10 of Armour, so it does no Crash "
            "Damage (one d6 per d10); launch a melee weapon or an Explosive instead",
        )
    return DamageExpr(dice, 6)


def launched_object_of(
    attacker: UnitSpec,
    launcher: WeaponSpec,
    target: Target,
    *,
    payload: UnitSpec | WeaponSpec | None = None,
    distance: Fraction | int | None = None,
    height: Fraction | int = 0,
    situation: Situation = NO_SITUATION,
    gunner: bool = False,
    options: BrikWarsOptions = DEFAULT_OPTIONS,
) -> Attack:
    """One object fired by a Launcher (or the RailGun): the Launcher's Use and Range, the
    object's damage (chapter 8, Payload Launchers; ruling A19).

    "Launched Melee Weapons do Damage as if they had hit the target in a Close Combat attack
    ... Other Payloads do Crash Damage with their full Momentum, doing a d6 of Damage for each
    d10 in their Armor rating." ``payload`` is what flies: a melee ``WeaponSpec`` (its close
    combat Damage with the operator's Action die), a ``UnitSpec`` (a Creation, a boulder built
    as one: its Armour's d10s in d6s), or ``None``: the Launcher's object Payload as a solid
    object, one d10 of Armour per full inch of its Size (at most 5). Out of Range lowers the
    Action roll and each damage die. A launch of several objects rolls one attack each.

    >>> from app.rules.brikwars.units import Payload, UnitSpec, WeaponSpec
    >>> catapult = WeaponSpec("launcher", size=4, payload=Payload(object_size=2))
    >>> a = launched_object_of(UnitSpec(name="T", kind="minifig"), catapult, Target.minifig())
    >>> (a.action_roll(), str(a.damage))
    (ActionRoll(die=6, use=8, modifier=0), '2d6')
    """
    load = launcher.payload
    limit = launcher.entry.payload_max_object_size(launcher.size)
    if limit is None:
        raise InvalidInput("weapon", f"{launcher.entry.name} takes no Payload")
    if payload is None:
        if load is None or load.object_size is None:
            raise InvalidInput("payload", f"{launcher.entry.name} is not loaded with an object")
        size = Fraction(load.object_size)
        levels = min(MAX_OBJECT_LEVEL, math.floor(size))
        damage = crash_damage(Armour(dice=levels, sides=10) if levels else Armour())
    elif isinstance(payload, WeaponSpec):
        entry = payload.entry
        # Minifig equipment is a Size 0" object (the Launcher text); others have their S.
        size = (
            payload.size if entry.sized_by == "inches" and payload.size is not None else Fraction(0)
        )
        stats = weapon_stats_of(payload, action_die_of(attacker, gunner=gunner), options)
        if entry.ranged or stats.damage is None or stats.damage.explosion:
            raise InvalidInput(
                "payload",
                f"{entry.name} is not a melee weapon: launch it as an object or an Explosive",
            )
        damage = stats.damage
    elif isinstance(payload, UnitSpec):
        size = Fraction(payload.size or 0)
        damage = crash_damage(payload.armour)
    else:
        raise InvalidInput("payload", "must be a melee WeaponSpec, a UnitSpec or None")
    if size > limit:
        raise InvalidInput(
            "payload",
            f'{launcher.entry.name} launches objects of Size {limit}" at most, not {size}"',
        )
    die = action_die_of(attacker, gunner=gunner)
    stats = weapon_stats_of(launcher, die, options)
    assert stats.use is not None
    out = 0
    if distance is not None and stats.range_inches is not None:
        out = inches_out_of_range(distance, stats.range_inches, height)
    return Attack(
        damage,
        target,
        ActionRoll(die, stats.use),
        _situation_out_of_range(situation, out),
        options=options,
    )


def explosion_of(
    weapon: WeaponSpec,
    *,
    over_the_top: bool = False,
    options: BrikWarsOptions = DEFAULT_OPTIONS,
) -> Explosion:
    """The Explosion of a saved Explosive, Rocket or Cannon (its Ammo) or a Launcher's
    Payload Explosive (one per launched round; each round has its own Action roll)."""
    stats = weapon_stats_of(weapon, None, options)
    damage = stats.damage
    if damage is None and weapon.payload is not None and weapon.payload.explosive is not None:
        payload = weapon.payload.explosive
        damage = weapon_stats_of(
            WeaponSpec("explosive", xsize=payload.xsize, variant=payload.variant)
        ).damage
    if damage is None or not damage.explosion:
        raise InvalidInput("weapon", f"{weapon.entry.name} does not explode")
    return Explosion(damage, over_the_top=over_the_top, options=options)


def arc_fire_of(
    attacker: UnitSpec,
    weapon: WeaponSpec,
    targets: tuple[ArcTarget, ...],
    *,
    arc: int = 1,
    situation: Situation = NO_SITUATION,
    gunner: bool = False,
    options: BrikWarsOptions = DEFAULT_OPTIONS,
) -> ArcFire:
    """Arc Fire with a saved MachineGun, FlameThrower or BlastGun (or their minifig Bastard
    versions) over targets in order from one end of the Arc."""
    kind = AUTO_WEAPONS.get(weapon.type)
    if kind is None:
        raise InvalidInput("weapon", f"{weapon.entry.name} cannot fire in an Arc")
    die = action_die_of(attacker, gunner=gunner)
    stats = weapon_stats_of(weapon, die, options)
    assert stats.damage is not None and stats.use is not None
    return ArcFire(
        kind,
        ActionRoll(die, stats.use),
        stats.damage,
        arc=1 if kind == "blastgun" else arc,
        targets=targets,
        situation=situation,
        options=options,
    )


def burst_of(
    attacker: UnitSpec,
    weapon: WeaponSpec,
    target: Target,
    shots: int,
    *,
    situation: Situation = NO_SITUATION,
    gunner: bool = False,
    options: BrikWarsOptions = DEFAULT_OPTIONS,
) -> Burst:
    """A Burst of ``shots`` from a saved MachineGun (or AutoGun)."""
    if AUTO_WEAPONS.get(weapon.type) != "machinegun":
        raise InvalidInput("weapon", f"{weapon.entry.name} cannot fire a Burst")
    die = action_die_of(attacker, gunner=gunner)
    stats = weapon_stats_of(weapon, die, options)
    assert stats.damage is not None and stats.use is not None
    return Burst(ActionRoll(die, stats.use), stats.damage, shots, target, situation, options)


def explosive_shot_of(
    attacker: UnitSpec,
    weapon: WeaponSpec,
    *,
    distance: Fraction | int | None = None,
    height: Fraction | int = 0,
    situation: Situation = NO_SITUATION,
    gunner: bool = False,
    options: BrikWarsOptions = DEFAULT_OPTIONS,
) -> ExplosiveShot:
    """A saved Explosive thrown, or fired from a Rocket, Cannon or Launcher: the Action roll
    (Out of Range lowers it, never the Explosion's Damage), then the Explosion.

    >>> from app.rules.brikwars.units import UnitSpec, WeaponSpec
    >>> grenade = explosive_shot_of(UnitSpec(name="T", kind="minifig"),
    ...                             WeaponSpec("thrown_explosive"), distance=5)
    >>> grenade.action
    ActionRoll(die=6, use=1, modifier=-2)
    """
    die = action_die_of(attacker, gunner=gunner)
    stats = weapon_stats_of(weapon, die, options)
    if stats.use is None:
        raise InvalidInput("weapon", f"{weapon.entry.name} is fired from a launcher")
    out = situation.out_of_range
    if distance is not None and stats.range_inches is not None:
        out += inches_out_of_range(distance, stats.range_inches, height)
    total = Situation(
        out_of_range=out,
        firing_blind=situation.firing_blind,
        gunnery_support=situation.gunnery_support,
        action_modifier=situation.action_modifier,
    ).action_total
    return ExplosiveShot(ActionRoll(die, stats.use, total), explosion_of(weapon, options=options))
