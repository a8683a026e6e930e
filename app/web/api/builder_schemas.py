"""JSON shapes of the BrikWars builder API.

Inputs mirror the engine's JSON form (``unit_from_dict``); the engine validates
values and names the bad field, these models only fix the shape (unknown keys
are refused). Numbers may be sent as JSON numbers or exact strings ("1.5", "1/3").
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.web.inputs import Int, Line, NoBool, SingleLine, Version

Number = Annotated[int | float | str, NoBool]
"""A JSON number or an exact string; the engine bounds it (``app.rules.numbers``)."""


_VERSION = (
    "The version you loaded. If it is stale and you send `base`, the fields you changed "
    "since then are merged onto the current version (409 listing the fields changed "
    "elsewhere too); without `base` a stale version gets a 409"
)
_BASE = "The record as you loaded it (`spec` with `name`/`kind` or `type`): the merge base"


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExplosiveIn(_In):
    xsize: Number
    variant: Line | None = None
    rounds: Number | None = None


class PayloadIn(_In):
    explosive: ExplosiveIn | None = None
    per_launch: Number | None = None
    object_size: Number | None = None


class WeaponIn(_In):
    type: Line
    size: Number | None = None
    xsize: Number | None = None
    mount: Line | None = None
    variant: Line | None = None
    ammo: ExplosiveIn | None = None
    payload: PayloadIn | None = None
    label: Annotated[str, Field(max_length=60), SingleLine] | None = None


class WeaponPatch(WeaponIn):
    """Only what changes; a new ``type`` starts the weapon afresh."""

    version: Version = Field(description=_VERSION)
    type: Line | None = None  # type: ignore[assignment]
    base: dict[str, Any] | None = Field(default=None, description=_BASE)


class UnitIn(_In):
    name: Annotated[str, Field(min_length=1, max_length=120), SingleLine]
    kind: Literal["minifig", "hero", "creation"] = "creation"
    size: Number | None = None
    structure_level: Number | None = None
    propulsion: Line | None = None
    move: Number | None = None
    mind_die: Int | None = None
    specialties: list[Line] | None = None
    size_damage: Number | None = None
    weapons: list[WeaponIn] = Field(default_factory=list, max_length=100)


class UnitPatch(_In):
    version: Version = Field(description=_VERSION)
    base: dict[str, Any] | None = Field(default=None, description=_BASE)
    name: Annotated[str, Field(min_length=1, max_length=120), SingleLine] | None = None
    kind: Literal["minifig", "hero", "creation"] | None = None
    size: Number | None = None
    structure_level: Number | None = None
    propulsion: Line | None = None
    move: Number | None = None
    mind_die: Int | None = None
    specialties: list[Line] | None = None
    size_damage: Number | None = None


class MoveIn(_In):
    offset: Annotated[Literal[-1, 1], NoBool]


class HouseRulesIn(_In):
    version: Version = Field(description="The army version you loaded")
    options: dict[str, Any]


class WeaponStatsIn(_In):
    type: Line
    size: Number | None = None
    xsize: Number | None = None
    action_die: Int | None = None
    variant: Line | None = None


class DamageOut(BaseModel):
    dice: int
    sides: int
    modifier: int
    text: str
    minus_distance: bool = False
    fire: bool = False
    explosion: bool = False


class WeaponStatsOut(BaseModel):
    use: int | None
    range_inches: float | None
    damage: DamageOut | None
    cost: float
    power: float
    deflection: int | None = None


class FindingOut(BaseModel):
    severity: Literal["error", "warning"]
    code: str
    message: str
    unit: int | None = Field(default=None, description="Index of the unit in the army")
    weapon: int | None = Field(default=None, description="Index of the weapon on the unit")


class _RulesetFields(BaseModel):
    """A shape every ruleset shares, plus the army's ruleset's own fields beside them."""

    model_config = ConfigDict(extra="allow")


class WeaponOut(_RulesetFields):
    """A weapon, and its ruleset's own figures (BrikWars: ``stats`` as
    ``/api/v1/brikwars/weapon-stats`` answers them, and ``hold``, its hand-held class)."""

    id: int
    position: int
    version: int
    type: Line
    name: str
    spec: dict[str, Any]
    findings: list[FindingOut]


class UnitOut(_RulesetFields):
    """A unit with its cost and findings, and its ruleset's own figures (BrikWars:
    ``effective_size``, ``armor`` {dice, sides, fixed, deflection, text}, ``move``, ``power``,
    ``power_needed`` and ``activation_sets``)."""

    id: int
    position: int
    version: int
    name: str
    kind: str
    spec: dict[str, Any]
    cost: float
    findings: list[FindingOut]
    weapons: list[WeaponOut]


class ArmyDetailOut(BaseModel):
    id: int
    name: str
    ruleset_id: str
    budget: int
    notes: str
    version: int
    house_rules: dict[str, Any]
    total_cost: float
    findings: list[FindingOut]
    units: list[UnitOut]


class WeaponPreviewOut(_RulesetFields):
    """A weapon's findings on the unit, and its ruleset's own figures (as ``WeaponOut``)."""

    findings: list[FindingOut]
