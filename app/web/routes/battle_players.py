"""A battle's players: the host's "Players" panel (invitation links, club members invited,
players removed), the invitation link's landing page with its army picker, and a club
member's invitations accepted or declined from their battles list.

The invitation's pages carry its token in the address, as a club's do (ruling K3): no copy
kept, no referrer sent, and one generic 404 page for a dead link, whatever killed it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.db.models import User
from app.rules.errors import InvalidInput
from app.services import battles
from app.services.errors import Forbidden, NotFound
from app.web.deps import CurrentUser, FormDep, OptionalUser, SessionDep, SessionRoute
from app.web.htmx import BATTLE_JOIN_PATH, INVITE_TOKEN, battle_invite_url, redirect
from app.web.inputs import Id, parse_id
from app.web.security_headers import PRIVATE_PAGE
from app.web.templating import flash, render

router = APIRouter(route_class=SessionRoute)


def players_context(session: SessionDep, user: User, view: battles.BattleView) -> dict[str, Any]:
    """What the battle page's Players panel shows: for the host, the open invitations and the
    club members they may invite (nothing more for a player)."""
    if not view.viewer.host:
        return {"invites": [], "members": []}
    battle_id = view.battle.id
    return {
        "invites": battles.open_invites(session, user=user, battle_id=battle_id),
        "members": [  # (as the form's picker offers them)
            (str(member_id), name)
            for member_id, name in battles.invitable_members(
                session, user=user, battle_id=battle_id
            )
        ],
    }


def _players_block(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    battle_id: int,
    *,
    status_code: int = 200,
    **extra: Any,
) -> Response:
    """The battle page, or its Players panel for htmx."""
    from app.web.routes.battles import battle_page, default_values  # (one page, one module)

    view = battles.battle_view(session, user=user, battle_id=battle_id)
    return battle_page(
        request,
        session,
        user,
        battle_id,
        values=default_values(view, {}),
        block="players",
        status_code=status_code,
        **extra,
    )


@router.post("/battles/{battle_id:int}/invites")
def invite_create(
    request: Request, session: SessionDep, user: CurrentUser, battle_id: Id
) -> Response:
    """Make an invitation link to play a side (shown once, valid for a week)."""
    _, token = battles.create_invite(session, user=user, battle_id=battle_id)
    return _players_block(
        request, session, user, battle_id, new_invite=battle_invite_url(request, token)
    )


@router.post("/battles/{battle_id:int}/invites/{invite_id:int}/revoke")
def invite_revoke(
    request: Request, session: SessionDep, user: CurrentUser, battle_id: Id, invite_id: Id
) -> Response:
    """Revoke an invitation (a link or a club member's) at once."""
    battles.revoke_invite(session, user=user, battle_id=battle_id, invite_id=invite_id)
    flash(request, "Invitation revoked.", "success")
    return redirect(request, f"/battles/{battle_id}#players")


@router.post("/battles/{battle_id:int}/invites/member")
def invite_member(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep, battle_id: Id
) -> Response:
    """Invite a member of one of your clubs: they accept from their battles list."""
    member = parse_id(form.get("user_id"))
    try:
        if member is None:
            raise InvalidInput("user_id", "choose a club member")
        battles.invite_member(session, user=user, battle_id=battle_id, member_id=member)
    except InvalidInput as exc:
        return _players_block(
            request, session, user, battle_id, status_code=422, player_errors=exc.reasons()
        )
    flash(request, "Invitation sent: they accept it from their battles.", "success")
    return redirect(request, f"/battles/{battle_id}#players")


@router.get("/battles/{battle_id:int}/sides/{side_id:int}/remove")
def player_remove_confirm(
    request: Request, session: SessionDep, user: CurrentUser, battle_id: Id, side_id: Id
) -> Response:
    """Ask before removing a side's player, naming them and the side."""
    view = battles.battle_view(session, user=user, battle_id=battle_id, limit=1)
    if not view.viewer.host:
        raise Forbidden("only the battle's host may do that")
    side = next((s for s in view.sides if s.id == side_id and s.player_id is not None), None)
    if side is None:
        raise NotFound("side")
    return render(request, "battles/remove_player.html", {"view": view, "side": side})


@router.post("/battles/{battle_id:int}/sides/{side_id:int}/remove")
def player_remove(
    request: Request, session: SessionDep, user: CurrentUser, battle_id: Id, side_id: Id
) -> Response:
    """Remove the side's player: the side stays and you play it."""
    side = battles.remove_player(session, user=user, battle_id=battle_id, side_id=side_id)
    flash(request, f"Player removed: you play “{side.name}” now.", "success")
    return redirect(request, f"/battles/{battle_id}#players")


# ------------------------------------------------------------------------------ invited


def _invitation(session: SessionDep, token: str) -> battles.Invitation | None:
    """The live invitation behind ``token``, or None however it is dead (all alike)."""
    if not INVITE_TOKEN.fullmatch(token):
        return None
    try:
        return battles.invitation(session, token=token)
    except NotFound:
        return None


def _gone(request: Request) -> Response:
    """The one page for every dead invitation link (a club's too): it names nothing."""
    return render(request, "clubs/invitation_gone.html", {}, status_code=404, headers=PRIVATE_PAGE)


def _join_page(
    request: Request,
    session: SessionDep,
    user: User | None,
    token: str,
    found: battles.Invitation,
    *,
    errors: Mapping[str, str] | None = None,
    values: Mapping[str, str] | None = None,
) -> Response:
    battle = found.battle
    context: dict[str, Any] = {
        "invitation": found,
        "battle": battle,
        "token": token,
        "errors": errors or {},
        "values": values or {},
        "next": f"{BATTLE_JOIN_PATH}{token}" if user is None else "",
        "playing": user is not None and battles.plays_in(session, user=user, battle=battle),
        "armies": []
        if user is None
        else battles.armies_to_join(session, user=user, ruleset_id=battle.ruleset_id),
    }
    return render(
        request,
        "battles/join.html",
        context,
        status_code=422 if errors else 200,
        headers=PRIVATE_PAGE,
    )


@router.get("/battles/join/{token}", name="join_battle_page")
def join_page(request: Request, session: SessionDep, user: OptionalUser, token: str) -> Response:
    """An invitation to play a side: who invites you to which battle, then your army of its
    ruleset (logged in), or Sign up / Log in, which come back here. A dead link: one page."""
    found = _invitation(session, token)
    if found is None:
        return _gone(request)
    return _join_page(request, session, user, token, found)


@router.post("/battles/join/{token}")
def join(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep, token: str
) -> Response:
    """Join the battle with the army chosen: its units are your side."""
    found = _invitation(session, token)
    if found is None:
        return _gone(request)
    try:
        side = battles.join_by_link(
            session, user=user, token=token, army_id=parse_id(form.get("army_id"))
        )
    except InvalidInput as exc:  # (a 422: nothing of it is kept)
        return _join_page(request, session, user, token, found, errors=exc.reasons(), values=form)
    flash(request, f"You joined “{found.battle.name}”: “{side.name}” is your side.", "success")
    return redirect(request, f"/battles/{found.battle.id}")


@router.post("/battles/invitations/{invite_id:int}/accept")
def invitation_accept(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep, invite_id: Id
) -> Response:
    """Accept a club member's invitation with the army chosen."""
    try:
        side = battles.accept_invite(
            session, user=user, invite_id=invite_id, army_id=parse_id(form.get("army_id"))
        )
    except InvalidInput as exc:
        flash(request, f"Not joined: {exc.reason}.", "error")
        return redirect(request, "/battles#invitations")
    flash(request, f"You joined: “{side.name}” is your side.", "success")
    return redirect(request, f"/battles/{side.battle_id}")


@router.post("/battles/invitations/{invite_id:int}/decline")
def invitation_decline(
    request: Request, session: SessionDep, user: CurrentUser, invite_id: Id
) -> Response:
    """Decline a club member's invitation."""
    battles.decline_invite(session, user=user, invite_id=invite_id)
    flash(request, "Invitation declined.", "success")
    return redirect(request, "/battles")
