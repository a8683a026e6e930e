"""The calculator over JSON: exact odds and seeded rolls of a turn between saved units.

The twin of the ``/calculator`` page: the same ``CalcRequest``, the same service and the same
``Ruleset.attack``. The body's situation and further targets are the attacker's army's
ruleset's fields, read by that ruleset's models once the attacker is known. An attack the
ruleset refuses (not enough Power, a weapon the unit does not have) or a bad situation is a
422 naming the field; a unit in an army the caller may not read is a 404. Each line carries
its main target's outcomes and its notes by their keys (``miss``, ``destroyed``, ``jam``...
for the default ruleset), as the answer always has.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import replace
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from app.rules.errors import InvalidInput
from app.rules.registry import RULESETS
from app.rules.ruleset import AttackRoll, LineOdds, RolledDie, Ruleset, Tally
from app.services import calculator, calculator_units
from app.services.compute_jobs import ValueProbabilities
from app.services.errors import NotFound
from app.web.api.brikwars import DieOut
from app.web.attack_request import (
    MAX_ALLIES,
    AttackRequest,
    bonus_die_choices,
    follower_in,
    read_json,
    situation_in,
)
from app.web.deps import ApiUser, SessionDep, SessionRoute
from app.web.inputs import Id, Seed
from app.web.ratelimit import calculator_rate_limit
from app.web.situation_schema import Figures

RATE_LIMITED = [Depends(calculator_rate_limit)]

# The body takes any registered ruleset's choice; the attacker's ruleset's are checked after.
BONUS_DIE_PATTERN = "^({})$".format(
    "|".join(dict.fromkeys(c for r in RULESETS.values() for c in bonus_die_choices(r)))
)
router = APIRouter(route_class=SessionRoute, tags=["calculator"])


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AttackerIn(_In):
    unit_id: Id
    weapon_ids: list[Id] = Field(
        default_factory=list, max_length=12, description="the weapons fired this turn"
    )
    weapon_id: Id | None = Field(default=None, description="one weapon (same as weapon_ids)")
    army_id: Id | None = Field(default=None, description="optional: the unit's army")


class TargetIn(_In):
    unit_id: Id
    army_id: Id | None = None
    figures: Figures | None = Field(
        default=None,
        description="how many figurines of the unit (a squad) the attack reaches; omit: all",
    )


# The OpenAPI document shows one of the registered rulesets' models (the attacker's army's
# ruleset decides which); the handler reads them by that ruleset (``_read_fields``).
_SITUATION_SCHEMA = {"anyOf": [situation_in(rid).model_json_schema() for rid in RULESETS]}
_FOLLOWER_SCHEMA = {"anyOf": [follower_in(rid).model_json_schema() for rid in RULESETS]}
MAX_FOLLOWERS = max(r.max_targets for r in RULESETS.values()) - 1


class AllyIn(_In):
    unit_id: Id
    weapon_ids: list[Id] = Field(
        default_factory=list, max_length=12, description="omit: its first weapon"
    )


class SavedAttackIn(_In):
    attacker: AttackerIn
    target: TargetIn
    situation: Annotated[dict[str, Any], WithJsonSchema(_SITUATION_SCHEMA)] = Field(
        default={}, description="the attacker's ruleset's situation fields (unset: defaults)"
    )
    followers: list[Annotated[dict[str, Any], WithJsonSchema(_FOLLOWER_SCHEMA)]] = Field(
        default=[], max_length=MAX_FOLLOWERS, description="further targets, in order"
    )
    allies: list[AllyIn] = Field(
        default_factory=list, max_length=MAX_ALLIES, description="units joining a Combined Attack"
    )
    bonus_die: str | None = Field(default=None, pattern=BONUS_DIE_PATTERN)

    def request(self, ruleset: Ruleset) -> AttackRequest:
        """The attack this body asks for, read under ``ruleset`` (the attacker's army's):
        a refused situation, further target or Bonus die is a 422 naming it."""
        a = self.attacker
        ids = list(a.weapon_ids) + ([a.weapon_id] if a.weapon_id is not None else [])
        return read_json(
            ruleset,
            "calculator",
            attacker=calculator.Loadout(a.unit_id, tuple(dict.fromkeys(ids))),
            target_id=self.target.unit_id,
            target_figures=self.target.figures,
            situation=self.situation,
            followers=self.followers,
            allies=tuple(ally.unit_id for ally in self.allies),
            ally_weapons=tuple(w for ally in self.allies for w in ally.weapon_ids),
            bonus_die=self.bonus_die,
        )


class SavedRollIn(SavedAttackIn):
    seed: Seed | None = Field(default=None, description="omit for a fresh random seed")

    def request(self, ruleset: Ruleset) -> AttackRequest:
        return replace(super().request(ruleset), seed=self.seed)


class StepOut(BaseModel):
    label: str
    value: str


class _Outcomes(BaseModel):
    """And each outcome's probability by its key (``Ruleset.outcome_columns``: miss,
    no_effect, something_bad, size_damage, destroyed) with the extra chances (on_fire)."""

    model_config = ConfigDict(extra="allow")


class TargetOddsOut(_Outcomes):
    index: int
    figure: int = Field(
        default=0,
        description="a squad's: these odds are its figurines from this one (0: the first)",
    )
    figures: int = Field(
        default=1, description="a squad's: how many of its figurines have these odds, each"
    )


class TallyOut(BaseModel):
    """How many figurines, over every target, end with an outcome (``wounded``, ``out``...)."""

    key: str
    label: str
    distribution: list[float] = Field(description="P(exactly n figurines), n from 0")
    expected: float


def tallies_out(tallies: Sequence[Tally]) -> list[TallyOut]:
    return [
        TallyOut(key=t.key, label=t.label, distribution=list(t.distribution), expected=t.expected)
        for t in tallies
    ]


class LineOut(_Outcomes):
    """A line's outcomes on its main target, and its notes (``jam``: P(the gun ends
    Inoperative), ``over_the_top``) by key."""

    weapons: list[int] = Field(description="weapon ids fired in this line")
    kind: str = Field(description="single, combined, arc, burst or explosive")
    label: str
    truncation_bound: float
    damage_distribution: ValueProbabilities
    targets: list[TargetOddsOut] = Field(description="per target (0: the main one)")
    steps: list[StepOut]


class SavedOddsOut(_Outcomes):
    """The turn's lines; the top-level outcomes (by key) are the first line's."""

    attacker: str
    weapon: str
    target: str
    truncation_bound: float
    damage_distribution: ValueProbabilities
    any_destroying: float = Field(description="P(at least one destroying hit this turn)")
    expected_destroying: float
    per_10_cp: float | None = Field(description="expected destroying hits per 10 CP")
    attacker_cost: float
    lines: list[LineOut]
    tallies: list[TallyOut] = Field(
        default_factory=list,
        description="where figurines are counted (several targets, squads): over all targets",
    )


JAMMED = "jammed"  # a rolled line's note: its gun ends Inoperative until Reloaded


class EffectOut(BaseModel):
    target: int
    outcome: str
    size_damage: int
    on_fire: bool
    damage: int | None


class RolledDieOut(DieOut):
    target: int | None


class LineRollOut(BaseModel):
    weapons: list[int]
    kind: str
    label: str
    dice: list[RolledDieOut]
    effects: list[EffectOut]
    jammed: bool
    skipped: str


class SavedRollOut(BaseModel):
    seed: int
    outcome: str = Field(description="the first line's result on the main target")
    dice: list[RolledDieOut] = Field(description="every die of the turn, in order")
    lines: list[LineRollOut]
    jammed: list[int] = Field(description="weapon ids now Inoperative until Reloaded")
    target_size_damage: float = Field(description="the target's Size lost, inches, after")


def _computed(
    session: SessionDep, user: ApiUser, body: SavedAttackIn
) -> tuple[calculator.Calculation, calculator.LoadoutResult]:
    views = calculator_units.SavedUnits(session, user)
    ruleset = views.ruleset((body.attacker.unit_id, body.target.unit_id))
    calc = calculator.calculate(
        session,
        user=user,
        request=body.request(ruleset).calculation(ruleset),
        ruleset=ruleset,
        views=views,
    )
    result = calc.main
    assert result is not None and calc.target is not None
    for given, view in (
        (body.attacker.army_id, result.army),
        (body.target.army_id, calc.target_army),
    ):
        if given is not None and view is not None and given != view.army.id:
            raise NotFound("unit")
    for name, reason in calc.refused.items():
        raise InvalidInput(name, reason)
    if result.error is not None:
        name = result.error.field
        if not name.startswith(("target.", "followers.")):
            name = f"attacker.{name}"
        raise InvalidInput(name, result.error.reason)
    if result.problems:
        raise InvalidInput("attacker.weapon_ids", " ".join(result.problems))
    if result.message:
        raise InvalidInput("attacker.weapon_ids", result.message)
    return calc, result


def _line_out(line: LineOdds, weapon_ids: list[int]) -> LineOut:
    m = line.main
    return LineOut(
        weapons=[weapon_ids[i] for i in line.weapons],
        kind=line.kind,
        label=line.label,
        truncation_bound=line.truncation_bound,
        damage_distribution=list(line.damage),
        targets=[
            TargetOddsOut(
                index=t.target,
                figure=t.figure,
                figures=t.figures,
                **{o.key: o.probability for o in t.outcomes + t.extras},
            )
            for t in line.targets
        ],
        steps=[StepOut(label=label, value=value) for label, value in line.steps],
        **{o.key: o.probability for o in m.outcomes + m.extras + line.notes},
    )


@router.post("/calculator/odds", dependencies=RATE_LIMITED)
def saved_odds(session: SessionDep, user: ApiUser, body: SavedAttackIn) -> SavedOddsOut:
    """Exact odds of a saved unit's turn (its chosen weapons) against a saved unit."""
    calc, result = _computed(session, user, body)
    assert result.odds is not None and calc.target is not None
    ids = [w.row.id for w in result.unit.weapons]
    lines = [_line_out(line, ids) for line in result.odds.lines]
    first = result.odds.lines[0].main
    return SavedOddsOut(
        attacker=result.unit.row.name,
        weapon=", ".join(result.weapon_names),
        target=calc.target.row.name,
        truncation_bound=result.odds.truncation_bound,
        damage_distribution=lines[0].damage_distribution,
        any_destroying=result.odds.decisive,
        expected_destroying=result.expected or 0.0,
        per_10_cp=result.per_10_points,
        attacker_cost=float(result.unit_cost),
        lines=lines,
        tallies=tallies_out(result.odds.tallies),
        **{o.key: o.probability for o in first.outcomes},
    )


def _dice(line_dice: Sequence[RolledDie]) -> list[RolledDieOut]:
    return [
        RolledDieOut(
            purpose=d.purpose,
            sides=d.sides,
            natural=d.natural,
            value=d.value,
            bonus=d.bonus,
            target=d.target,
        )
        for d in line_dice
    ]


def roll_out(rolled: AttackRoll, seed: int, weapon_ids: list[int]) -> SavedRollOut:
    """A rolled turn as JSON: every die per line, what each line did, the jammed guns."""
    lines = [
        LineRollOut(
            weapons=[weapon_ids[i] for i in ln.weapons],
            kind=ln.kind,
            label=ln.label,
            dice=_dice(ln.dice),
            effects=[
                EffectOut(
                    target=e.target,
                    outcome=e.outcome,
                    size_damage=e.amount,
                    on_fire="on_fire" in e.flags,
                    damage=e.damage,
                )
                for e in ln.effects
            ],
            jammed=JAMMED in ln.notes,
            skipped=ln.skipped,
        )
        for ln in rolled.lines
    ]
    first = rolled.lines[0].effects
    return SavedRollOut(
        seed=seed,
        outcome=first[0].outcome if first else "miss",
        dice=[d for line in lines for d in line.dice],
        lines=lines,
        jammed=[weapon_ids[i] for ln in rolled.lines if JAMMED in ln.notes for i in ln.weapons],
        target_size_damage=rolled.damage_after[0] if rolled.damage_after else 0.0,
    )


@router.post("/calculator/roll", dependencies=RATE_LIMITED)
def saved_roll(session: SessionDep, user: ApiUser, body: SavedRollIn) -> SavedRollOut:
    """One seeded roll of that turn, with every die; the same seed gives the same dice.
    (Nothing is kept: battles keep their rolls in a log.)"""
    _, result = _computed(session, user, body)
    seed = body.seed if body.seed is not None else secrets.randbelow(2**31)
    assert result.attack is not None
    rolled = calculator.roll(result.attack, seed)
    return roll_out(rolled, seed, [w.row.id for w in result.unit.weapons])


class RolledInBattleOut(BaseModel):
    battle_id: Id
    seq: int = Field(description="the roll's number in the battle's log")
    attacker_id: Id = Field(description="the attacker's battle unit id")
    target_id: Id = Field(description="the target's battle unit id")
    url: str = Field(description="the battle's page, showing the roll")


@router.post("/calculator/battle", dependencies=RATE_LIMITED, status_code=201)
def roll_in_battle(session: SessionDep, user: ApiUser, body: SavedRollIn) -> RolledInBattleOut:
    """Roll it!: start a battle with copies of these units and roll the turn there (logged
    with its odds and dice; the target's state carries into the battle's next rolls)."""
    views = calculator_units.SavedUnits(session, user)
    ruleset = views.ruleset((body.attacker.unit_id, body.target.unit_id))
    rolled = calculator.roll_in_new_battle(
        session,
        user=user,
        request=body.request(ruleset).calculation(ruleset),
        seed=body.seed,
        ruleset=ruleset,
        views=views,
    )
    return RolledInBattleOut(
        battle_id=rolled.battle_id,
        seq=rolled.seq,
        attacker_id=rolled.attacker_id,
        target_id=rolled.target_id,
        url=f"/battles/{rolled.battle_id}?roll={rolled.seq}",
    )
