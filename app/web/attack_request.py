"""One attack request, whichever door it comes in by.

An attack names its attacker and the weapons it fires (the calculator's are stored weapon
ids, a battle's the unit's weapon indexes), its main target, further targets each with the
ruleset's ``target_fields``, allies joining a combined attack (where the ruleset has them)
and the situation, as the values of the ruleset's ``situation_fields`` (a battle's: its
``battle_situation_fields``; the battle keeps the rest itself). The calculator adds a
loadout to compare and a Bonus die; a roll adds its seed; a battle, whether the units moved.

Three doors read it, and each names a refusal as its callers know it, with today's reasons:

* **JSON** (``read_json``): the calculator's and the battles' bodies, whose shapes their
  pydantic models check (``SavedAttackIn``, ``AttackIn``); what depends on the ruleset (the
  situation, further targets, the Bonus die) is read here once the ruleset is known. Every
  refusal is one 422 naming ``situation.<field>``, ``followers.<i>.<field>``, ``bonus_die``.
* **a query string** (``from_query``): the calculator page's URL; each refusal by its key
  (``weapons``, ``follower-0``, a situation field) while the rest computes on defaults.
* **a form** (``from_form``): the battle page's attack form, read as the JSON body it spells
  out, refusals named by its fields (``attacker_id``, ``weapons``, ``followers``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal

from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model

from app.rules.errors import InvalidInput
from app.rules.fields import TRUE_WORDS, InputField, parse_fields
from app.rules.registry import get_ruleset
from app.rules.ruleset import Ruleset, read_situation
from app.services.calculator import BONUS_DIE, CalcRequest, Follower, Loadout
from app.web.errors import field_errors
from app.web.inputs import Id, Seed, parse_id, parse_index
from app.web.situation_schema import SituationModel, TargetModel, situation_model, target_model

Door = Literal["calculator", "battle"]
"""Whose situation an attack carries: the calculator's (every situation field) or a
battle's (its ``battle_situation_fields``)."""

MAX_ALLIES = 11  # allies read from a query string (the JSON body's own limit is the same)
MAX_FOLLOWER_ROWS = 3  # rows of the battle page's further-targets form (the API takes up to 11)
MAX_WEAPONS = 12  # weapons fired in one attack request (a ruleset may allow fewer)
MAX_FURTHER_TARGETS = 11  # further targets in one attack request (likewise)
FOLLOWER = "follower"
"""The query's further target; its ``target_fields`` are ``follower_<name>`` (repeated, in
the same order), and its figurines reached (a squad's) ``follower_figures``."""
FIGURES = "figures"
TARGET_FIGURES = "target_figures"  # the query's main target's figurines reached
Problem = dict[str, Any]  # a pydantic-shaped error: loc (no "body"), msg, type


@dataclass(frozen=True)
class AttackRequest:
    """An attack as asked, before the units are looked up. ``situation``: every field of the
    door's situation by name, its value as the situation models give it (inches as
    numbers), the defaults filled in."""

    attacker: Loadout
    target_id: int | None = None
    situation: Mapping[str, Any] = field(default_factory=dict)
    followers: tuple[Follower, ...] = ()
    target_figures: int | None = None
    allies: tuple[int, ...] = ()
    ally_weapons: tuple[int, ...] = ()
    compare: Loadout | None = None
    bonus_die: str | None = None
    seed: int | None = None
    moved: bool = False

    def calculation(self, ruleset: Ruleset) -> CalcRequest:
        """The calculator's request: the situation as the ruleset's own."""
        situation, errors = read_situation(ruleset, self.situation)
        refuse_first({f"situation.{name}": reason for name, reason in errors.items()})
        return CalcRequest(
            attacker=self.attacker,
            target_id=self.target_id,
            situation=situation,
            followers=self.followers,
            target_figures=self.target_figures,
            compare=self.compare,
            bonus_die=self.bonus_die,
            allies=self.allies,
            ally_weapons=self.ally_weapons,
        )

    def battle_attack(self) -> dict[str, Any]:
        """The battle services' arguments for this attack (``attack_odds``, ``roll_attack``
        less the seed): battle unit ids and weapon indexes."""
        assert self.attacker.unit_id is not None and self.target_id is not None
        return {
            "attacker_id": self.attacker.unit_id,
            "weapons": self.attacker.weapon_ids,
            "target_id": self.target_id,
            "situation": dict(self.situation),
            "followers": [(f.unit_id, *f.values) for f in self.followers],
            "moved": self.moved,
        }


# ------------------------------------------------------------------ the ruleset's models


def door_fields(ruleset: Ruleset, door: Door) -> tuple[InputField, ...]:
    """The situation fields an attack through ``door`` carries, in the ruleset's order."""
    if door == "calculator":
        return tuple(ruleset.situation_fields)
    kept = {f.name for f in ruleset.battle_situation_fields}
    return tuple(f for f in ruleset.situation_fields if f.name in kept)


@cache
def situation_in(ruleset_id: str, door: Door = "calculator") -> type[SituationModel]:
    """The situation model of a ruleset's calculations (or battles), made from its fields."""
    rules = get_ruleset(ruleset_id)
    kept = {f.name for f in door_fields(rules, door)}
    doc = None
    if door == "battle":
        doc = "Where and how the attacker fires this turn (the battle's ruleset's fields)."
    leave_out = [f.name for f in rules.situation_fields if f.name not in kept]
    return situation_model(rules, module=__name__, doc=doc, leave_out=leave_out)


@cache
def follower_in(ruleset_id: str) -> type[TargetModel]:
    """A further target's model under a ruleset: a unit and its ``target_fields``."""
    doc = "A further target: a unit and where it stands."
    return target_model(get_ruleset(ruleset_id), module=__name__, doc=doc)


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


@cache
def _calculator_parts(ruleset_id: str) -> type[BaseModel]:
    """The calculator body's ruleset-dependent part (situation, further targets)."""
    situation, follower = situation_in(ruleset_id), follower_in(ruleset_id)
    most = get_ruleset(ruleset_id).max_targets - 1
    model: type[BaseModel] = create_model(
        "AttackFields",
        __base__=_In,
        __module__=__name__,
        situation=(situation, Field(default_factory=situation)),
        followers=(list[follower], Field(default_factory=list, max_length=most)),  # type: ignore[valid-type]
    )
    return model


def bonus_die_choices(ruleset: Ruleset) -> tuple[str, ...]:
    """The values of the ruleset's bonus die house rule (none: it has no such rule)."""
    return next((f.choice_values for f in ruleset.option_fields if f.name == BONUS_DIE), ())


def _bonus_die_reason(ruleset: Ruleset, value: str | None) -> str | None:
    """Why the ruleset refuses ``value`` as the Bonus die (None: it takes it)."""
    choices = bonus_die_choices(ruleset)
    if value is None or value in choices:
        return None
    return f"must be one of {', '.join(choices)}" if choices else "is not a house rule here"


NOT_A_FLAG = "must be true or false"


def _target_values(
    ruleset: Ruleset, raw: Mapping[str, Any]
) -> tuple[tuple[Any, ...], dict[str, str]]:
    """A further target's ``target_fields`` values (form text or JSON values) in their
    order, read by the fields themselves, and the refusals by field (an unknown key too)."""
    known = {f.name for f in ruleset.target_fields}
    problems = {k: "is not a known field" for k in raw if k not in known}
    values, errors = parse_fields(ruleset.target_fields, raw)
    return tuple(values[f.name] for f in ruleset.target_fields), problems | errors


def _json_values(values: Mapping[str, Any], fields: Sequence[InputField]) -> dict[str, Any]:
    """Parsed situation values as the situation models give them: inches as numbers (a
    third, which only the query string's reader takes, stays exact)."""
    return {
        f.name: _number(values[f.name]) if f.kind == "inches" else values[f.name] for f in fields
    }


def _number(value: Any) -> Any:
    return float(value) if value is not None and float(value) == value else value


def _situation(ruleset: Ruleset, data: Mapping[str, Any], door: Door) -> tuple[Any, list[Problem]]:
    """The door's situation read by its model: the values, or the problems (loc
    ``situation.<field>``)."""
    try:
        return situation_in(ruleset.id, door).model_validate(dict(data)).model_dump(), []
    except ValidationError as exc:
        return {}, [{**e, "loc": ("situation", *e["loc"])} for e in exc.errors()]


def _battle_followers(
    ruleset: Ruleset, rows: Sequence[Mapping[str, Any]], *, json: bool = False
) -> tuple[list[Follower], list[Problem]]:
    """Further targets of a battle (``unit_id`` and the target fields), each read by the
    ruleset's fields; the first refused one's problems (loc ``followers.<i>.<field>``).
    ``json``: the rows are a JSON body's, whose on/off fields take ``true`` and ``false``
    only (a form's ticked box is text)."""
    out: list[Follower] = []
    flags = [f.name for f in ruleset.target_fields if f.kind == "flag"] if json else []
    for i, row in enumerate(rows):
        values, errors = _target_values(ruleset, {k: v for k, v in row.items() if k != "unit_id"})
        for name in flags:
            if row.get(name) is not None and not isinstance(row[name], bool):
                errors[name] = NOT_A_FLAG
        if errors:
            return [], [
                {"loc": ("followers", i, k), "msg": r, "type": "value_error"}
                for k, r in errors.items()
            ]
        out.append(Follower(row["unit_id"], *values))
    return out, []


def _refused(problems: Sequence[Mapping[str, Any]]) -> RequestValidationError:
    """The 422 of a body's refused parts (``loc`` under ``body``, as FastAPI's own)."""
    return RequestValidationError([{**p, "loc": ("body", *p["loc"])} for p in problems])


# ------------------------------------------------------------------------------ JSON


def read_json(
    ruleset: Ruleset,
    door: Door,
    *,
    attacker: Loadout,
    target_id: int,
    situation: Mapping[str, Any],
    followers: Sequence[Mapping[str, Any]],
    allies: tuple[int, ...] = (),
    ally_weapons: tuple[int, ...] = (),
    bonus_die: str | None = None,
    seed: int | None = None,
    moved: bool = False,
    target_figures: int | None = None,
) -> AttackRequest:
    """The attack a JSON body describes (its shape already checked by its model), read
    under ``ruleset``; ``RequestValidationError`` names every refused part as the API names
    a body's fields (``situation.distance``, ``followers.0.distance``, ``bonus_die``).

    The calculator's further targets are read by their generated model (the body's schema
    shows it); a battle's by the ruleset's fields, as its form's are."""
    problems: list[Problem]
    if door == "calculator":
        data = {"situation": situation, "followers": list(followers)}
        try:
            parts = _calculator_parts(ruleset.id).model_validate(data)
        except ValidationError as exc:
            raise _refused(exc.errors()) from None
        values = parts.situation.model_dump()  # type: ignore[attr-defined]
        read = [
            Follower(f.unit_id, *f.field_values(), figures=f.figures)
            for f in parts.followers  # type: ignore[attr-defined]
        ]
        reason = _bonus_die_reason(ruleset, bonus_die)
        if reason is not None:
            raise _refused([{"loc": (BONUS_DIE,), "msg": reason, "type": "value_error"}])
    else:
        values, problems = _situation(ruleset, situation, door)
        read, more = _battle_followers(ruleset, followers, json=True)
        if problems or more:
            raise _refused(problems + more)
    return AttackRequest(
        attacker=attacker,
        target_id=target_id,
        situation=values,
        followers=tuple(read),
        target_figures=target_figures,
        allies=allies,
        ally_weapons=ally_weapons,
        bonus_die=bonus_die,
        seed=seed,
        moved=moved,
    )


# ------------------------------------------------------------------------------ a query


class Params:
    """Query parameters with repeated keys (``weapons=1&weapons=2``)."""

    def __init__(self, items: Sequence[tuple[str, str]]) -> None:
        self.items = items

    def get(self, key: str) -> str:
        for k, v in self.items:
            if k == key:
                return v.strip()
        return ""

    def all(self, key: str) -> list[str]:
        return [v.strip() for k, v in self.items if k == key]


def optional_id(text: str) -> int | None:
    """A query's id: None when empty; ``ValueError`` when it is not an id."""
    if not text:
        return None
    value = parse_id(text)
    if value is None:
        raise ValueError(text)
    return value


def _ids(values: list[str]) -> tuple[int, ...]:
    out: list[int] = []
    for text in values:
        for part in text.split(","):
            if part.strip():
                value = optional_id(part.strip())
                if value is not None and value not in out:
                    out.append(value)
    return tuple(out)


def _query_followers(
    ruleset: Ruleset, params: Params, errors: dict[str, str]
) -> tuple[Follower, ...]:
    """The query's further targets (``follower``, ``follower_<field>``), a refused one left
    out and named ``follower-<i>`` (too many: ``follower``)."""
    followers: list[Follower] = []
    columns = [params.all(f"{FOLLOWER}_{f.name}") for f in ruleset.target_fields]
    counts = params.all(f"{FOLLOWER}_{FIGURES}")
    for i, text in enumerate(params.all(FOLLOWER)):
        if not text:
            continue
        figures = _query_figures(
            counts[i] if i < len(counts) else "", errors, f"{FOLLOWER}_{FIGURES}-{i}"
        )
        try:
            unit_id = optional_id(text)
        except ValueError:
            errors[f"{FOLLOWER}-{i}"] = "needs a unit"
            continue
        row = {
            f.name: column[i] if i < len(column) else ""
            for f, column in zip(ruleset.target_fields, columns, strict=True)
        }
        values, refused = _target_values(ruleset, row)
        if refused:
            errors[f"{FOLLOWER}-{i}"] = next(iter(refused.values()))
        elif unit_id is not None:
            followers.append(Follower(unit_id, *values, figures=figures, row=i))
    most = ruleset.max_targets - 1
    if len(followers) > most:
        errors[FOLLOWER] = (
            f"at most {most} further targets in one attack"
            if most
            else f"{ruleset.name} attacks one target at a time"
        )
    return tuple(followers[:most])


def _query_figures(text: str, errors: dict[str, str], key: str) -> int | None:
    """A query's figurines reached (empty: all of them, None); a refused one is noted under
    ``key`` and reads as all of them."""
    if not text:
        return None
    if not text.isdigit() or len(text) > 3:
        errors[key] = "must be a whole number"
        return None
    if int(text) < 1:
        errors[key] = "must be at least 1"
        return None
    return int(text)


def _query_situation(ruleset: Ruleset, params: Params, errors: dict[str, str]) -> dict[str, Any]:
    """The query's situation fields, a refused one at its default; one the ruleset's own
    reading refuses (d20's ``objects``) leaves the whole situation at its defaults."""
    fields = door_fields(ruleset, "calculator")
    values, refused = parse_fields(fields, {f.name: params.get(f.name) for f in fields})
    errors |= refused
    try:
        ruleset.decode_situation(values)
    except InvalidInput as err:
        errors[err.field] = err.reason
        values = {f.name: f.default for f in fields}
    return _json_values(values, fields)


def from_query(
    params: Params | Mapping[str, Any], ruleset: Ruleset
) -> tuple[AttackRequest, dict[str, str]]:
    """The calculator's attack a query string describes, read under ``ruleset``, and the
    keys refused (key -> reason); a refused key reads as its default."""
    if not isinstance(params, Params):
        params = Params([(k, str(v)) for k, v in params.items()])
    errors: dict[str, str] = {}
    situation = _query_situation(ruleset, params, errors)

    def ids(key: str) -> tuple[int, ...]:
        try:
            return _ids(params.all(key))
        except ValueError:
            errors[key] = "needs unit or weapon numbers"
            return ()

    def one(key: str) -> int | None:
        try:
            return optional_id(params.get(key))
        except ValueError:
            errors[key] = "needs a unit number"
            return None

    followers = _query_followers(ruleset, params, errors)
    bonus_die = params.get(BONUS_DIE) or None
    reason = _bonus_die_reason(ruleset, bonus_die)
    if reason is not None:
        errors[BONUS_DIE] = reason
        bonus_die = None
    compare = one("compare")  # the keys' refusals in this order (the first one is shown)
    request = AttackRequest(
        attacker=Loadout(one("attacker"), ids("weapons")),
        target_id=one("target"),
        situation=situation,
        followers=followers,
        target_figures=_query_figures(params.get(TARGET_FIGURES), errors, TARGET_FIGURES),
        compare=Loadout(compare, ids("compare_weapons")) if compare else None,
        bonus_die=bonus_die,
        allies=ids("ally")[:MAX_ALLIES],
        ally_weapons=ids("ally_weapons"),
    )
    return request, errors


# ------------------------------------------------------------------------------ a form

_ID, _SEED = TypeAdapter(Id), TypeAdapter(Seed)
_FORM_ORDER = ("attacker_id", "weapons", "target_id", "situation", "followers", "seed")


def _checked(adapter: TypeAdapter[int], value: Any, problems: list[Problem], *loc: Any) -> Any:
    """``value`` as ``adapter`` reads it, or None and its problems noted at ``loc``."""
    try:
        return adapter.validate_python(value)
    except ValidationError as exc:
        problems += [{**e, "loc": (*loc, *e["loc"])} for e in exc.errors()]
        return None


def _form_body(form: Mapping[str, str], ruleset: Ruleset) -> dict[str, Any]:
    """The battles' JSON body the attack form spells out, its values still the form's text:
    ``weapon.2`` ticked is weapon 2, ``follower.0.unit_id`` and ``follower.0.<field>`` a
    further target, a situation field by its name (an unticked box: off)."""
    text = {k: v.strip() for k, v in form.items()}
    situation: dict[str, Any] = {}
    for f in door_fields(ruleset, "battle"):
        if f.kind == "flag":
            situation[f.name] = text.get(f.name, "").lower() in TRUE_WORDS
        elif text.get(f.name):
            situation[f.name] = text[f.name]
    followers: list[dict[str, Any]] = []
    for k in range(MAX_FOLLOWER_ROWS):
        if unit := text.get(f"follower.{k}.unit_id"):
            row = {f.name: text.get(f"follower.{k}.{f.name}") for f in ruleset.target_fields}
            followers.append({"unit_id": unit} | {name: v for name, v in row.items() if v})
    weapons = (
        parse_index(key.removeprefix("weapon."))
        for key, value in form.items()
        if key.startswith("weapon.") and value
    )
    return {
        "attacker_id": text.get("attacker_id") or None,
        "weapons": sorted(w for w in weapons if w is not None),
        "target_id": text.get("target_id") or None,
        "situation": situation,
        "followers": followers,
        "moved": text.get("moved", "").lower() in TRUE_WORDS,
        "seed": text.get("seed") or None,
    }


def _form_errors(problems: list[Problem]) -> dict[str, str]:
    """Problems by the form's field names, the first of each in the body's field order:
    ``situation.distance`` is the form's ``distance``, any further target's ``followers``;
    an unchosen unit is "choose a unit", any trouble with the weapons "tick at least one"."""
    problems = sorted(problems, key=lambda p: _FORM_ORDER.index(p["loc"][0]))
    errors: dict[str, str] = {}
    for problem in field_errors(problems):
        name, reason = problem["field"].removeprefix("situation."), problem["reason"]
        if name.startswith("followers."):
            name = "followers"
        if name in ("attacker_id", "target_id") and reason in (
            "is required",
            "must be a whole number",
        ):
            reason = "choose a unit"
        if name == "weapons":
            reason = "tick at least one weapon"
        errors.setdefault(name, reason)
    return errors


def from_form(
    form: Mapping[str, str], ruleset: Ruleset
) -> tuple[AttackRequest | None, dict[str, str]]:
    """The battle page's attack form read as the JSON body it spells out (the same checks,
    the same reasons), or None and the refusals by form field (``attacker_id``,
    ``weapons``, ``followers``, a situation field by its name). A further target's fields
    are read once everything else holds."""
    body = _form_body(form, ruleset)
    problems: list[Problem] = []
    attacker = _checked(_ID, body["attacker_id"], problems, "attacker_id")
    target = _checked(_ID, body["target_id"], problems, "target_id")
    weapons = tuple(body["weapons"])
    if not 1 <= len(weapons) <= MAX_WEAPONS:
        kind = "too_long" if weapons else "too_short"
        problems.append({"loc": ("weapons",), "msg": "", "type": kind})
    seed = _checked(_SEED, body["seed"], problems, "seed") if body["seed"] else None
    situation, refused = _situation(ruleset, body["situation"], "battle")
    problems += refused
    for k, row in enumerate(body["followers"]):
        row["unit_id"] = _checked(_ID, row["unit_id"], problems, "followers", k, "unit_id")
    if problems:
        return None, _form_errors(problems)
    followers, refused = _battle_followers(ruleset, body["followers"])
    if refused:
        return None, {"followers": refused[0]["msg"]}
    request = AttackRequest(
        attacker=Loadout(attacker, weapons),
        target_id=target,
        situation=situation,
        followers=tuple(followers),
        seed=seed,
        moved=body["moved"],
    )
    return request, {}


def refuse_first(errors: Mapping[str, str]) -> None:
    """Raise the first of a reader's refusals as ``InvalidInput`` (none: nothing)."""
    for name, reason in errors.items():
        raise InvalidInput(name, reason)
