"""An army's history, printable sheet, export and import."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from app.services import builder, history, transfer
from app.web.deps import CurrentUser, SessionDep, SessionRoute
from app.web.heavy import army_turn, import_turn
from app.web.htmx import redirect
from app.web.inputs import Id
from app.web.streams import json_download, text_stream
from app.web.templating import flash, render

router = APIRouter(route_class=SessionRoute)


@router.get("/armies/import")
def import_page(request: Request, user: CurrentUser) -> Response:
    """Paste or upload an exported army."""
    return render(request, "armies/import.html", {"problems": [], "text": ""})


async def _import_bytes(request: Request) -> bytes:
    """The uploaded file, or the pasted text, cut off one byte past the size limit."""
    form = await request.form(max_part_size=transfer.MAX_BYTES + 1)
    upload = form.get("file")
    if upload is not None and not isinstance(upload, str) and upload.filename:
        return await upload.read(transfer.MAX_BYTES + 1)
    text = form.get("document")
    return text.encode() if isinstance(text, str) else b""


ImportBytes = Annotated[bytes, Depends(_import_bytes)]


@router.post("/armies/import")
def import_army(
    request: Request, session: SessionDep, user: CurrentUser, raw: ImportBytes
) -> Response:
    """Create an army from a document: entirely, or nothing, with every problem listed."""
    import_turn(request, session, user, len(raw))
    try:
        army = transfer.import_army(session, user=user, raw=raw)
    except transfer.ImportProblems as exc:
        shown = raw[:20_000].decode(errors="replace")
        return render(
            request,
            "armies/import.html",
            {"problems": exc.problems, "text": shown},
            status_code=422,
        )
    flash(request, f"Imported “{army.name}”.", "success")
    return redirect(request, f"/armies/{army.id}")


@router.get("/armies/{army_id:int}/history")
def history_page(request: Request, session: SessionDep, user: CurrentUser, army_id: Id) -> Response:
    """Every saved change, newest first."""
    army_turn(request, session, user, army_id)
    view = builder.army_view(session, user=user, army_id=army_id)
    return render(
        request,
        "armies/history.html",
        {
            "army": view.army,
            "view": view,
            "revisions": history.revisions(session, user=user, army_id=army_id),
        },
    )


@router.get("/armies/{army_id:int}/history/{revision_id:int}")
def revision_page(
    request: Request, session: SessionDep, user: CurrentUser, army_id: Id, revision_id: Id
) -> Response:
    """The army as it stood at one revision."""
    army_turn(request, session, user, army_id)
    view = builder.army_view(session, user=user, army_id=army_id)
    rev = history.revision(session, user=user, army_id=army_id, revision_id=revision_id)
    names = history.weapon_names(view.army.ruleset_id, rev.snapshot)
    return render(
        request,
        "armies/revision.html",
        {"army": view.army, "view": view, "rev": rev, "weapon_names": names},
    )


@router.post("/armies/{army_id:int}/history/{revision_id:int}/restore")
def revision_restore(
    request: Request, session: SessionDep, user: CurrentUser, army_id: Id, revision_id: Id
) -> Response:
    """Make the army what it was at this revision (recorded as a new revision)."""
    history.restore(session, user=user, army_id=army_id, revision_id=revision_id)
    flash(request, "Revision restored.", "success")
    return redirect(request, f"/armies/{army_id}")


@router.get("/armies/{army_id:int}/print")
def print_sheet(
    request: Request, session: SessionDep, user: CurrentUser, army_id: Id, cards: bool = False
) -> Response:
    """A roster sheet for A4 paper (with one stat card per unit if asked)."""
    army_turn(request, session, user, army_id)
    view = builder.army_view(session, user=user, army_id=army_id)
    return render(request, "armies/print.html", {"army": view.army, "view": view, "cards": cards})


@router.get("/armies/{army_id:int}/export.txt")
def export_text(request: Request, session: SessionDep, user: CurrentUser, army_id: Id) -> Response:
    """The army as plain text for a forum post (streamed)."""
    army_turn(request, session, user, army_id)
    view = builder.army_view(session, user=user, army_id=army_id)
    return text_stream(transfer.export_text_chunks(view))


@router.get("/armies/{army_id:int}/export.json")
def export_json(request: Request, session: SessionDep, user: CurrentUser, army_id: Id) -> Response:
    """The army as a versioned JSON document (a download, streamed)."""
    army_turn(request, session, user, army_id)
    view = builder.army_view(session, user=user, army_id=army_id)
    rows = builder.load_rows(session, view.army.id)
    return json_download(view.army, rows)
