"""Club pages: my clubs, a club (members, invitations, rosters, house rules), joining."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.db.models import Club
from app.rules.errors import InvalidInput, UnknownRuleset
from app.rules.fields import format_field
from app.rules.registry import RULESETS, get_ruleset
from app.rules.text import control_character_reason
from app.services import clubs, sharing
from app.services.errors import InvalidField, NotFound
from app.services.permissions import MANAGERS, club_for, club_role
from app.web.builder_forms import house_rules
from app.web.deps import CurrentUser, FormDep, OptionalUser, SessionDep, SessionRoute
from app.web.forms import validate_form
from app.web.htmx import INVITE_TOKEN, JOIN_PATH, invite_url, is_htmx, redirect
from app.web.inputs import Id, Line, parse_id
from app.web.schemas import ClubCreate
from app.web.security_headers import PRIVATE_PAGE
from app.web.templating import flash, render

router = APIRouter(route_class=SessionRoute)
PAGE_SIZE = 20


@router.get("/clubs")
def club_list(request: Request, session: SessionDep, user: CurrentUser) -> Response:
    """My clubs and the form for a new one."""
    return render(
        request,
        "clubs/list.html",
        {"memberships": clubs.my_clubs(session, user=user), "values": {}, "errors": {}},
    )


@router.post("/clubs")
def club_create(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep
) -> Response:
    """Found a club; you are its owner."""
    data, errors = validate_form(ClubCreate, form)
    if data is None:
        return render(
            request,
            "clubs/list.html",
            {"memberships": clubs.my_clubs(session, user=user), "values": form, "errors": errors},
            block="new_club_form",
            status_code=422,
        )
    club = clubs.create_club(session, user=user, name=data.name)
    flash(request, f"Club “{club.name}” founded. Invite members with a link.", "success")
    return redirect(request, f"/clubs/{club.id}")


def _search(
    params: Mapping[str, str], played: list[str]
) -> tuple[clubs.RosterSearch | None, dict[str, str]]:
    """The roster search the query asks (ruleset picker, cost bounds in its unit), or None
    and every wrong field's reason."""
    try:
        search = clubs.roster_search(
            played,
            ruleset=params.get("ruleset"),
            min_cost=params.get("min_cost", "").strip(),
            max_cost=params.get("max_cost", "").strip(),
        )
    except InvalidInput as exc:
        return None, exc.reasons()
    return search, {}


def _house_rules_forms(
    club: Club, shown: list[str], failed: tuple[str, Mapping[str, str], dict[str, str]] | None
) -> list[dict[str, Any]]:
    """Each pinned ruleset's house-rules form: the ruleset, its fields' values as its inputs
    show them (as typed where a pinning failed) and their errors."""
    forms = []
    for ruleset_id in shown:
        rules = get_ruleset(ruleset_id)
        current = clubs.effective_house_rules(club, ruleset_id)
        values = {f.name: format_field(f, current[f.name]) for f in rules.option_fields}
        errors: dict[str, str] = {}
        if failed is not None and failed[0] == ruleset_id:
            values = {**values, **{f.name: "" for f in rules.option_fields if f.kind == "flag"}}
            values.update(failed[1])
            errors = failed[2]
        forms.append({"rules": rules, "inputs": values, "current": current, "errors": errors})
    return forms


def _club_page(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    club_id: Id,
    *,
    failed: tuple[str, Mapping[str, str], dict[str, str]] | None = None,
    **extra: Any,
) -> Response:
    club, role = club_for(session, user=user, club_id=club_id)
    params = request.query_params
    for field in ("name", "owner"):
        if (reason := control_character_reason(params.get(field, ""))) is not None:
            raise InvalidField(field, reason)
    played = clubs.played_rulesets(session, club_id=club.id)
    search, search_errors = _search(params, played)
    found = sharing.club_rosters(
        session,
        club_id=club.id,
        name=params.get("name", "")[:120],
        owner=params.get("owner", "")[:120],
        min_cost=search.min_cost if search else None,
        max_cost=search.max_cost if search else None,
        page=parse_id(params.get("page")) or 1,
        page_size=PAGE_SIZE,
        ruleset_id=search.ruleset_id if search else None,
    )
    shown = clubs.house_rule_rulesets(club, played)
    if failed is not None and failed[0] not in shown:
        shown = [r for r in RULESETS if r in shown or r == failed[0]]
    chosen = search.ruleset_id if search else params.get("ruleset", "")
    context = {
        "club": club,
        "role": role,
        "manager": role in MANAGERS,
        "members": clubs.members(session, club_id=club.id),
        "invites": clubs.open_invites(session, user=user, club_id=club.id)
        if role in MANAGERS
        else [],
        "rosters": found.rosters if search else [],
        "roster_count": found.count if search else 0,
        "page": found.page,
        "pages": found.pages,
        "search": {**dict(params), "ruleset": chosen or ""},
        "search_errors": search_errors,
        "cost_unit": get_ruleset(chosen).cost_unit if chosen in RULESETS else None,
        "rulesets": list(RULESETS.values()),
        "house_rules_forms": _house_rules_forms(club, shown, failed),
        "other_house_rules_forms": _house_rules_forms(
            club, [r for r in RULESETS if r not in shown], None
        )
        if role in MANAGERS
        else [],
        "new_invite": None,
        **extra,
    }
    fragment = request.headers.get("hx-target") == "rosters"
    return render(
        request,
        "clubs/detail.html",
        context,
        block="rosters" if fragment else None,
        oob=("cost_unit", "search_errors") if fragment else (),
        status_code=422 if search_errors or failed else 200,
    )


@router.get("/clubs/{club_id:int}")
def club_detail(request: Request, session: SessionDep, user: CurrentUser, club_id: Id) -> Response:
    """A club: members, invitations, rosters (searchable), pinned house rules."""
    return _club_page(request, session, user, club_id)


@router.get("/clubs/{club_id:int}/invites")
def invite_list(request: Request, session: SessionDep, user: CurrentUser, club_id: Id) -> Response:
    """The club page with its open invitations (a reload after making a link lands here);
    the link made is never shown again."""
    return _club_page(request, session, user, club_id)


@router.post("/clubs/{club_id:int}/invites")
def invite_create(
    request: Request, session: SessionDep, user: CurrentUser, club_id: Id
) -> Response:
    """Make an invitation link (shown once, valid for a week)."""
    _, token = clubs.create_invite(session, user=user, club_id=club_id)
    url = invite_url(request, token)
    return _club_page(request, session, user, club_id, new_invite=url)


@router.post("/clubs/{club_id:int}/invites/{invite_id:int}/revoke")
def invite_revoke(
    request: Request, session: SessionDep, user: CurrentUser, club_id: Id, invite_id: Id
) -> Response:
    """Revoke an invitation link at once."""
    clubs.revoke_invite(session, user=user, club_id=club_id, invite_id=invite_id)
    flash(request, "Invitation revoked.", "success")
    return redirect(request, f"/clubs/{club_id}")


# An invitation's pages carry its token in the address: no copy is kept (a shared computer's
# cache) and no other page, ours or not, is told where it came from.
PRIVATE = PRIVATE_PAGE


def _invitation(session: SessionDep, token: str) -> clubs.Invitation | None:
    """The live invitation behind ``token``, or None however it is dead (unknown, expired,
    revoked, or not even shaped like a token): all alike."""
    if not INVITE_TOKEN.fullmatch(token):
        return None
    try:
        return clubs.invitation(session, token=token)
    except NotFound:
        return None


def _invitation_gone(request: Request) -> Response:
    """The one page for every dead invitation link: it names no club and nobody."""
    return render(request, "clubs/invitation_gone.html", {}, status_code=404, headers=PRIVATE)


@router.get("/clubs/join/{token}")
def join_page(request: Request, session: SessionDep, user: OptionalUser, token: str) -> Response:
    """An invitation: who invites you to which club, then Join (logged in), or Sign up /
    Log in, which keep the invitation and join on the way. A dead link: one generic page."""
    invitation = _invitation(session, token)
    if invitation is None:
        return _invitation_gone(request)
    path = f"{JOIN_PATH}{token}"
    role = None if user is None else club_role(session, user=user, club_id=invitation.club.id)
    return render(
        request,
        "clubs/join.html",
        {
            "invitation": invitation,
            "club": invitation.club,
            "token": token,
            "role": role,
            "next": path if user is None else "",  # the navigation's Log in / Sign up keep it
        },
        headers=PRIVATE,
    )


@router.post("/clubs/join/{token}")
def join(request: Request, session: SessionDep, user: CurrentUser, token: str) -> Response:
    """Join the club."""
    if _invitation(session, token) is None:
        return _invitation_gone(request)
    club = clubs.join(session, user=user, token=token)
    flash(request, f"Welcome to {club.name}!", "success")
    return redirect(request, f"/clubs/{club.id}")


def _club_action(request: Request, club_id: Id, message: str) -> Response:
    flash(request, message, "success")
    return redirect(request, f"/clubs/{club_id}")


@router.get("/clubs/{club_id:int}/delete")
def club_delete_confirm(
    request: Request, session: SessionDep, user: CurrentUser, club_id: Id
) -> Response:
    """Ask the owner before deleting, naming the club and what goes with it."""
    contents = clubs.club_contents(session, user=user, club_id=club_id)
    return render(request, "clubs/delete.html", {"contents": contents})


@router.post("/clubs/{club_id:int}/delete")
def club_delete(request: Request, session: SessionDep, user: CurrentUser, club_id: Id) -> Response:
    """Delete the club for good (its owner only); the rosters stay with their owners."""
    name = clubs.delete_club_by_id(session, user=user, club_id=club_id)
    flash(request, f"Club “{name}” deleted.", "success")
    return redirect(request, "/clubs")


@router.post("/clubs/{club_id:int}/leave")
def leave(request: Request, session: SessionDep, user: CurrentUser, club_id: Id) -> Response:
    """Leave the club (your rosters stop being shared with it)."""
    try:
        clubs.leave(session, user=user, club_id=club_id)
    except InvalidField as exc:
        flash(request, f"You cannot leave yet: {exc.reason}.", "error")
        return redirect(request, f"/clubs/{club_id}")
    flash(request, "You left the club.", "success")
    return redirect(request, "/clubs")


@router.post("/clubs/{club_id:int}/members/{member_id:int}/remove")
def member_remove(
    request: Request, session: SessionDep, user: CurrentUser, club_id: Id, member_id: Id
) -> Response:
    """Remove a member."""
    clubs.remove_member(session, user=user, club_id=club_id, member_id=member_id)
    return _club_action(request, club_id, "Member removed.")


@router.post("/clubs/{club_id:int}/members/{member_id:int}/role")
def member_role(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    form: FormDep,
    club_id: Id,
    member_id: Id,
) -> Response:
    """Make a member an organiser, or an organiser a member."""
    clubs.set_role(
        session, user=user, club_id=club_id, member_id=member_id, role=form.get("role", "")
    )
    return _club_action(request, club_id, "Role changed.")


@router.post("/clubs/{club_id:int}/transfer")
def transfer(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep, club_id: Id
) -> Response:
    """Hand the club to another member."""
    member = parse_id(form.get("member_id"))
    if member is None:
        raise InvalidField("member_id", "choose a member")
    clubs.transfer_ownership(session, user=user, club_id=club_id, member_id=member)
    return _club_action(request, club_id, "Ownership transferred; you are now an organiser.")


@router.post("/clubs/{club_id:int}/house-rules/{ruleset_id}")
def club_house_rules(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    form: FormDep,
    club_id: Id,
    ruleset_id: Line,
) -> Response:
    """Pin the house rules that the club's new armies of this ruleset start with (each
    ruleset's own fields); a wrong value: 422, each wrong field named beside it."""
    options = house_rules(form)
    try:
        club = clubs.pin_house_rules(
            session, user=user, club_id=club_id, options=options, ruleset_id=ruleset_id, form=True
        )
    except UnknownRuleset:  # (only once the club is found: another's club is a 404 first)
        raise
    except InvalidInput as exc:
        failed = (ruleset_id, options, exc.reasons())
        if not is_htmx(request):
            return _club_page(request, session, user, club_id, failed=failed)
        club, _ = club_for(session, user=user, club_id=club_id)
        return render(
            request,
            "clubs/house_rules.html",
            {
                "club": club,
                "manager": True,
                "form": _house_rules_forms(club, [ruleset_id], failed)[0],
            },
            status_code=422,
        )
    rules = get_ruleset(ruleset_id)
    message = f"{rules.name} house rules pinned for new armies."
    if is_htmx(request):
        hr_form = _house_rules_forms(club, [rules.id], None)[0]
        return render(
            request,
            "clubs/house_rules.html",
            {"club": club, "manager": True, "form": hr_form, "saved": message},
        )
    return _club_action(request, club_id, message)
