"""Army pages: the list, the army page, settings, deletion."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.rules.errors import InvalidInput
from app.rules.registry import RULESETS
from app.services import armies, builder, clubs, examples, merge
from app.services.errors import (
    EditConflict,
    FieldConflict,
    InvalidField,
    NotFound,
    QuotaExceeded,
    StaleVersion,
)
from app.services.permissions import Access
from app.web.builder_forms import RESOLVE, form_base, resolved
from app.web.deps import CurrentUser, FormDep, SessionDep, SessionRoute
from app.web.forms import validate_form
from app.web.heavy import army_turn
from app.web.htmx import is_htmx, redirect
from app.web.inputs import Id
from app.web.routes.builder import army_page_key, builder_page
from app.web.schemas import ArmyCreate, ArmyUpdate
from app.web.templating import flash, render

router = APIRouter(route_class=SessionRoute)


@router.get("/armies")
def army_list(request: Request, session: SessionDep, user: CurrentUser) -> Response:
    """The user's armies and the form for a new one."""
    return render(
        request,
        "armies/list.html",
        {
            "armies": (mine := armies.list_armies(session, user=user)),
            "totals": builder.army_totals(session, mine),
            "rulesets": RULESETS,
            "clubs": clubs.my_clubs(session, user=user),
            "values": {},
            "errors": {},
        },
    )


@router.post("/armies")
def army_create(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep
) -> Response:
    """Create an army, then open it."""
    # An empty club choice means "no club".
    data, errors = validate_form(
        ArmyCreate, {k: v for k, v in form.items() if not (k == "club_id" and not v)}
    )
    if data is not None:
        try:
            army = armies.create_army(session, user=user, **data.model_dump())
        except QuotaExceeded:
            raise  # (shown as a message: the form has no field for it)
        except (InvalidField, InvalidInput) as exc:
            errors = {exc.field: exc.reason}
        else:
            flash(request, f"Army “{army.name}” created.", "success")
            return redirect(request, f"/armies/{army.id}")
    return render(
        request,
        "armies/list.html",
        {
            "armies": (mine := armies.list_armies(session, user=user)),
            "totals": builder.army_totals(session, mine),
            "rulesets": RULESETS,
            "clubs": clubs.my_clubs(session, user=user),
            "values": form,
            "errors": errors,
        },
        block="new_army_form",
        status_code=422,
    )


@router.post("/armies/examples/{ruleset}")
def army_from_example(
    request: Request, session: SessionDep, user: CurrentUser, ruleset: str
) -> Response:
    """Start from an example: the ruleset's sample army made the user's own, then opened."""
    if ruleset not in RULESETS:
        raise NotFound("ruleset")
    army = examples.create_example(session, user=user, ruleset_id=ruleset)
    flash(
        request,
        f"Army “{army.name}” created from the {RULESETS[ruleset].name} example: change it "
        "as you like, or try it in the calculator.",
        "success",
    )
    return redirect(request, f"/armies/{army.id}")


def _army_page(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    army_id: Id,
    *,
    values: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
    conflict: str | None = None,
    conflicts: tuple[FieldConflict, ...] = (),
    status_code: int = 200,
    retitle: bool = False,
) -> Response:
    """The army page; for htmx its settings block, with totals and findings out of band
    (``retitle``: and the page's title, which htmx takes from the fragment: a new name)."""
    view = builder.army_view(session, user=user, army_id=army_id)
    plain = not (values or errors or conflict or conflicts) and status_code == 200
    return builder_page(
        request,
        view,
        block="settings",
        oob=("totals", "findings"),
        values=values or {},
        errors=errors or {},
        conflict=conflict,
        conflicts=conflicts,
        status_code=status_code,
        content_key=army_page_key(view) if plain else None,
        retitle=retitle,
    )


@router.get("/armies/{army_id:int}")
def army_detail(request: Request, session: SessionDep, user: CurrentUser, army_id: Id) -> Response:
    """The army builder."""
    army_turn(request, session, user, army_id)
    return _army_page(request, session, user, army_id)


@router.post("/armies/{army_id:int}")
def army_update(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep, army_id: Id
) -> Response:
    """Save the army's name, budget and notes (refused if the page was stale)."""
    fields = {k: v for k, v in form.items() if k != "base" and not k.startswith(RESOLVE)}
    data, errors = validate_form(ArmyUpdate, resolved(form, fields))
    if data is None:
        return _army_page(
            request, session, user, army_id, values=form, errors=errors, status_code=422
        )
    try:
        armies.update_army(
            session,
            user=user,
            army_id=army_id,
            expected_version=data.version,
            base=form_base(form),
            **data.model_dump(exclude={"version", "base"}, exclude_none=True),
        )
    except StaleVersion as exc:
        return _army_page(
            request,
            session,
            user,
            army_id,
            values=form,
            conflict="This army was changed in another tab or by someone else"
            + (f" (latest change: {exc.latest_change})" if exc.latest_change else ""),
            conflicts=exc.conflicts if isinstance(exc, EditConflict) else (),
            status_code=409,
        )
    flash(
        request,
        f"Saved ({merge.MERGED_NOTE})." if merge.was_merged(session) else "Saved.",
        "success",
    )
    return _army_page(request, session, user, army_id, retitle=is_htmx(request))


@router.get("/armies/{army_id:int}/delete")
def army_delete_confirm(
    request: Request, session: SessionDep, user: CurrentUser, army_id: Id
) -> Response:
    """Ask before deleting."""
    army = armies.get_army(session, user=user, army_id=army_id, access=Access.DELETE)
    return render(request, "armies/delete.html", {"army": army}, block="content")


@router.post("/armies/{army_id:int}/delete")
def army_delete(request: Request, session: SessionDep, user: CurrentUser, army_id: Id) -> Response:
    """Delete the army for good."""
    name = armies.delete_army(session, user=user, army_id=army_id)
    flash(request, f"Army “{name}” deleted.", "success")
    return redirect(request, "/armies")
