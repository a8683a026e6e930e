"""The attack calculator page: pick saved units, weapons and the situation; see exact odds.

One GET URL carries the whole state (``calculator_query``): the page is shareable and the
browser's back button works. htmx re-requests the same URL as inputs change (debounced) and
swaps the calculator block; without JavaScript the form's "Update odds" button does the same.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from jinja2 import TemplateNotFound

from app.rules.errors import InvalidInput
from app.rules.fields import format_field
from app.rules.ruleset import Ruleset
from app.services import calculator, calculator_units
from app.services.calculator import BONUS_DIE, CalcRequest
from app.services.open_calculator import PATH as OPEN_PATH
from app.web.attack_request import (
    FIGURES,
    FOLLOWER,
    MAX_FURTHER_TARGETS,
    TARGET_FIGURES,
    Params,
    optional_id,
)
from app.web.calculator_query import parse, to_pairs, to_query
from app.web.charts import CHART_MODES, chart_mode, damage_chart
from app.web.deps import (
    CurrentUser,
    FormDep,
    OptionalUser,
    SessionDep,
    SessionRoute,
    reads_army,
)
from app.web.htmx import is_htmx, redirect
from app.web.inputs import parse_id
from app.web.ratelimit import calculator_rate_limit
from app.web.templating import env, render

RATE_LIMITED = [Depends(calculator_rate_limit)]
router = APIRouter(route_class=SessionRoute)

PAGE = "calculator/page.html"
PARTS = (
    "situation_fields",
    "weapons_legend",
    "weapon",
    "target_stats",
    "problems",
    "summary",
    "line_notes",
    "targets_caption",
    "damage_chart",
)
"""The parts of the page a rule system may draw itself."""


@functools.cache
def calculator_parts(ruleset_id: str) -> Mapping[str, str]:
    """Each part's template: the ruleset's own (``rulesets/<id>/calculator_<part>.html``),
    else the generic one (``calculator/default/<part>.html``); looked up once."""
    parts = {}
    for part in PARTS:
        own = f"rulesets/{ruleset_id}/calculator_{part}.html"
        try:
            env.get_template(own)
        except TemplateNotFound:
            own = f"calculator/default/{part}.html"
        parts[part] = own
    return parts


def _read(
    views: calculator_units.SavedUnits, params: Params
) -> tuple[Ruleset, CalcRequest, dict[str, str]]:
    """The request a query describes, read under the attacker's ruleset."""
    try:
        units = tuple(optional_id(params.get(key)) for key in ("attacker", "target"))
    except ValueError:  # parse names the bad id
        units = ()
    ruleset = views.ruleset(units)
    request, errors = parse(params, ruleset)
    return ruleset, request, errors


def calculator_context(
    session: SessionDep, user: CurrentUser, params: Params, *, pickers: bool = True
) -> dict[str, Any]:
    """What the calculator template needs for a query (``pickers``: the unit pickers are
    drawn, not only the results)."""
    views = calculator_units.SavedUnits(session, user, pickers=pickers)
    ruleset, request, errors = _read(views, params)
    calc = calculator.calculate(session, user=user, request=request, ruleset=ruleset, views=views)
    rows = [f.row for f, _ in calc.followers]
    for name, reason in calc.refused.items():
        errors.setdefault(page_field(name, rows), reason)
    main = calc.main
    if main is not None and main.error is not None and main.error.field.startswith("followers."):
        # the ruleset's refusal of a further target's field (too many figurines): its row
        errors.setdefault(page_field(main.error.field, rows), main.error.reason)
    request = calculator.with_weapons(request, calc)
    query = to_query(request, ruleset)
    return {
        "calc": calc,
        "req": request,
        "errors": errors,
        "query": query,
        # read only if the pickers are drawn: not for the results an input change asks for
        "choices": _Choices(session, lambda: [a.id for a in calc.armies]),
        # the generic situation inputs' text, for a ruleset without its own (called there)
        "parts": calculator_parts(ruleset.id),
        "situation_text": functools.partial(_situation_text, ruleset, request.situation),
        "follower_rows": follower_rows(params, ruleset, calc),
    }


def page_field(name: str, rows: Sequence[int | None] = ()) -> str:
    """A target's refused pick as the calculator's query names it: ``target.figures`` is
    ``target_figures``, ``followers.2.figures`` ``follower_figures-<r>``,
    ``followers.2.unit_id`` ``follower-<r>`` (r: the row the third further target computed
    was typed in, ``rows[2]``; else 2), ``target.unit_id`` ``target``."""
    parts = name.split(".")
    if parts[0] == "target" and len(parts) == 2:
        return "target" if parts[1] == "unit_id" else f"target_{parts[1]}"
    if parts[0] == "followers" and len(parts) == 3 and parts[1].isdigit():
        k = int(parts[1])
        row = rows[k] if k < len(rows) and rows[k] is not None else k
        return f"{FOLLOWER}-{row}" if parts[2] == "unit_id" else f"{FOLLOWER}_{parts[2]}-{row}"
    return name


@dataclass
class FollowerRow:
    """A further target's row as typed (``row``: its place among the query's ``follower``
    values, blank ones counted, as its refusals are named): the computed further target and
    its unit, or the refused row's text (its unit id when it reads as one)."""

    row: int
    follower: calculator.Follower | None = None
    unit: Any = None
    unit_id: int | None = None
    text: dict[str, str] = field(default_factory=dict)
    figures: str = ""


def follower_rows(params: Params, ruleset: Ruleset, calc: Any) -> list[FollowerRow]:
    """The further targets' rows to show, in the order typed: each computed one, and each
    refused one as typed (so that its error sits on the row it was typed in); blank rows go."""
    computed = {f.row: (f, unit) for f, unit in calc.followers}
    units = params.all(FOLLOWER)[: 2 * MAX_FURTHER_TARGETS]
    columns = {f.name: params.all(f"{FOLLOWER}_{f.name}") for f in ruleset.target_fields}
    counts = params.all(f"{FOLLOWER}_{FIGURES}")
    out = []
    for i, text in enumerate(units):
        if i in computed:
            follower, unit = computed[i]
            out.append(FollowerRow(i, follower, unit))
        elif text:
            try:
                unit_id = optional_id(text)
            except ValueError:
                unit_id = None
            typed = {k: column[i] if i < len(column) else "" for k, column in columns.items()}
            figures = counts[i] if i < len(counts) else ""
            out.append(FollowerRow(i, unit_id=unit_id, text=typed, figures=figures))
    return out


def with_chart(context: dict[str, Any], params: Params) -> None:
    """The damage charts' mode (``chart``: exact, at least, at most) in the context and the
    query; a bad one is refused as the other fields are."""
    mode, reason = chart_mode(params.get("chart"))
    if reason:
        context["errors"]["chart"] = reason
    context["chart"] = mode
    context["chart_modes"] = CHART_MODES
    context["damage_chart"] = functools.partial(damage_chart, mode=mode)
    if mode != "exact":
        extra = urlencode([("chart", mode)])
        context["query"] = f"{context['query']}&{extra}" if context["query"] else extra


class _Choices:
    """The pickers' units of each offered army (``choices[army_id]``), read on first use."""

    def __init__(self, session: SessionDep, army_ids: Callable[[], list[int]]) -> None:
        self._session, self._army_ids = session, army_ids
        self._read: dict[int, list[calculator.UnitChoice]] | None = None

    def __getitem__(self, army_id: int) -> list[calculator.UnitChoice]:
        if self._read is None:
            self._read = calculator.unit_choices(self._session, self._army_ids())
        return self._read[army_id]


def _situation_text(ruleset: Ruleset, situation: Any) -> dict[str, str]:
    """Every situation field's value as the form shows it."""
    values = ruleset.encode_situation(situation)
    return {f.name: format_field(f, values[f.name]) for f in ruleset.situation_fields}


def _calculation_armies(request: Request) -> tuple[int, ...]:
    """The attacking and target units' armies, as this server last saw them: read with the
    login (a wrong hint costs nothing but the row; the calculation reads each unit's army as
    it is)."""
    armies: list[int] = []
    for key in ("attacker", "target"):
        unit_id = parse_id(request.query_params.get(key))
        army_id = calculator_units.army_hint(unit_id) if unit_id is not None else None
        if army_id is not None and army_id not in armies:
            armies.append(army_id)
    return tuple(armies)


@router.get("/calculator", dependencies=RATE_LIMITED)
@reads_army(_calculation_armies)
def calculator_page(request: Request, session: SessionDep, user: OptionalUser) -> Response:
    """The calculator; for htmx just its block, with the URL to push. A visitor has no
    saved units to pick: the open calculator, with the query's situation."""
    params = Params(list(request.query_params.multi_items()))
    if user is None:
        return redirect(request, visitor_url(params))
    # A unit picker asks for the whole calculator (``full``); other inputs for the results.
    results_only = is_htmx(request) and not request.query_params.get("full")
    context = calculator_context(session, user, params, pickers=not results_only)
    with_chart(context, params)
    url = "/calculator" + (f"?{context['query']}" if context["query"] else "")
    # htmx's live answer to the form is 200 with the errors inline (a browser logs every 4xx
    # to the console; a pick being made is no failed request); the page itself is a 422.
    status = 422 if context["errors"] and not is_htmx(request) else 200
    return render(
        request,
        PAGE,
        context,
        block="results" if results_only else "calculator",
        status_code=status,
        headers={"HX-Push-Url": url},
    )


SAVED_PICKS = frozenset(
    {"attacker", "target", "weapons", "compare", "compare_weapons", "ally", "ally_weapons"}
    | {FOLLOWER, TARGET_FIGURES, "full"}
)
"""The saved calculator's keys that name saved units (or pick among their weapons)."""


def visitor_url(params: Params) -> str:
    """Where a visitor's ``/calculator?...`` goes: the open calculator, with what of the
    query does not name saved units (the rule system, the situation, the chart).

    >>> visitor_url(Params([("attacker", "3"), ("rules", "degrees"), ("range", "far")]))
    '/calculator/open?rules=degrees&range=far'
    >>> visitor_url(Params([("target", "4"), ("follower_figures", "2")]))
    '/calculator/open'
    """
    kept = [(k, v) for k, v in params.items if k not in SAVED_PICKS]
    kept = [(k, v) for k, v in kept if not k.startswith(f"{FOLLOWER}_")]
    return OPEN_PATH + (f"?{urlencode(kept)}" if kept else "")


def battle_url(rolled: calculator.RolledInBattle, request: CalcRequest, ruleset: Ruleset) -> str:
    """The new battle's page with the roll shown and the same attack ready to roll again
    (the situation fields the battle keeps itself left out)."""
    skip = {"attacker", "weapons", "target", FOLLOWER, "compare", "compare_weapons", "ally"}
    skip |= {"ally_weapons", BONUS_DIE, *(f"{FOLLOWER}_{f.name}" for f in ruleset.target_fields)}
    skip |= {TARGET_FIGURES, f"{FOLLOWER}_{FIGURES}"}
    kept = {f.name for f in ruleset.battle_situation_fields}
    skip |= {f.name for f in ruleset.situation_fields if f.name not in kept}
    pairs = [
        ("attacker", str(rolled.attacker_id)),
        ("target", str(rolled.target_id)),
        ("weapons", ",".join(map(str, rolled.weapons))),
        ("roll", str(rolled.seq)),
        *((k, v) for k, v in to_pairs(request, ruleset) if k not in skip),
    ]
    for k, (unit_id, *values) in enumerate(rolled.followers):
        pairs.append((f"{FOLLOWER}.{k}.unit_id", str(unit_id)))
        for f, value in zip(ruleset.target_fields, values, strict=True):
            if value is not None:
                text = str(float(value)) if f.kind == "inches" else format_field(f, value)
                pairs.append((f"{FOLLOWER}.{k}.{f.name}", text))
    return f"/battles/{rolled.battle_id}?{urlencode(pairs)}#result"


@router.post("/calculator/roll", dependencies=RATE_LIMITED)
def calculator_roll(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep
) -> Response:
    """Roll it!: a new battle with copies of these units, the attack rolled and logged there."""
    params = Params(parse_qsl(form.get("query", ""), keep_blank_values=True))
    views = calculator_units.SavedUnits(session, user)
    ruleset, calc_request, errors = _read(views, params)
    try:
        if errors:
            field, reason = next(iter(errors.items()))
            raise InvalidInput(field, reason)
        rolled = calculator.roll_in_new_battle(
            session, user=user, request=calc_request, ruleset=ruleset, views=views
        )
    except InvalidInput as err:  # the 422 rolls back: no battle, no log
        context = calculator_context(session, user, params)
        with_chart(context, params)
        context["roll_error"] = f"{err.field.replace('_', ' ')}: {err.reason}"
        return render(request, PAGE, context, block="calculator", status_code=422)
    return redirect(request, battle_url(rolled, calc_request, ruleset))
