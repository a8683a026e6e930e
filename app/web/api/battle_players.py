"""A battle's players over JSON: invitations (links and club members'), joining with an army,
accepting or declining, removing a player. The sides are in the battle's own JSON."""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from app.db.models import BattleInvite, User
from app.services import battles
from app.web.battle_schemas import BattleDetailOut, SideOut, detail_out
from app.web.deps import ApiUser, SessionDep, SessionRoute
from app.web.htmx import battle_invite_url
from app.web.inputs import Id, Line

router = APIRouter(route_class=SessionRoute, tags=["battles"])
B = "/battles/{battle_id:int}"


class InviteOut(BaseModel):
    """An open invitation: a link (``member`` null) or a club member's."""

    id: int
    member: str | None = Field(default=None, description="the club member invited (null: a link)")
    created_at: datetime
    expires_at: datetime


class NewInviteOut(InviteOut):
    """A new invitation link: ``url`` and ``token`` are shown this once (only a hash is kept)."""

    url: str
    token: str


class MemberInviteIn(BaseModel):
    user_id: Id = Field(description="a member of one of your clubs (``invitable``)")


class MemberOut(BaseModel):
    user_id: int
    name: str


class JoinIn(BaseModel):
    token: Line = Field(description="the invitation link's token")
    army_id: Id = Field(description="one of your own armies of the battle's ruleset")


class AcceptIn(BaseModel):
    army_id: Id = Field(description="one of your own armies of the battle's ruleset")


class InvitationOut(BaseModel):
    """An invitation waiting for you (as a club member)."""

    id: int
    battle: str
    ruleset_id: str
    inviter: str | None
    expires_at: datetime


def _invite_out(invite: BattleInvite, names: dict[int, str]) -> InviteOut:
    member = names.get(invite.invited_user_id) if invite.invited_user_id else None
    return InviteOut(
        id=invite.id, member=member, created_at=invite.created_at, expires_at=invite.expires_at
    )


@router.get(B + "/sides")
def side_list(session: SessionDep, user: ApiUser, battle_id: Id) -> list[SideOut]:
    """The battle's sides and who plays each (as in the battle's JSON)."""
    return detail_out(battles.battle_view(session, user=user, battle_id=battle_id, limit=1)).sides


@router.get(B + "/invites")
def invite_list(session: SessionDep, user: ApiUser, battle_id: Id) -> list[InviteOut]:
    """The battle's open invitations (the host's); a link's token is never shown again."""
    invites = battles.open_invites(session, user=user, battle_id=battle_id)
    names = _invited_names(session, invites)
    return [_invite_out(invite, names) for invite in invites]


def _invited_names(session: SessionDep, invites: list[BattleInvite]) -> dict[int, str]:
    """The names of the club members invited."""
    ids = [i.invited_user_id for i in invites if i.invited_user_id is not None]
    return {u.id: u.display_name for u in (session.get(User, i) for i in ids) if u is not None}


@router.post(B + "/invites", status_code=201)
def invite_create(
    request: Request, session: SessionDep, user: ApiUser, battle_id: Id
) -> NewInviteOut:
    """An invitation link to play a side (shown once, valid for a week, for each player who
    opens it until revoked)."""
    invite, token = battles.create_invite(session, user=user, battle_id=battle_id)
    return NewInviteOut(
        id=invite.id,
        created_at=invite.created_at,
        expires_at=invite.expires_at,
        url=battle_invite_url(request, token),
        token=token,
    )


@router.get(B + "/invitable")
def invitable(session: SessionDep, user: ApiUser, battle_id: Id) -> list[MemberOut]:
    """The members of your clubs you may invite (not playing, not invited yet)."""
    return [
        MemberOut(user_id=i, name=n)
        for i, n in battles.invitable_members(session, user=user, battle_id=battle_id)
    ]


@router.post(B + "/invites/member", status_code=201)
def invite_member(
    session: SessionDep, user: ApiUser, battle_id: Id, body: MemberInviteIn
) -> InviteOut:
    """Invite a member of one of your clubs: they accept from ``/battles/invitations``."""
    invite = battles.invite_member(session, user=user, battle_id=battle_id, member_id=body.user_id)
    return _invite_out(invite, _invited_names(session, [invite]))


@router.delete(B + "/invites/{invite_id:int}", status_code=204)
def invite_revoke(session: SessionDep, user: ApiUser, battle_id: Id, invite_id: Id) -> Response:
    """Revoke an invitation at once."""
    battles.revoke_invite(session, user=user, battle_id=battle_id, invite_id=invite_id)
    return Response(status_code=204)


@router.delete(B + "/sides/{side_id:int}/player", status_code=204)
def player_remove(session: SessionDep, user: ApiUser, battle_id: Id, side_id: Id) -> Response:
    """Remove the side's player: the side stays and the host plays it."""
    battles.remove_player(session, user=user, battle_id=battle_id, side_id=side_id)
    return Response(status_code=204)


@router.post("/battles/join", status_code=201)
def join(session: SessionDep, user: ApiUser, body: JoinIn) -> BattleDetailOut:
    """Join the battle of an invitation link with one of your own armies of its ruleset (a
    dead link: 404, whatever killed it)."""
    side = battles.join_by_link(session, user=user, token=body.token, army_id=body.army_id)
    return detail_out(battles.battle_view(session, user=user, battle_id=side.battle_id))


@router.get("/battles/invitations")
def invitation_list(session: SessionDep, user: ApiUser) -> list[InvitationOut]:
    """The invitations waiting for you as a club member."""
    return [
        InvitationOut(
            id=found.invite.id,
            battle=found.battle.name,
            ruleset_id=found.battle.ruleset_id,
            inviter=found.inviter,
            expires_at=found.invite.expires_at,
        )
        for found in battles.my_invitations(session, user=user)
    ]


@router.post("/battles/invitations/{invite_id:int}/accept", status_code=201)
def invitation_accept(
    session: SessionDep, user: ApiUser, invite_id: Id, body: AcceptIn
) -> BattleDetailOut:
    """Accept an invitation with one of your own armies of the battle's ruleset."""
    side = battles.accept_invite(session, user=user, invite_id=invite_id, army_id=body.army_id)
    return detail_out(battles.battle_view(session, user=user, battle_id=side.battle_id))


@router.delete("/battles/invitations/{invite_id:int}", status_code=204)
def invitation_decline(session: SessionDep, user: ApiUser, invite_id: Id) -> Response:
    """Decline an invitation."""
    battles.decline_invite(session, user=user, invite_id=invite_id)
    return Response(status_code=204)
