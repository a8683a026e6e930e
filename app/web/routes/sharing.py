"""Sharing an army (club, editors, read-only links), forking, and the shared-link page."""

from __future__ import annotations

import functools

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.services import builder, clubs, open_calculator, sharing, transfer
from app.services.errors import InvalidField
from app.services.permissions import Access, army_for
from app.web.deps import CurrentUser, FormDep, OptionalUser, SessionDep, SessionRoute
from app.web.heavy import army_turn
from app.web.htmx import redirect, share_url
from app.web.inputs import Id, Line, parse_id
from app.web.paging import paging_for
from app.web.routes.builder import FormState
from app.web.streams import json_download, text_stream
from app.web.templating import flash, render

router = APIRouter(route_class=SessionRoute)


def _sharing_page(
    request: Request, session: SessionDep, user: CurrentUser, army_id: Id, **extra: object
) -> Response:
    army = army_for(session, user=user, army_id=army_id, access=Access.SHARE)
    state = sharing.sharing_state(session, user=user, army_id=army_id)
    memberships = clubs.my_clubs(session, user=user)
    members = {m.club.id: clubs.members(session, club_id=m.club.id) for m in memberships}
    return render(
        request,
        "armies/sharing.html",
        {
            "army": army,
            "state": state,
            "memberships": memberships,
            "members": members,
            "new_link": None,
            "error": None,
            **extra,
        },
    )


@router.get("/armies/{army_id:int}/sharing")
def sharing_page(request: Request, session: SessionDep, user: CurrentUser, army_id: Id) -> Response:
    """Who may see and edit the army."""
    return _sharing_page(request, session, user, army_id)


@router.post("/armies/{army_id:int}/sharing")
def sharing_save(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep, army_id: Id
) -> Response:
    """Share with a club (or make private) and choose editors."""
    club = form.get("club_id", "")
    editors = [
        editor for k in form if k.startswith("editor.") and (editor := parse_id(k.split(".", 1)[1]))
    ]
    try:
        sharing.share(
            session,
            user=user,
            army_id=army_id,
            club_id=parse_id(club),
            editor_ids=editors,
        )
    except InvalidField as exc:
        return _sharing_page(request, session, user, army_id, error=f"{exc.field}: {exc.reason}")
    flash(request, "Sharing saved.", "success")
    return redirect(request, f"/armies/{army_id}/sharing")


@router.post("/armies/{army_id:int}/links")
def link_create(request: Request, session: SessionDep, user: CurrentUser, army_id: Id) -> Response:
    """Make a read-only link (shown once)."""
    _, token = sharing.create_link(session, user=user, army_id=army_id)
    url = share_url(request, token)
    return _sharing_page(request, session, user, army_id, new_link=url)


@router.post("/armies/{army_id:int}/links/{link_id:int}/revoke")
def link_revoke(
    request: Request, session: SessionDep, user: CurrentUser, army_id: Id, link_id: Id
) -> Response:
    """Revoke a read-only link at once."""
    sharing.revoke_link(session, user=user, army_id=army_id, link_id=link_id)
    flash(request, "Link revoked: it no longer opens the army.", "success")
    return redirect(request, f"/armies/{army_id}/sharing")


@router.post("/armies/{army_id:int}/fork")
def army_fork(request: Request, session: SessionDep, user: CurrentUser, army_id: Id) -> Response:
    """Copy an army you may read into your own armies."""
    copy = sharing.fork_army(session, user=user, army_id=army_id)
    flash(request, f"Forked into your armies as “{copy.name}”.", "success")
    return redirect(request, f"/armies/{copy.id}")


@router.get("/shared/{token}")
def shared_page(request: Request, session: SessionDep, user: OptionalUser, token: Line) -> Response:
    """An army opened by its read-only link (no account needed)."""
    army_turn(request, session, user, sharing.army_for_link(session, token=token).id, linked=True)
    view = sharing.linked_view(session, token=token)
    return render(
        request,
        "armies/detail.html",
        {
            "army": view.army,
            "view": view,
            "form": FormState(),
            "open_unit": None,
            "values": {},
            "errors": {},
            "conflict": None,
            "shared_token": token,
            "paging": paging_for(request, view, f"/shared/{token}"),
            # each unit opens in the open calculator (no account, no saved army needed)
            "open_calculator_url": functools.partial(
                open_calculator.open_calculator_url, view.army.ruleset_id
            ),
        },
    )


@router.get("/shared/{token}/print")
def shared_print(
    request: Request, session: SessionDep, user: OptionalUser, token: Line, cards: bool = False
) -> Response:
    """The roster sheet of a linked army (no account needed)."""
    army_turn(request, session, user, sharing.army_for_link(session, token=token).id, linked=True)
    view = sharing.linked_view(session, token=token)
    context = {"army": view.army, "view": view, "cards": cards, "back_url": f"/shared/{token}"}
    return render(request, "armies/print.html", context)


@router.get("/shared/{token}/export.txt")
def shared_export_text(
    request: Request, session: SessionDep, user: OptionalUser, token: Line
) -> Response:
    """A linked army as plain text for a forum post (streamed)."""
    army_turn(request, session, user, sharing.army_for_link(session, token=token).id, linked=True)
    return text_stream(transfer.export_text_chunks(sharing.linked_view(session, token=token)))


@router.get("/shared/{token}/export.json")
def shared_export_json(
    request: Request, session: SessionDep, user: OptionalUser, token: Line
) -> Response:
    """A linked army as a versioned JSON document (a download to import or keep, streamed)."""
    army = sharing.army_for_link(session, token=token)
    army_turn(request, session, user, army.id, linked=True)
    return json_download(army, builder.load_rows(session, army.id))


@router.post("/shared/{token}/fork")
def shared_fork(request: Request, session: SessionDep, user: CurrentUser, token: Line) -> Response:
    """Copy a linked army into your own armies."""
    copy = sharing.fork_link(session, user=user, token=token)
    flash(request, f"Forked into your armies as “{copy.name}”.", "success")
    return redirect(request, f"/armies/{copy.id}")
