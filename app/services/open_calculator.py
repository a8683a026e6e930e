"""The open calculator: an attack between units typed in, no account and no saved army.

The URL holds the whole calculation (like an AnyDice program link): ``rules`` names the
ruleset, ``a.<field>`` and ``t.<field>`` the attacker's and the target's fields as the
ruleset's export document writes them (``a.weapons.0.type=gun&a.weapons.0.size=3``),
``weapons`` the attacker's weapons fired (1 for its first) and the situation fields their
own names. The units are read through ``Ruleset.decode_unit`` (as the builder reads a form),
then computed by the saved-unit calculator's own code (``services.calculator``), so the odds,
breakdown and chart are the same as for saved units with the same fields.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from sqlalchemy.orm import Session

from app.db.models import Army, User
from app.rules.errors import InvalidInput
from app.rules.fields import FieldValue, format_field, parse_fields
from app.rules.registry import DEFAULT_RULESET, RULESETS, get_ruleset
from app.rules.ruleset import Ruleset
from app.services import armies, builder, calculator
from app.services.army_rows import MAX_COUNT, UnitRow
from app.services.calculator import CalcRequest, Calculation, Follower, Loadout
from app.services.calculator_units import TypedUnits

PATH = "/calculator/open"
ROLES = {"attacker": "a", "target": "t"}
ATTACKER_ID, TARGET_ID = 1, 2
MAX_WEAPONS = 12
MAX_PARAMS = 400
MAX_VALUE = 200
MAX_DEPTH = 4
FURTHER = "f"  # a further target's keys: ``f.<i>.<field>`` (i from 0, in order)
FIGURES = "figures"  # a target's figurines (a squad): ``t.figures``, ``f.<i>.figures``
MAX_FURTHER_TARGETS = 11  # as the saved calculator's (a ruleset may allow fewer)
FIRST_FURTHER_ID = 3  # the further targets' ids in a calculation: 3, 4...


@dataclass
class TypedUnit:
    """One typed-in unit: the fields as given (form text, nested), the ruleset's unit (None
    when refused) and the refusals by query key."""

    data: dict[str, Any]
    spec: Any = None
    errors: dict[str, str] = field(default_factory=dict)

    def spec_weapons(self, ruleset: Ruleset) -> list[Any]:
        """The unit's weapons as its ruleset writes them (none when the unit was refused)."""
        if self.spec is None:
            return []
        return list(ruleset.encode_unit(self.spec)["weapons"])


def ruleset_of(rules: str) -> tuple[Ruleset, str | None]:
    """The ruleset named by ``rules`` (empty: the default), else the default and a reason."""
    if not rules:
        return get_ruleset(DEFAULT_RULESET), None
    if rules not in RULESETS:
        return get_ruleset(DEFAULT_RULESET), f"must be one of {', '.join(RULESETS)}"
    return get_ruleset(rules), None


def default_unit(ruleset: Ruleset, role: str) -> dict[str, Any]:
    """What a blank calculator starts with: the ruleset's first sample attack's units."""
    sample = ruleset.sample_attacks[0]
    return dict(sample.attacker if role == "attacker" else sample.targets[0])


# ------------------------------------------------------------------ query text <-> unit


def _listify(node: Any) -> Any:
    """Nested dicts whose keys are all indexes become lists, in index order."""
    if not isinstance(node, dict):
        return node
    node = {k: _listify(v) for k, v in node.items()}
    if node and all(k.isdigit() for k in node):
        return [node[k] for k in sorted(node, key=int)]
    return node


def read_unit(ruleset: Ruleset, items: Sequence[tuple[str, str]], prefix: str) -> TypedUnit:
    """The unit ``prefix.<path>`` query items describe (``prefix`` "a" or "t"), bounded:
    at most ``MAX_WEAPONS`` weapons, ``MAX_VALUE`` characters a value, paths ``MAX_DEPTH``
    deep. A list of choices is ``<field>.<choice>=1`` (the builder's checkbox groups)."""
    errors: dict[str, str] = {}
    data = _unit_data(_listify(_query_tree(items, prefix, errors)), prefix)
    _one_value_each(data, prefix, errors)
    typed = TypedUnit(data, errors=errors)
    if errors:
        return typed
    try:
        typed.spec = ruleset.decode_unit(data)
    except InvalidInput as err:
        typed.errors |= {f"{prefix}.{f}": why for f, why in err.reasons().items()}
    return typed


SCALARS = ("name", "kind")  # a unit's fields that are one value in every ruleset
WEAPON_SCALARS = ("type", "label")  # and a weapon's


def _one_value_each(data: dict[str, Any], prefix: str, errors: dict[str, str]) -> None:
    """Drop a one-value field given as a deeper path (``a.weapons.0.type.0``: a list or an
    object where text belongs), noting it, so the form echoes only text back."""
    for key in SCALARS:
        if key in data and not isinstance(data[key], str):
            errors[f"{prefix}.{key}"] = "must be one value"
            del data[key]
    for i, weapon in enumerate(data.get("weapons", [])):
        for key in WEAPON_SCALARS:
            if key in weapon and not isinstance(weapon[key], str):
                errors[f"{prefix}.weapons.{i}.{key}"] = "must be one value"
                del weapon[key]


def _query_tree(
    items: Sequence[tuple[str, str]], prefix: str, errors: dict[str, str]
) -> dict[str, Any]:
    """The ``prefix.<path>`` items as nested dicts by path (empty values left out); a path
    out of bounds goes in ``errors`` instead."""
    tree: dict[str, Any] = {}
    start = f"{prefix}."
    for key, value in items:
        if not key.startswith(start):
            continue
        path = key[len(start) :].split(".")
        value = value.strip()
        error = _path_error(path, value)
        if error is not None:
            errors[key] = error
            continue
        node = tree
        for part in path[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                break
            node = child
        else:
            if value:
                node[path[-1]] = value
    return tree


def _path_error(path: list[str], value: str) -> str | None:
    if len(path) > MAX_DEPTH or not all(path) or path[0].isdigit():
        return "is not a field of a unit"  # (a number first would make the unit a list)
    if len(value) > MAX_VALUE:
        return f"at most {MAX_VALUE} characters"
    if path[0] == "weapons" and (
        len(path) < 3 or not path[1].isdigit() or int(path[1]) >= MAX_WEAPONS
    ):
        return f"weapons are numbered 0 to {MAX_WEAPONS - 1}"
    return None


def _unit_data(data: dict[str, Any], prefix: str) -> dict[str, Any]:
    """The query's unit as its ruleset decodes it: a changed kind drops the old kind's
    figures, blank weapon rows go, checkbox groups become lists, a name by default."""
    was = data.pop("_kind", None)
    if was and data.get("kind") and was != data["kind"]:
        # a new kind: its own Size, Structure, Move... instead of the old kind's
        data = {k: data[k] for k in ("name", "kind", "weapons") if k in data}
    weapons = data.get("weapons", [])
    if not isinstance(weapons, list):
        weapons = []
    # a weapon row left without a type (the blank "add a weapon" row) is no weapon
    data["weapons"] = [w for w in weapons if isinstance(w, dict) and w.get("type")]
    for key, value in list(data.items()):
        if isinstance(value, dict) and key != "weapons":
            data[key] = [k for k, v in value.items() if v]  # a checkbox group
    if "mind_die" in data and str(data["mind_die"]).isdigit():
        data["mind_die"] = int(data["mind_die"])
    data.setdefault("name", _default_name(prefix))
    return data


def _default_name(prefix: str) -> str:
    if prefix == "a":
        return "Attacker"
    if prefix.startswith(f"{FURTHER}."):
        return f"Target {int(prefix.split('.')[1]) + 2}"
    return "Target"


def _flat(value: Any, key: str) -> list[tuple[str, str]]:
    if isinstance(value, Mapping):
        return [p for k, v in value.items() for p in _flat(v, f"{key}.{k}")]
    if isinstance(value, list | tuple):
        if all(isinstance(v, Mapping) for v in value):
            return [p for i, v in enumerate(value) for p in _flat(v, f"{key}.{i}")]
        return [(f"{key}.{v}", "1") for v in value]
    if value is None or value is False or value == "":
        return []
    return [(key, "1" if value is True else str(value))]


def unit_pairs(ruleset: Ruleset, unit: Mapping[str, Any], prefix: str) -> list[tuple[str, str]]:
    """The query items of a unit as its ruleset's export document writes it (``encode_unit``);
    a unit field at the value its kind gives by default is left out (short links)."""
    data = dict(unit)
    bare = {k: data[k] for k in ("name", "kind") if data.get(k)}
    try:
        base = ruleset.encode_unit(ruleset.decode_unit({"name": "x", **bare}))
    except InvalidInput:
        base = {}
    pairs: list[tuple[str, str]] = []
    for key, value in data.items():
        if key != "weapons" and key != "name" and key != "kind" and base.get(key) == value:
            continue
        pairs += _flat(value, f"{prefix}.{key}")
    return pairs


def open_calculator_url(ruleset_id: str, unit: Any, role: str = "attacker") -> str:
    """The open calculator with ``unit`` filled in as ``role`` ("attacker" or "target"); the
    other side starts as the ruleset's sample unit. ``unit``: a unit as the export document
    and ``encode_unit`` write it (``{"name", "kind", ..., "weapons": [...]}``), a stored row
    (``army_rows.UnitRow``) or the builder's ``UnitView``."""
    if isinstance(unit, builder.UnitView):
        unit = unit.row
    if isinstance(unit, UnitRow):
        unit = unit.as_dict()
    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}")
    ruleset = get_ruleset(ruleset_id)
    other = "target" if role == "attacker" else "attacker"
    pairs = [("rules", ruleset.id)]
    pairs += unit_pairs(ruleset, unit, ROLES[role])
    pairs += unit_pairs(ruleset, default_unit(ruleset, other), ROLES[other])
    return f"{PATH}?{urlencode(pairs)}"


# ------------------------------------------------------------------ further targets


@dataclass
class TypedTarget:
    """A typed-in further target (``f.<i>``): the unit, its ruleset's ``target_fields`` as
    typed (``text``) and read (``values``), and its figurines (a squad of ``figures``)."""

    unit: TypedUnit
    text: dict[str, str]
    values: tuple[FieldValue, ...] = ()
    figures: int = 1
    figures_text: str = ""
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def accepted(self) -> bool:
        return self.unit.spec is not None and not self.errors


def most_further(ruleset: Ruleset) -> int:
    """How many further targets one attack takes here (none: one target at a time)."""
    return max(0, min(MAX_FURTHER_TARGETS, ruleset.max_targets - 1))


def further_items(
    ruleset: Ruleset,
    items: Sequence[tuple[str, str]],
    errors: dict[str, str],
    *,
    drop: str = "",
    add: bool = False,
) -> tuple[list[tuple[str, str]], int]:
    """The query's items with its further targets numbered 0, 1... in the order of their
    numbers (``drop``: one left out; ``add``: the ruleset's sample target added after them),
    and how many there are; bounded before anything is read (the ruleset's own bound, at
    most ``MAX_FURTHER_TARGETS``: the rest are refused under ``f``)."""
    rest: list[tuple[str, str]] = []
    rows: dict[int, list[tuple[str, str]]] = {}
    for key, value in items:
        if not key.startswith(f"{FURTHER}."):
            rest.append((key, value))
            continue
        index, _, tail = key[len(FURTHER) + 1 :].partition(".")
        if not index.isdigit() or len(index) > 3 or not tail:
            errors[key] = "is not a further target's field (f.<number>.<field>)"
            continue
        if index != drop:
            rows.setdefault(int(index), []).append((tail, value))
    most = most_further(ruleset)
    if len(rows) > most:
        errors[FURTHER] = (
            f"at most {most} further targets in one attack"
            if most
            else f"{ruleset.name} attacks one target at a time"
        )
    kept = [rows[i] for i in sorted(rows)[:most]]
    if add and len(kept) < most:
        sample = {**default_unit(ruleset, "target"), "name": f"Target {len(kept) + 2}"}
        kept.append([(k.split(".", 1)[1], v) for k, v in unit_pairs(ruleset, sample, "x")])
    for i, row in enumerate(kept):
        rest += [(f"{FURTHER}.{i}.{tail}", value) for tail, value in row]
    return rest, len(kept)


def read_figures(text: str, key: str, errors: dict[str, str]) -> int:
    """A typed target's figurines (empty: 1), a whole number from 1 to ``MAX_COUNT`` (a
    saved unit's bound; the ruleset bounds its figurines over all targets itself)."""
    text = text.strip()
    if not text:
        return 1
    if not text.isdigit() or len(text) > 3 or not 1 <= int(text) <= MAX_COUNT:
        errors[key] = f"must be a whole number from 1 to {MAX_COUNT}"
        return 1
    return int(text)


def target_keys(ruleset: Ruleset) -> frozenset[str]:
    """A further target's own keys beside its unit's: its ``target_fields`` and figures."""
    return frozenset({FIGURES, *(f.name for f in ruleset.target_fields)})


def read_further(
    ruleset: Ruleset, items: Sequence[tuple[str, str]], count: int
) -> list[TypedTarget]:
    """The ``count`` further targets the (numbered) items describe."""
    own = target_keys(ruleset)
    out = []
    for i in range(count):
        prefix = f"{FURTHER}.{i}"
        mine = [(k, v) for k, v in items if k.startswith(f"{prefix}.")]
        text: dict[str, str] = {}
        unit_items = []
        for key, value in mine:
            name = key[len(prefix) + 1 :]
            if name in own:
                text[name] = value.strip()
            else:
                unit_items.append((key, value))
        target = TypedTarget(read_unit(ruleset, unit_items, prefix), text)
        values, refused = parse_fields(
            ruleset.target_fields, {f.name: text.get(f.name, "") for f in ruleset.target_fields}
        )
        target.errors = {f"{prefix}.{k}": why for k, why in refused.items()}
        target.values = tuple(values[f.name] for f in ruleset.target_fields)
        target.figures_text = text.get(FIGURES, "")
        target.figures = read_figures(target.figures_text, f"{prefix}.{FIGURES}", target.errors)
        out.append(target)
    return out


def further_pairs(ruleset: Ruleset, index: int, target: TypedTarget) -> list[tuple[str, str]]:
    """The query items of a further target: its target fields (their defaults left out)
    and figurines (1 left out), then its unit's."""
    prefix = f"{FURTHER}.{index}"
    pairs = []
    for f, value in zip(ruleset.target_fields, target.values, strict=True):
        shown = target.text.get(f.name, "") if target.errors else format_field(f, value)
        if shown and shown != format_field(f, f.default):
            pairs.append((f"{prefix}.{f.name}", shown))
    if target.figures_text and target.figures_text != "1":
        pairs.append((f"{prefix}.{FIGURES}", target.figures_text))
    unit = target.unit
    data = ruleset.encode_unit(unit.spec) if unit.spec is not None else unit.data
    return pairs + unit_pairs(ruleset, data, prefix)


def open_field(name: str, rows: Sequence[int]) -> str:
    """The open calculator's key of a calculation's refused field: ``followers.<k>.<f>``
    (the k-th further target computed) is ``f.<i>.<f>`` (``rows[k]``: its number as typed),
    ``target.figures`` ``t.figures``; any other name as it is."""
    parts = name.split(".", 2)
    if parts[0] == "followers" and len(parts) == 3 and parts[1].isdigit():
        k = int(parts[1])
        if k < len(rows):
            return f"{FURTHER}.{rows[k]}.{parts[2]}"
    if name == f"target.{FIGURES}":
        return f"t.{FIGURES}"
    return name


# ------------------------------------------------------------------ the calculation


def calculate(
    ruleset: Ruleset,
    attacker: Any,
    target: Any,
    weapons: tuple[int, ...],
    request: CalcRequest,
    *,
    target_figures: int = 1,
    further: Sequence[TypedTarget] = (),
) -> Calculation:
    """The calculation of typed-in units (either may be missing: refused), with the saved
    calculator's code; ``weapons`` by number (1 for the first; none: the ruleset's choice).
    ``further``: the further targets read (each a squad of its ``figures``, as the target
    is of ``target_figures``), in order."""
    units = {k: v for k, v in ((ATTACKER_ID, attacker), (TARGET_ID, target)) if v is not None}
    counts = {TARGET_ID: target_figures}
    followers = []
    for i, typed in enumerate(further):
        unit_id = FIRST_FURTHER_ID + i
        units[unit_id], counts[unit_id] = typed.unit.spec, typed.figures
        followers.append(Follower(unit_id, *typed.values))
    views = TypedUnits(ruleset, units, counts)
    request = CalcRequest(
        attacker=Loadout(ATTACKER_ID if attacker is not None else None, weapons),
        target_id=TARGET_ID if target is not None else None,
        situation=request.situation,
        followers=tuple(followers),
        bonus_die=request.bonus_die,
    )
    return calculator.calculate_units(views, request, ruleset)


# ------------------------------------------------------------------ save to an army


def save_units(
    session: Session,
    *,
    user: User,
    ruleset: Ruleset,
    units: Sequence[Any],
    army_id: int | None,
    new_army_name: str = "",
    counts: Sequence[int] = (),
) -> tuple[Army, list[int]]:
    """Add the typed-in units to one of the user's armies of the same ruleset, or to a new
    army named ``new_army_name``, each of its count in ``counts`` (by default 1: a squad
    target is saved as a unit of its figurines); the caller's one transaction holds it all."""
    if army_id is None:
        name = new_army_name.strip()
        if not name:
            raise InvalidInput("army_name", "name the new army, or pick one of yours")
        army = armies.create_army(
            session, user=user, name=name[:100], ruleset_id=ruleset.id, budget=500
        )
    else:
        army = armies.get_army(session, user=user, army_id=army_id)
        if army.ruleset_id != ruleset.id:
            raise InvalidInput("army_id", f"is not a {ruleset.name} army")
    ids = []
    for i, spec in enumerate(units):
        data = ruleset.encode_unit(spec)
        if i < len(counts) and counts[i] != 1:
            data["count"] = counts[i]
        unit = builder.add_unit(session, user=user, army_id=army.id, data=data)
        session.flush()
        ids.append(unit.id)
    return army, ids
