"""BrikWars' own endpoints over JSON, kept as they were (``/api/v1/brikwars/...``): the
raw-dice attack odds, rolls and explosion rings (public: no login needed), and the builder's
weapon stats at a size and weapon catalogue with its formulas.

Two routers, served as before: ``router`` (the raw dice) is stateless and matched first,
outside the session and the CSRF check; ``builder_router`` is a session route like the rest
of the API. Every other ruleset, BrikWars included, is also served through the one
``Ruleset`` interface by ``app.web.api.rulesets``.

The engine (``app.rules.brikwars.attacks``) validates values and names the bad field; these
models fix the shape (unknown keys refused) and the hard limits (dice counts, die sizes, Use),
and the attack is then read by the ruleset's own reader (``raw_attack``), as
``/rulesets/brikwars/odds`` reads its body: one parser of a raw attack.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Depends
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, model_validator

from app.rules import brikwars as bw
from app.rules.brikwars import attacks as atk
from app.rules.brikwars.building import stats_json
from app.rules.brikwars.raw_attack import RAW_FIELDS, RawAttack, raw_attack
from app.rules.errors import InvalidInput, TooMuchWork
from app.services import brikwars_jobs, compute
from app.services.brikwars_jobs import ExplosionOut, OddsOut
from app.web.api.builder_schemas import WeaponStatsIn, WeaponStatsOut
from app.web.deps import SessionRoute
from app.web.inputs import Flag, Line, NoBool, Seed
from app.web.ratelimit import calculator_rate_limit

router = APIRouter(tags=["attacks"])
builder_router = APIRouter(route_class=SessionRoute, tags=["builder"])
T = TypeVar("T")
RATE_LIMITED = [Depends(calculator_rate_limit)]
ODDS_FIELDS = RAW_FIELDS
EXPLOSION_FIELDS = {"count": "dice", "per_die": "damage_modifier", "layers": "deflection"}


async def _compute(fn: Callable[[], T], cheap: bool, fields: dict[str, str]) -> T:
    try:
        return fn() if cheap else await compute.run_async(fn)
    except TooMuchWork as exc:
        raise exc.renamed(fields) from None


DieSides = Literal[4, 6, 8, 10, 12, 20]
ActionDie = Literal[4, 6, 8, 10, 12]
DiceCount = Annotated[int, Field(ge=1, le=100), NoBool]
Modifier = Annotated[int, Field(ge=-1000, le=1000), NoBool]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ActionIn(_In):
    die: ActionDie = Field(description="The Action die: 4, 6, 8, 10 or 12")
    use: Annotated[int, Field(ge=0, le=100), NoBool] = Field(description="The weapon's Use")
    modifier: Modifier = 0


class DamageIn(_In):
    dice: DiceCount
    sides: DieSides
    modifier: Modifier = 0
    per_die_modifier: Modifier = 0
    fire: Flag = False


class ArmourIn(_In):
    """Either ``{"fixed": 4}`` or ``{"dice": 3, "sides": 10}`` (optionally plus ``fixed``)."""

    fixed: Annotated[int, Field(ge=0, le=1000), NoBool] | None = None
    dice: DiceCount | None = None
    sides: DieSides | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> ArmourIn:
        if self.dice is None and self.sides is None and self.fixed is None:
            raise ValueError("needs fixed, or dice and sides")
        if (self.dice is None) != (self.sides is None):
            raise ValueError("dice and sides go together")
        return self

    def to_engine(self) -> bw.Armour:
        if self.dice is not None and self.sides is not None:
            return bw.Armour(dice=self.dice, sides=self.sides, fixed=self.fixed or 0)
        return bw.Armour(fixed=self.fixed or 0)


class OddsIn(_In):
    action: ActionIn | None = Field(None, description="No action: an automatic hit")
    damage: DamageIn
    armor: ArmourIn
    deflection: Annotated[int, Field(ge=0, le=100), NoBool] = 0
    options: dict[str, Any] | None = None


class RollIn(OddsIn):
    seed: Seed


class ExplosionIn(_In):
    dice: DiceCount = Field(description="d10s, or the Explosive Size in bricks with a variant")
    sides: DieSides = 10
    variant: Line | None = Field(
        None, description="incendiary, armor_piercing, concussion or phased (replaces sides)"
    )
    over_the_top: Flag = False
    damage_modifier: Modifier = 0
    armor: ArmourIn
    deflection: Annotated[int, Field(ge=0, le=100), NoBool] = 0
    options: dict[str, Any] | None = None


class DieOut(BaseModel):
    purpose: str
    sides: int
    natural: int
    value: int
    bonus: bool


class RollOut(BaseModel):
    seed: int
    dice: list[DieOut]
    outcome: str
    hit: bool
    over_the_top: bool
    damage: int | None
    armour: int | None
    critical_failure: bool
    on_fire: bool


def _attack(body: OddsIn) -> atk.Attack:
    """The engine's attack, read by the one raw-attack reader the ruleset's own endpoint
    (``/rulesets/brikwars/odds``) uses too; the model has fixed the shape and the limits."""
    try:
        return raw_attack(body.model_dump(exclude_none=True))
    except InvalidInput as exc:
        if exc.field in ("count", "damage.dice"):
            raise InvalidInput("damage.dice", exc.reason) from None
        raise


@router.post("/brikwars/odds", response_model=OddsOut, dependencies=RATE_LIMITED)
async def odds(body: OddsIn) -> Response:
    """Exact odds of one attack: miss, no effect, Something Bad, destroyed (sum 1)."""
    attack = _attack(body)
    cheap = RawAttack(attack).inline()
    text = await _compute(functools.partial(brikwars_jobs.odds_json, attack), cheap, ODDS_FIELDS)
    return Response(text, media_type="application/json")


@router.post("/brikwars/roll", dependencies=RATE_LIMITED)
async def roll(body: RollIn) -> RollOut:
    """One seeded resolution with its dice log: the same seed gives the same dice."""
    # a seeded, replayable game roll, not a secret: the stdlib generator is the point
    result = _attack(body).roll(random.Random(body.seed))  # noqa: S311
    return roll_out(result, body.seed)


def roll_out(result: atk.AttackRoll, seed: int) -> RollOut:
    """A roll with its dice log as JSON (the raw-dice and the saved-unit rolls alike)."""
    return RollOut(
        seed=seed,
        dice=[
            DieOut(
                purpose=d.purpose, sides=d.sides, natural=d.natural, value=d.value, bonus=d.bonus
            )
            for d in result.dice
        ],
        outcome=result.outcome,
        hit=result.hit,
        over_the_top=result.over_the_top,
        damage=result.damage,
        armour=result.armour,
        critical_failure=result.critical_failure,
        on_fire=result.on_fire,
    )


def explosion_of(body: ExplosionIn) -> tuple[atk.Explosion, atk.Target]:
    """The engine's explosion and object of an ``explosion-odds`` body."""
    options = bw.BrikWarsOptions.from_dict(body.options)
    armour = body.armor.to_engine()
    target = atk.Target(
        armour=bw.Armour(armour.dice, armour.sides, armour.fixed, body.deflection),
        kind="object",
    )
    if body.variant is None:
        damage = bw.DamageExpr(body.dice, body.sides, explosion=True)
    else:
        damage = bw.explosive_variant(body.variant).damage(body.dice)
    explosion = atk.Explosion(damage, body.damage_modifier, body.over_the_top, options)
    return explosion, target


@router.post("/brikwars/explosion-odds", response_model=ExplosionOut, dependencies=RATE_LIMITED)
async def explosion_odds(body: ExplosionIn) -> Response:
    """Every 2" ring of an explosion against one object: outcomes and KnockBack."""
    explosion, target = explosion_of(body)
    cheap = explosion.inline(target)  # its counted work (app.rules.work)
    job = functools.partial(brikwars_jobs.explosion_json, explosion, target)
    text = await _compute(job, cheap, EXPLOSION_FIELDS)
    return Response(text, media_type="application/json")


@builder_router.post("/brikwars/weapon-stats")
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


@builder_router.get("/brikwars/catalogue")
def catalogue() -> list[dict[str, Any]]:
    """Every BrikWars weapon type with its formulas, as the builder shows them."""
    return [entry.to_dict() for entry in bw.catalogue()]
