"""The contract between the product and a rule system, split by job: building armies,
calculating attacks, and battles. ``Ruleset`` is the three together.

The product needs every member below, but a ruleset writes only a few of them: subclass
``RulesetBase`` (``app.rules.ruleset.base``), which derives the rest from a few primitives
and declares the optional abilities with safe defaults. ``docs/adding-a-ruleset.md`` lists
which members are primitives and which are derived (a test keeps that table and this
contract the same).

Every ``decode_*`` raises ``app.rules.errors.InvalidInput`` naming the bad field (a unit's
or a weapon's: ``InvalidFields`` naming every one); every ``encode_*`` gives JSON-ready data
that its ``decode_*`` reads back to an equal value. Collections are read-only properties: a
class attribute holding a tuple satisfies them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from app.rules.fields import FieldValue, FormSplit, InputField
from app.rules.ruleset.fighters import (
    ActionResult,
    BattleAttack,
    Fighter,
    Standing,
    TurnReset,
    UnitAction,
)
from app.rules.ruleset.figures import (
    JSON,
    CatalogueEntry,
    Column,
    Finding,
    GlossaryTerm,
    SampleArmy,
    UnitFigures,
    WeaponFigures,
)
from app.rules.ruleset.odds import (
    AllyInput,
    Attack,
    AttackOdds,
    AttackRoll,
    SampleAttack,
    TargetInput,
)


@runtime_checkable
class Building(Protocol):
    """Building armies: identity, house rules, the catalogue, units and weapons, their figures,
    costs, findings and words."""

    id: str
    name: str
    summary: str
    rules_version: str  # shown on exports and prints

    # options (house rules)
    @property
    def option_fields(self) -> tuple[InputField, ...]: ...

    def decode_options(self, data: Mapping[str, Any] | None) -> Any: ...

    def encode_options(self, options: Any) -> JSON: ...

    # the rules words the pages explain (the glossary page, and hover and focus on headings)
    @property
    def glossary(self) -> tuple[GlossaryTerm, ...]: ...

    # catalogue, units and weapons
    def catalogue(self) -> tuple[CatalogueEntry, ...]: ...

    @property
    def unit_form(self) -> FormSplit:
        """Which of the unit form's fields apply to which ``kind`` (the builder shows only
        those of the chosen kind)."""
        ...

    @property
    def weapon_form(self) -> FormSplit:
        """Which of the weapon form's fields apply to which ``type``."""
        ...

    @property
    def unit_fields(self) -> tuple[InputField, ...]:
        """The unit form's fields, by the names ``encode_unit`` writes (``name``, ``kind``,
        ...; not ``weapons``): the generic builder form asks them, and ``unit_form`` says
        which apply to which ``kind``. A weapon's fields are its catalogue entry's."""
        ...

    @property
    def unit_columns(self) -> tuple[Column, ...]: ...
    @property
    def weapon_columns(self) -> tuple[Column, ...]: ...

    def decode_unit(self, data: Mapping[str, Any], *, strict: bool = False) -> Any:
        """The unit ``data`` describes (``InvalidFields`` naming every wrong field by its
        path). ``strict``: ``data`` is a JSON body's, whose on/off fields take ``true`` or
        ``false`` only (``app.rules.fields.parse_field``); else it may be form text too."""
        ...

    def encode_unit(self, unit: Any) -> JSON:
        """The unit as stored and exported: ``{"name", "kind", ..., "weapons": [{"type",
        ...}]}`` (the army keeps units and weapons as rows: name, kind and type are
        columns, the rest each row's JSON)."""
        ...

    def unit_figures(self, unit: Any, options: Any) -> UnitFigures:
        """Everything the pages and the API show of a unit, computed once (the builder keeps
        it for each unit's stored content and options)."""
        ...

    def army_findings(
        self, units: Sequence[Any], budget: int | None, options: Any
    ) -> list[Finding]: ...

    @property
    def sample_army(self) -> SampleArmy:
        """A ready, legal army of the texts' worked examples ("Start from an example"): no
        error finding, every unit decodes (a conformance test checks both)."""
        ...

    # builder
    cost_unit: str  # what costs and budgets are counted in, as pages name it ("CP")

    def budget_findings(self, total: Any, budget: int | None, options: Any) -> list[Finding]:
        """The army-level findings (its budget) for a total of its units' figures' costs
        already summed: ``army_findings`` without working out every unit again."""
        ...

    def roster_findings(self, units: Sequence[tuple[Any, int]], options: Any) -> list[Finding]:
        """The army-level findings about its units together (not its budget): each unit as
        its ruleset reads it with its count (how many figures it stands for)."""
        ...

    def weapon_figures(self, unit: Any, index: int, options: Any) -> WeaponFigures:
        """Weapon ``index`` of the unit as shown, with the findings that concern it: the
        builder's preview of a weapon before it is added (the other weapons' figures are
        not worked out)."""
        ...

    def unit_cost(self, unit: Any, options: Any) -> Any:
        """The unit's ``figures.cost`` without the rest of its figures (change summaries)."""
        ...

    def weapon_cost(self, unit: Any, index: int, options: Any) -> Any:
        """Weapon ``index``'s ``figures.cost`` alone (change summaries)."""
        ...

    def weapon_name(self, unit: Any, index: int) -> str:
        """Weapon ``index`` of the unit as change summaries name it ('Gun 3"')."""
        ...

    def format_cost_change(self, change: Any) -> str:
        """A signed change of cost as change summaries write it ('+9 CP', '-4.5 CP')."""
        ...

    def field_words(self, data: Mapping[str, Any]) -> dict[str, str]:
        """A stored unit's own fields, or a stored weapon's (as ``encode_unit`` writes them,
        without name, kind, type and weapons), in words: label → value ('Ammo': 'X2'). A
        change summary names the labels whose value changed ('Ammo X2 → X4')."""
        ...

    def unit_json(self, figures: UnitFigures) -> JSON:
        """The ruleset's own fields of a unit's API body, from its figures."""
        ...

    def weapon_json(self, figures: WeaponFigures) -> JSON:
        """The ruleset's own fields of a weapon's API body (and of its preview's)."""
        ...

    # text and pages
    def unit_lines(self, unit: Any, options: Any) -> list[str]:
        """The unit as plain text for the army's forum export: a head line (the export
        numbers it), then a line per weapon."""
        ...

    def format_cost(self, cost: Any) -> str:
        """A cost in the ruleset's own points ("4.5CP")."""
        ...

    def template_context(self) -> Mapping[str, Any]:
        """What the ruleset's own templates (``templates/rulesets/<id>/``) read: choice
        lists as (value, label) pairs, and grouped choices as (group label, choices)."""
        ...


@runtime_checkable
class Calculating(Protocol):
    """Calculating attacks: the situation, an attack's exact odds and seeded rolls, and what
    the calculator shows."""

    # attacks
    @property
    def situation_fields(self) -> tuple[InputField, ...]: ...
    @property
    def target_fields(self) -> tuple[InputField, ...]:
        """What each further target (after the first) adds: where it stands, say."""
        ...

    def attack(
        self,
        attacker: Any,
        weapons: tuple[int, ...],
        targets: Sequence[TargetInput],
        situation: Mapping[str, Any],
        options: Any,
        allies: Sequence[AllyInput] = (),
    ) -> Attack:
        """The attack of ``attacker``'s ``weapons`` (positions) on ``targets`` (the first is
        the main one) in ``situation`` (``situation_fields`` values, a missing one its
        default); ``allies`` join it where the ruleset has combined attacks (else refused
        with ``InvalidInput`` naming ``allies``)."""
        ...

    def attack_from_body(self, body: Mapping[str, Any]) -> Attack: ...

    @property
    def sample_attacks(self) -> tuple[SampleAttack, ...]:
        """At least three attacks typical of the ruleset (the conformance suite rolls them)."""
        ...

    # calculator
    @property
    def outcome_columns(self) -> tuple[Column, ...]:
        """A target's outcomes as tables head them, in order (their keys are the odds')."""
        ...

    @property
    def max_targets(self) -> int:
        """The most targets one attack may have (1: no further targets)."""
        ...

    def decode_situation(self, values: Mapping[str, FieldValue]) -> Any:
        """The ruleset's own situation from every ``situation_fields`` value (as
        ``parse_fields`` reads them): what a calculation keeps and compares."""
        ...

    def encode_situation(self, situation: Any) -> dict[str, FieldValue]:
        """Every ``situation_fields`` value of ``situation``: ``decode_situation`` of them
        gives it back, and ``attack`` takes them."""
        ...

    def default_weapons(self, unit: Any, options: Any) -> tuple[int, ...]:
        """The weapons (positions) an attack by ``unit`` fires unless told otherwise (the
        first with an attack of its own, say; empty when none has one)."""
        ...

    def weapons_cost(self, unit: Any, weapons: tuple[int, ...], options: Any) -> Any:
        """What the chosen weapons (positions) of ``unit`` cost, for ``format_cost``."""
        ...


@runtime_checkable
class Battles(Protocol):
    """Battles: a unit's state, attacks checked against it, named actions, and the log.

    A battle keeps each unit's state as the ruleset's JSON, and its log before/after states
    (what Undo restores) and the odds and dice as ``log_odds`` and ``log_roll`` write them."""

    # battles
    @property
    def battle_situation_fields(self) -> tuple[InputField, ...]:
        """The situation fields an attack in a battle takes (those its state decides, such
        as a bonus kept from earlier attacks, left out)."""
        ...

    @property
    def unit_actions(self) -> tuple[UnitAction, ...]:
        """Every named action a unit may take in a battle besides attacking."""
        ...

    @property
    def turn_reset(self) -> TurnReset | None:
        """What the rules do at their own round boundary in a battle played by turns: the
        unit action each unit takes as its side's turn (or a new round) begins, whose state
        changes End turn keeps in its log entry (None: nothing)."""
        ...

    def initial_state(self, unit: Any) -> Any:
        """A unit's state when a battle begins."""
        ...

    def decode_state(self, data: Mapping[str, Any]) -> Any:
        """A unit's state from the JSON ``encode_state`` wrote (a missing key: as fresh)."""
        ...

    def encode_state(self, state: Any) -> JSON:
        """The state as a battle unit's row and a log entry's before/after keep it."""
        ...

    def public_state(self, data: Mapping[str, Any]) -> JSON:
        """A state as ``encode_state`` wrote it, as others see it (the read-only link reads
        every unit's state through it, ``decode_state`` after; the forum export; the API
        log's before/after): what the state keeps secret from all but the battle's owner (a
        hidden countdown, say) left out, still decodable. Most rulesets keep no secret and
        give it back unchanged."""
        ...

    def standing(self, fighter: Fighter) -> Standing:
        """The unit as it now stands, as attacks use it and pages show it."""
        ...

    def battle_attack(
        self,
        attacker: Fighter,
        weapons: tuple[int, ...],
        targets: Sequence[tuple[Fighter, Mapping[str, Any]]],
        situation: Mapping[str, Any],
        *,
        moved: bool = False,
    ) -> BattleAttack:
        """An attack in a battle, checked against the units' state (InvalidInput names the
        field; a situation field by its own name). ``targets``: each with its
        ``target_fields`` values (the first's are empty); ``moved``: the attacker or the
        target moved since the last attack (what the state kept for it may no longer hold)."""
        ...

    def after_attack(self, attack: BattleAttack, roll: AttackRoll) -> tuple[Any, ...]:
        """The states after ``roll`` (``attack.attack``'s): the attacker's, then each
        target's in order."""
        ...

    def log_odds(self, attack: BattleAttack, odds: AttackOdds) -> JSON:
        """The odds as a battle's log keeps them (targets named by their ``key``)."""
        ...

    def log_roll(self, attack: BattleAttack, roll: AttackRoll) -> list[JSON]:
        """The rolled lines as a battle's log keeps them: ``[{"label", "kind", "weapons",
        "skipped", "jammed", "dice": [{"purpose", "sides", "natural", "value", "bonus",
        "unit_id"}], "effects": [{"unit_id", "name", "outcome", "damage", ...}]}]``."""
        ...

    def apply_action(
        self, name: str, fighter: Fighter, values: Mapping[str, Any], rng: random.Random
    ) -> ActionResult:
        """Take the named action (its ``fields`` read from ``values``); refused with
        InvalidInput (field ``unit``, or one of its fields)."""
        ...

    def end_battle(self, fighters: Sequence[Fighter]) -> ActionResult:
        """What the rules do to the units when the battle ends (the End battle action):
        ``others`` holds the state after of each unit it changed, by key (Degrees: a unit
        restrained at the end is in Thinny custody), ``summary`` says it in words (empty:
        nothing); ``after`` is not read. Nothing is rolled."""
        ...

    def odds_words(self, odds: Mapping[str, Any]) -> list[str]:
        """Odds as ``log_odds`` keeps them, a line of text per attack line and target (the
        forum export)."""
        ...

    def effect_words(self, effect: Mapping[str, Any]) -> str:
        """One effect of a ``log_roll`` line in words, for the log, its summary and the
        forum export (``'2" of Size Damage, on Fire'``)."""


@runtime_checkable
class Ruleset(Building, Calculating, Battles, Protocol):
    """Everything the product needs from a rule system: the three jobs together."""
