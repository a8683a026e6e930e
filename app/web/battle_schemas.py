"""Battle input and output shapes, shared by the battle pages' forms and the JSON API.

The situation of an attack is the battle's ruleset's (its ``battle_situation_fields``): the
body carries it as an object, read with the further targets (their ``target_fields``) into
an ``AttackRequest`` once the battle is known (``AttackIn.request``), so a bad value is
refused by name (``situation.distance``); the attack form is read into the same request
(``attack_request.from_form``).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from app.rules.registry import DEFAULT_RULESET, RULESETS
from app.rules.ruleset import Ruleset
from app.services import battles
from app.services.calculator import Loadout
from app.web.attack_request import (
    MAX_FURTHER_TARGETS,
    MAX_WEAPONS,
    AttackRequest,
    read_json,
    situation_in,
)
from app.web.inputs import MAX_ID, MAX_WEAPON_INDEX, Flag, Id, NoBool, Seed
from app.web.schemas import Name, StrictModel
from app.web.situation_schema import SituationModel

# The default ruleset's battle situation, by the name the situation tests and guides use.
if TYPE_CHECKING:
    SituationIn = SituationModel
else:
    SituationIn = situation_in(DEFAULT_RULESET, "battle")


def _situation_schema() -> dict[str, Any]:
    """The situation as the OpenAPI document shows it: one of the registered rulesets'
    models (the battle's ruleset decides which)."""
    return {"anyOf": [situation_in(rid, "battle").model_json_schema() for rid in RULESETS]}


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
    moved: Flag = Field(
        default=False, description="weapon or target moved since the last attack (no Homing In)"
    )

    def request(self, ruleset: Ruleset) -> AttackRequest:
        """The attack this body asks for, its situation and further targets read by the
        battle's ruleset (a bad one: a 422 naming ``situation.distance``, ``followers.0.x``)."""
        return read_json(
            ruleset,
            "battle",
            attacker=Loadout(self.attacker_id, tuple(self.weapons)),
            target_id=self.target_id,
            situation=self.situation,
            followers=[{"unit_id": f.unit_id, **(f.model_extra or {})} for f in self.followers],
            moved=self.moved,
        )


SEEN_DESCRIPTION = (
    "the newest log entry's number your view showed (``last_seq``; 0: none): if a newer "
    "entry changed a unit this acts on, it is refused with a 409 naming that entry and who "
    "made it; omitted, it applies as things now stand"
)
Seen = Annotated[int, Field(ge=0, le=MAX_ID, description=SEEN_DESCRIPTION), NoBool]


class RollIn(AttackIn):
    seed: Seed | None = Field(default=None, description="omit for a fresh random seed")
    seen: Seen | None = None

    def request(self, ruleset: Ruleset) -> AttackRequest:
        return replace(super().request(ruleset), seed=self.seed)


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
    seen: Seen | None = None


class TurnIn(StrictModel):
    """End turn: a seed for the dice of the ruleset's resets, and what the caller saw."""

    seed: Seed | None = Field(default=None, description="omit for a fresh random seed")
    seen: Seen | None = None


class ModeIn(StrictModel):
    """How the battle is played from now on (the host's)."""

    mode: Literal["free", "turns"] = Field(
        description="``free``: each side acts whenever; ``turns``: the sides in order"
    )


class UndoIn(StrictModel):
    """Which entry to undo (default: the newest that stands), and what the caller saw."""

    seq: Id | None = Field(
        default=None, description="the entry to undo (default: ``undo_seq``, the newest standing)"
    )
    seen: Seen | None = None


# ------------------------------------------------------------------------------ out


class BattleOut(BaseModel):
    id: int
    name: str
    version: int
    status: str = Field(
        description="``open``, or ``ended`` by End battle (no attack or action until undo)"
    )
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
    side_id: int = Field(description="its side's id (``sides``)")
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
    undone_by: int | None = Field(
        description="the number of the undo entry that took it back (null: it stands); the "
        "log only grows, an undone entry stays"
    )


class ScoreOut(BaseModel):
    """A side's count (ruling P33)."""

    units_left: int = Field(description="its units still standing")
    figures_out: int = Field(description="its units out of the fight")
    cost_destroyed: float = Field(
        description="the score: the cost of the other sides' units this side's units put out"
    )
    cost_destroyed_text: str = Field(description='the same in the ruleset\'s points ("12CP")')


class SideOut(BaseModel):
    """A side and who plays it."""

    id: int
    name: str
    player: str | None = Field(description="the player's name (null: the host plays it)")
    yours: bool = Field(description="you may act for its units (the host: every side)")
    score: ScoreOut


class ConnectedOut(BaseModel):
    """Someone who has the battle open now (their live stream's heartbeat or an action within
    two heartbeats, on any server)."""

    user_id: int
    name: str


class BattleDetailOut(BattleOut):
    role: str = Field(
        description="who you are in it: ``host`` (every side is yours to play), ``player`` "
        "(your sides' units only) or ``spectator`` (the read-only link)"
    )
    mode: str = Field(
        description="``free`` (each side acts whenever) or ``turns`` (the sides in order)"
    )
    round: int = Field(description="the round, from 1 when played by turns (0: not begun)")
    turn_side_id: int | None = Field(description="whose turn it is (null: played free)")
    sides: list[SideOut]
    connected: list[ConnectedOut]
    units: list[BattleUnitOut]
    log: list[EntryOut] = Field(
        description="a window of the log, oldest first: the newest entries, or with "
        "``before`` those numbered below it (``limit`` of them, at most "
        f"{battles.MAX_LOG_WINDOW})"
    )
    log_count: int = Field(description="entries in the whole log")
    last_seq: int | None = Field(
        description="the newest entry's number: send it as ``seen`` with an action"
    )
    undo_seq: int | None = Field(
        description="the entry undo takes back by default: the newest that stands (null: none)"
    )
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
        side_id=unit.row.side_id,
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
        undone_by=entry.undone_by,
    )


def detail_out(view: battles.BattleView) -> BattleDetailOut:
    b = view.battle
    return BattleDetailOut(
        id=b.id,
        name=b.name,
        version=b.version,
        status=b.status,
        created_at=b.created_at,
        updated_at=b.updated_at,
        role=view.viewer.role,
        mode=b.mode,
        round=b.round,
        turn_side_id=b.turn_side_id,
        sides=[
            SideOut(
                id=s.id,
                name=s.name,
                player=s.player,
                yours=s.mine,
                score=ScoreOut(
                    units_left=s.units_left,
                    figures_out=s.figures_out,
                    cost_destroyed=float(s.destroyed),
                    cost_destroyed_text=s.destroyed_text,
                ),
            )
            for s in view.sides
        ],
        connected=[ConnectedOut(user_id=uid, name=name) for uid, name in view.connected],
        units=[unit_out(u) for u in view.units],
        log=[entry_out(e, view.ruleset) for e in view.entries],
        log_count=view.entry_count,
        last_seq=view.last_seq,
        undo_seq=view.undo_seq,
        older_before=view.older_than,
    )
