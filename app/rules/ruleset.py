"""The one interface every rule system implements, and the result shapes they all share.

A ruleset is a package under ``app.rules`` with one object that satisfies ``Ruleset``; the
registry (``app.rules.registry``) finds it by id. Services, pages and the API see a rule system
only through this interface, so adding one touches its own package, its template folder
(``templates/rulesets/<id>/``) and one line of the registry.

Specs (units, weapons), options and battle state are the ruleset's own types: the product
only passes them back to the ruleset. What the product reads is plain data declared here:
input fields (``app.rules.fields``), figures, findings, outcome probabilities, dice.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from app.rules.errors import InvalidInput
from app.rules.fields import FieldValue, FormSplit, InputField, format_field, parse_fields

Severity = Literal["error", "warning"]
JSON = dict[str, Any]


# ------------------------------------------------------------------------ build-time shapes


@dataclass(frozen=True, slots=True)
class Finding:
    """A build rule's verdict: an ``error`` makes the army illegal, a ``warning`` does not.
    ``unit`` and ``weapon`` are positions (None: the army, or the whole unit)."""

    severity: Severity
    code: str
    message: str
    unit: int | None = None
    weapon: int | None = None


@dataclass(frozen=True, slots=True)
class Column:
    """A stat column of the builder's tables: its key in ``cells`` and its heading.
    ``numeric`` cells are right-aligned; ``heading`` is the builder table's heading where it
    says more than ``label`` (which prints and stat cards use)."""

    key: str
    label: str
    numeric: bool = False
    heading: str = ""


@dataclass(frozen=True, slots=True)
class GlossaryTerm:
    """A rules word the pages use, explained once: ``term`` as the pages write it (and its
    ``aliases``: 'Defl.', 'Armor'), a one-sentence ``explanation`` shown on hover and focus,
    and ``rule``, where the rules say it ('BrikWars 2010, 5.1 Making Attacks; Rulings 1.1')."""

    term: str
    explanation: str
    rule: str
    aliases: tuple[str, ...] = ()

    @property
    def anchor(self) -> str:
        """Its id on the glossary page, within its ruleset's ('something-bad')."""
        return re.sub(r"[^a-z0-9]+", "-", self.term.lower()).strip("-")


def glossary_term(glossary: Sequence[GlossaryTerm], word: str) -> GlossaryTerm | None:
    """The entry for a word as a page writes it (any case, or one of its aliases).

    >>> use = GlossaryTerm("Use", "What an Action Roll must reach to hit.", "5.1")
    >>> glossary_term((use,), "use") is use, glossary_term((use,), "Range")
    (True, None)
    """
    key = word.strip().casefold()
    for entry in glossary:
        if key == entry.term.casefold() or key in (a.casefold() for a in entry.aliases):
            return entry
    return None


@dataclass(frozen=True, slots=True)
class WeaponFigures:
    """One weapon's figures as shown: name, cells by column key, cost in points.

    ``cost`` is in the ruleset's own numbers (exact where its rules are: BrikWars gives a
    ``Fraction``), what ``format_cost`` writes and sums of costs take. ``type_name`` is the
    weapon type's name and ``label`` the user's own name for it (the editor's headings);
    ``note`` a line shown under the name (ammunition, say); ``fires``: it makes attacks of
    its own, so the calculator offers it as a weapon to fire (armour and other equipment do
    not). ``detail`` is the ruleset's own: what its templates (``templates/rulesets/<id>/``)
    and its ``weapon_json`` read."""

    name: str
    cells: Mapping[str, str]
    cost: Any
    cost_text: str
    findings: tuple[Finding, ...] = ()
    type_name: str = ""
    label: str = ""
    note: str = ""
    detail: Mapping[str, Any] = field(default_factory=dict)
    fires: bool = True


@dataclass(frozen=True, slots=True)
class UnitFigures:
    """One unit's figures as shown: cells by column key, its cost, its weapons' figures, and
    the findings of the unit and its weapons.

    ``cost`` is in the ruleset's own numbers (see ``WeaponFigures``). ``kind_text`` is the
    unit's kind as the builder's table shows it (empty: the stored kind, capitalised);
    ``flagged`` the keys of cells over a limit (the page marks them); ``detail`` the
    ruleset's own, for its templates and its ``unit_json``. ``profile`` is what the unit is
    built with beyond its columns and kind, as (label, value) pairs (BrikWars: propulsion,
    Structure Level, Mind, specialties), which the print sheet and the forum text show."""

    name: str
    cells: Mapping[str, str]
    cost: Any
    cost_text: str
    weapons: tuple[WeaponFigures, ...]
    findings: tuple[Finding, ...]
    kind_text: str = ""
    flagged: frozenset[str] = frozenset()
    detail: Mapping[str, Any] = field(default_factory=dict)
    profile: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class CatalogueEntry:
    """A weapon or equipment type: what the pickers list and the catalogue API serves."""

    id: str
    name: str
    category: str
    summary: str
    fields: tuple[InputField, ...] = ()
    details: Mapping[str, str] = field(default_factory=dict)


def catalogue_split(
    entries: Sequence[CatalogueEntry], more: Mapping[str, frozenset[str]] | None = None
) -> FormSplit:
    """The weapon form's split read off the catalogue: a field applies to the types whose
    entry lists it (``more``: fields the entries do not list, such as a Cannon's Ammo)."""
    every = frozenset(e.id for e in entries)
    names = sorted({f.name for entry in entries for f in entry.fields})
    applies = {
        name: frozenset(e.id for e in entries if any(f.name == name for f in e.fields))
        for name in names
    }
    some = {name: ids for name, ids in applies.items() if ids != every}  # the rest: all
    return FormSplit("type", {**some, **(more or {})})


# ------------------------------------------------------------------------ attack shapes


@dataclass(frozen=True, slots=True)
class Outcome:
    """One of a target's mutually exclusive outcomes (they sum to 1), or, in ``extras``, a
    chance that may overlap the others (on Fire, say)."""

    key: str
    label: str
    probability: float


@dataclass(frozen=True, slots=True)
class TargetOdds:
    """One target's outcomes. ``inapplicable``: outcome keys that cannot happen to this
    target (a Size loss to a unit without Size, say): a table of this target alone may leave
    their columns out."""

    target: int  # index into the attack's targets
    outcomes: tuple[Outcome, ...]
    extras: tuple[Outcome, ...] = ()
    inapplicable: tuple[str, ...] = ()

    def probability(self, key: str) -> float:
        return sum(o.probability for o in self.outcomes + self.extras if o.key == key)


@dataclass(frozen=True, slots=True)
class LineOdds:
    """One line of an attack (a weapon, or weapons rolled together) against its targets:
    the outcomes, the damage distribution (value, probability) given a hit, the step-by-step
    breakdown (label, value) and the probability mass left out by truncation."""

    label: str
    kind: str
    weapons: tuple[int, ...]
    targets: tuple[TargetOdds, ...]
    damage: tuple[tuple[int, float], ...] = ()
    steps: tuple[tuple[str, str], ...] = ()
    notes: tuple[Outcome, ...] = ()  # per-line chances such as a jam
    truncation_bound: float = 0.0

    @property
    def main(self) -> TargetOdds:
        """The odds on the main target (the first)."""
        return self.targets[0]

    def note(self, key: str) -> float:
        """The chance of the per-line note ``key`` (0 when the line has none)."""
        return sum(n.probability for n in self.notes if n.key == key)

    def at_least(self, limit: int | None = None) -> tuple[tuple[int, float], ...]:
        """P(damage >= N given a hit) for each N of the damage distribution (its first
        ``limit`` values: a page shows a dozen of a few hundred)."""
        out: list[tuple[int, float]] = []
        left = 1.0
        for value, p in self.damage[:limit]:
            out.append((value, max(0.0, left)))
            left -= p
        return tuple(out)


@dataclass(frozen=True, slots=True)
class AttackOdds:
    """Every line's odds. ``decisive``: P(at least one target removed from play), the
    headline figure; ``expected``: the expected number of lines with a decisive result on
    the main target (what a loadout is worth per point spent); ``detail``: the ruleset's
    own figures, JSON-ready (a whole round's distribution of what the target has left, say):
    the stateless ``/odds`` answer carries them beside the shared fields, and the ruleset's
    templates read them."""

    lines: tuple[LineOdds, ...]
    decisive: float
    truncation_bound: float = 0.0
    expected: float = 0.0
    detail: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RolledDie:
    purpose: str
    sides: int
    natural: int
    value: int
    bonus: bool = False
    target: int | None = None


@dataclass(frozen=True, slots=True)
class Effect:
    """What a line did to one target: an outcome key of the odds, and the words for it."""

    target: int
    outcome: str
    words: str
    damage: int | None = None
    flags: tuple[str, ...] = ()  # extra outcome keys that happened (e.g. "on_fire")
    amount: int = 0  # how much of the outcome, where it comes in amounts (inches lost, say)


@dataclass(frozen=True, slots=True)
class LineRoll:
    label: str
    kind: str
    weapons: tuple[int, ...]
    dice: tuple[RolledDie, ...]
    effects: tuple[Effect, ...]
    skipped: str = ""
    notes: tuple[str, ...] = ()  # e.g. "jammed"


@dataclass(frozen=True, slots=True)
class AttackRoll:
    """The rolled lines in order. ``damage_after``: each target's damage as the roll leaves
    it, in the ruleset's own measure (empty when the ruleset keeps none); ``detail``: the
    ruleset's own, JSON-ready (what each target has left, say), carried by the stateless
    ``/roll`` answer beside the shared fields and read by its battles."""

    lines: tuple[LineRoll, ...]
    damage_after: tuple[float, ...] = ()
    detail: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TargetInput:
    """A target of an attack: the ruleset's unit, and its ``target_fields`` values (for
    every target after the first: where it stands, say)."""

    unit: Any
    fields: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AllyInput:
    """A unit joining the attacker's attack (a combined attack): the ruleset's unit and the
    weapons (positions) it fires."""

    unit: Any
    weapons: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SampleAttack:
    """An attack a ruleset names as typical of it: the conformance suite checks its odds
    against 20,000 seeded rolls, and guides and examples may show it. Units are as
    ``encode_unit`` writes them; ``situation`` as ``attack`` takes it."""

    name: str
    attacker: JSON
    weapons: tuple[int, ...]
    targets: tuple[JSON, ...]
    situation: Mapping[str, Any] = field(default_factory=dict)


class Attack(Protocol):
    """An attack ready to compute: exact odds, or a seeded roll (same seed, same dice)."""

    def inline(self) -> bool:
        """Small enough to compute where the request is handled (well under a millisecond);
        otherwise it goes to the calculation workers."""
        ...

    def odds(self) -> AttackOdds: ...

    def remember(self, odds: AttackOdds) -> None:
        """Keep the odds a calculation worker computed for this attack (its ``odds()`` ran
        in another process), so that an equal attack is ``inline()`` here next time. A
        ruleset that keeps no odds ignores them."""
        ...

    def roll(self, rng: random.Random) -> AttackRoll: ...

    # calculator
    def problems(self) -> tuple[str, ...]:
        """Why the attack cannot be made as declared (not enough Power, say), each a
        sentence; empty when it can. Cheap: checked before the odds are sent to a worker."""
        ...


# ------------------------------------------------------------------------ battle shapes


@dataclass(frozen=True, slots=True)
class Fighter:
    """A unit in a battle as the ruleset is given it: ``key`` (the battle unit's id, which
    the state may keep to name another unit), its name, the unit as copied when the battle
    began (``decode_unit``), its state (``decode_state``) and its army's options."""

    key: int
    name: str
    unit: Any
    state: Any
    options: Any


@dataclass(frozen=True, slots=True)
class BattleWeapon:
    """A weapon of a unit in a battle as pages show it: cells by the ruleset's own keys;
    ``ready``: it may fire now (False: it needs an action first, a Reload say); ``fires``:
    it is a weapon to attack with at all (not armour or a shield)."""

    index: int
    name: str
    cells: Mapping[str, str]
    ready: bool = True
    fires: bool = True


@dataclass(frozen=True, slots=True)
class Standing:
    """A unit in a battle as it now stands.

    ``unit``: the ruleset's unit with its state applied (what attacks use); ``cells``: its
    figures as shown, by the ruleset's own keys; ``badges``: its state in words; ``out``: out
    of the fight (takes no action, is no target); ``status``: its line in the forum export;
    ``actions``: the names of the ``unit_actions`` it may take now; ``form``: attack-form
    values its state suggests; ``state_out``: its state as the API shows it.
    """

    unit: Any
    cells: Mapping[str, str]
    weapons: tuple[BattleWeapon, ...]
    badges: tuple[str, ...]
    out: bool
    status: str
    actions: tuple[str, ...] = ()
    form: Mapping[str, str] = field(default_factory=dict)
    state_out: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class UnitAction:
    """A named action a unit takes in a battle besides attacking (a Reload, say).

    ``name`` is its key (in URLs and the log's ``kind``); ``label`` its button, where
    ``{unit}`` stands for the unit's name; ``fields`` what it asks for; ``urgent``: shown as
    a plain (not secondary) button, something the player must not forget."""

    name: str
    label: str
    fields: tuple[InputField, ...] = ()
    urgent: bool = False


@dataclass(frozen=True, slots=True)
class ActionResult:
    """What an action did: the unit's state after, the log's summary, and its dice (as
    the log keeps them: a list of lines like ``log_roll``'s, empty when nothing is rolled)."""

    after: Any
    summary: str
    dice: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class BattleAttack:
    """An attack in a battle, checked against the units' state: ``attack`` (made through
    ``Ruleset.attack``, with what the state adds) computes the odds and rolls; ``situation``
    is the situation as the log keeps it; ``shown`` what the state added, shown with the
    odds and in the API's preview (``{"homing_in": 1}``, say). Two equal attacks have equal
    odds (a ruleset whose attacks do not compare by value just has them computed again)."""

    attack: Attack
    attacker: Fighter
    targets: tuple[Fighter, ...]
    situation: Mapping[str, Any]
    shown: Mapping[str, Any] = field(default_factory=dict)


# ------------------------------------------------------------------------ the interface


@runtime_checkable
class Ruleset(Protocol):
    """Everything the product needs from a rule system.

    Every ``decode_*`` raises ``app.rules.errors.InvalidInput`` naming the bad field; every
    ``encode_*`` gives JSON-ready data that its ``decode_*`` reads back to an equal value.
    A battle keeps each unit's state as the ruleset's JSON, and its log before/after states
    (what Undo restores) and the odds and dice as ``log_odds`` and ``log_roll`` write them.
    Collections are read-only properties: a class attribute holding a tuple satisfies them.
    """

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
    def unit_columns(self) -> tuple[Column, ...]: ...
    @property
    def weapon_columns(self) -> tuple[Column, ...]: ...

    def decode_unit(self, data: Mapping[str, Any]) -> Any: ...

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

    # builder
    cost_unit: str  # what costs and budgets are counted in, as pages name it ("CP")

    def budget_findings(self, total: Any, budget: int | None, options: Any) -> list[Finding]:
        """The army-level findings (its budget) for a total of its units' figures' costs
        already summed: ``army_findings`` without working out every unit again."""
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
        """A state as ``encode_state`` wrote it, as the log shows it to anyone reading the
        battle (the API's before/after): what the state keeps secret (a hidden countdown,
        say) left out. Most rulesets keep no secret and give it back unchanged."""
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

    def odds_words(self, odds: Mapping[str, Any]) -> list[str]:
        """Odds as ``log_odds`` keeps them, a line of text per attack line and target (the
        forum export)."""
        ...

    def effect_words(self, effect: Mapping[str, Any]) -> str:
        """One effect of a ``log_roll`` line in words, for the log, its summary and the
        forum export (``'2" of Size Damage, on Fire'``)."""

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


def read_options(ruleset: Ruleset, data: Mapping[str, Any] | None, *, form: bool = False) -> Any:
    """A ruleset's options from form text or JSON values, read through its ``option_fields``
    (a missing option takes its default; an unknown one is refused by name). ``form``: the
    data is an HTML form's, which leaves an unticked box out, so a missing flag is off."""
    data = dict(data or {})
    if form:
        data = {f.name: "" for f in ruleset.option_fields if f.kind == "flag"} | data
    known = {f.name for f in ruleset.option_fields}
    for key in data:
        if key not in known:
            raise InvalidInput(str(key), "unknown rule option")
    values, errors = parse_fields(ruleset.option_fields, data)
    if errors:
        field, reason = next(iter(errors.items()))
        raise InvalidInput(field, reason)
    return ruleset.decode_options(values)


def read_situation(ruleset: Ruleset, data: Mapping[str, Any]) -> tuple[Any, dict[str, str]]:
    """The ruleset's situation that ``data`` describes (form text, a query string or JSON
    values; a missing or empty field takes its default) and the fields refused, field ->
    reason. A refused field keeps its default, so the rest of the situation still counts."""
    values, errors = parse_fields(ruleset.situation_fields, data)
    try:
        return ruleset.decode_situation(values), errors
    except InvalidInput as err:  # defensive: the fields' bounds already hold the ruleset's
        errors[err.field] = err.reason
        defaults = {f.name: f.default for f in ruleset.situation_fields}
        return ruleset.decode_situation(defaults), errors


def situation_inputs(ruleset: Ruleset, situation: Any) -> dict[str, str]:
    """The inputs that give ``situation`` back, as a form or query string carries them, in
    the fields' order; defaults are left out."""
    values = ruleset.encode_situation(situation)
    return {
        f.name: format_field(f, values[f.name])
        for f in ruleset.situation_fields
        if values[f.name] != f.default
    }


def check_attack_shape(
    ruleset_name: str,
    attacker_name: str,
    weapon_count: int,
    weapons: tuple[int, ...],
    targets: Sequence[TargetInput],
    allies: Sequence[AllyInput],
    max_targets: int,
) -> None:
    """The checks every attack of a ruleset without combined attacks makes before its own:
    no allies, one to ``max_targets`` targets, weapons that exist, none chosen twice."""
    if allies:
        raise InvalidInput("allies", f"{ruleset_name} has no combined attacks")
    if not targets:
        raise InvalidInput("targets", "needs a target")
    if len(targets) > max_targets:
        raise InvalidInput("targets", f"at most {max_targets} targets")
    for index in weapons:
        if not 0 <= index < weapon_count:
            raise InvalidInput("weapons", f"{attacker_name} has no weapon {index + 1}")
    if len(set(weapons)) != len(weapons):
        raise InvalidInput("weapons", "a weapon is chosen twice")
