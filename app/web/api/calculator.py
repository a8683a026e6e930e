"""The calculator over JSON: exact odds and seeded rolls between saved units."""

from __future__ import annotations

import secrets
from fractions import Fraction

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from app.services import calculator
from app.web.api.attacks import OddsOut, RollOut, roll_out
from app.web.deps import ApiUser, SessionDep

router = APIRouter(tags=["calculator"])


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AttackerIn(_In):
    army_id: int
    unit_id: int
    weapon_id: int


class TargetIn(_In):
    army_id: int
    unit_id: int


class SituationIn(_In):
    distance: float | None = Field(default=None, ge=0, le=1000, description="inches")
    height: float = Field(default=0, ge=0, le=1000, description="inches above the target")
    visible_sections: int = Field(default=3, ge=1, le=3, description="of a minifig target")
    firing_blind: bool = False
    outnumbered: bool = False
    gunnery_support: int = Field(default=0, ge=0, le=100)
    gunner: bool = False
    charge: bool = False


class SavedAttackIn(_In):
    attacker: AttackerIn
    target: TargetIn
    situation: SituationIn = SituationIn()


class SavedRollIn(SavedAttackIn):
    seed: int | None = Field(default=None, description="omit for a fresh random seed")


class SavedOddsOut(OddsOut):
    size_damage: float = Field(description='P(a Creation larger than 1" loses 1" of Size)')
    attacker: str
    weapon: str
    target: str


def _saved(session: SessionDep, user: ApiUser, body: SavedAttackIn) -> calculator.SavedAttack:
    s = body.situation
    return calculator.saved_attack(
        session,
        user=user,
        attacker_army=body.attacker.army_id,
        attacker_unit=body.attacker.unit_id,
        weapon_id=body.attacker.weapon_id,
        target_army=body.target.army_id,
        target_unit=body.target.unit_id,
        situation=calculator.SavedSituation(
            distance=None if s.distance is None else Fraction(str(s.distance)),
            height=Fraction(str(s.height)),
            visible_sections=s.visible_sections,
            firing_blind=s.firing_blind,
            outnumbered=s.outnumbered,
            gunnery_support=s.gunnery_support,
            gunner=s.gunner,
            charge=s.charge,
        ),
    )


@router.post("/calculator/odds")
def saved_odds(session: SessionDep, user: ApiUser, body: SavedAttackIn) -> SavedOddsOut:
    """Exact odds of a saved unit's weapon against a saved unit (armies you may read)."""
    saved = _saved(session, user, body)
    odds = saved.attack.odds()
    return SavedOddsOut(
        miss=odds.miss,
        no_effect=odds.no_effect,
        something_bad=odds.something_bad,
        destroyed=odds.destroyed,
        size_damage=odds.size_damage,
        truncation_bound=odds.truncation_bound,
        damage_distribution=list(odds.damage_distribution),
        critical_failure=odds.critical_failure,
        over_the_top=odds.over_the_top,
        on_fire=odds.on_fire,
        attacker=saved.attacker.row.name,
        weapon=saved.weapon.line.name,
        target=saved.target.row.name,
    )


@router.post("/calculator/roll")
def saved_roll(session: SessionDep, user: ApiUser, body: SavedRollIn) -> RollOut:
    """One seeded roll of that attack, with every die; the same seed gives the same dice."""
    seed = body.seed if body.seed is not None else secrets.randbelow(2**31)
    return roll_out(calculator.roll(_saved(session, user, body), seed), seed)
