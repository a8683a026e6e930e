"""Who may do what to which army: decided here and nowhere else.

Anything a user may not read is reported as NotFound, so a stranger cannot
even learn that an army exists.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from sqlalchemy import Select, select
from sqlalchemy.orm import Session
from sqlalchemy.orm.interfaces import ORMOption

from app.db.models import Army, User
from app.services.errors import NotFound


class Access(Enum):
    READ = "read"
    EDIT = "edit"
    DELETE = "delete"


def readable_armies(user: User) -> Select[tuple[Army]]:
    """The query of every army this user may read."""
    return select(Army).where(Army.owner_id == user.id)


def army_for(
    session: Session,
    *,
    user: User,
    army_id: int,
    access: Access,
    load: Sequence[ORMOption] = (),
) -> Army:
    """Load an army for an action, or raise NotFound if the user may not do it.

    ``load`` passes eager-loading options (the builder loads units and weapons with it).
    """
    # populate_existing: an army loaded earlier in this request still gets its eager loads.
    army = session.get(Army, army_id, options=load, populate_existing=bool(load))
    if army is None or not _allowed(user, army, access):
        raise NotFound("army")
    return army


def _allowed(user: User, army: Army, access: Access) -> bool:
    # Only owners so far; clubs and share links extend this table later.
    return army.owner_id == user.id
