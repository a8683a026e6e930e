"""JSON shapes of the BrikWars builder API.

Inputs mirror the engine's JSON form (``unit_from_dict``); the engine validates
values and names the bad field, these models only fix the shape (unknown keys
are refused). Numbers may be sent as JSON numbers or exact strings ("1.5", "1/3").
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.services.army_rows import MAX_COUNT, MAX_NOTES
from app.web.inputs import Int, Line, MultiLine, NoBool, SingleLine, Version

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


class _WithRulesetFields(_In):
    """The fields every ruleset shares; the army's ruleset reads the rest (its own fields,
    refused by name when it does not know them: ``GET /api/v1/rulesets/{id}/catalogue``
    lists each weapon type's)."""

    model_config = ConfigDict(extra="allow")


Label = Annotated[str, Field(max_length=60), SingleLine]
UnitName = Annotated[str, Field(min_length=1, max_length=120), SingleLine]
Count = Annotated[
    int,
    Field(
        ge=1,
        le=MAX_COUNT,
        description="How many identical figures the unit stands for (its cost counts each; "
        "a battle fields each apart)",
    ),
    NoBool,
]

Notes = Annotated[
    str,
    Field(
        max_length=MAX_NOTES,
        description="The player's own text on the unit, any ruleset (lines apart with \\n)",
    ),
    MultiLine,
]


class WeaponIn(_WithRulesetFields):
    """A weapon: its ``type`` and its ruleset's own fields (BrikWars: ``size``, ``xsize``,
    ``mount``, ``variant``, ``ammo`` {xsize, variant, rounds}, ``payload`` {explosive,
    per_launch, object_size}). Numbers may be JSON numbers or exact strings ("1.5", "1/3")."""

    type: Line
    label: Label | None = None


class WeaponPatch(WeaponIn):
    """Only what changes; a new ``type`` starts the weapon afresh."""

    version: Version = Field(description=_VERSION)
    type: Line | None = None  # type: ignore[assignment]
    base: dict[str, Any] | None = Field(default=None, description=_BASE)


class UnitIn(_WithRulesetFields):
    """A unit: its name, kind, weapons and its ruleset's own fields (BrikWars: ``kind``
    minifig, hero or creation (the default), ``size``, ``structure_level``, ``propulsion``,
    ``move``, ``mind_die``, ``specialties``, ``size_damage``)."""

    name: UnitName
    kind: Line | None = None
    count: Count = 1
    notes: Notes = ""
    weapons: list[WeaponIn] = Field(default_factory=list, max_length=100)


class UnitPatch(_WithRulesetFields):
    """Only what changes, with the version you loaded."""

    version: Version = Field(description=_VERSION)
    base: dict[str, Any] | None = Field(default=None, description=_BASE)
    name: UnitName | None = None
    kind: Line | None = None
    count: Count | None = None
    notes: Notes | None = Field(default=None, description="New notes; empty text clears them")


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
    count: int = Field(description="How many identical figures the unit stands for")
    notes: str = Field(description="The player's own text on the unit (empty when none)")
    cost: float = Field(description="The cost of one figure")
    total_cost: float = Field(description="The cost of all its figures (count × cost)")
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
    figures: int = Field(description="Figures on the table: the units' counts added up")
    findings: list[FindingOut]
    units: list[UnitOut]


class WeaponPreviewOut(_RulesetFields):
    """A weapon's findings on the unit, and its ruleset's own figures (as ``WeaponOut``)."""

    findings: list[FindingOut]
