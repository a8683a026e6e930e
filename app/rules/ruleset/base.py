"""``RulesetBase``: the contract's members derived from a few primitives, so a ruleset writes
only what is its own and overrides only what differs (as a python-chess variant subclasses
``Board``; OpenSpiel's optional abilities are declared, with safe defaults).

What a ruleset must write (the primitives, abstract here): its identity (``id``, ``name``,
``summary``, ``rules_version``), the ``catalogue``, ``unit_columns``, ``weapon_columns`` and
``outcome_columns``, ``sample_attacks``, ``decode_unit``/``encode_unit``, ``unit_figures``,
``attack``, ``standing`` and ``after_attack``. Everything else is derived:

- costs, names and a weapon's figures from the unit's figures (kept in a bounded memo, so
  asking them one by one costs one ``unit_figures``);
- cost words from ``cost_unit``; the budget's finding from the costs;
- options, situations and battle states from their declared fields or types;
- the weapon form's split from the catalogue; the log's JSON and words from the shared
  result shapes (``app.rules.battle_log``); a unit's text from its figures;
- the optional abilities, off: no named unit actions (``unit_actions`` empty), nothing done
  as a side's turn or a round begins (``turn_reset`` None), nothing done to the units when a
  battle ends (``end_battle`` changes none), no secret state
  (``public_state`` is the state), one target (``max_targets`` 1), no combined attacks, odds
  not remembered (``AttackBase.remember`` does nothing; ``RememberingAttack`` keeps them).
"""

from __future__ import annotations

import math
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import asdict, fields, is_dataclass, replace
from functools import cached_property
from typing import Any, ClassVar

from app.rules import battle_log
from app.rules.errors import FieldErrors, InvalidInput
from app.rules.fields import (
    FieldValue,
    FormSplit,
    InputField,
    format_number,
    parse_fields,
    read_object,
)
from app.rules.memo import BoundedMemo
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
    Severity,
    UnitFigures,
    WeaponFigures,
    catalogue_split,
)
from app.rules.ruleset.odds import (
    AllyInput,
    Attack,
    AttackOdds,
    AttackRoll,
    SampleAttack,
    TargetInput,
)
from app.rules.text import plain_field_words

NAME_FIELD = InputField("name", "Name", "text", None, high=120)  # every unit has one


class Values(Mapping[str, FieldValue]):
    """Field values by name, frozen and hashable (compared and memoised as keys), read as a
    mapping or by attribute: the options, situation or battle state of a ruleset that needs
    no type of its own.

    >>> v = Values(cover=True, distance=3)
    >>> v.cover, v["distance"], v == Values({"distance": 3, "cover": True})
    (True, 3, True)
    """

    __slots__ = ("_items",)

    def __init__(self, values: Mapping[str, FieldValue] | None = None, **more: FieldValue):
        self._items = tuple(sorted({**(values or {}), **more}.items(), key=lambda kv: kv[0]))

    def __getitem__(self, name: str) -> FieldValue:
        for key, value in self._items:
            if key == name:
                return value
        raise KeyError(name)

    def __getattr__(self, name: str) -> FieldValue:
        if name.startswith("_"):  # not a field (and not asked of a half-made copy)
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __reduce__(self) -> tuple[type[Values], tuple[dict[str, FieldValue]]]:
        return (Values, (dict(self._items),))  # pickled to a calculation worker and back

    def __iter__(self) -> Iterator[str]:
        return (key for key, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(self._items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self._items) == dict(other.items())

    def __repr__(self) -> str:
        return f"Values({dict(self._items)!r})"


def _value(source: Any, name: str) -> Any:
    """A named value of options, a situation or a state: a mapping's key or an attribute."""
    return source[name] if isinstance(source, Mapping) else getattr(source, name)


def _as_json(value: Any) -> JSON:
    """A state (a dataclass or a mapping) as JSON-ready data: tuples become lists."""
    data = asdict(value) if is_dataclass(value) and not isinstance(value, type) else dict(value)
    return {key: _json_ready(item) for key, item in data.items()}


def _json_ready(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_json_ready(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _json_ready(v) for k, v in value.items()}
    return value


def _kept_keys(kind: Callable[..., Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """The keys of ``data`` that ``kind`` takes (a dataclass's fields; any, for ``Values``)."""
    if is_dataclass(kind):
        names = {f.name for f in fields(kind)}
        return {k: v for k, v in data.items() if k in names}
    return dict(data)


def _number(value: Any) -> str:
    """A cost as pages write it: 3, 4.5, 1/3 (``format_number``'s exact text; a float by
    its shortest digits)."""
    return f"{value:g}" if isinstance(value, float) else format_number(value)


class AttackBase:
    """An attack's members with their safe defaults: small enough to compute where the
    request is handled, nothing to remember, no problems. Subclasses write ``odds`` and
    ``roll``."""

    def inline(self) -> bool:
        return True

    def remember(self, odds: AttackOdds) -> None:
        """Odds from a calculation worker: this attack computes its own in microseconds."""

    def problems(self) -> tuple[str, ...]:
        return ()


def odds_bytes(odds: AttackOdds) -> int:
    """About what an attack's odds (and the key they are kept under) hold in memory: what a
    memo of odds counts against its byte budget."""
    return 4096 + sum(
        2048 + 96 * len(line.damage) + 1024 * len(line.targets) + 256 * len(line.steps)
        for line in odds.lines
    )


class RememberingAttack(AttackBase, ABC):
    """An attack whose odds are slow: they are kept in the class's bounded memo under
    ``odds_key`` (so a worker's odds, handed to ``remember``, make an equal attack inline
    next time). Subclasses write ``exact_odds``, ``odds_key`` and ``cheap``."""

    known: ClassVar[BoundedMemo[[Any], AttackOdds]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "known" not in cls.__dict__:
            cls.known = BoundedMemo(
                lambda attack: attack.exact_odds(),
                maxsize=2048,
                max_bytes=32 << 20,
                size=odds_bytes,
            )

    @property
    @abstractmethod
    def odds_key(self) -> Hashable:
        """What the odds depend on (equal keys, equal odds)."""

    @abstractmethod
    def exact_odds(self) -> AttackOdds: ...

    def cheap(self) -> bool:
        """Whether computing the odds here costs well under a millisecond."""
        return False

    def inline(self) -> bool:
        # the memo first: a look-up, where estimating the work may take a while
        return self.known.get(self.odds_key) is not None or self.cheap()

    def odds(self) -> AttackOdds:
        return self.known.keyed(self.odds_key, self)

    def remember(self, odds: AttackOdds) -> None:
        self.known.put(self.odds_key, odds)


class RulesetBase(ABC):
    """Every member of ``Ruleset`` that can be derived; see the module's docstring."""

    # ------------------------------------------------------------------ identity (primitives)
    id: str
    name: str
    summary: str
    rules_version: str
    unit_columns: tuple[Column, ...]
    weapon_columns: tuple[Column, ...]
    outcome_columns: tuple[Column, ...]
    sample_attacks: tuple[SampleAttack, ...]

    unit_fields: tuple[InputField, ...] = (NAME_FIELD,)
    cost_unit: str = "pts"
    glossary: tuple[GlossaryTerm, ...] = ()
    option_fields: tuple[InputField, ...] = ()
    options_type: Callable[..., Any] = Values  # built from the option fields' values
    situation_fields: tuple[InputField, ...] = ()
    target_fields: tuple[InputField, ...] = ()
    max_targets: int = 1
    unit_actions: tuple[UnitAction, ...] = ()
    turn_reset: TurnReset | None = None  # nothing happens as a turn or a round begins
    state_type: Callable[..., Any] = Values  # built from a state's stored keys
    unit_form = FormSplit("kind", {})  # every field applies to every kind

    # ------------------------------------------------------------------ building: primitives

    @abstractmethod
    def catalogue(self) -> tuple[CatalogueEntry, ...]: ...

    @abstractmethod
    def decode_unit(self, data: Mapping[str, Any], *, strict: bool = False) -> Any: ...

    @abstractmethod
    def encode_unit(self, unit: Any) -> JSON: ...

    @abstractmethod
    def unit_figures(self, unit: Any, options: Any) -> UnitFigures: ...

    # ------------------------------------------------------------------ building: derived

    @cached_property
    def weapon_form(self) -> FormSplit:
        """A weapon type's fields are its catalogue entry's."""
        return catalogue_split(self.catalogue())

    def decode_options(self, data: Mapping[str, Any] | None) -> Any:
        errors = FieldErrors()
        values = read_object(
            data or {}, "", self.option_fields, errors, unknown="unknown rule option"
        )
        errors.raise_any()
        return self.options_type(**values)

    def encode_options(self, options: Any) -> JSON:
        return {f.name: _value(options, f.name) for f in self.option_fields}

    def figures(self, unit: Any, options: Any) -> UnitFigures:
        """``unit_figures``, kept in a bounded memo (the members derived from it ask it one
        after another); computed afresh for a unit or options that cannot be a key."""
        try:
            return self._figures_memo.keyed((unit, options), unit, options)
        except TypeError:  # unhashable
            return self.unit_figures(unit, options)

    @cached_property
    def _figures_memo(self) -> BoundedMemo[[Any, Any], UnitFigures]:
        return BoundedMemo(self.unit_figures, maxsize=512)

    def weapon_figures(self, unit: Any, index: int, options: Any) -> WeaponFigures:
        figures = self.figures(unit, options)
        weapon = figures.weapons[index]
        own = tuple(f for f in figures.findings + weapon.findings if f.weapon == index)
        return replace(weapon, findings=own)

    def unit_cost(self, unit: Any, options: Any) -> Any:
        return self.figures(unit, options).cost

    def weapon_cost(self, unit: Any, index: int, options: Any) -> Any:
        return self.figures(unit, options).weapons[index].cost

    def weapon_name(self, unit: Any, index: int) -> str:
        return self.figures(unit, self.decode_options(None)).weapons[index].name

    def army_findings(
        self, units: Sequence[Any], budget: int | None, options: Any
    ) -> list[Finding]:
        total = sum((self.unit_cost(u, options) for u in units), 0)
        return self.budget_findings(total, budget, options) + self.roster_findings(
            [(u, 1) for u in units], options
        )

    def roster_findings(self, units: Sequence[tuple[Any, int]], options: Any) -> list[Finding]:
        """None by default: a ruleset whose text limits units together says so (Degrees: at
        most six Least Weasels a Ferret)."""
        return []

    @property
    def sample_army(self) -> SampleArmy:
        """The sample attacks' units, each once (by name; the first attack's attacker and
        target first), with a budget of their cost rounded up to ten: a ruleset names its
        texts' own examples instead."""
        units: dict[str, JSON] = {}
        for sample in self.sample_attacks:
            for unit in (sample.attacker, *sample.targets):
                units.setdefault(str(unit.get("name")), unit)
        options = self.decode_options(None)
        total = sum((self.unit_cost(self.decode_unit(u), options) for u in units.values()), 0)
        budget = max(10, -(-math.ceil(total) // 10) * 10)
        notes = "The units of this rule system's sample attacks."
        return SampleArmy(f"{self.name} example", budget, notes, tuple(units.values()))

    def budget_findings(self, total: Any, budget: int | None, options: Any) -> list[Finding]:
        """Over budget: an error, or a warning under an ``allow_over_budget`` house rule."""
        if budget is None or total <= budget:
            return []
        lenient = bool(getattr(options, "allow_over_budget", False))
        severity: Severity = "warning" if lenient else "error"
        cost = self.format_cost
        message = (
            f"The army costs {cost(total)}, over its budget of {cost(budget)} by "
            f"{cost(total - budget)}."
        )
        return [Finding(severity, "over_budget", message)]

    def format_cost(self, cost: Any) -> str:
        return f"{_number(cost)} {self.cost_unit}"

    def format_cost_change(self, change: Any) -> str:
        return ("-" if change < 0 else "+") + self.format_cost(abs(change))

    def field_words(self, data: Mapping[str, Any]) -> dict[str, str]:
        return plain_field_words(data)

    def unit_json(self, figures: UnitFigures) -> JSON:
        return dict(figures.cells)

    def weapon_json(self, figures: WeaponFigures) -> JSON:
        return dict(figures.cells)

    def unit_lines(self, unit: Any, options: Any) -> list[str]:
        """A head line of the unit's columns and cost, then a line per weapon."""
        figures = self.figures(unit, options)
        cells = [f"{c.label} {figures.cells[c.key]}" for c in self.unit_columns]
        lines = [" · ".join([figures.name, *cells, figures.cost_text])]
        for weapon in figures.weapons:
            shown = [weapon.cells[c.key] for c in self.weapon_columns if weapon.cells.get(c.key)]
            lines.append(f"   - {weapon.name}: {', '.join(shown)} · {weapon.cost_text}")
        return lines

    def template_context(self) -> Mapping[str, Any]:
        return {}

    # ------------------------------------------------------------------ calculating

    @abstractmethod
    def attack(
        self,
        attacker: Any,
        weapons: tuple[int, ...],
        targets: Sequence[TargetInput],
        situation: Mapping[str, Any],
        options: Any,
        allies: Sequence[AllyInput] = (),
    ) -> Attack: ...

    def attack_from_body(self, body: Mapping[str, Any]) -> Attack:
        """A stateless body: ``{"attacker": unit, "weapons": [positions], "targets": [unit,
        ...], "situation": {...}, "options": {...}}`` (units as ``encode_unit`` writes them;
        ``weapons`` defaults to ``default_weapons``)."""
        known = {"attacker", "weapons", "targets", "situation", "options"}
        for key in body:
            if key not in known:
                raise InvalidInput(str(key), "is not a known field")
        if not isinstance(body.get("attacker"), Mapping):
            raise InvalidInput("attacker", "is required (a unit)")
        raw_targets = body.get("targets")
        if not isinstance(raw_targets, list) or not raw_targets:
            raise InvalidInput("targets", "is required (a list of units)")
        options = _renamed("options", self.decode_options, body.get("options"))
        attacker = _renamed("attacker", self.decode_unit, body["attacker"])
        targets = [
            TargetInput(_renamed(f"targets.{i}", self.decode_unit, t))
            for i, t in enumerate(raw_targets[: self.max_targets + 1])
        ]
        weapons = body.get("weapons")
        if weapons is None:
            chosen = self.default_weapons(attacker, options)
        elif isinstance(weapons, list) and all(type(i) is int for i in weapons):
            chosen = tuple(weapons)
        else:
            raise InvalidInput("weapons", "must be a list of weapon positions")
        situation = body.get("situation") or {}
        if not isinstance(situation, Mapping):
            raise InvalidInput("situation", "must be an object")
        return self.attack(attacker, chosen, targets, situation, options)

    def decode_situation(self, values: Mapping[str, FieldValue]) -> Any:
        return Values({f.name: values[f.name] for f in self.situation_fields})

    def encode_situation(self, situation: Any) -> dict[str, FieldValue]:
        return {f.name: _value(situation, f.name) for f in self.situation_fields}

    def default_weapons(self, unit: Any, options: Any) -> tuple[int, ...]:
        """The first weapon that makes attacks of its own."""
        weapons = self.figures(unit, options).weapons
        return next(((i,) for i, w in enumerate(weapons) if w.fires), ())

    def weapons_cost(self, unit: Any, weapons: tuple[int, ...], options: Any) -> Any:
        return sum((self.weapon_cost(unit, i, options) for i in weapons), 0)

    # ------------------------------------------------------------------ battles

    @abstractmethod
    def standing(self, fighter: Fighter) -> Standing: ...

    @abstractmethod
    def after_attack(self, attack: BattleAttack, roll: AttackRoll) -> tuple[Any, ...]: ...

    @property
    def battle_situation_fields(self) -> tuple[InputField, ...]:
        return self.situation_fields

    def initial_state(self, unit: Any) -> Any:
        return self.decode_state({})

    def decode_state(self, data: Mapping[str, Any]) -> Any:
        return self.state_type(**_kept_keys(self.state_type, data))

    def encode_state(self, state: Any) -> JSON:
        return _as_json(state)

    def public_state(self, data: Mapping[str, Any]) -> JSON:
        return dict(data)  # no secret state

    def battle_attack(
        self,
        attacker: Fighter,
        weapons: tuple[int, ...],
        targets: Sequence[tuple[Fighter, Mapping[str, Any]]],
        situation: Mapping[str, Any],
        *,
        moved: bool = False,
    ) -> BattleAttack:
        """The attack of the units as they now stand (``standing``'s unit)."""
        units = [TargetInput(self.standing(t).unit, fields) for t, fields in targets]
        attack = self.attack(
            self.standing(attacker).unit, weapons, units, situation, attacker.options
        )
        return BattleAttack(attack, attacker, tuple(t for t, _ in targets), dict(situation))

    def log_odds(self, attack: BattleAttack, odds: AttackOdds) -> JSON:
        return battle_log.odds_json(attack.targets, odds)

    def log_roll(self, attack: BattleAttack, roll: AttackRoll) -> list[JSON]:
        return battle_log.roll_json(attack.targets, roll)

    def apply_action(
        self, name: str, fighter: Fighter, values: Mapping[str, Any], rng: random.Random
    ) -> ActionResult:
        """The named action's fields read (an unknown action or a bad value refused by
        name), then done by the ruleset's ``act_<name>(fighter, values, rng)``."""
        _, read = battle_log.read_action(self.unit_actions, name, values)
        act: Callable[[Fighter, Mapping[str, FieldValue], random.Random], ActionResult]
        act = getattr(self, f"act_{name}")
        return act(fighter, read, rng)

    def end_battle(self, fighters: Sequence[Fighter]) -> ActionResult:
        """Nothing happens to the units when a battle ends (an optional ability)."""
        return ActionResult(None, "")

    def odds_words(self, odds: Mapping[str, Any]) -> list[str]:
        return battle_log.odds_words(odds, {c.key: c.label for c in self.outcome_columns})

    def effect_words(self, effect: Mapping[str, Any]) -> str:
        """The effect's own words as the roll wrote them, else its outcome's heading."""
        words = effect.get("words")
        if words:
            return str(words)
        outcome = str(effect.get("outcome", ""))
        return next((c.label for c in self.outcome_columns if c.key == outcome), outcome)


def _renamed(path: str, read: Callable[[Any], Any], data: Any) -> Any:
    """``read(data)``, a refusal named under ``path`` (``targets.0.hits``)."""
    try:
        return read(data)
    except InvalidInput as err:
        raise InvalidInput(f"{path}.{err.field}", err.reason) from None


def check_fields(fields_: Sequence[InputField], data: Mapping[str, Any]) -> dict[str, FieldValue]:
    """The fields' values from ``data``, every refusal raised at once (``InvalidFields``)."""
    values, refused = parse_fields(fields_, data)
    errors = FieldErrors()
    for name, reason in refused.items():
        errors.add(name, reason)
    errors.raise_any()
    return values
