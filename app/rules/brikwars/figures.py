"""A unit's and a weapon's figures in words, as the builder, prints and exports show them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from app.rules.brikwars.catalogue import WeaponStats, format_cp, format_number
from app.rules.brikwars.options import BrikWarsOptions
from app.rules.brikwars.units import FLESH, UnitSpec, WeaponSpec, weapon_name


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
        name=weapon_name(weapon),
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


_LABELS = {
    "size": "Size",
    "xsize": "Explosive Size",
    "structure_level": "Structure Level",
    "propulsion": "Propulsion",
    "move": "Move",
    "mind_die": "Mind",
    "specialties": "Specialties",
    "size_damage": "Size Damage",
    "mount": "Mount",
    "variant": "Variant",
    "ammo": "Ammo",
    "payload": "Payload",
    "label": "Label",
}
_IN_INCHES = {"size", "move", "size_damage"}


def _explosive_words(data: Mapping[str, Any]) -> str:
    """'X2', 'X2 incendiary × 3' (a stored Explosive: ammo or payload)."""
    text = f"X{data.get('xsize')}"
    if data.get("variant") not in (None, "standard"):
        text += f" {data['variant']}"
    if data.get("rounds") not in (None, 1):
        text += f" × {data['rounds']}"
    return text


def field_words(data: Mapping[str, Any]) -> dict[str, str]:
    """A stored unit's or weapon's fields as change summaries name them.

    >>> field_words({"move": 5, "mind_die": 6, "ammo": {"xsize": 2, "rounds": 1}})
    {'Move': '5"', 'Mind': 'd6', 'Ammo': 'X2'}
    """
    words = {}
    for key, value in data.items():
        if key in _IN_INCHES:
            text = f'{value}"'
        elif key == "xsize":
            text = f"X{value}"
        elif key == "mind_die":
            text = f"d{value}" if value else "none"
        elif key == "ammo":
            text = _explosive_words(value)
        elif key == "payload":
            load = value.get("explosive")
            per = value.get("per_launch", 1)
            text = (
                f"{_explosive_words(load)}, {per} per launch"
                if load
                else f'objects up to {value.get("object_size")}"'
            )
        elif key == "specialties":
            text = ", ".join(s.replace("_", " ") for s in value) or "none"
        elif key == "label":
            text = f"'{value}'" if value else "none"
        else:
            text = str(value).replace("_", " ") if value is not None else "none"
        words[_LABELS.get(key, key.replace("_", " "))] = text
    return words
