"""The open calculator page: attacker and target typed in, no account needed.

``GET /calculator/open?rules=brikwars&a.kind=minifig&a.weapons.0.type=gun&...`` is the whole
calculation (``services.open_calculator`` reads it); htmx re-requests the same URL as inputs
change and pushes it. Logged in, "Save these units to an army" posts the same query.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import parse_qsl, urlencode

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response

from app.rules.errors import InvalidInput
from app.rules.registry import RULESETS
from app.rules.ruleset import Ruleset
from app.services import armies as armies_service
from app.services import open_calculator as oc
from app.services.army_rows import MAX_COUNT
from app.services.calculator import BONUS_DIE, CalcRequest, Calculation, Loadout
from app.web.attack_request import Params
from app.web.calculator_query import parse, to_pairs
from app.web.deps import CurrentUser, FormDep, OptionalUser, SessionDep, SessionRoute
from app.web.htmx import is_htmx, redirect
from app.web.inputs import parse_id
from app.web.ratelimit import calculator_rate_limit
from app.web.routes.calculator import _situation_text, calculator_parts, with_chart
from app.web.templating import render

RATE_LIMITED = [Depends(calculator_rate_limit)]
router = APIRouter(route_class=SessionRoute)
PAGE = "calculator/open.html"


@dataclass
class OpenCalculation:
    """A query read and computed: the units as typed, the calculation, the query to share.
    ``further``: the further targets as typed, in order (``f.<i>``); ``rows``: the number of
    each one computed (the calculation's ``followers``), in order."""

    ruleset: Ruleset
    attacker: oc.TypedUnit
    target: oc.TypedUnit
    request: CalcRequest
    calc: Calculation
    errors: dict[str, str]
    query: str
    further: list[oc.TypedTarget] = field(default_factory=list)
    rows: list[int] = field(default_factory=list)
    target_figures: str = ""


UNIT_PREFIXES = ("a.", "t.", f"{oc.FURTHER}.")


def read_open(params: Params) -> OpenCalculation:
    """Everything a query describes, computed; refused fields by name (the rest computes).
    ``add`` adds a further target (the ruleset's sample target), ``drop=<i>`` leaves one out."""
    if len(params.items) > oc.MAX_PARAMS:
        params = Params(list(params.items[: oc.MAX_PARAMS]))
    ruleset, reason = oc.ruleset_of(params.get("rules"))
    errors: dict[str, str] = {"rules": reason} if reason else {}
    items = [(k, v) for k, v in params.items if k not in ("add", "drop")]
    switched = params.get("was") and params.get("was") != ruleset.id
    if switched or not any(k.startswith(("a.", "t.")) for k, _ in items):
        items = [(k, v) for k, v in items if not k.startswith(UNIT_PREFIXES)]
        for role, prefix in oc.ROLES.items():
            items += oc.unit_pairs(ruleset, oc.default_unit(ruleset, role), prefix)
        if switched:
            items = [(k, v) for k, v in items if k != "weapons"]
    items, n_further = oc.further_items(
        ruleset, items, errors, drop=params.get("drop"), add=bool(params.get("add"))
    )
    target_figures = next((v.strip() for k, v in items if k == f"t.{oc.FIGURES}"), "")
    figures = oc.read_figures(target_figures, f"t.{oc.FIGURES}", errors)
    items = [(k, v) for k, v in items if k != f"t.{oc.FIGURES}"]
    attacker = oc.read_unit(ruleset, items, "a")
    target = oc.read_unit(ruleset, items, "t")
    further = oc.read_further(ruleset, items, n_further)
    # the situation, the Bonus die and the weapons fired, read as the saved calculator does
    own = {f.name for f in ruleset.situation_fields} | {"weapons", BONUS_DIE}
    request, more = parse(Params([(k, v) for k, v in items if k in own]), ruleset)
    errors |= more
    weapons = request.attacker.weapon_ids
    count = len(attacker.spec_weapons(ruleset))
    if attacker.spec is not None and any(w > count for w in weapons):
        errors["weapons"] = f"the attacker's weapons are numbered 1 to {count}"
        weapons = tuple(w for w in weapons if w <= count)
    errors |= attacker.errors | target.errors
    for one in further:
        errors |= one.unit.errors | one.errors
    rows = [i for i, one in enumerate(further) if one.accepted]
    request = CalcRequest(situation=request.situation, bonus_die=request.bonus_die)
    calc = oc.calculate(
        ruleset,
        attacker.spec,
        target.spec,
        weapons,
        request,
        target_figures=figures,
        further=[further[i] for i in rows],
    )
    main = calc.main
    for name, why in calc.refused.items():
        errors.setdefault(oc.open_field(name, rows), why)
    if main is not None and main.error is not None:
        name = oc.open_field(main.error.field, rows)
        if name != main.error.field:  # a target's field: shown beside its input
            errors.setdefault(name, main.error.reason)
    fired = main.weapon_ids if main is not None else weapons
    pairs = [("rules", ruleset.id)]
    for typed, prefix in ((attacker, "a"), (target, "t")):
        data = ruleset.encode_unit(typed.spec) if typed.spec is not None else typed.data
        pairs += oc.unit_pairs(ruleset, data, prefix)
    if target_figures and target_figures != "1":
        pairs.append((f"t.{oc.FIGURES}", target_figures))
    for i, typed_target in enumerate(further):
        pairs += oc.further_pairs(ruleset, i, typed_target)
    pairs += to_pairs(replace(request, attacker=Loadout(None, fired)), ruleset)
    return OpenCalculation(
        ruleset,
        attacker,
        target,
        request,
        calc,
        errors,
        urlencode(pairs),
        further,
        rows,
        target_figures,
    )


def open_context(user: Any, params: Params) -> dict[str, Any]:
    """What the open calculator's template needs for a query."""
    got = read_open(params)
    ruleset = got.ruleset
    units = {"a": got.attacker, "t": got.target}
    units |= {f"{oc.FURTHER}.{i}": typed.unit for i, typed in enumerate(got.further)}
    context: dict[str, Any] = {
        "calc": got.calc,
        "req": got.request,
        "errors": got.errors,
        "query": got.query,
        "rules": ruleset,
        "rules_options": [(r.id, r.name) for r in RULESETS.values()],
        "typed_page": True,
        "typed": units,
        "unit_fields": {p: _unit_fields(ruleset, t) for p, t in units.items()},
        "weapons_of": {p: _weapons(ruleset, t) for p, t in units.items()},
        "further": got.further,
        "most_further": oc.most_further(ruleset),
        "target_figures": got.target_figures,
        "max_count": MAX_COUNT,
        "catalogue": {e.id: e for e in ruleset.catalogue()},
        "rules_context": ruleset.template_context(),
        "weapon_hidden": functools.partial(_weapon_hidden, ruleset),
        "parts": calculator_parts(ruleset.id),
        "situation_text": functools.partial(_situation_text, ruleset, got.request.situation),
        "choices": {},
        "army_options": [],
    }
    with_chart(context, params)
    return context


def _choices(ruleset: Ruleset, key: str) -> Any:
    """A unit field's choices where the ruleset's templates have them (``<field>_choices``,
    or ``<first word>_choices``: BrikWars' ``mind_choices`` for ``mind_die``), else None."""
    context = ruleset.template_context()
    return context.get(f"{key}_choices", context.get(f"{key.split('_')[0]}_choices"))


def _unit_fields(ruleset: Ruleset, typed: oc.TypedUnit) -> list[tuple[str, Any, Any]]:
    """The unit's own fields (not its weapons), their values and choices, as the form shows
    them: every field the ruleset writes for such a unit."""
    return [(k, v, _choices(ruleset, k)) for k, v in _unit_values(ruleset, typed)]


def _unit_values(ruleset: Ruleset, typed: oc.TypedUnit) -> list[tuple[str, Any]]:
    data = ruleset.encode_unit(typed.spec) if typed.spec is not None else dict(typed.data)
    out = [(k, v) for k, v in data.items() if k != "weapons"]
    known = {k for k, _ in out}
    if typed.spec is None:
        try:
            bare = {k: typed.data[k] for k in ("name", "kind") if typed.data.get(k)}
            base = ruleset.encode_unit(ruleset.decode_unit({"name": "x", **bare}))
            out += [(k, v) for k, v in base.items() if k != "weapons" and k not in known]
        except InvalidInput:
            pass
    return out


def _weapons(ruleset: Ruleset, typed: oc.TypedUnit) -> list[dict[str, Any]]:
    data = ruleset.encode_unit(typed.spec) if typed.spec is not None else typed.data
    return [dict(w) for w in data.get("weapons", []) if isinstance(w, dict)]


def _weapon_hidden(ruleset: Ruleset, name: str, weapon: dict[str, Any]) -> list[tuple[str, str]]:
    """A weapon's fields the form has no input for (its label, a Cannon's ammunition...),
    carried as hidden inputs so that an edit elsewhere keeps them."""
    entry = {e.id: e for e in ruleset.catalogue()}.get(weapon.get("type", ""))
    shown = {"type"} | ({f.name for f in entry.fields if f.name != "label"} if entry else set())
    rest = {k: v for k, v in weapon.items() if k not in shown}
    return oc.unit_pairs(ruleset, {"weapons": [rest]}, name)


def _armies(session: SessionDep, user: Any, ruleset: Ruleset) -> list[tuple[int, str]]:
    """The user's armies the units may be saved to (those of the calculation's ruleset)."""
    mine = armies_service.list_armies(session, user=user)
    return [(a.id, a.name) for a in mine if a.ruleset_id == ruleset.id]


@router.get("/calculator/open", dependencies=RATE_LIMITED)
def open_calculator_page(request: Request, session: SessionDep, user: OptionalUser) -> Response:
    """The open calculator; for htmx just its block, with the URL to push."""
    params = Params(list(request.query_params.multi_items()))
    context = open_context(user, params)
    editing = params.get("add") or params.get("drop")
    if editing and not request.headers.get("HX-Request"):
        # a further target added or removed without JavaScript: the page at its own address
        return RedirectResponse(f"{oc.PATH}?{context['query']}", status_code=303)
    if user is not None:
        context["army_options"] = _armies(session, user, context["rules"])
    url = f"{oc.PATH}?{context['query']}"
    # htmx's live answer to the form being filled in is 200 with the errors inline: a browser
    # logs every 4xx to the console, and a half-typed form is no failed request. The page
    # itself (a shared link, no JavaScript) is still a 422 naming the fields.
    status = 422 if context["errors"] and not is_htmx(request) else 200
    return render(
        request,
        PAGE,
        context,
        block="calculator" if request.query_params.get("full") else "results",
        status_code=status,
        headers={"HX-Push-Url": url},
    )


def save_from_query(
    session: SessionDep, user: Any, query: str, army_id: int | None, army_name: str
) -> tuple[Any, list[int]]:
    """Save the query's typed-in units to an army (``InvalidInput`` when they do not read)."""
    got = read_open(Params(parse_qsl(query, keep_blank_values=True)))
    typed = [(got.attacker, "a"), (got.target, "t")]
    typed += [(t.unit, f"{oc.FURTHER}.{i}") for i, t in enumerate(got.further)]
    for unit, prefix in typed:
        if unit.spec is None:
            name, reason = next(iter(unit.errors.items()), (prefix, "is not a unit"))
            raise InvalidInput(name, reason)
    refused = {k: v for k, v in got.errors.items() if k.endswith(f".{oc.FIGURES}")}
    if refused:
        raise InvalidInput(*next(iter(refused.items())))
    counts = [1, oc.read_figures(got.target_figures, "t.figures", {})]
    return oc.save_units(
        session,
        user=user,
        ruleset=got.ruleset,
        units=[unit.spec for unit, _ in typed],
        army_id=army_id,
        new_army_name=army_name,
        counts=counts + [t.figures for t in got.further],
    )


@router.post("/calculator/open/save", dependencies=RATE_LIMITED)
def open_calculator_save(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep
) -> Response:
    """Save these units to an army (one of the user's, or a new one): one transaction."""
    query = form.get("query", "")
    army_text = form.get("army_id", "").strip()
    army_id = parse_id(army_text) if army_text else None
    try:
        if army_text and army_id is None:
            raise InvalidInput("army_id", "pick one of your armies")
        army, _ = save_from_query(session, user, query, army_id, form.get("army_name", ""))
    except InvalidInput as err:
        session.rollback()
        context = open_context(user, Params(parse_qsl(query, keep_blank_values=True)))
        context["army_options"] = _armies(session, user, context["rules"])
        context["save_error"] = f"{err.field.replace('_', ' ')}: {err.reason}"
        return render(request, PAGE, context, block="calculator", status_code=422)
    return redirect(request, f"/armies/{army.id}")
