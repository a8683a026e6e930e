"""Army use cases: list, create, update with optimistic locking, delete."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.db.models import Army, User
from app.rules.registry import get_ruleset
from app.services.errors import StaleVersion
from app.services.permissions import Access, army_for, readable_armies


def list_armies(session: Session, *, user: User) -> list[Army]:
    """The user's armies, most recently changed first."""
    query = readable_armies(user).order_by(Army.updated_at.desc(), Army.id.desc())
    return list(session.scalars(query))


def create_army(
    session: Session, *, user: User, name: str, ruleset_id: str, budget: int, notes: str = ""
) -> Army:
    """Create an army under a known ruleset."""
    get_ruleset(ruleset_id)  # raises UnknownRuleset (a 422) for an unknown id
    army = Army(owner_id=user.id, name=name, ruleset_id=ruleset_id, budget=budget, notes=notes)
    session.add(army)
    session.flush()
    return army


def get_army(session: Session, *, user: User, army_id: int) -> Army:
    """An army the user may read."""
    return army_for(session, user=user, army_id=army_id, access=Access.READ)


def update_army(
    session: Session,
    *,
    user: User,
    army_id: int,
    expected_version: int,
    name: str | None = None,
    budget: int | None = None,
    notes: str | None = None,
) -> Army:
    """Change an army's settings; a stale ``expected_version`` is refused, never overwritten."""
    army = army_for(session, user=user, army_id=army_id, access=Access.EDIT)
    if army.version != expected_version:
        raise StaleVersion("army", army.version)
    if name is not None:
        army.name = name
    if budget is not None:
        army.budget = budget
    if notes is not None:
        army.notes = notes
    session.flush()  # the version_id_col check catches a race between two requests
    return army


def delete_army(session: Session, *, user: User, army_id: int) -> str:
    """Delete an army; returns its name for the confirmation message."""
    army = army_for(session, user=user, army_id=army_id, access=Access.DELETE)
    name = army.name
    session.delete(army)
    return name
