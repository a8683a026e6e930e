"""Area weapons (9.5.4): how many units an explosive may attack in a location, the locations
it reaches besides its own and the degree it has at each (how many are hit:
``app.rules.dice.independent``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from app.rules.degrees.catalogue import AREA_CLOSE_FROM, AREA_FAR_FROM, WeaponType

UNITS_PER_DEGREE: Final = {"explosive": 10, "precision": 5}
LOCATION_PENALTY: Final = {"here": 0, "close": -1, "far": -2}
LOCATION_FROM: Final = {"here": 0, "close": AREA_CLOSE_FROM, "far": AREA_FAR_FROM}
LOCATION_NAMES: Final = {"here": "Here", "close": "Close", "far": "Far"}


def most_targets(kind: WeaponType, degree: int) -> int:
    """The most units one attack of an area weapon of ``degree`` may attack in one location
    (1: not area)."""
    return UNITS_PER_DEGREE[kind.area] * degree if kind.area else 1


def location_problem(kind: WeaponType, degree: int, location: str, name: str) -> str:
    """Why a target at ``location`` cannot be attacked by this weapon ('' when it can)."""
    if location == "here" or not kind.area:
        return ""
    need = LOCATION_FROM[location]
    if degree < need:
        return f"{name} attacks {location.capitalize()} locations only from {need}°."
    return ""


def crowd_problems(name: str, most: int, units: Mapping[str, int]) -> list[str]:
    """Each location holding more units than the weapon may attack in one location (the
    attacker chooses which, 9.5.4: 'fewer units than the weapon allows, but not more')."""
    return [
        f"{name} attacks at most {most} units in a location; {units[loc]} chosen "
        f"{LOCATION_NAMES[loc]}."
        for loc in LOCATION_NAMES
        if units.get(loc, 0) > most
    ]


def further_locations(degree: int, final: int) -> int:
    """How many further (Close or Far) locations an area attack may attack: none below 4°
    (the degree chosen), else its final degree (9.5.4, RULINGS 2.4)."""
    return max(0, final) if degree >= AREA_CLOSE_FROM else 0


def reach(degree: int, final: int) -> str:
    """The locations an area attack of ``degree`` (chosen, before modifiers) and ``final``
    degree (after them, at its own location) may attack, in words."""
    if degree < AREA_CLOSE_FROM:
        return f"its own location only (Close locations from {AREA_CLOSE_FROM}°)"
    n = further_locations(degree, final)
    if n == 0:
        return f"its own location only (a final degree of {final}° reaches no further location)"
    kinds = "Close (-1°)" if degree < AREA_FAR_FROM else "Close (-1°) or Far (-2°)"
    words = f"also up to {n} {kinds} location{'' if n == 1 else 's'}"
    if degree < AREA_FAR_FROM:
        words += f" (Far locations from {AREA_FAR_FROM}°)"
    return words
