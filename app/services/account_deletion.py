"""Deleting an account with everything it owns, after showing what that is.

What goes: the account, its armies (with their units, history and read-only links), its
battles, its API tokens and sessions, its club memberships, and every club it owns where it
is the only member (nobody else loses anything). A club it owns with other members stops the
deletion: the owner hands it over first (or deletes the club), so no club is left ownerless.
What stays: other players' forks of its armies and battles that used them (their snapshots).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.db.models import Army, Battle, Club, ClubMember, User
from app.services import accounts, live
from app.services.errors import InvalidField


@dataclass(frozen=True)
class ClubRef:
    id: int
    name: str


@dataclass(frozen=True)
class DeletionPlan:
    """What deleting the account would delete, and which owned clubs stop it."""

    armies: list[str]
    battles: list[str]
    clubs_deleted: list[ClubRef]
    """Clubs the user owns alone: deleted with the account."""
    clubs_blocking: list[ClubRef]
    """Clubs the user owns with other members: to hand over (or delete) first."""
    memberships: list[ClubRef]
    """Clubs the user belongs to without owning them: they are left."""

    @property
    def blocked(self) -> bool:
        return bool(self.clubs_blocking)


def plan(session: Session, *, user: User) -> DeletionPlan:
    """List what deleting ``user`` would delete."""
    armies = session.scalars(
        select(Army.name).where(Army.owner_id == user.id).order_by(Army.name, Army.id)
    ).all()
    battles = session.scalars(
        select(Battle.name).where(Battle.owner_id == user.id).order_by(Battle.name, Battle.id)
    ).all()
    member_count = (
        select(func.count(ClubMember.id))
        .where(ClubMember.club_id == Club.id)
        .correlate(Club)
        .scalar_subquery()
    )
    clubs = session.execute(
        select(Club.id, Club.name, ClubMember.role, member_count.label("members"))
        .join(ClubMember, ClubMember.club_id == Club.id)
        .where(ClubMember.user_id == user.id)
        .order_by(Club.name, Club.id)
    ).all()
    owned = [c for c in clubs if c.role == "owner"]
    return DeletionPlan(
        armies=list(armies),
        battles=list(battles),
        clubs_deleted=[ClubRef(c.id, c.name) for c in owned if c.members == 1],
        clubs_blocking=[ClubRef(c.id, c.name) for c in owned if c.members > 1],
        memberships=[ClubRef(c.id, c.name) for c in clubs if c.role != "owner"],
    )


def delete_account(session: Session, *, user: User, password: str, client_address: str) -> None:
    """Delete the account and everything it owns (the password confirms it)."""
    accounts.check_password(
        session, user=user, password=password, client_address=client_address, field="password"
    )
    what = plan(session, user=user)
    if what.blocked:
        raise InvalidField(
            "club",
            "you own "
            + ", ".join(f"“{club.name}”" for club in what.clubs_blocking)
            + " with other members: make one of them the owner (or delete the club) first",
        )
    if what.clubs_deleted:
        session.execute(delete(Club).where(Club.id.in_([c.id for c in what.clubs_deleted])))
    # The database cascades the rest: armies (units, weapons, history, links, editors),
    # battles, tokens, sessions and memberships; others' rows that named the user keep a null.
    session.execute(delete(User).where(User.id == user.id))
    live.access_changed(session, user_id=user.id)  # its streams end (its battles are gone)
    if user in session:
        session.expunge(user)
