"""BrikWars' own raw-dice jobs for the calculation pool (``/api/v1/brikwars/odds`` and
``/explosion-odds``): the odds or the explosion rings computed and written as JSON in the
worker, and the JSON shapes they write, which the API declares as its response models.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.rules.brikwars import attacks as atk
from app.services.compute_jobs import ValueProbabilities


class OddsOut(BaseModel):
    """miss + no_effect + something_bad + destroyed = 1 (within truncation_bound)."""

    miss: float
    no_effect: float = Field(description="Ka-ping, or a damage Critical Failure (all ones)")
    something_bad: float
    destroyed: float
    truncation_bound: float = Field(description="Bonus-dice chain mass left out (< 1e-9)")
    damage_distribution: ValueProbabilities = Field(
        description="[value, probability] of the Damage total after Deflection, given a hit"
    )
    critical_failure: float = Field(description="P(hit and every damage die a natural 1)")
    over_the_top: float = Field(description="P(natural maximum Action roll: one more die)")
    on_fire: float = Field(description="P(at least 1 point of Fire damage), damage.fire only")


class RingOut(BaseModel):
    ring: int
    from_inches: int
    to_inches: int
    destroyed: float
    something_bad: float
    no_effect: float
    critical_failure: float
    knockback: ValueProbabilities
    knockback_if_destroyed: ValueProbabilities
    on_fire: float


class ExplosionOut(BaseModel):
    rings: list[RingOut]
    truncation_bound: float


def odds_json(attack: atk.Attack) -> str:
    """A raw BrikWars attack's exact odds as ``OddsOut`` JSON."""
    result = attack.odds()
    # The engine's own floats and ints need no second validation of ~100 pairs per request:
    # construct the model and let pydantic's serializer write the JSON (measured faster than
    # validating, and than the stdlib json module).
    out = OddsOut.model_construct(
        miss=result.miss,
        no_effect=result.no_effect,
        something_bad=result.something_bad,
        destroyed=result.destroyed + result.size_damage,
        truncation_bound=result.truncation_bound,
        damage_distribution=list(result.damage_distribution),
        critical_failure=result.critical_failure,
        over_the_top=result.over_the_top,
        on_fire=result.on_fire,
    )
    return out.model_dump_json()


def explosion_json(explosion: atk.Explosion, target: atk.Target) -> str:
    """Every 2" ring of an explosion against one object as ``ExplosionOut`` JSON."""
    result = explosion.odds(target)
    return ExplosionOut(
        rings=[
            RingOut(
                ring=r.ring,
                from_inches=r.from_inches,
                to_inches=r.to_inches,
                destroyed=r.destroyed + r.size_damage,
                something_bad=r.something_bad,
                no_effect=r.no_effect,
                critical_failure=r.critical_failure,
                knockback=list(r.knockback),
                knockback_if_destroyed=list(r.knockback_if_destroyed),
                on_fire=r.on_fire,
            )
            for r in result.rings
        ],
        truncation_bound=result.truncation_bound,
    ).model_dump_json()
