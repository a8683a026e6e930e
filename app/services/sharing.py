"""Sharing an army: with a club, with chosen editors, by read-only link; forking a copy."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.db.base import utcnow
from app.db.models import Army, ArmyEditor, ClubMember, ShareLink, Unit, User, Weapon
from app.services import builder, history, quotas
from app.services.army_figures import cost_value
from app.services.errors import InvalidField, NotFound
from app.services.permissions import Access, army_for, club_role
from app.services.tokens import digest, new_token

MAX_PAGE_SIZE = 100


@dataclass(frozen=True)
class SharingState:
    club_id: int | None
    editor_ids: list[int]
    links: list[ShareLink]


def sharing_state(session: Session, *, user: User, army_id: int) -> SharingState:
    """How the army is shared (its owner's view)."""
    army = army_for(session, user=user, army_id=army_id, access=Access.SHARE)
    editors = list(session.scalars(select(ArmyEditor.user_id).where(ArmyEditor.army_id == army.id)))
    links = list(
        session.scalars(
            select(ShareLink)
            .where(ShareLink.army_id == army.id, ShareLink.revoked_at.is_(None))
            .order_by(ShareLink.id)
        )
    )
    return SharingState(army.club_id, editors, links)


def share(
    session: Session,
    *,
    user: User,
    army_id: int,
    club_id: int | None,
    editor_ids: list[int],
) -> Army:
    """Share with one of the owner's clubs (or make private) and choose its editors."""
    army = army_for(session, user=user, army_id=army_id, access=Access.SHARE)
    if club_id is not None and club_role(session, user=user, club_id=club_id) is None:
        raise InvalidField("club_id", "is not one of your clubs")
    if club_id is None and editor_ids:
        raise InvalidField("editor_ids", "a private army has no editors")
    if editor_ids:
        members = set(
            session.scalars(
                select(ClubMember.user_id).where(
                    ClubMember.club_id == club_id, ClubMember.user_id.in_(editor_ids)
                )
            )
        )
        strangers = set(editor_ids) - members
        if strangers:
            raise InvalidField("editor_ids", "editors must be members of the club")
    army.club_id = club_id
    session.execute(delete(ArmyEditor).where(ArmyEditor.army_id == army.id))
    for editor in sorted(set(editor_ids) - {user.id}):
        session.add(ArmyEditor(army_id=army.id, user_id=editor))
    session.flush()
    return army


def create_link(session: Session, *, user: User, army_id: int) -> tuple[ShareLink, str]:
    """A read-only link; the token is shown once and only its hash is kept."""
    army = army_for(session, user=user, army_id=army_id, access=Access.SHARE)
    quotas.share_links(session, army_id=army.id)
    token, hashed = new_token()
    link = ShareLink(army_id=army.id, token_hash=hashed)
    session.add(link)
    session.flush()
    return link, token


def revoke_link(session: Session, *, user: User, army_id: int, link_id: int) -> None:
    army = army_for(session, user=user, army_id=army_id, access=Access.SHARE)
    link = session.get(ShareLink, link_id)
    if link is None or link.army_id != army.id:
        raise NotFound("link")
    link.revoked_at = utcnow()


def army_for_link(session: Session, *, token: str) -> Army:
    """The army behind a live share link (revoked or unknown tokens are not found)."""
    link = session.scalar(select(ShareLink).where(ShareLink.token_hash == digest(token)))
    if link is None or link.revoked_at is not None:
        raise NotFound("army")
    army = session.get(Army, link.army_id)
    if army is None:
        raise NotFound("army")
    return army


def linked_view(session: Session, *, token: str) -> builder.ArmyView:
    army = army_for_link(session, token=token)
    return builder.build_view(army, builder.load_rows(session, army.id))


def fork(session: Session, *, user: User, source: Army) -> Army:
    """A private copy of an army the user may read, owned by them."""
    quotas.armies(session, user=user)
    rows = builder.load_rows(session, source.id)
    weapons = sum(len(row.weapons) for row in rows)
    quotas.rows(session, owner_id=user.id, units=len(rows), weapons=weapons)
    copy = Army(
        owner_id=user.id,
        name=f"{source.name} (fork)"[:120],
        ruleset_id=source.ruleset_id,
        budget=source.budget,
        notes=source.notes,
        house_rules=dict(source.house_rules or {}),
    )
    session.add(copy)
    session.flush()
    for row in rows:
        unit = Unit(
            army_id=copy.id,
            name=row.name,
            kind=row.kind,
            spec=row.spec,
            count=row.count,
            notes=row.notes,
            position=row.position,
            weapons=[],
        )
        session.add(unit)
        for w in row.weapons:
            session.add(Weapon(unit=unit, type=w.type, spec=w.spec, position=w.position))
    history.record(session, army=copy, user=user, summary=f"forked from “{source.name}”")
    return copy


def fork_army(session: Session, *, user: User, army_id: int) -> Army:
    return fork(
        session, user=user, source=army_for(session, user=user, army_id=army_id, access=Access.READ)
    )


def fork_link(session: Session, *, user: User, token: str) -> Army:
    return fork(session, user=user, source=army_for_link(session, token=token))


@dataclass(frozen=True)
class Roster:
    army: Army
    owner_name: str
    cost: Fraction
    units: int


@dataclass(frozen=True)
class RosterPage:
    """One page of a club's rosters as filtered, and how many rosters the filter found."""

    rosters: list[Roster]
    count: int
    page: int
    page_size: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.count // self.page_size))


def club_rosters(
    session: Session,
    *,
    club_id: int,
    name: str = "",
    owner: str = "",
    min_cost: Fraction | None = None,
    max_cost: Fraction | None = None,
    page: int = 1,
    page_size: int = 20,
    ruleset_id: str | None = None,
) -> RosterPage:
    """One page of the club's rosters with their costs, filtered (the caller checked
    membership), by name then id.

    The filters, the count and the page are SQL, the cost filter on the cost each change
    keeps on the army (``Army.cost``, a float: costs closer than its precision compare
    equal); only the page's own rosters are costed exactly from their units. A club of
    10,000 rosters answers as fast as one of 20. ``ruleset_id``: only that ruleset's rosters
    (costs of different rulesets are in different units: a cost filter needs one).
    """
    where = [Army.club_id == club_id]
    if ruleset_id is not None:
        where.append(Army.ruleset_id == ruleset_id)
    if name:
        where.append(Army.name.ilike(f"%{_like(name)}%", escape="\\"))
    if owner:
        where.append(User.display_name.ilike(f"%{_like(owner)}%", escape="\\"))
    if min_cost is not None:
        where.append(Army.cost >= cost_value(min_cost))
    if max_cost is not None:
        where.append(Army.cost <= cost_value(max_cost))
    count = session.scalar(
        select(func.count()).select_from(Army).join(User, User.id == Army.owner_id).where(*where)
    )
    page_size = min(max(page_size, 1), MAX_PAGE_SIZE)
    page = max(page, 1)
    start = (page - 1) * page_size
    if start >= (count or 0):  # past the last page (and no OFFSET too large for SQL)
        return RosterPage([], count or 0, page, page_size)
    found = session.execute(
        select(Army, User.display_name)
        .join(User, User.id == Army.owner_id)
        .where(*where)
        .order_by(Army.name, Army.id)
        .offset(start)
        .limit(page_size)
    ).all()
    totals = builder.army_totals(session, [army for army, _ in found])
    rosters = [
        Roster(army, owner_name, totals[army.id].cost, totals[army.id].units)
        for army, owner_name in found
        if army.id in totals  # (an army under a ruleset this server does not know)
    ]
    return RosterPage(rosters, count or 0, page, page_size)


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
