"""Clubs, sharing, history, export and import over JSON."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict

from app.rules.registry import get_ruleset
from app.services import builder, clubs, history, sharing, transfer
from app.services.permissions import club_for
from app.web.api.builder import army_out
from app.web.api.builder_schemas import ArmyDetailOut
from app.web.deps import ApiUser, SessionDep, SessionRoute
from app.web.heavy import army_turn, import_turn
from app.web.htmx import invite_url, share_url
from app.web.inputs import Float, Id, Line
from app.web.schemas import ClubCreate
from app.web.streams import json_stream, text_stream

router = APIRouter(route_class=SessionRoute, tags=["clubs and sharing"])


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MemberOut(BaseModel):
    user_id: Id
    display_name: str
    role: str


class RosterOut(BaseModel):
    id: int
    name: str
    owner: str
    ruleset: str
    cost: float
    budget: int
    units: int


class ClubRulesetOut(BaseModel):
    """A ruleset the club's members play (or whose house rules it pinned), with those
    house rules as pinned ({} when none) and as its new armies get them (every option)."""

    id: str
    name: str
    cost_unit: str
    house_rules: dict[str, Any]
    effective_house_rules: dict[str, Any]


class ClubOut(BaseModel):
    id: int
    name: str
    role: str
    members: int


class ClubDetailOut(BaseModel):
    id: int
    name: str
    role: str
    house_rules: dict[str, Any]  # the default ruleset's (BrikWars): ``rulesets`` has each
    rulesets: list[ClubRulesetOut]
    members: list[MemberOut]
    ruleset: str | None  # the rosters' ruleset as searched (None: every ruleset)
    cost_unit: str | None  # what min_cost and max_cost counted in (that ruleset's unit)
    rosters: list[RosterOut]


class InviteOut(BaseModel):
    id: int
    expires_at: datetime
    url: str | None = None
    token: str | None = None


class JoinIn(_In):
    token: Line


class RoleIn(_In):
    role: Literal["organiser", "member"]


class TransferIn(_In):
    member_id: Id


class OptionsIn(_In):
    options: dict[str, Any]


class SharingIn(_In):
    club_id: Id | None
    editor_ids: list[Id] = []


class SharingOut(BaseModel):
    club_id: Id | None
    editor_ids: list[int]
    links: list[int]


class LinkOut(BaseModel):
    id: int
    url: str
    token: str


class RevisionOut(BaseModel):
    id: int
    created_at: datetime
    by: str
    summary: str


class RevisionDetailOut(RevisionOut):
    snapshot: dict[str, Any]


@router.get("/clubs")
def club_list(session: SessionDep, user: ApiUser) -> list[ClubOut]:
    """Your clubs."""
    return [
        ClubOut(id=m.club.id, name=m.club.name, role=m.role, members=m.members)
        for m in clubs.my_clubs(session, user=user)
    ]


@router.post("/clubs", status_code=201)
def club_create(session: SessionDep, user: ApiUser, body: ClubCreate) -> ClubOut:
    """Found a club (you are its owner)."""
    club = clubs.create_club(session, user=user, name=body.name)
    return ClubOut(id=club.id, name=club.name, role="owner", members=1)


@router.get("/clubs/{club_id:int}")
def club_get(
    session: SessionDep,
    user: ApiUser,
    club_id: Id,
    name: Line = "",
    owner: Line = "",
    ruleset: Line | None = None,
    min_cost: Float | None = None,
    max_cost: Float | None = None,
    page: int = 1,
    page_size: int = 20,
) -> ClubDetailOut:
    """A club: members, house rules for each ruleset its members play, and rosters filtered
    by name, owner, ruleset and cost, paginated. ``ruleset`` left out: the one ruleset the
    members play if they play one, else every ruleset (``ruleset=`` empty: every one); a
    cost bound is in the ruleset's own unit, so it needs one (else 422 naming it)."""
    club, role = club_for(session, user=user, club_id=club_id)
    played = clubs.played_rulesets(session, club_id=club.id)
    search = clubs.roster_search(played, ruleset=ruleset, min_cost=min_cost, max_cost=max_cost)
    found = sharing.club_rosters(
        session,
        club_id=club.id,
        name=name[:120],
        owner=owner[:120],
        min_cost=search.min_cost,
        max_cost=search.max_cost,
        page=page,
        page_size=page_size,
        ruleset_id=search.ruleset_id,
    )
    return ClubDetailOut(
        id=club.id,
        name=club.name,
        role=role,
        house_rules=clubs.house_rules_of(club),
        rulesets=[
            ClubRulesetOut(
                id=rules.id,
                name=rules.name,
                cost_unit=rules.cost_unit,
                house_rules=clubs.house_rules_of(club, rules.id),
                effective_house_rules=clubs.effective_house_rules(club, rules.id),
            )
            for rules in map(get_ruleset, clubs.house_rule_rulesets(club, played))
        ],
        members=[
            MemberOut(user_id=m.user_id, display_name=m.display_name, role=m.role)
            for m in clubs.members(session, club_id=club.id)
        ],
        ruleset=search.ruleset_id,
        cost_unit=search.cost_unit,
        rosters=[
            RosterOut(
                id=r.army.id,
                name=r.army.name,
                owner=r.owner_name,
                ruleset=r.army.ruleset_id,
                cost=float(r.cost),
                budget=r.army.budget,
                units=r.units,
            )
            for r in found.rosters
        ],
    )


@router.post("/clubs/{club_id:int}/invites", status_code=201)
def invite_create(request: Request, session: SessionDep, user: ApiUser, club_id: Id) -> InviteOut:
    """An invitation link, valid for a week; the token is in this answer only."""
    invite, token = clubs.create_invite(session, user=user, club_id=club_id)
    url = invite_url(request, token)
    return InviteOut(id=invite.id, expires_at=invite.expires_at, url=url, token=token)


@router.get("/clubs/{club_id:int}/invites")
def invite_list(session: SessionDep, user: ApiUser, club_id: Id) -> list[InviteOut]:
    """Open invitations (their tokens are never shown again)."""
    return [
        InviteOut(id=i.id, expires_at=i.expires_at)
        for i in clubs.open_invites(session, user=user, club_id=club_id)
    ]


@router.delete("/clubs/{club_id:int}/invites/{invite_id:int}", status_code=204)
def invite_revoke(session: SessionDep, user: ApiUser, club_id: Id, invite_id: Id) -> Response:
    """Revoke an invitation."""
    clubs.revoke_invite(session, user=user, club_id=club_id, invite_id=invite_id)
    return Response(status_code=204)


@router.post("/clubs/join")
def club_join(session: SessionDep, user: ApiUser, body: JoinIn) -> ClubOut:
    """Join a club with an invitation token."""
    club = clubs.join(session, user=user, token=body.token)
    _, role = club_for(session, user=user, club_id=club.id)
    return ClubOut(
        id=club.id, name=club.name, role=role, members=len(clubs.members(session, club_id=club.id))
    )


@router.delete("/clubs/{club_id:int}", status_code=204)
def club_delete(session: SessionDep, user: ApiUser, club_id: Id) -> Response:
    """Delete the club (its owner only): memberships and invitations go; the rosters shared
    with it stay their owners', shared no more."""
    clubs.delete_club_by_id(session, user=user, club_id=club_id)
    return Response(status_code=204)


@router.post("/clubs/{club_id:int}/leave", status_code=204)
def club_leave(session: SessionDep, user: ApiUser, club_id: Id) -> Response:
    """Leave a club."""
    clubs.leave(session, user=user, club_id=club_id)
    return Response(status_code=204)


@router.delete("/clubs/{club_id:int}/members/{member_id:int}", status_code=204)
def member_remove(session: SessionDep, user: ApiUser, club_id: Id, member_id: Id) -> Response:
    """Remove a member."""
    clubs.remove_member(session, user=user, club_id=club_id, member_id=member_id)
    return Response(status_code=204)


@router.patch("/clubs/{club_id:int}/members/{member_id:int}", status_code=204)
def member_role(
    session: SessionDep, user: ApiUser, club_id: Id, member_id: Id, body: RoleIn
) -> Response:
    """Make a member an organiser, or an organiser a member (owner only)."""
    clubs.set_role(session, user=user, club_id=club_id, member_id=member_id, role=body.role)
    return Response(status_code=204)


@router.post("/clubs/{club_id:int}/transfer", status_code=204)
def club_transfer(session: SessionDep, user: ApiUser, club_id: Id, body: TransferIn) -> Response:
    """Hand the club to another member."""
    clubs.transfer_ownership(session, user=user, club_id=club_id, member_id=body.member_id)
    return Response(status_code=204)


@router.put("/clubs/{club_id:int}/house-rules")
def club_house_rules(
    session: SessionDep, user: ApiUser, club_id: Id, body: OptionsIn
) -> dict[str, Any]:
    """Pin the house rules new BrikWars armies of the club start with (the default ruleset;
    ``/house-rules/{ruleset_id}`` pins any ruleset's)."""
    club = clubs.pin_house_rules(session, user=user, club_id=club_id, options=body.options)
    return clubs.house_rules_of(club)


@router.put("/clubs/{club_id:int}/house-rules/{ruleset_id}")
def club_ruleset_house_rules(
    session: SessionDep, user: ApiUser, club_id: Id, ruleset_id: Line, body: OptionsIn
) -> dict[str, Any]:
    """Pin the house rules new armies of the club under this ruleset start with, by the
    ruleset's own option fields (``GET /rulesets/{id}``: ``options``); the other rulesets'
    stay as they are. Every wrong option: 422, each by its field."""
    club = clubs.pin_house_rules(
        session, user=user, club_id=club_id, options=body.options, ruleset_id=ruleset_id
    )
    return clubs.house_rules_of(club, ruleset_id)


@router.get("/armies/{army_id:int}/sharing")
def sharing_get(session: SessionDep, user: ApiUser, army_id: Id) -> SharingOut:
    """How the army is shared (owner only)."""
    state = sharing.sharing_state(session, user=user, army_id=army_id)
    return SharingOut(
        club_id=state.club_id, editor_ids=state.editor_ids, links=[link.id for link in state.links]
    )


@router.put("/armies/{army_id:int}/sharing")
def sharing_put(session: SessionDep, user: ApiUser, army_id: Id, body: SharingIn) -> SharingOut:
    """Share with a club (or make private) and choose the editors."""
    sharing.share(
        session, user=user, army_id=army_id, club_id=body.club_id, editor_ids=body.editor_ids
    )
    return sharing_get(session, user, army_id)


@router.post("/armies/{army_id:int}/share-links", status_code=201)
def link_create(request: Request, session: SessionDep, user: ApiUser, army_id: Id) -> LinkOut:
    """A read-only link; the token is in this answer only."""
    link, token = sharing.create_link(session, user=user, army_id=army_id)
    return LinkOut(id=link.id, token=token, url=share_url(request, token))


@router.delete("/armies/{army_id:int}/share-links/{link_id:int}", status_code=204)
def link_revoke(session: SessionDep, user: ApiUser, army_id: Id, link_id: Id) -> Response:
    """Revoke a read-only link."""
    sharing.revoke_link(session, user=user, army_id=army_id, link_id=link_id)
    return Response(status_code=204)


@router.get("/shared/{token}")
def shared_get(session: SessionDep, token: Line) -> ArmyDetailOut:
    """An army by its read-only link (no account needed)."""
    return army_out(sharing.linked_view(session, token=token))


@router.post("/shared/{token}/fork", status_code=201)
def shared_fork(session: SessionDep, user: ApiUser, token: Line) -> ArmyDetailOut:
    """Copy a linked army into your armies."""
    copy = sharing.fork_link(session, user=user, token=token)
    return army_out(builder.army_view(session, user=user, army_id=copy.id))


@router.post("/armies/{army_id:int}/fork", status_code=201)
def army_fork(session: SessionDep, user: ApiUser, army_id: Id) -> ArmyDetailOut:
    """Copy an army you may read into your armies."""
    copy = sharing.fork_army(session, user=user, army_id=army_id)
    return army_out(builder.army_view(session, user=user, army_id=copy.id))


@router.get("/armies/{army_id:int}/history")
def history_list(
    request: Request, session: SessionDep, user: ApiUser, army_id: Id
) -> list[RevisionOut]:
    """Every saved change, newest first."""
    army_turn(request, session, user, army_id)
    return [
        RevisionOut(id=r.id, created_at=r.created_at, by=who, summary=r.summary)
        for r, who in history.revisions(session, user=user, army_id=army_id)
    ]


@router.get("/armies/{army_id:int}/history/{revision_id:int}")
def history_get(
    request: Request, session: SessionDep, user: ApiUser, army_id: Id, revision_id: Id
) -> RevisionDetailOut:
    """One revision with the army as it then stood."""
    army_turn(request, session, user, army_id)
    rev = history.revision(session, user=user, army_id=army_id, revision_id=revision_id)
    return RevisionDetailOut(
        id=rev.id, created_at=rev.created_at, by="", summary=rev.summary, snapshot=rev.snapshot
    )


@router.post("/armies/{army_id:int}/history/{revision_id:int}/restore")
def history_restore(
    session: SessionDep, user: ApiUser, army_id: Id, revision_id: Id
) -> ArmyDetailOut:
    """Restore a revision (recorded as a new revision)."""
    history.restore(session, user=user, army_id=army_id, revision_id=revision_id)
    return army_out(builder.army_view(session, user=user, army_id=army_id))


EXPORT_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The export document (``format=json``) or the forum text (``format=text``)",
        "content": {
            "application/json": {"schema": {"type": "object"}},
            "text/plain": {"schema": {"type": "string"}},
        },
    }
}


@router.get("/armies/{army_id:int}/export", response_model=None, responses=EXPORT_RESPONSES)
def army_export(
    request: Request,
    session: SessionDep,
    user: ApiUser,
    army_id: Id,
    format: Literal["json", "text"] = "json",
) -> Response:
    """The army as a versioned JSON document, or as forum text (``?format=text``); streamed."""
    army_turn(request, session, user, army_id)
    view = builder.army_view(session, user=user, army_id=army_id)
    if format == "text":
        return text_stream(transfer.export_text_chunks(view))
    return json_stream(view.army, builder.load_rows(session, army_id))


@router.get("/shared/{token}/export", response_model=None, responses=EXPORT_RESPONSES)
def shared_export(
    request: Request, session: SessionDep, token: Line, format: Literal["json", "text"] = "json"
) -> Response:
    """A linked army as a versioned JSON document, or as forum text (``?format=text``);
    streamed."""
    army = sharing.army_for_link(session, token=token)
    army_turn(request, session, None, army.id)
    if format == "text":
        return text_stream(transfer.export_text_chunks(sharing.linked_view(session, token=token)))
    return json_stream(army, builder.load_rows(session, army.id))


async def _body_limited(request: Request) -> bytes:
    """The request body, refused past the import size limit without reading it all."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared[:12]) > transfer.MAX_BYTES:
        return b"\0" * (transfer.MAX_BYTES + 1)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > transfer.MAX_BYTES:
            break
    return body


@router.post("/armies/import", status_code=201, response_model=None)
def army_import(
    request: Request,
    session: SessionDep,
    user: ApiUser,
    raw: Annotated[bytes, Depends(_body_limited)],
) -> Response:
    """Create an army from an export document: all of it or nothing; 422 lists every problem
    as ``{"field": "units[3].weapons[0].size", "reason": ...}``."""
    import_turn(request, session, user, len(raw))
    try:
        army = transfer.import_army(session, user=user, raw=raw)
    except transfer.ImportProblems as exc:
        return JSONResponse(
            {"detail": [{"field": p, "reason": r} for p, r in exc.problems]}, status_code=422
        )
    return JSONResponse(
        army_out(builder.army_view(session, user=user, army_id=army.id)).model_dump(mode="json"),
        status_code=201,
    )
