"""Battle input and output shapes, shared by the battle pages' forms and the JSON API.

The attack form's flat fields (``weapon.2``, ``follower.0.distance``, ticked boxes) are
turned into the same ``AttackIn`` the API takes (``attack_from_form``), so a bad value gets
the same reason through either door.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from fractions import Fraction
from typing import TYPE_CHECKING, Annotated, Any, cast

from pydantic import BaseModel, Field, ValidationError

from app.rules.brikwars.situation_fields import BATTLE_SITUATION_FIELDS, FOLLOWER_SPANS
from app.rules.brikwars.turn import MAX_ARC_TARGETS, MAX_WEAPONS
from app.rules.fields import TRUE_WORDS
from app.services import battles
from app.web.errors import field_errors
from app.web.inputs import MAX_WEAPON_INDEX, Id, Inches, Int, NoBool, Seed, parse_index
from app.web.schemas import Name, StrictModel
from app.web.situation_schema import SituationModel, situation_model

MAX_FOLLOWER_ROWS = 3  # rows of the page's Arc Fire form (the API takes up to 11)


# Generated from the declared fields; to a type checker, the base (with to_engine).
if TYPE_CHECKING:
    SituationIn = SituationModel
else:
    SituationIn = situation_model(
        BATTLE_SITUATION_FIELDS,
        module=__name__,
        doc="Where and how the attacker fires this turn (chapters 5 and 8).",
    )


class FollowerIn(StrictModel):
    """A further target of Arc Fire, in order along the Arc."""

    unit_id: Id
    distance: Inches | None = Field(default=None, description="inches")
    spans: Int = Field(
        default=cast(int, FOLLOWER_SPANS.default),
        ge=FOLLOWER_SPANS.low,
        le=FOLLOWER_SPANS.high,
        description=FOLLOWER_SPANS.help,
    )


class AttackIn(StrictModel):
    attacker_id: Id = Field(description="a battle unit id")
    weapons: list[Annotated[int, Field(ge=0, le=MAX_WEAPON_INDEX), NoBool]] = Field(
        min_length=1, max_length=MAX_WEAPONS, description="weapon indexes, in firing order"
    )
    target_id: Id = Field(description="a battle unit id")
    situation: SituationIn = SituationIn()
    followers: list[FollowerIn] = Field(default=[], max_length=MAX_ARC_TARGETS - 1)
    moved: bool = Field(
        default=False, description="weapon or target moved since the last attack (no Homing In)"
    )

    def followers_for_service(self) -> list[battles.Follower]:
        return [
            (f.unit_id, None if f.distance is None else Fraction(str(f.distance)), f.spans)
            for f in self.followers
        ]


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


# ------------------------------------------------------------------------------ out


class BattleOut(BaseModel):
    id: int
    name: str
    version: int
    created_at: datetime
    updated_at: datetime


class WeaponOut(BaseModel):
    index: int
    name: str
    use: str
    range: str
    damage: str
    inoperative: bool


class UnitStateOut(BaseModel):
    size_damage: str = Field(description='inches of Size lost (exact: "1", "1.5")')
    destroyed: bool
    on_fire: bool
    inoperative: list[int]
    diverted_turns: int
    homing_in: int
    homed_on: int | None
    homed_weapons: list[int]
    limbs_lost: int


class BattleUnitOut(BaseModel):
    id: int
    side: str
    name: str
    army_id: int | None
    unit_id: int | None
    size: str
    effective_size: str
    armour: str
    power: str
    state: UnitStateOut
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
    log: list[EntryOut]


class OddsPreviewOut(BaseModel):
    homing_in: int
    odds: dict[str, Any]


class ShareLinkOut(BaseModel):
    url: str
    token: str


def unit_out(unit: battles.UnitInBattle) -> BattleUnitOut:
    state = unit.state.to_dict()
    state["size_damage"] = str(state["size_damage"])
    return BattleUnitOut(
        id=unit.row.id,
        side=unit.row.side,
        name=unit.row.name,
        army_id=unit.row.army_id,
        unit_id=unit.row.unit_id,
        size=unit.size_text,
        effective_size=unit.effective_size_text,
        armour=unit.armour_text,
        power=unit.power_text,
        state=UnitStateOut(**state),
        badges=unit.badges,
        weapons=[WeaponOut(**w.__dict__) for w in unit.weapons],
        spec=unit.row.spec,
    )


def entry_out(entry: battles.LogEntry) -> EntryOut:
    row = entry.row
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
        changes=row.changes,
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
        log=[entry_out(e) for e in view.entries],
    )


# ------------------------------------------------------------------------------ the form


def attack_from_form(form: Mapping[str, str]) -> tuple[RollIn | None, dict[str, str]]:
    """The attack form as a ``RollIn``, or None and ``{field: reason}`` (form field names)."""
    situation: dict[str, Any] = {}
    for field in BATTLE_SITUATION_FIELDS:
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
        for part in ("distance", "spans"):
            value = form.get(f"follower.{k}.{part}", "").strip()
            if value:
                row[part] = value
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
    try:
        return RollIn.model_validate(payload), {}
    except ValidationError as exc:
        errors: dict[str, str] = {}
        for err in field_errors(list(exc.errors())):
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
