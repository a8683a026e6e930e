"""Who may do what to which army and club: decided here and nowhere else.

Anything a user may not read is reported as NotFound, so a stranger cannot even
learn that it exists. A club member who may read a roster but not change it
gets Forbidden for changes.

Armies: the owner may do anything; when the army is shared with a club, its
members read it, and its organisers (and owner) plus the editors the army's
owner chose may edit it. Deleting and sharing stay with the army's owner.
Clubs: members read; owners and organisers manage members and invitations.
Battles: their owner is the host, who may play every side (``Viewer.role`` "host"); a player
of one of its sides reads it and acts for that side's units ("player"); anyone else gets
NotFound, and sees it only through its read-only link ("spectator"). What only the host may do
(invite, remove a player, end, share, delete: ``host=True``) is Forbidden to a player.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Literal

from sqlalchemy import Select, bindparam, exists, select
from sqlalchemy.orm import Session
from sqlalchemy.orm.interfaces import ORMOption

from app.db.by_id import by_id
from app.db.models import Army, ArmyEditor, Battle, BattleSide, Club, ClubMember, User
from app.services.errors import Forbidden, NotFound

MANAGERS = ("owner", "organiser")


class Access(Enum):
    READ = "read"
    EDIT = "edit"
    DELETE = "delete"
    SHARE = "share"


def readable_armies(user: User) -> Select[Army]:
    """The query of the user's own armies (club rosters are listed on the club's page)."""
    return select(Army).where(Army.owner_id == user.id)


def battle_armies(user: User) -> Select[Army]:
    """The armies a user may bring to a battle: their own and their clubs' rosters."""
    clubs = select(ClubMember.club_id).where(ClubMember.user_id == user.id)
    return select(Army).where((Army.owner_id == user.id) | Army.club_id.in_(clubs))


def club_role(session: Session, *, user: User, club_id: int | None) -> str | None:
    """The user's role in the club, or None."""
    if club_id is None:
        return None
    return session.scalar(
        select(ClubMember.role).where(ClubMember.club_id == club_id, ClubMember.user_id == user.id)
    )


def army_for(
    session: Session,
    *,
    user: User,
    army_id: int,
    access: Access,
    load: Sequence[ORMOption] = (),
) -> Army:
    """Load an army for an action, or raise NotFound / Forbidden.

    ``load`` passes eager-loading options.
    """
    # populate_existing: an army loaded earlier in this request still gets its eager loads.
    if load:
        army = session.get(Army, army_id, options=load, populate_existing=True)
    else:
        army = by_id(session, Army, army_id)
    if army is None:
        raise NotFound("army")
    if army.owner_id == user.id:
        return army
    role = club_role(session, user=user, club_id=army.club_id)
    if role is None:
        raise NotFound("army")
    if access is Access.READ:
        return army
    if access is Access.EDIT and (role in MANAGERS or _chosen_editor(session, army, user)):
        return army
    raise Forbidden("you may read this army but not change it; ask its owner or an organiser")


# A club reader's role and whether they are one of the army's chosen editors (built once).
_READER_RIGHTS = select(
    ClubMember.role,
    exists().where(
        ArmyEditor.army_id == bindparam("army_id"), ArmyEditor.user_id == bindparam("user_id")
    ),
).where(ClubMember.club_id == bindparam("club_id"), ClubMember.user_id == bindparam("user_id"))


# Session.info key: a club reader's rights in an army, read with the login for this request
# ({(army id, user id): (role in its club or None, chosen editor)}; ``sessions.find``).
READER_RIGHTS = "brikforge.reader_rights"


def army_and_rights(session: Session, *, user: User, army_id: int) -> tuple[Army, bool]:
    """An army the user may read (else NotFound, as ``army_for``), and whether they may also
    change it: a club reader's role and editor status in one query, not three (none when the
    login brought them)."""
    army = by_id(session, Army, army_id)
    if army is None:
        raise NotFound("army")
    if army.owner_id == user.id:
        return army, True
    if army.club_id is None:
        raise NotFound("army")
    found = session.info.get(READER_RIGHTS, {}).get((army.id, user.id))
    if found is None:
        found = session.execute(
            _READER_RIGHTS, {"army_id": army.id, "club_id": army.club_id, "user_id": user.id}
        ).one_or_none()
    role, editor = found or (None, False)
    if role is None:
        raise NotFound("army")
    return army, role in MANAGERS or bool(editor)


def _chosen_editor(session: Session, army: Army, user: User) -> bool:
    return bool(
        session.scalar(
            select(exists().where(ArmyEditor.army_id == army.id, ArmyEditor.user_id == user.id))
        )
    )


def club_for(
    session: Session, *, user: User, club_id: int, manage: bool = False
) -> tuple[Club, str]:
    """A club the user belongs to, with their role; ``manage`` requires owner or organiser."""
    club = session.get(Club, club_id)
    role = club_role(session, user=user, club_id=club_id) if club is not None else None
    if club is None or role is None:
        raise NotFound("club")
    if manage and role not in MANAGERS:
        raise Forbidden("only the club's owner and organisers may do that")
    return club, role


@dataclass(frozen=True)
class Viewer:
    """Who looks at or acts in a battle: the ``host`` (its owner: every side is theirs to
    play), a ``player`` (the sides ``side_ids`` are theirs), or a ``spectator`` (the read-only
    link: no side)."""

    role: Literal["host", "player", "spectator"]
    side_ids: frozenset[int] = frozenset()

    @property
    def host(self) -> bool:
        return self.role == "host"

    def plays(self, side_id: int) -> bool:
        """Whether they may act for the units of this side."""
        return self.role == "host" or side_id in self.side_ids


SPECTATOR = Viewer("spectator")


def battle_access(
    session: Session, *, user: User, battle_id: int, host: bool = False
) -> tuple[Battle, Viewer]:
    """A battle the user hosts or plays in, with who they are in it; anyone else: NotFound.
    ``host``: an action only the host takes (a player: Forbidden)."""
    battle = session.get(Battle, battle_id)
    if battle is None:
        raise NotFound("battle")
    if battle.owner_id == user.id:
        return battle, Viewer("host")
    sides = frozenset(
        session.scalars(
            select(BattleSide.id).where(
                BattleSide.battle_id == battle.id, BattleSide.player_id == user.id
            )
        )
    )
    if not sides:
        raise NotFound("battle")
    if host:
        raise Forbidden("only the battle's host may do that")
    return battle, Viewer("player", sides)


def battle_viewer(session: Session, *, user: User, battle_id: int) -> Viewer:
    """Who the user is in a battle they host or play in (anyone else: NotFound)."""
    return battle_access(session, user=user, battle_id=battle_id)[1]


def battle_for(session: Session, *, user: User, battle_id: int, host: bool = False) -> Battle:
    """A battle the user hosts or plays in (``battle_access``), or NotFound."""
    return battle_access(session, user=user, battle_id=battle_id, host=host)[0]
