"""A unit's and a weapon's figures in words, as the builder, prints and exports show them."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from app.rules.brikwars.catalogue import WeaponStats, format_cp, format_number
from app.rules.brikwars.options import BrikWarsOptions
from app.rules.brikwars.units import FLESH, UnitSpec, WeaponSpec


@dataclass(frozen=True, slots=True)
class WeaponLine:
    """A weapon's figures as the builder table shows them."""

    name: str
    extra: str
    mount: str
    use: str
    range: str
    damage: str
    power: str
    cost: str

    @property
    def mount_chosen(self) -> str:
        """The mount (and grip) where it is not the plain default "mounted": what a print or
        a forum post must say, as a turret changes the cost and the Power."""
        return "" if self.mount == "mounted" else self.mount


def inches(value: Fraction | int) -> str:
    """2.5" (exact: 1/3" stays a fraction)."""
    return f'{format_number(value)}"'


def weapon_name(weapon: WeaponSpec) -> str:
    """The weapon's name with its size: 'Gun 3"', 'Explosive X2'."""
    text = weapon.entry.name
    if weapon.size is not None and weapon.entry.sized_by == "inches":
        text += f" {inches(weapon.size)}"
    if weapon.xsize is not None:
        text += f" X{weapon.xsize}"
    return text


def weapon_line(
    weapon: WeaponSpec, stats: WeaponStats, hold: str | None, options: BrikWarsOptions
) -> WeaponLine:
    """One weapon's row of the builder table."""
    extra = []
    if weapon.ammo is not None:
        extra.append(f"Ammo: {weapon.ammo.rounds} × X{weapon.ammo.xsize} {weapon.ammo.variant}")
    if weapon.payload is not None:
        load = weapon.payload
        extra.append(
            f"Payload: {load.explosive.rounds} × X{load.explosive.xsize} "
            f"{load.explosive.variant}, {load.per_launch} per launch"
            if load.explosive is not None
            else f"Payload: objects up to {inches(load.object_size or 0)}"
        )
    if stats.damage is not None:
        damage = str(stats.damage)
    else:
        entry = weapon.entry
        damage = "by Payload" if entry.takes_payload else "by Ammo" if entry.takes_ammo else "–"
    if stats.deflection:
        damage += f" · {stats.deflection} Deflection"
    mount = weapon.mount.replace("_", " ") if weapon.mount else ""
    return WeaponLine(
        name=weapon_name(weapon) + (f" ({weapon.label})" if weapon.label else ""),
        extra=" · ".join(extra),
        mount=mount + (f" · {hold.replace('_', ' ')}" if hold else ""),
        use="–" if stats.use is None else str(stats.use),
        range="CC" if stats.range_inches is None else inches(stats.range_inches),
        damage=damage,
        power=inches(weapon.power_need_with(options)),
        cost=format_cp(weapon.cost_with(options)),
    )


def size_text(spec: UnitSpec) -> str:
    """'3"', or '2/3"' once it has taken Size Damage."""
    size = inches(spec.built_size)
    if spec.size_damage:
        size = f"{format_number(spec.effective_size)}/{size}"
    return size


def armour_text(spec: UnitSpec) -> str:
    return str(spec.armour) + (
        f" +{spec.armour.deflection} Defl." if spec.armour.deflection else ""
    )


def profile(spec: UnitSpec) -> tuple[tuple[str, str], ...]:
    """What the unit is built with beyond its stat columns, as (label, value) pairs for the
    print sheet and the forum text.

    >>> profile(UnitSpec(name="Trooper", kind="minifig"))
    (('Propulsion', 'Ground'), ('Structure Level', '½ (flesh)'), ('Mind', 'd6'))
    """
    level = "½ (flesh)" if spec.level == FLESH else format_number(spec.level)
    items = [
        ("Propulsion", spec.propulsion.capitalize()),
        ("Structure Level", level),
        ("Mind", f"d{spec.mind_die}" if spec.mind_die else "none"),
    ]
    if spec.specialties:
        names = (s.replace("_", " ").capitalize() for s in spec.specialties)
        items.append(("Specialties", ", ".join(names)))
    return tuple(items)
