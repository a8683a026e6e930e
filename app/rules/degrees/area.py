"""Area weapons (9.5.4): how many units an explosive may attack, the degree it has at each
location, and the exact distribution of how many of its targets are hit."""

from __future__ import annotations

from collections.abc import Sequence
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


def units_hit(chances: Sequence[float]) -> list[float]:
    """P(exactly k of the units are hit) for k = 0..len(chances), each hit independently
    with its own chance (the targets of an area attack are rolled separately)."""
    dist = [1.0]
    for p in chances:
        nxt = [0.0] * (len(dist) + 1)
        for k, q in enumerate(dist):
            nxt[k] += q * (1 - p)
            nxt[k + 1] += q * p
        dist = nxt
    return dist
