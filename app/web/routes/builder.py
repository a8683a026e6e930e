"""The army builder: units and weapons edited in place with htmx.

A unit or weapon change re-renders that unit's block plus, out of band, the
army totals and the findings panel; adding, duplicating, moving or removing a
unit re-renders the builder. Refused input comes back as the same form with
the engine's reason next to the field (422), and nothing is saved.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.rules.errors import InvalidInput
from app.services import builder, merge
from app.services.errors import EditConflict, FieldConflict, StaleVersion
from app.web.builder_forms import form_base, form_version, house_rules, nested, resolved
from app.web.deps import CurrentUser, FormDep, SessionDep, SessionRoute, commit_change
from app.web.htmx import is_htmx
from app.web.inputs import Id
from app.web.paging import paging_for
from app.web.templating import flash, render

router = APIRouter(route_class=SessionRoute)

ARMY_PAGE = "armies/detail.html"
UNIT_PAGE = "armies/unit.html"


@dataclass
class FormState:
    """Which form on the page failed, with what the user typed and why."""

    scope: str = ""
    values: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    conflict: str | None = None
    latest_change: str | None = None  # who made the change that won, when, and what
    # Fields changed both here and elsewhere: the form shows both values to choose from.
    conflicts: tuple[FieldConflict, ...] = ()


def builder_page(
    request: Request,
    view: builder.ArmyView,
    *,
    block: str | None = None,
    unit_id: Id | None = None,
    form: FormState | None = None,
    oob: tuple[str, ...] = (),
    status_code: int = 200,
    headers: dict[str, str] | None = None,
    content_key: Hashable | None = None,
    **extra: Any,
) -> Response:
    """The army page, or one of its blocks for htmx (a unit's block with totals and findings).

    ``content_key`` (``army_page_key``): the page shows nothing but the stored army, so its
    content may come from the memo."""
    context: dict[str, Any] = {
        "army": view.army,
        "view": view,
        "form": form or FormState(),
        "open_unit": unit_id,
        "values": {},
        "errors": {},
        "conflict": None,
        "conflicts": (),
        **extra,
    }
    if block == "unit" and unit_id is not None:
        context["uv"] = view.unit(unit_id)
        oob = (*oob, "totals", "findings")
    paging = context["paging"] = paging_for(request, view, f"/armies/{view.army.id}")
    if content_key is not None:  # (each page of the units is a content of its own)
        content_key = (content_key, paging.number)
    return render(
        request,
        ARMY_PAGE,
        context,
        block=block,
        oob=oob,
        status_code=status_code,
        headers=headers,
        content_key=content_key,
    )


def army_page_key(view: builder.ArmyView) -> Hashable:
    """Everything the army page's content shows, for a viewer with no form open: the army's
    settings, its stored units (their rows, or the army's rows stamp, which names them), its
    house rules and the viewer's rights. The key names the content (every change draws a new
    stamp), so a change anywhere, by any server, makes a new key and nothing needs forgetting."""
    army = view.army
    return (
        army.id,
        army.name,
        army.budget,
        army.notes,
        army.ruleset_id,
        army.version,
        view.options,
        view.rows_key,
        view.can_edit,
        view.is_owner,
    )


def _done(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    army_id: Id,
    unit_id: Id | None,
    oob: tuple[str, ...] = (),
) -> Response:
    """After a change (committed first): the fresh block for htmx, a redirect for a plain
    form."""
    commit_change(session)
    if not is_htmx(request):
        target = f"/armies/{army_id}/units/{unit_id}" if unit_id else f"/armies/{army_id}#builder"
        return Response(status_code=303, headers={"Location": target})
    view = builder.army_view(session, user=user, army_id=army_id)
    block = "unit" if unit_id is not None else "builder"
    return builder_page(request, view, block=block, unit_id=unit_id, oob=oob)


def _refused(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    army_id: Id,
    *,
    scope: str,
    form: dict[str, str],
    exc: InvalidInput | StaleVersion,
    unit_id: Id | None = None,
) -> Response:
    """The failing form again, with the reason inline (422) or the conflict (409)."""
    view = builder.army_view(session, user=user, army_id=army_id)
    if isinstance(exc, StaleVersion):
        conflicts = exc.conflicts if isinstance(exc, EditConflict) else ()
        state = FormState(
            scope,
            dict(form),
            conflict=str(exc),
            latest_change=exc.latest_change,
            conflicts=conflicts,
        )
        status = 409
    else:
        state = FormState(scope, dict(form), exc.reasons())
        status = 422
    if unit_id is not None:
        return builder_page(
            request, view, block="unit", unit_id=unit_id, form=state, status_code=status
        )
    headers = {"HX-Retarget": f"#{scope}", "HX-Reswap": "outerHTML"}
    return builder_page(
        request,
        view,
        block=scope.replace("-", "_"),
        form=state,
        status_code=status,
        headers=headers,
    )


@router.post("/armies/{army_id:int}/units")
def unit_add(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep, army_id: Id
) -> Response:
    """Add a unit at the end of the army."""
    try:
        unit = builder.add_unit(session, user=user, army_id=army_id, data=nested(form), form=True)
    except InvalidInput as exc:
        return _refused(request, session, user, army_id, scope="add-unit-form", form=form, exc=exc)
    if not is_htmx(request):
        return _done(request, session, user, army_id, unit.id)
    return _done(request, session, user, army_id, None)


@router.get("/armies/{army_id:int}/units/{unit_id:int}")
def unit_page(
    request: Request, session: SessionDep, user: CurrentUser, army_id: Id, unit_id: Id
) -> Response:
    """One unit with its editor open (the page behind each unit's name)."""
    view = builder.army_view(session, user=user, army_id=army_id)
    context = {
        "army": view.army,
        "view": view,
        "uv": view.unit(unit_id),
        "form": FormState(),
        "open_unit": unit_id,
        "standalone": True,
    }
    return render(request, UNIT_PAGE, context)


def _typed(request: Request, scopes: tuple[str, ...]) -> FormState:
    """A form's values as typed, sent by its kind or type picker when it changes (the query
    string's ``form`` names the form, one of ``scopes``): the form is shown again with them,
    and with the fields of the kind or type now chosen."""
    query = dict(request.query_params)
    scope = query.pop("form", "")
    if scope not in scopes or len(query) > MAX_FORM_FIELDS:
        return FormState()
    return FormState(scope, query)


MAX_FORM_FIELDS = 60
"""More values than any builder form has: a longer query is not one of its forms."""


@router.get("/armies/{army_id:int}/units/new")
def unit_new(request: Request, session: SessionDep, user: CurrentUser, army_id: Id) -> Response:
    """The add-a-unit form with the values typed and the fields of the kind chosen (what
    its Kind picker fetches on a change); the army page around it without htmx."""
    view = builder.edit_view(session, user=user, army_id=army_id)
    values = {k: v for k, v in request.query_params.items() if k != "form"}
    state = FormState("add-unit-form", values) if len(values) <= MAX_FORM_FIELDS else FormState()
    block = "add_unit_form" if is_htmx(request) else None
    return builder_page(request, view, block=block, form=state)


@router.get("/armies/{army_id:int}/units/{unit_id:int}/editor")
def unit_editor(
    request: Request, session: SessionDep, user: CurrentUser, army_id: Id, unit_id: Id
) -> Response:
    """A unit's editor, fetched when its panel is first opened (the unit page without htmx);
    with ``form``, one of its forms again with the values typed and the fields of the kind
    or type chosen (what the form's picker fetches on a change)."""
    view = builder.army_view(session, user=user, army_id=army_id)
    uv = view.unit(unit_id)
    scopes = (
        f"unit-form-{unit_id}",
        f"add-weapon-{unit_id}",
        *(f"weapon-form-{w.row.id}" for w in uv.weapons),
    )
    form = _typed(request, scopes)
    context = {"army": view.army, "view": view, "uv": uv, "form": form}
    if not is_htmx(request):
        return Response(status_code=303, headers={"Location": f"/armies/{army_id}/units/{unit_id}"})
    return render(request, "armies/unit_editor.html", context)


@router.post("/armies/{army_id:int}/units/{unit_id:int}")
def unit_update(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    form: FormDep,
    army_id: Id,
    unit_id: Id,
) -> Response:
    """Save a unit's own fields."""
    try:
        builder.update_unit(
            session,
            user=user,
            army_id=army_id,
            unit_id=unit_id,
            data=resolved(form, nested(form)),
            expected_version=form_version(form),
            base=form_base(form),
            form=True,
        )
    except (InvalidInput, StaleVersion) as exc:
        return _refused(
            request,
            session,
            user,
            army_id,
            scope=f"unit-form-{unit_id}",
            form=form,
            exc=exc,
            unit_id=unit_id,
        )
    _merged_note(request, session)
    return _done(request, session, user, army_id, unit_id)


def _merged_note(request: Request, session: SessionDep) -> None:
    """Say so when a stale edit was merged onto a change made elsewhere."""
    if merge.was_merged(session):
        flash(request, f"Saved ({merge.MERGED_NOTE}).", "success")


@router.post("/armies/{army_id:int}/units/{unit_id:int}/duplicate")
def unit_duplicate(
    request: Request, session: SessionDep, user: CurrentUser, army_id: Id, unit_id: Id
) -> Response:
    """Copy a unit with its weapons, right after it."""
    builder.duplicate_unit(session, user=user, army_id=army_id, unit_id=unit_id)
    return _done(request, session, user, army_id, None)


@router.post("/armies/{army_id:int}/units/{unit_id:int}/move")
def unit_move(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    form: FormDep,
    army_id: Id,
    unit_id: Id,
) -> Response:
    """Move a unit one place up or down."""
    offset = -1 if form.get("offset") == "-1" else 1
    builder.move_unit(session, user=user, army_id=army_id, unit_id=unit_id, offset=offset)
    return _done(request, session, user, army_id, None)


@router.post("/armies/{army_id:int}/units/{unit_id:int}/delete")
def unit_delete(
    request: Request, session: SessionDep, user: CurrentUser, army_id: Id, unit_id: Id
) -> Response:
    """Remove a unit."""
    builder.delete_unit(session, user=user, army_id=army_id, unit_id=unit_id)
    return _done(request, session, user, army_id, None)


@router.post("/armies/{army_id:int}/units/{unit_id:int}/weapons")
def weapon_add(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    form: FormDep,
    army_id: Id,
    unit_id: Id,
) -> Response:
    """Give a unit a weapon."""
    try:
        builder.add_weapon(
            session, user=user, army_id=army_id, unit_id=unit_id, data=nested(form), form=True
        )
    except InvalidInput as exc:
        return _refused(
            request,
            session,
            user,
            army_id,
            scope=f"add-weapon-{unit_id}",
            form=form,
            exc=exc,
            unit_id=unit_id,
        )
    return _done(request, session, user, army_id, unit_id)


@router.post("/armies/{army_id:int}/units/{unit_id:int}/weapons/{weapon_id:int}")
def weapon_update(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    form: FormDep,
    army_id: Id,
    unit_id: Id,
    weapon_id: Id,
) -> Response:
    """Change a weapon."""
    try:
        builder.update_weapon(
            session,
            user=user,
            army_id=army_id,
            unit_id=unit_id,
            weapon_id=weapon_id,
            data=resolved(form, nested(form)),
            expected_version=form_version(form),
            base=form_base(form),
            form=True,
        )
    except (InvalidInput, StaleVersion) as exc:
        return _refused(
            request,
            session,
            user,
            army_id,
            scope=f"weapon-form-{weapon_id}",
            form=form,
            exc=exc,
            unit_id=unit_id,
        )
    _merged_note(request, session)
    return _done(request, session, user, army_id, unit_id)


@router.post("/armies/{army_id:int}/units/{unit_id:int}/weapons/{weapon_id:int}/delete")
def weapon_delete(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    army_id: Id,
    unit_id: Id,
    weapon_id: Id,
) -> Response:
    """Take a weapon off a unit."""
    builder.delete_weapon(session, user=user, army_id=army_id, unit_id=unit_id, weapon_id=weapon_id)
    return _done(request, session, user, army_id, unit_id)


@router.get("/armies/{army_id:int}/units/{unit_id:int}/weapon-preview")
def weapon_preview(
    request: Request, session: SessionDep, user: CurrentUser, army_id: Id, unit_id: Id
) -> Response:
    """What a weapon would be on this unit, before it is added."""
    data = nested(dict(request.query_params))
    try:
        preview = builder.preview_weapon(
            session, user=user, army_id=army_id, unit_id=unit_id, data=data, form=True
        )
        context: dict[str, Any] = {"preview": preview, "problem": None}
    except InvalidInput as exc:
        context = {"preview": None, "problem": exc}
    return render(request, "armies/weapon_preview.html", context)


@router.post("/armies/{army_id:int}/house-rules")
def house_rules_update(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep, army_id: Id
) -> Response:
    """Switch the army's house rules; every figure is recomputed."""
    try:
        builder.set_house_rules(
            session,
            user=user,
            army_id=army_id,
            options=house_rules(form),
            expected_version=form_version(form),
            form=True,
        )
    except (InvalidInput, StaleVersion) as exc:
        return _refused(
            request, session, user, army_id, scope="house-rules-form", form=form, exc=exc
        )
    # The army's version moved on: its settings form must carry the new one.
    return _done(request, session, user, army_id, None, oob=("settings",))
