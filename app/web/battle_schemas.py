"""Battle input and output shapes, shared by the battle pages' forms and the JSON API.

The situation of an attack is the battle's ruleset's (its ``battle_situation_fields``): the
request carries it as an object, read by that ruleset's generated model (``situation_in``)
once the battle is known, so a bad value is refused by name (``situation.distance``) the
same way through either door. The attack form's flat fields (``weapon.2``,
``follower.0.distance``, ticked boxes) are turned into the same ``RollIn`` the API takes
(``attack_from_form``). Further targets carry the ruleset's ``target_fields``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any

from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, ValidationError, WithJsonSchema

from app.rules.fields import TRUE_WORDS, parse_fields
from app.rules.registry import DEFAULT_RULESET, RULESETS, get_ruleset
from app.rules.ruleset import Ruleset
from app.services import battles
from app.web.errors import field_errors
from app.web.inputs import MAX_WEAPON_INDEX, Id, NoBool, Seed, parse_index
from app.web.schemas import Name, StrictModel
from app.web.situation_schema import SituationModel, situation_model

MAX_FOLLOWER_ROWS = 3  # rows of the page's further-targets form (the API takes up to 11)
MAX_WEAPONS = 12  # weapons fired in one attack request (a ruleset may allow fewer)
MAX_FURTHER_TARGETS = 11  # further targets in one attack request (likewise)


@cache
def situation_in(ruleset_id: str) -> type[SituationModel]:
    """The situation model of a ruleset's battles, generated from its fields."""
    rules = get_ruleset(ruleset_id)
    kept = {f.name for f in rules.battle_situation_fields}
    return situation_model(
        rules,
        module=__name__,
        doc="Where and how the attacker fires this turn (the battle's ruleset's fields).",
        leave_out=[f.name for f in rules.situation_fields if f.name not in kept],
    )


# The default ruleset's, by the name the situation tests and guides use.
if TYPE_CHECKING:
    SituationIn = SituationModel
else:
    SituationIn = situation_in(DEFAULT_RULESET)


def _situation_schema() -> dict[str, Any]:
    """The situation as the OpenAPI document shows it: one of the registered rulesets'
    models (the battle's ruleset decides which)."""
    return {"anyOf": [situation_in(rid).model_json_schema() for rid in RULESETS]}


def read_situation(ruleset: Ruleset, data: Mapping[str, Any]) -> dict[str, Any]:
    """The situation's values, checked by the ruleset's model; refused as the API refuses a
    body (``situation.<field>``)."""
    try:
        return situation_in(ruleset.id).model_validate(dict(data)).model_dump()
    except ValidationError as exc:
        raise RequestValidationError(
            [{**e, "loc": ("body", "situation", *e["loc"])} for e in exc.errors()]
        ) from None


class FollowerIn(BaseModel):
    """A further target, in order (BrikWars: along the Arc), with the ruleset's
    ``target_fields`` beside its id."""

    model_config = ConfigDict(extra="allow")

    unit_id: Id


class AttackIn(StrictModel):
    attacker_id: Id = Field(description="a battle unit id")
    weapons: list[Annotated[int, Field(ge=0, le=MAX_WEAPON_INDEX), NoBool]] = Field(
        min_length=1, max_length=MAX_WEAPONS, description="weapon indexes, in firing order"
    )
    target_id: Id = Field(description="a battle unit id")
    situation: Annotated[dict[str, Any], WithJsonSchema(_situation_schema())] = Field(
        default={}, description="the battle's ruleset's situation fields (unset: defaults)"
    )
    followers: list[FollowerIn] = Field(default=[], max_length=MAX_FURTHER_TARGETS)
    moved: bool = Field(
        default=False, description="weapon or target moved since the last attack (no Homing In)"
    )

    def followers_for(self, ruleset: Ruleset) -> list[battles.Follower]:
        """Each further target with its ``target_fields`` values, read by the ruleset's
        fields; a bad one is refused as the API refuses a body (``followers.0.distance``)."""
        out: list[battles.Follower] = []
        known = {f.name for f in ruleset.target_fields}
        for i, follower in enumerate(self.followers):
            raw = dict(follower.model_extra or {})
            problems = {k: "is not a known field" for k in raw if k not in known}
            values, errors = parse_fields(ruleset.target_fields, raw)
            problems |= errors
            if problems:
                raise RequestValidationError(
                    [
                        {"loc": ("body", "followers", i, k), "msg": r, "type": "value_error"}
                        for k, r in problems.items()
                    ]
                )
            out.append((follower.unit_id, values))
        return out


class RollIn(AttackIn):
    seed: Seed | None = Field(default=None, description="omit for a fresh random seed")


class BattleCreate(StrictModel):
    name: Name
    army_ids: list[Id] = Field(min_length=1, max_length=20)
    unit_ids: list[Id] | None = Field(
        default=None, max_length=200, description="only these units of the armies (default all)"
    )


class SeedIn(StrictModel):
    seed: Seed | None = None


class ActionIn(SeedIn):
    """A unit action's body: a seed for its dice, and its fields' values (if it has any)."""

    values: dict[str, Any] = Field(default={}, description="the action's fields")


# ------------------------------------------------------------------------------ out


class BattleOut(BaseModel):
    id: int
    name: str
    version: int
    created_at: datetime
    updated_at: datetime


class WeaponOut(BaseModel):
    """A weapon with its ruleset's cells beside its index and name."""

    model_config = ConfigDict(extra="allow")

    index: int
    name: str
    inoperative: bool


class BattleUnitOut(BaseModel):
    """A unit with its ruleset's figures (cells) beside these fields."""

    model_config = ConfigDict(extra="allow")

    id: int
    side: str
    name: str
    army_id: int | None
    unit_id: int | None
    state: dict[str, Any] = Field(description="the unit's state, as its ruleset shows it")
    badges: list[str]
    weapons: list[WeaponOut]
    spec: dict[str, Any] = Field(description="the copy of the unit taken when the battle began")


class EntryOut(BaseModel):
    seq: int
    kind: str
    created_at: datetime
    actor: str | None
    seed: int | None
    summary: str
    request: dict[str, Any]
    odds: dict[str, Any] | None
    dice: list[dict[str, Any]]
    changes: dict[str, Any]


class BattleDetailOut(BattleOut):
    units: list[BattleUnitOut]
    log: list[EntryOut] = Field(
        description="a window of the log, oldest first: the newest entries, or with "
        "``before`` those numbered below it (``limit`` of them, at most "
        f"{battles.MAX_LOG_WINDOW})"
    )
    log_count: int = Field(description="entries in the whole log")
    last_seq: int | None = Field(description="the newest entry's number (what undo removes)")
    older_before: int | None = Field(
        description="``before`` for the next window of older entries (null: none left)"
    )


class OddsPreviewOut(BaseModel):
    """The odds, and beside them what the units' state added (BrikWars: ``homing_in``)."""

    model_config = ConfigDict(extra="allow")

    odds: dict[str, Any]


class ShareLinkOut(BaseModel):
    url: str
    token: str


def unit_out(unit: battles.UnitInBattle) -> BattleUnitOut:
    return BattleUnitOut(
        id=unit.row.id,
        side=unit.row.side,
        name=unit.row.name,
        army_id=unit.row.army_id,
        unit_id=unit.row.unit_id,
        **unit.cells,
        state=dict(unit.standing.state_out),
        badges=unit.badges,
        weapons=[
            WeaponOut(index=w.index, name=w.name, **w.cells, inoperative=w.inoperative)
            for w in unit.weapons
        ],
        spec=unit.row.spec,
    )


def odds_out(preview: battles.OddsPreview) -> OddsPreviewOut:
    return OddsPreviewOut(**preview.shown, odds=preview.odds)


def entry_out(entry: battles.LogEntry, ruleset: Ruleset) -> EntryOut:
    """A log entry as the API shows it: each unit's state before and after through the
    ruleset's ``public_state`` (what it keeps secret left out)."""
    row = entry.row
    changes = {
        unit: {side: ruleset.public_state(state) for side, state in change.items()}
        for unit, change in row.changes.items()
    }
    return EntryOut(
        seq=row.seq,
        kind=row.kind,
        created_at=row.created_at,
        actor=entry.actor_name,
        seed=row.seed,
        summary=row.summary,
        request=row.request,
        odds=entry.odds,
        dice=entry.dice,
        changes=changes,
    )


def detail_out(view: battles.BattleView) -> BattleDetailOut:
    b = view.battle
    return BattleDetailOut(
        id=b.id,
        name=b.name,
        version=b.version,
        created_at=b.created_at,
        updated_at=b.updated_at,
        units=[unit_out(u) for u in view.units],
        log=[entry_out(e, view.ruleset) for e in view.entries],
        log_count=view.entry_count,
        last_seq=view.last_seq,
        older_before=view.older_than,
    )


# ------------------------------------------------------------------------------ the form


def attack_from_form(  # noqa: C901 (one AttackRequest replaces it: issue 26)
    form: Mapping[str, str], ruleset: Ruleset
) -> tuple[RollIn | None, dict[str, str]]:
    """The attack form as a ``RollIn`` (its situation read by the ruleset's model), or None
    and ``{field: reason}`` (form field names)."""
    situation: dict[str, Any] = {}
    for field in ruleset.battle_situation_fields:
        value = form.get(field.name, "").strip()
        if field.kind == "flag":
            situation[field.name] = value.lower() in TRUE_WORDS
        elif value:
            situation[field.name] = value
    weapons = sorted(
        index
        for key, value in form.items()
        if key.startswith("weapon.")
        and value
        and (index := parse_index(key.split(".", 1)[1])) is not None
    )
    followers = []
    for k in range(MAX_FOLLOWER_ROWS):
        unit = form.get(f"follower.{k}.unit_id", "").strip()
        if not unit:
            continue
        row: dict[str, Any] = {"unit_id": unit}
        for part in ruleset.target_fields:
            value = form.get(f"follower.{k}.{part.name}", "").strip()
            if value:
                row[part.name] = value
        followers.append(row)
    payload: dict[str, Any] = {
        "attacker_id": form.get("attacker_id", "").strip() or None,
        "target_id": form.get("target_id", "").strip() or None,
        "weapons": weapons,
        "situation": situation,
        "followers": followers,
        "moved": form.get("moved", "").strip().lower() in TRUE_WORDS,
    }
    seed = form.get("seed", "").strip()
    if seed:
        payload["seed"] = seed
    problems: list[Any] = []
    try:
        situation_in(ruleset.id).model_validate(situation)
    except ValidationError as exc:
        problems += [{**e, "loc": ("situation", *e["loc"])} for e in exc.errors()]
    try:
        attack = RollIn.model_validate(payload)
    except ValidationError as exc:
        problems += list(exc.errors())
    if not problems:
        try:
            attack.followers_for(ruleset)
        except RequestValidationError as exc:
            return None, {"followers": str(exc.errors()[0]["msg"])}
        return attack, {}
    order = list(RollIn.model_fields)  # the situation's problems in the body's field order
    problems.sort(key=lambda e: order.index(e["loc"][0]) if e["loc"][0] in order else len(order))
    errors: dict[str, str] = {}
    for err in field_errors(problems):
        name = err["field"].removeprefix("situation.")
        if name.startswith("followers."):
            name = "followers"
        if name in ("attacker_id", "target_id") and err["reason"] in (
            "is required",
            "must be a whole number",
        ):
            err["reason"] = "choose a unit"
        if name == "weapons":
            err["reason"] = "tick at least one weapon"
        errors.setdefault(name, err["reason"])
    return None, errors
