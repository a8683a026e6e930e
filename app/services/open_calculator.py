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
from app.rules.registry import DEFAULT_RULESET, RULESETS, get_ruleset
from app.rules.ruleset import Ruleset
from app.services import armies, builder, calculator
from app.services.army_rows import UnitRow
from app.services.calculator import CalcRequest, Calculation, Loadout
from app.services.calculator_units import TypedUnits

PATH = "/calculator/open"
ROLES = {"attacker": "a", "target": "t"}
ATTACKER_ID, TARGET_ID = 1, 2
MAX_WEAPONS = 12
MAX_PARAMS = 400
MAX_VALUE = 200
MAX_DEPTH = 4


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
    data.setdefault("name", "Attacker" if prefix == "a" else "Target")
    return data


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


# ------------------------------------------------------------------ the calculation


def calculate(
    ruleset: Ruleset, attacker: Any, target: Any, weapons: tuple[int, ...], request: CalcRequest
) -> Calculation:
    """The calculation of typed-in units (either may be missing: refused), with the saved
    calculator's code; ``weapons`` by number (1 for the first; none: the ruleset's choice)."""
    units = {k: v for k, v in ((ATTACKER_ID, attacker), (TARGET_ID, target)) if v is not None}
    views = TypedUnits(ruleset, units)
    request = CalcRequest(
        attacker=Loadout(ATTACKER_ID if attacker is not None else None, weapons),
        target_id=TARGET_ID if target is not None else None,
        situation=request.situation,
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
) -> tuple[Army, list[int]]:
    """Add the typed-in units to one of the user's armies of the same ruleset, or to a new
    army named ``new_army_name``; the caller's one transaction holds it all."""
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
    for spec in units:
        unit = builder.add_unit(session, user=user, army_id=army.id, data=ruleset.encode_unit(spec))
        session.flush()
        ids.append(unit.id)
    return army, ids
