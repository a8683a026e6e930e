"""The BrikWars-only builder endpoints over JSON, kept as they were: a weapon's stats at a
size, and the weapon catalogue with its formulas (``/api/v1/brikwars/...``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.rules import brikwars as bw
from app.rules.brikwars.ruleset import stats_json
from app.web.api.builder_schemas import WeaponStatsIn, WeaponStatsOut
from app.web.deps import SessionRoute

router = APIRouter(route_class=SessionRoute, tags=["builder"])


@router.post("/brikwars/weapon-stats")
def weapon_stats(body: WeaponStatsIn) -> WeaponStatsOut:
    """A weapon's Use, Range, Damage, cost and Power at a size (no unit needed)."""
    stats = bw.weapon_stats(
        body.type,
        size=body.size,
        xsize=body.xsize,
        action_die=body.action_die,
        variant=body.variant,
    )
    return WeaponStatsOut.model_validate(stats_json(stats))


@router.get("/brikwars/catalogue")
def catalogue() -> list[dict[str, Any]]:
    """Every BrikWars weapon type with its formulas, as the builder shows them."""
    return [entry.to_dict() for entry in bw.catalogue()]
