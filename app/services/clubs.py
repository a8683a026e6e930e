"""Clubs: create, invite by link, join, roles, leave, remove, transfer ownership, delete."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from app.db.base import utcnow
from app.db.models import Army, ArmyEditor, Club, ClubInvite, ClubMember, User
from app.rules.errors import FieldErrors, InvalidInput
from app.rules.numbers import exact_number
from app.rules.registry import DEFAULT_RULESET, RULESETS, get_ruleset
from app.rules.ruleset import read_options
from app.services import quotas
from app.services.errors import Forbidden, InvalidField, NotFound
from app.services.permissions import club_for, club_role
from app.services.tokens import digest, invite_expiry, is_live, live, new_token


@dataclass(frozen=True)
class Membership:
    club: Club
    role: str
    members: int


@dataclass(frozen=True)
class MemberRow:
    user_id: int
    display_name: str
    email: str
    role: str


def create_club(session: Session, *, user: User, name: str) -> Club:
    """A new club with its creator as owner."""
    quotas.clubs(session, user=user)
    club = Club(name=name.strip())
    session.add(club)
    session.flush()
    session.add(ClubMember(club_id=club.id, user_id=user.id, role="owner"))
    session.flush()
    return club


def my_clubs(session: Session, *, user: User) -> list[Membership]:
    """The clubs the user belongs to, with their role and the member count."""
    rows = session.execute(
        select(Club, ClubMember.role)
        .join(ClubMember, ClubMember.club_id == Club.id)
        .where(ClubMember.user_id == user.id)
        .order_by(Club.name, Club.id)
    ).all()
    counts = _member_counts(session, [c.id for c, _ in rows])
    return [Membership(club, role, counts.get(club.id, 0)) for club, role in rows]


def _member_counts(session: Session, club_ids: list[int]) -> dict[int, int]:
    if not club_ids:
        return {}
    return dict(
        session.execute(
            select(ClubMember.club_id, func.count(ClubMember.id))
            .where(ClubMember.club_id.in_(club_ids))
            .group_by(ClubMember.club_id)
        ).all()
    )


def members(session: Session, *, club_id: int) -> list[MemberRow]:
    order = {"owner": 0, "organiser": 1, "member": 2}
    rows = session.execute(
        select(User.id, User.display_name, User.email, ClubMember.role)
        .join(ClubMember, ClubMember.user_id == User.id)
        .where(ClubMember.club_id == club_id)
    ).all()
    return sorted((MemberRow(*r) for r in rows), key=lambda m: (order[m.role], m.display_name))


def create_invite(session: Session, *, user: User, club_id: int) -> tuple[ClubInvite, str]:
    """An invitation link valid for a week; the token is returned once."""
    club_for(session, user=user, club_id=club_id, manage=True)
    quotas.invitations(session, club_id=club_id)
    token, hashed = new_token()
    invite = ClubInvite(
        club_id=club_id,
        token_hash=hashed,
        created_by_id=user.id,
        expires_at=invite_expiry(),
    )
    session.add(invite)
    session.flush()
    return invite, token


def open_invites(session: Session, *, user: User, club_id: int) -> list[ClubInvite]:
    club_for(session, user=user, club_id=club_id, manage=True)
    return list(
        session.scalars(
            select(ClubInvite)
            .where(ClubInvite.club_id == club_id, *live(ClubInvite))
            .order_by(ClubInvite.id)
        )
    )


def revoke_invite(session: Session, *, user: User, club_id: int, invite_id: int) -> None:
    club_for(session, user=user, club_id=club_id, manage=True)
    invite = session.get(ClubInvite, invite_id)
    if invite is None or invite.club_id != club_id:
        raise NotFound("invitation")
    invite.revoked_at = utcnow()


def invite_for(session: Session, *, token: str) -> tuple[ClubInvite, Club]:
    """The live invitation behind a token (expired or revoked ones are not found)."""
    invite = session.scalar(select(ClubInvite).where(ClubInvite.token_hash == digest(token)))
    if invite is None or not is_live(invite):
        raise NotFound("invitation")
    club = session.get(Club, invite.club_id)
    assert club is not None
    return invite, club


@dataclass(frozen=True)
class Invitation:
    """A live invitation as its landing page shows it: the club, and who made the link
    (``None`` when their account is gone)."""

    club: Club
    inviter: str | None


def invitation(session: Session, *, token: str) -> Invitation:
    """The club and the inviter of a live invitation (unknown, expired or revoked: NotFound,
    alike, so a dead link tells nothing of the club it was for)."""
    invite, club = invite_for(session, token=token)
    inviter = session.get(User, invite.created_by_id) if invite.created_by_id else None
    return Invitation(club, inviter.display_name if inviter is not None else None)


def join(session: Session, *, user: User, token: str) -> Club:
    """Join the club of an invitation (joining twice changes nothing)."""
    _, club = invite_for(session, token=token)
    exists = session.scalar(
        select(ClubMember.id).where(ClubMember.club_id == club.id, ClubMember.user_id == user.id)
    )
    if exists is None:
        session.add(ClubMember(club_id=club.id, user_id=user.id, role="member"))
        session.flush()
    return club


def _membership(session: Session, club_id: int, user_id: int) -> ClubMember:
    member = session.scalar(
        select(ClubMember).where(ClubMember.club_id == club_id, ClubMember.user_id == user_id)
    )
    if member is None:
        raise NotFound("member")
    return member


def _drop_from_club(session: Session, club_id: int, user_id: int) -> None:
    """A departing member's rosters stop being shared and their edit rights go."""
    session.execute(
        update(Army)
        .where(Army.club_id == club_id, Army.owner_id == user_id)
        .values(club_id=None)
        .execution_options(synchronize_session=False)
    )
    club_armies = select(Army.id).where(Army.club_id == club_id)
    session.execute(
        delete(ArmyEditor)
        .where(ArmyEditor.user_id == user_id, ArmyEditor.army_id.in_(club_armies))
        .execution_options(synchronize_session=False)
    )


def leave(session: Session, *, user: User, club_id: int) -> None:
    """Leave a club; an owner must hand the club to someone first."""
    _, role = club_for(session, user=user, club_id=club_id)
    if role == "owner":
        raise InvalidField("club", "transfer the ownership to another member before leaving")
    session.delete(_membership(session, club_id, user.id))
    _drop_from_club(session, club_id, user.id)


def remove_member(session: Session, *, user: User, club_id: int, member_id: int) -> None:
    """Remove a member: organisers remove members, the owner removes anyone but themself."""
    _, role = club_for(session, user=user, club_id=club_id, manage=True)
    member = _membership(session, club_id, member_id)
    if member.user_id == user.id:
        raise InvalidField("member", "use Leave to leave the club")
    if member.role == "owner" or (member.role == "organiser" and role != "owner"):
        raise Forbidden("only the owner may remove an organiser, and nobody the owner")
    session.delete(member)
    _drop_from_club(session, club_id, member_id)


def set_role(session: Session, *, user: User, club_id: int, member_id: int, role: str) -> None:
    """The owner makes members organisers, or organisers members again."""
    _, mine = club_for(session, user=user, club_id=club_id, manage=True)
    if mine != "owner":
        raise Forbidden("only the club's owner may change roles")
    if role not in ("organiser", "member"):
        raise InvalidField("role", "must be organiser or member")
    member = _membership(session, club_id, member_id)
    if member.role == "owner":
        raise InvalidField("role", "transfer the ownership instead")
    member.role = role


def transfer_ownership(session: Session, *, user: User, club_id: int, member_id: int) -> None:
    """Hand the club to another member; the old owner stays on as an organiser."""
    _, mine = club_for(session, user=user, club_id=club_id)
    if mine != "owner":
        raise Forbidden("only the club's owner may hand it over")
    target = _membership(session, club_id, member_id)
    if target.user_id == user.id:
        raise InvalidField("member", "you already own this club")
    _membership(session, club_id, user.id).role = "organiser"
    target.role = "owner"


def played_rulesets(session: Session, *, club_id: int) -> list[str]:
    """The rulesets the club's members build armies in (any of their armies, shared or not),
    in the registry's order; one this server does not know is left out."""
    played = set(
        session.scalars(
            select(Army.ruleset_id)
            .join(ClubMember, ClubMember.user_id == Army.owner_id)
            .where(ClubMember.club_id == club_id)
            .distinct()
        )
    )
    return [ruleset_id for ruleset_id in RULESETS if ruleset_id in played]


def house_rule_rulesets(club: Club, played: Sequence[str]) -> list[str]:
    """The rulesets whose house rules the club's page pins: those its members play and those
    already pinned (the default ruleset when there are none yet), in the registry's order."""
    pinned = set(club.house_rules or {})
    shown = [r for r in RULESETS if r in pinned or r in played]
    return shown or [DEFAULT_RULESET]


@dataclass(frozen=True)
class RosterSearch:
    """A club roster search's ruleset and cost bounds, read (``roster_search``): costs are
    in the ruleset's own unit, so bounds come with a ruleset. ``ruleset_id`` None: all."""

    ruleset_id: str | None
    min_cost: Fraction | None = None
    max_cost: Fraction | None = None

    @property
    def cost_unit(self) -> str | None:
        return None if self.ruleset_id is None else get_ruleset(self.ruleset_id).cost_unit


NEEDS_RULESET = "choose a ruleset first: each counts costs in its own unit"


def roster_search(
    played: Sequence[str],
    *,
    ruleset: str | None,
    min_cost: object = None,
    max_cost: object = None,
) -> RosterSearch:
    """The search as asked: ``ruleset`` absent (None) is the one ruleset the members play, if
    they play just one, else all; empty is all. A cost bound (form text or a number; empty:
    none) needs a ruleset. Every wrong field at once: ``InvalidFields`` (ruleset, min_cost,
    max_cost)."""
    errors = FieldErrors()
    chosen: str | None
    if ruleset is None:
        chosen = played[0] if len(played) == 1 else None
    elif ruleset == "":
        chosen = None
    elif ruleset in RULESETS:
        chosen = ruleset
    else:
        errors.add("ruleset", "is not a ruleset of this server")
        chosen = None
    bounds: dict[str, Fraction | None] = {}
    for name, value in (("min_cost", min_cost), ("max_cost", max_cost)):
        bounds[name] = None
        if value is None or value == "":
            continue
        try:
            bounds[name] = exact_number(value, name)
        except InvalidInput as exc:
            errors.add(exc.field, exc.reason)
            continue
        if chosen is None and "ruleset" not in errors.errors:
            errors.add(name, NEEDS_RULESET)
    errors.raise_any()
    return RosterSearch(chosen, bounds["min_cost"], bounds["max_cost"])


def house_rules_of(club: Club, ruleset_id: str = DEFAULT_RULESET) -> dict[str, Any]:
    """The house rules the club pinned for armies of this ruleset ({} when none)."""
    return dict((club.house_rules or {}).get(ruleset_id) or {})


def pin_house_rules(
    session: Session,
    *,
    user: User,
    club_id: int,
    options: dict[str, Any],
    ruleset_id: str = DEFAULT_RULESET,
    form: bool = False,
) -> Club:
    """The house rules new armies of the club under this ruleset start with (validated by
    the ruleset's engine); those pinned for other rulesets stay as they are."""
    club, _ = club_for(session, user=user, club_id=club_id, manage=True)
    checked = _checked_options(ruleset_id, options, form)
    club.house_rules = {**(club.house_rules or {}), ruleset_id: checked}  # a new dict: saved
    session.flush()
    return club


def _checked_options(ruleset_id: str, options: dict[str, Any], form: bool) -> dict[str, Any]:
    rules = get_ruleset(ruleset_id)  # an unknown id is a 422
    return rules.encode_options(read_options(rules, options, form=form))


def effective_house_rules(club: Club, ruleset_id: str = DEFAULT_RULESET) -> dict[str, Any]:
    """Every option of the ruleset as the club's new armies get it (defaults filled in). An
    option the ruleset no longer knows is left out; pinned values it can no longer read at
    all show as its defaults (the page still opens, and pinning again mends them)."""
    rules = get_ruleset(ruleset_id)
    known = {f.name for f in rules.option_fields}
    pinned = {k: v for k, v in house_rules_of(club, ruleset_id).items() if k in known}
    try:
        return rules.encode_options(rules.decode_options(pinned))
    except InvalidInput:
        return rules.encode_options(rules.decode_options({}))


@dataclass(frozen=True)
class ClubContents:
    """What deleting a club takes with it (its confirmation names them); the rosters shared
    with it stay their owners', shared no more."""

    club: Club
    members: int
    invitations: int
    rosters: int


def club_contents(session: Session, *, user: User, club_id: int) -> ClubContents:
    """A club the user owns, with what deleting it would take (others: Forbidden/NotFound)."""
    club = _owned(session, user=user, club_id=club_id)

    def count(column: Any, where: Any) -> int:
        return session.scalar(select(func.count(column)).where(where)) or 0

    return ClubContents(
        club,
        members=count(ClubMember.id, ClubMember.club_id == club.id),
        invitations=count(
            ClubInvite.id,
            (ClubInvite.club_id == club.id)
            & ClubInvite.revoked_at.is_(None)
            & (ClubInvite.expires_at > utcnow()),
        ),
        rosters=count(Army.id, Army.club_id == club.id),
    )


def _owned(session: Session, *, user: User, club_id: int) -> Club:
    club, role = club_for(session, user=user, club_id=club_id)
    if role != "owner":
        raise Forbidden("only the club's owner may delete it")
    return club


def delete_club(session: Session, club: Club, user: User) -> None:
    """Delete a club its owner (a club has one) asks to delete: every membership and
    invitation goes, and the rosters shared with it stay their owners', shared no more
    (with the edit rights members had on them). Anyone else: Forbidden."""
    if club_role(session, user=user, club_id=club.id) != "owner":
        raise Forbidden("only the club's owner may delete it")
    club_armies = select(Army.id).where(Army.club_id == club.id)
    session.execute(
        delete(ArmyEditor)
        .where(ArmyEditor.army_id.in_(club_armies))
        .execution_options(synchronize_session=False)
    )
    session.execute(update(Army).where(Army.club_id == club.id).values(club_id=None))
    for table in (ClubInvite, ClubMember):
        session.execute(
            delete(table)
            .where(table.club_id == club.id)
            .execution_options(synchronize_session=False)
        )
    session.delete(club)
    session.flush()


def delete_club_by_id(session: Session, *, user: User, club_id: int) -> str:
    """Delete a club of the user's by id (see ``delete_club``); its name."""
    club = _owned(session, user=user, club_id=club_id)
    name = club.name
    delete_club(session, club, user)
    return name
