"""Every rule system over JSON, through the one ``Ruleset`` interface (public: no login).

``GET /rulesets`` lists them with their house-rule options and situation fields;
``/rulesets/{id}/catalogue`` is a ruleset's weapon and equipment types; ``/rulesets/{id}/odds``
and ``/roll`` take the ruleset's own attack body and answer in the shape every ruleset shares.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends
from fastapi.responses import Response
from pydantic import BaseModel, Field

from app.rules.errors import InvalidInput, UnknownRuleset
from app.rules.fields import FormSplit, InputField, describe
from app.rules.registry import RULESETS, get_ruleset
from app.rules.ruleset import Attack, Ruleset
from app.services import compute, compute_jobs
from app.services.compute_jobs import AttackOddsOut, AttackRollOut
from app.services.errors import NotFound
from app.web.inputs import MAX_SEED
from app.web.ratelimit import calculator_rate_limit

router = APIRouter(tags=["rulesets"])
RATE_LIMITED = [Depends(calculator_rate_limit)]
RulesetId = Annotated[str, Field(max_length=40, pattern=r"^[a-z0-9_]+$")]


class ChoiceOut(BaseModel):
    value: str
    label: str


class FieldOut(BaseModel):
    """An input a ruleset asks for: name (the JSON key), label, kind and bounds."""

    name: str
    label: str
    kind: str = Field(description="inches, whole, flag, choice or text")
    default: Any = None
    min: Any = None
    max: Any = None
    choices: list[ChoiceOut] | None = None
    help: str | None = None


class RulesetOut(BaseModel):
    id: str
    name: str
    summary: str
    rules_version: str = ""
    options: list[FieldOut] = []
    situation_fields: list[FieldOut] = []
    catalogue: str = Field("", description="Where its weapon and equipment types are")
    unit_fields_by_kind: dict[str, list[str]] = Field(
        default_factory=dict,
        description="A unit's fields that only some kinds take: field -> those kinds "
        "(a field not listed is every kind's)",
    )
    weapon_fields_by_type: dict[str, list[str]] = Field(
        default_factory=dict,
        description="A weapon's fields that only some types take: field -> those types",
    )


class CatalogueEntryOut(BaseModel):
    id: str
    name: str
    category: str
    summary: str
    fields: list[FieldOut]
    details: dict[str, str]


def _ruleset(ruleset_id: str) -> Ruleset:
    """The ruleset of a path: an unknown id is a 404, like any other missing thing."""
    try:
        return get_ruleset(ruleset_id)
    except UnknownRuleset:
        raise NotFound("ruleset") from None


def _fields(fields: tuple[InputField, ...]) -> list[FieldOut]:
    return [FieldOut.model_validate(describe(f)) for f in fields]


def ruleset_out(ruleset: Ruleset) -> RulesetOut:
    """A ruleset's description, as listed (the armies page's choices read the same)."""
    return RulesetOut(
        id=ruleset.id,
        name=ruleset.name,
        summary=ruleset.summary,
        rules_version=ruleset.rules_version,
        options=_fields(ruleset.option_fields),
        situation_fields=_fields(ruleset.situation_fields),
        catalogue=f"/api/v1/rulesets/{ruleset.id}/catalogue",
        unit_fields_by_kind=_split(ruleset.unit_form),
        weapon_fields_by_type=_split(ruleset.weapon_form),
    )


def _split(form: FormSplit) -> dict[str, list[str]]:
    return {name: sorted(choices) for name, choices in form.applies_to.items()}


@router.get("/rulesets")
def ruleset_list() -> list[RulesetOut]:
    """The rule systems an army can be built under, with their options (house rules)."""
    return [ruleset_out(r) for r in RULESETS.values()]


@router.get("/rulesets/{ruleset}")
def ruleset_one(ruleset: RulesetId) -> RulesetOut:
    """One rule system."""
    return ruleset_out(_ruleset(ruleset))


class GlossaryTermOut(BaseModel):
    """A rules word: its explanation, where the rules say it, and its place on /glossary."""

    term: str
    explanation: str
    rule: str
    aliases: list[str]
    url: str


@router.get("/rulesets/{ruleset}/glossary")
def ruleset_glossary(ruleset: RulesetId) -> list[GlossaryTermOut]:
    """The rules words the pages explain (the glossary page's twin)."""
    rules = _ruleset(ruleset)
    return [
        GlossaryTermOut(
            term=g.term,
            explanation=g.explanation,
            rule=g.rule,
            aliases=list(g.aliases),
            url=f"/glossary#{rules.id}-{g.anchor}",
        )
        for g in rules.glossary
    ]


@router.get("/rulesets/{ruleset}/catalogue")
def ruleset_catalogue(ruleset: RulesetId) -> list[CatalogueEntryOut]:
    """The weapon and equipment types of a rule system, with the fields each takes."""
    return [
        CatalogueEntryOut(
            id=e.id,
            name=e.name,
            category=e.category,
            summary=e.summary,
            fields=_fields(e.fields),
            details=dict(e.details),
        )
        for e in _ruleset(ruleset).catalogue()
    ]


AttackBody = Annotated[
    dict[str, Any],
    Body(
        description="The ruleset's own attack body (the example is the first ruleset's)",
        examples=[
            {
                "action": {"die": 6, "use": 4},
                "damage": {"dice": 1, "sides": 6},
                "armor": {"fixed": 4},
            }
        ],
    ),
]


async def _answer(attack: Attack, job: functools.partial[str]) -> Response:
    text = job() if attack.inline() else await compute.run_async(job)
    return Response(text, media_type="application/json")


@router.post("/rulesets/{ruleset}/odds", response_model=AttackOddsOut, dependencies=RATE_LIMITED)
async def ruleset_odds(ruleset: RulesetId, body: AttackBody) -> Response:
    """Exact odds of one attack under a rule system: each line's outcomes (summing to 1)."""
    attack = _ruleset(ruleset).attack_from_body(body)
    return await _answer(attack, functools.partial(compute_jobs.attack_odds_json, attack))


@router.post("/rulesets/{ruleset}/roll", response_model=AttackRollOut, dependencies=RATE_LIMITED)
async def ruleset_roll(ruleset: RulesetId, body: AttackBody) -> Response:
    """One seeded roll of an attack (``seed`` in the body; the same seed, the same dice)."""
    seed = body.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise InvalidInput("seed", f"needs a whole number from 0 to {MAX_SEED}")
    attack = _ruleset(ruleset).attack_from_body(body)
    return await _answer(attack, functools.partial(compute_jobs.attack_roll_json, attack, seed))
