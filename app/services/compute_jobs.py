"""The calculation pool's jobs for any ruleset's attack: its odds or one seeded roll,
computed and written as JSON in the worker, so a large answer's serialisation stays off the
event loop too. The API (``app.web.api.rulesets``) calls them, inline or through
``compute``, and declares the JSON shapes written here as its response models; BrikWars' own
raw-dice jobs are ``brikwars_jobs``.

They live in the services layer so that a worker (``compute._warm_up``) imports them without
the web layer: services never import ``app.web`` (``tests/services/test_layers.py``).
"""

from __future__ import annotations

import dataclasses
import random
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from app.rules.ruleset import Attack

ValueProbabilities = Annotated[
    list[tuple[int, float]],
    # Described without 3.1's prefixItems, which some OpenAPI tools (schemathesis's
    # response validation among them) still read as a draft-4 tuple and reject.
    WithJsonSchema(
        {
            "type": "array",
            "description": "[value, probability] pairs",
            "items": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
        }
    ),
]
"""``[[value, probability], ...]``: a distribution as the API sends it."""


class OutcomeOut(BaseModel):
    key: str
    label: str
    probability: float


class TargetOddsOut(BaseModel):
    target: int
    outcomes: list[OutcomeOut] = Field(description="Mutually exclusive: they sum to 1")
    extras: list[OutcomeOut] = Field(description="Chances that may overlap the outcomes")


class LineOddsOut(BaseModel):
    label: str
    kind: str
    weapons: list[int]
    targets: list[TargetOddsOut]
    damage: list[tuple[int, float]] = Field(description="[value, probability] given a hit")
    steps: list[tuple[str, str]]
    notes: list[OutcomeOut]
    truncation_bound: float


class AttackOddsOut(BaseModel):
    """The shared shape; a ruleset may add fields of its own beside these (its ``detail``)."""

    model_config = ConfigDict(extra="allow")

    lines: list[LineOddsOut]
    decisive: float = Field(description="P(at least one target removed from play)")
    truncation_bound: float


class DieOut(BaseModel):
    purpose: str
    sides: int
    natural: int
    value: int
    bonus: bool
    target: int | None


class EffectOut(BaseModel):
    target: int
    outcome: str
    words: str
    damage: int | None
    flags: list[str]


class LineRollOut(BaseModel):
    label: str
    kind: str
    weapons: list[int]
    dice: list[DieOut]
    effects: list[EffectOut]
    skipped: str
    notes: list[str]


class AttackRollOut(BaseModel):
    """The shared shape; a ruleset may add fields of its own beside these (its ``detail``)."""

    model_config = ConfigDict(extra="allow")

    seed: int
    lines: list[LineRollOut]


def attack_odds_json(attack: Attack) -> str:
    """A ruleset's attack's odds as ``AttackOddsOut`` JSON (its ``detail`` at the top level,
    never replacing a shared field)."""
    odds = attack.odds()
    shared = dataclasses.asdict(dataclasses.replace(odds, detail={}))
    out = {**odds.detail} | {k: shared[k] for k in ("lines", "decisive", "truncation_bound")}
    return AttackOddsOut.model_validate(out).model_dump_json()


def attack_roll_json(attack: Attack, seed: int) -> str:
    """One seeded roll of a ruleset's attack as ``AttackRollOut`` JSON."""
    # a seeded, replayable game roll, not a secret: the stdlib generator is the point
    roll = attack.roll(random.Random(seed))  # noqa: S311
    shared = dataclasses.asdict(dataclasses.replace(roll, detail={}))
    out = {**roll.detail} | {"seed": seed, "lines": shared["lines"]}
    return AttackRollOut.model_validate(out).model_dump_json()
