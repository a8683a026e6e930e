"""Area weapons (9.5.4): how many units an explosive may attack and the degree it has at
each location (how many are hit: ``app.rules.dice.independent``)."""

from __future__ import annotations

from typing import Final

from app.rules.degrees.catalogue import AREA_CLOSE_FROM, AREA_FAR_FROM, WeaponType

UNITS_PER_DEGREE: Final = {"explosive": 10, "precision": 5}
LOCATION_PENALTY: Final = {"here": 0, "close": -1, "far": -2}
LOCATION_FROM: Final = {"here": 0, "close": AREA_CLOSE_FROM, "far": AREA_FAR_FROM}


def most_targets(kind: WeaponType, degree: int) -> int:
    """The most units one attack of an area weapon of ``degree`` may attack (1: not area)."""
    return UNITS_PER_DEGREE[kind.area] * degree if kind.area else 1


def location_problem(kind: WeaponType, degree: int, location: str, name: str) -> str:
    """Why a target at ``location`` cannot be attacked by this weapon ('' when it can)."""
    if location == "here" or not kind.area:
        return ""
    need = LOCATION_FROM[location]
    if degree < need:
        return f"{name} attacks {location.capitalize()} locations only from {need}°."
    return ""
