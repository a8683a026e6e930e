"""One URL, two renderings: the full page, or just the named block for htmx."""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from functools import lru_cache
from types import MappingProxyType
from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup

from app.rules.fields import FieldValue, InputField, format_field
from app.rules.memo import BoundedMemo, bounded_cache
from app.rules.numbers import one_decimal
from app.rules.registry import DEFAULT_RULESET, get_ruleset
from app.rules.ruleset import Ruleset, glossary_term
from app.services.army_rows import MAX_COUNT, MAX_NOTES
from app.settings import PROJECT_ROOT
from app.web.builder_forms import flatten
from app.web.charts import CHART_MODES, damage_chart
from app.web.csrf import FIELD, csrf_token
from app.web.htmx import is_htmx

FLASH_KEY = "_flash"
templates = Jinja2Templates(directory=str(PROJECT_ROOT / "templates"))
env = templates.env
assert env.autoescape, "Jinja autoescape must stay on"
# Templates change only with a deploy: skip the per-include file check (a 200-unit page
# includes a unit's template 200 times).
env.auto_reload = False
env.filters["num"] = one_decimal
env.filters["urlencode_page"] = lambda params, page: urlencode({**params, "page": page})
env.filters["weapon_values"] = lambda row: {"type": row.type, **flatten(row.spec)}

# Reasons that read on from the field's label: "Name" + "is required" is a sentence.
_VERB = re.compile(r"(is|are|must|may|needs?|has|have|cannot|can|takes?|should)\b")


def field_error(reason: str, label: str) -> str:
    """An inline field error as a sentence (``|field_error(label)``): 'Name is required',
    'Size must be a number'; a reason that does not read on keeps a colon ('Ammo: X9 ...').
    """
    label = label.rstrip(": ")
    text = f"{label} {reason}" if _VERB.match(reason) else f"{label}: {reason}"
    return text[:1].upper() + text[1:]


env.filters["field_error"] = field_error


def at_least(distribution: Sequence[float]) -> list[float]:
    """P(at least n) for each n of a distribution of P(exactly n) (a tally's)."""
    out, tail = [], 0.0
    for p in reversed(distribution):  # summed from the far end: no cancellation
        tail += p
        out.append(min(1.0, tail))
    return out[::-1]


env.filters["at_least"] = at_least


def ruleset_context(ruleset_id: str) -> Mapping[str, Any]:
    """What a ruleset's own templates (``templates/rulesets/<id>/``) read."""
    return get_ruleset(ruleset_id).template_context()


@lru_cache(maxsize=256)
def grouped_options(ruleset_id: str, key: str, selected: str = "") -> Markup:
    """A ruleset's grouped choices (its context's ``key``: (label, ((value, text), ...))) as
    <optgroup>s, rendered once per selected value (a page has many pickers)."""
    parts = []
    for label, choices in ruleset_context(ruleset_id)[key]:
        options = Markup("").join(
            Markup('<option value="{}"{}>{}</option>').format(
                value, Markup(" selected") if value == selected else "", text
            )
            for value, text in choices
        )
        parts.append(
            Markup('<optgroup label="{}">').format(label) + options + Markup("</optgroup>")
        )
    return Markup("").join(parts)


def term(rules: Ruleset, word: str, shown: str = "") -> Markup:
    """A rules word the ruleset's glossary knows, as a link to its entry on /glossary with
    its explanation shown while hovered or focused (``term_tips`` names it for screen
    readers); any other word as it is."""
    return _term(rules.id, word, shown)


@bounded_cache(2000)
def _term(ruleset_id: str, word: str, shown: str) -> Markup:
    # Memoised: a results fragment shows a handful of terms, each a glossary lookup and an
    # escaped format, and the words are the templates' own.
    rules = get_ruleset(ruleset_id)
    entry = glossary_term(rules.glossary, word)
    if entry is None:
        return Markup("{}").format(shown or word)
    anchor = f"{rules.id}-{entry.anchor}"
    return Markup(
        '<span class="term"><a class="term-word" href="/glossary#{}" aria-describedby="gloss-{}">'
        '{}</a><span class="tip" aria-hidden="true">{}</span></span>'
    ).format(anchor, anchor, shown or word, entry.explanation)


def term_tips(rules: Ruleset) -> Markup:
    """Once per page: the explanations the page's terms name (aria-describedby), so that a
    heading repeated for every unit needs no id of its own."""
    spans = Markup("").join(
        Markup('<span id="gloss-{}-{}">{}</span>').format(rules.id, g.anchor, g.explanation)
        for g in rules.glossary
    )
    return Markup('<div hidden class="term-tips">') + spans + Markup("</div>")


@pass_context
def cost_text(context: Context, cost: Any, ruleset_id: str | None = None) -> str:
    """A cost in its ruleset's points (``|cp``): those of ``ruleset_id``, else of the page's
    army, else of the default ruleset."""
    if ruleset_id is None:
        army = context.get("army")
        ruleset_id = getattr(army, "ruleset_id", None) or DEFAULT_RULESET
    return get_ruleset(ruleset_id).format_cost(cost)


def field_applies(ruleset_id: str, form: str, name: str, choice: object) -> bool:
    """Whether a builder form's field applies to the kind (``form`` "unit") or weapon type
    ("weapon") chosen: the ruleset's ``unit_form`` or ``weapon_form`` says."""
    rules = get_ruleset(ruleset_id)
    split = rules.unit_form if form == "unit" else rules.weapon_form
    return split.applies(name, str(choice))


def unit_form_fields(ruleset_id: str, kind: object, errors: Mapping[str, str]) -> list[InputField]:
    """The generic unit form's fields: the ruleset's ``unit_fields`` that apply to the kind
    chosen, and any other with an error to show by its input."""
    rules = get_ruleset(ruleset_id)
    return [
        f
        for f in rules.unit_fields
        if rules.unit_form.applies(f.name, str(kind)) or f.name in errors
    ]


def weapon_form_fields(
    ruleset_id: str, weapon_type: object, errors: Mapping[str, str]
) -> list[InputField]:
    """The generic weapon form's fields: the chosen type's catalogue fields that its
    ``weapon_form`` applies to it (a ``label`` first), and any with an error to show."""
    rules = get_ruleset(ruleset_id)
    chosen = str(weapon_type)
    entry = next((e for e in rules.catalogue() if e.id == chosen), None)
    fields = sorted(entry.fields if entry else (), key=lambda f: f.name != "label")
    return [f for f in fields if rules.weapon_form.applies(f.name, chosen) or f.name in errors]


@lru_cache(maxsize=64)
def field_kinds(ruleset_id: str, form: str) -> Mapping[str, str]:
    """Each declared field's kind by name (``InputField.kind``), for a ruleset's own unit
    form (``form`` "unit": ``unit_fields``) or weapon form ("weapon": every catalogue
    entry's fields): the form macros give a whole number a numeric keypad and a number that
    may be a fraction (``inches``: 2.5, 1/3) a text input with a decimal keypad."""
    rules = get_ruleset(ruleset_id)
    if form == "unit":
        declared: Iterable[InputField] = rules.unit_fields
    else:
        declared = (f for entry in rules.catalogue() for f in entry.fields)
    kinds: dict[str, str] = {}
    for f in declared:
        kinds.setdefault(f.name, f.kind)
    return MappingProxyType(kinds)


@lru_cache(maxsize=256)
def catalogue_options(ruleset_id: str, selected: str = "") -> Markup:
    """The catalogue's types as <option>s in an <optgroup> per category (in the catalogue's
    order), for the generic weapon form's type picker."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for entry in get_ruleset(ruleset_id).catalogue():
        groups.setdefault(entry.category, []).append((entry.id, entry.name))
    return Markup("").join(
        Markup('<optgroup label="{}">').format(category.replace("_", " ").capitalize())
        + Markup("").join(
            Markup('<option value="{}"{}>{}</option>').format(
                value, Markup(" selected") if value == selected else "", name
            )
            for value, name in choices
        )
        + Markup("</optgroup>")
        for category, choices in groups.items()
    )


def situation_switches(rules: Ruleset) -> frozenset[str]:
    """What the ruleset's situation fields apply by (``InputField.when``): other fields'
    names, and ``weapon_type`` for the types of the weapons fired. A calculator input that
    is one fetches the situation's fields again when it changes."""
    return frozenset(switch for f in rules.situation_fields for switch, _ in f.when)


def field_text(field: InputField, value: FieldValue) -> str:
    """A field's value as its input shows it (``format_field``): a default, say."""
    return format_field(field, value)


env.globals["applies"] = field_applies
env.globals["unit_form_fields"] = unit_form_fields
env.globals["weapon_form_fields"] = weapon_form_fields
env.globals["catalogue_options"] = catalogue_options
env.globals["field_kinds"] = field_kinds
env.globals["field_text"] = field_text
env.globals["situation_switches"] = situation_switches
env.filters["unit_values"] = lambda row: {"name": row.name, "kind": row.kind, **flatten(row.spec)}
env.filters["cp"] = cost_text
env.globals["ruleset"] = get_ruleset
env.globals["default_ruleset"] = DEFAULT_RULESET
env.globals["ruleset_context"] = ruleset_context
env.globals["grouped_options"] = grouped_options
env.globals["damage_chart"] = damage_chart
env.globals["chart_modes"] = CHART_MODES
env.globals["max_unit_count"] = MAX_COUNT
env.globals["max_unit_notes"] = MAX_NOTES
env.globals["term"] = lambda rules, word, shown="": term(rules, word, shown)
env.globals["term_tips"] = lambda rules: term_tips(rules)
env.filters["battle_unit_option"] = lambda row: (str(row.id), f"{row.name} ({row.side})")

_UNIT_BLOCKS: BoundedMemo[[], str] = BoundedMemo(
    lambda: "", maxsize=5000, max_bytes=32 << 20, size=lambda html: 200 + len(html)
)
"""Rendered unit blocks: at most 5000, and about 32 MB of HTML (a 100-weapon unit's block
is large). Shared by every viewer: the CSRF token is filled in after the lookup."""
_TOKEN_SLOT = "@@csrf-token-slot@@"  # noqa: S105  (a placeholder, replaced per request)


@pass_context
def unit_block(context: Context, uv: Any) -> Markup:
    """One unit's block of the builder table, its HTML memoised on everything it shows.

    A 200-unit page renders 200 of these; between two page views almost none change.
    The key holds the stored unit (content, version, place), the house rules and the
    viewer's rights, not the viewer's CSRF token (rendered as a slot and filled in per
    request, so one entry serves every viewer); a unit being edited (open, or with form
    errors) is always rendered afresh.
    """
    form = context.get("form")
    editing = context.get("open_unit") == uv.row.id or (
        form is not None and form.scope.endswith(f"-{uv.row.id}")
    )
    view = context["view"]
    key = (
        uv.row,
        view.options,  # with the row, what decides the figures (the memo key of both)
        view.army.id,
        view.can_edit,
        context.get("standalone", False),
        # opened by a share link: no unit links; the open calculator's link if the page has one
        bool(context.get("shared_token")),
        context.get("open_calculator_url") is not None,
    )
    token = str(context.get("csrf_token") or "")
    html = None if editing else _UNIT_BLOCKS.get(key)
    if html is None:
        slot = {
            "csrf_token": _TOKEN_SLOT,
            "csrf_input": Markup('<input type="hidden" name="{}" value="{}">').format(
                FIELD, _TOKEN_SLOT
            ),
        }
        html = env.get_template("armies/unit_block.html").render(
            {**context.get_all(), **slot, "uv": uv}
        )
        if not editing:
            _UNIT_BLOCKS.put(key, html)
    # our own rendered, escaped HTML; the token is URL-safe base64 (nothing to escape)
    return Markup(html.replace(_TOKEN_SLOT, token))  # noqa: S704


env.globals["unit_block"] = unit_block

_FRAGMENTS: BoundedMemo[[], str] = BoundedMemo(
    lambda: "", maxsize=2000, max_bytes=16 << 20, size=lambda html: 200 + len(html)
)
"""Rendered forms that every viewer of a page sees alike (``fragment``): at most 2000."""


@pass_context
def fragment(context: Context, *key: Any, cache: bool = True, caller: Any = None) -> Markup:
    """The HTML of a ``{% call fragment(...) %}`` block, memoised on ``key``.

    ``key`` names everything the block shows but the CSRF token, which is kept as a slot and
    filled in per request (one entry serves every viewer). ``cache=false`` (a form showing
    what the user typed, or its errors) renders it afresh. The army page's add-unit and
    house-rules forms were a third of its rendering, the same on every view.
    """
    if not cache:
        return Markup(caller())  # noqa: S704  (our own rendered, escaped HTML)
    token = str(context.get("csrf_token") or "")
    html = _FRAGMENTS.get(key)
    if html is None:
        html = str(caller())
        if token:  # (always, on a page: stored without it, a viewer would get no token)
            _FRAGMENTS.put(key, html.replace(token, _TOKEN_SLOT))
        return Markup(html)  # noqa: S704
    # the token is URL-safe base64: nothing to escape
    return Markup(html.replace(_TOKEN_SLOT, token))  # noqa: S704


env.globals["fragment"] = fragment

_LINE_SECTIONS: BoundedMemo[[], tuple[str, int]] = BoundedMemo(
    lambda: ("", 0), maxsize=1000, max_bytes=24 << 20, size=lambda kept: 200 + kept[1]
)
"""A calculator line's rendered section (``kept_line``), and the bytes it keeps: its HTML and
the line it is keyed on (the line's damage distribution is most of it)."""


def kept_line(line: Any, *key: Hashable, caller: Any) -> Markup:
    """The HTML of a ``{% call kept_line(line, ...) %}`` block: an attack line's section,
    rendered once for equal odds. ``key`` names all else it shows (the ruleset, the chart
    mode, the target's spec, the followers' specs of a line with several targets). The same turns'
    odds come back as the same objects (kept by the ruleset), and equal ones compare cheaply;
    rendering a line was most of the calculator's results. No CSRF token is inside."""
    try:
        memo_key: Hashable = (line, *key)
        kept = _LINE_SECTIONS.get(memo_key)
    except TypeError:  # (odds read back from JSON hold lists: drawn each time)
        return Markup(caller())  # noqa: S704  (our own rendered, escaped HTML)
    if kept is None:
        html = str(caller())
        damage = getattr(line, "damage", ())
        _LINE_SECTIONS.put(memo_key, (html, len(html) + 2048 + 128 * len(damage)))
        return Markup(html)  # noqa: S704
    return Markup(kept[0])  # noqa: S704


env.globals["kept_line"] = kept_line

# The form macros, imported once for every template (an import per include is slow).
_forms = env.get_template("partials/forms.html").module
env.globals.update(
    input=_forms.input,  # type: ignore[attr-defined]
    select=_forms.select,  # type: ignore[attr-defined]
    field_input=_forms.field_input,  # type: ignore[attr-defined]
    findings_list=_forms.findings_list,  # type: ignore[attr-defined]
)


_CONTENTS: BoundedMemo[[], tuple[bytes, ...]] = BoundedMemo(
    lambda: (), maxsize=1000, max_bytes=64 << 20, size=lambda parts: 200 + sum(map(len, parts))
)
"""Whole pages' content blocks (``render(content_key=...)``): at most 1000, about 64 MB."""
# A placeholder cut out of the page: an HTML comment, which no escaped text (an army's name
# in the page's title, say) can spell.
_CONTENT_SLOT = Markup("<!--brikforge:page-content-->")
_CONTENT_SLOT_BYTES = _CONTENT_SLOT.encode()
_TOKEN_SLOT_BYTES = _TOKEN_SLOT.encode()


def _content(template: Any, ctx: dict[str, Any], key: Hashable) -> tuple[bytes, ...]:
    """The template's ``content`` block, memoised on ``key`` (which names everything the block
    shows): its UTF-8, cut where the viewer's CSRF token goes (joined with it per request).

    Kept as bytes: an army page's content is some 110 KB; filling in the token and encoding
    it as text again on every view took about 0.4 ms, a sixth of the page's CPU."""
    parts = _CONTENTS.get(key)
    if parts is None:
        slot = {
            "csrf_token": _TOKEN_SLOT,
            "csrf_input": Markup('<input type="hidden" name="{}" value="{}">').format(
                FIELD, _TOKEN_SLOT
            ),
        }
        html = "".join(template.blocks["content"](template.new_context({**ctx, **slot})))
        parts = tuple(html.encode().split(_TOKEN_SLOT_BYTES))
        _CONTENTS.put(key, parts)
    return parts


def _page_around(template: Any, ctx: dict[str, Any], parts: tuple[bytes, ...]) -> bytes:
    """The page rendered around its memoised content (the navigation, messages and title
    afresh), as bytes."""
    ctx["content_html"] = _CONTENT_SLOT
    frame = template.render(ctx).encode()
    head, _, tail = frame.partition(_CONTENT_SLOT_BYTES)
    # the token is URL-safe base64: nothing to escape
    return b"".join((head, ctx["csrf_token"].encode().join(parts), tail))


def flash(request: Request, message: str, category: str = "info") -> None:
    """Queue a message for the next rendered page or fragment."""
    request.session.setdefault(FLASH_KEY, []).append({"message": message, "category": category})
    request.session[FLASH_KEY] = request.session[FLASH_KEY]  # mark the session modified


def _pop_flashes(request: Request) -> list[dict[str, str]]:
    return request.session.pop(FLASH_KEY, []) if FLASH_KEY in request.session else []


def render_message(
    request: Request, message: str, category: str = "error", *, status_code: int = 422
) -> HTMLResponse:
    """An htmx answer that only shows a message (out of band) and swaps nothing else."""
    flash(request, message, category)
    body = env.get_template("partials/flash.html").render(
        {"flashes": _pop_flashes(request), "oob": True}
    )
    return HTMLResponse(
        body, status_code=status_code, headers={"HX-Reswap": "none", "Vary": "HX-Request"}
    )


def _csrf_input(request: Request) -> Markup:
    return Markup('<input type="hidden" name="{}" value="{}">').format(FIELD, csrf_token(request))


def render(
    request: Request,
    template_name: str,
    context: Mapping[str, Any] | None = None,
    *,
    block: str | None = None,
    oob: Sequence[str] = (),
    status_code: int = 200,
    headers: Mapping[str, str] | None = None,
    content_key: Hashable | None = None,
) -> HTMLResponse:
    """Render ``block`` alone for an htmx request, else the whole page.

    ``oob`` names further blocks sent with the fragment to swap out of band (their
    root element carries ``hx-swap-oob`` when ``oob`` is true in the context).
    Flash messages ride along the same way, so a fragment never swallows a
    message meant for the user. ``content_key``, when the page's ``content`` block shows
    nothing but what the key names (and the CSRF token), lets a whole page reuse that
    block's HTML: the rest of the page (title, navigation, messages) is rendered afresh.
    """
    ctx: dict[str, Any] = {
        "request": request,
        "user": getattr(request.state, "user", None),
        "csrf_token": csrf_token(request),
        "csrf_input": _csrf_input(request),
        **(context or {}),
    }
    template = env.get_template(template_name)
    body: str | bytes
    if block is not None and is_htmx(request):
        ctx["flashes"] = _pop_flashes(request)
        html = "".join(template.blocks[block](template.new_context(ctx)))
        for name in oob:
            html += "".join(template.blocks[name](template.new_context(ctx | {"oob": True})))
        if ctx["flashes"]:
            html += env.get_template("partials/flash.html").render(ctx | {"oob": True})
        body = html
    else:
        ctx["flashes"] = _pop_flashes(request)
        if content_key is not None:
            parts = _content(template, ctx, (template_name, content_key))
            body = _page_around(template, ctx, parts)
        else:
            body = template.render(ctx)
    response = HTMLResponse(body, status_code=status_code, headers=dict(headers or {}))
    response.headers["Vary"] = "HX-Request"
    return response
