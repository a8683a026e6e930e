"""Army use cases: list, create, update with optimistic locking, delete."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db.models import Army, Club, Unit, User, Weapon
from app.rules.registry import get_ruleset
from app.services import clubs, history, merge, quotas
from app.services.army_rows import lock_army
from app.services.errors import InvalidField, StaleVersion
from app.services.permissions import Access, army_for, club_role, readable_armies


def list_armies(session: Session, *, user: User) -> list[Army]:
    """The user's armies, most recently changed first."""
    query = readable_armies(user).order_by(Army.updated_at.desc(), Army.id.desc())
    return list(session.scalars(query))


def create_army(
    session: Session,
    *,
    user: User,
    name: str,
    ruleset_id: str,
    budget: int,
    notes: str = "",
    club_id: int | None = None,
) -> Army:
    """Create an army under a known ruleset; in a club, it starts with the club's house rules."""
    get_ruleset(ruleset_id)  # raises UnknownRuleset (a 422) for an unknown id
    quotas.armies(session, user=user)
    house_rules: dict[str, Any] = {}
    if club_id is not None:
        club = session.get(Club, club_id)
        if club is None or club_role(session, user=user, club_id=club_id) is None:
            raise InvalidField("club_id", "is not one of your clubs")
        house_rules = clubs.house_rules_of(club, ruleset_id)
    army = Army(
        owner_id=user.id,
        name=name,
        ruleset_id=ruleset_id,
        budget=budget,
        notes=notes,
        club_id=club_id,
        house_rules=house_rules,
    )
    session.add(army)
    session.flush()
    history.record(session, army=army, user=user, summary="created the army")
    return army


def get_army(session: Session, *, user: User, army_id: int, access: Access = Access.READ) -> Army:
    """An army the user may read (or act on with ``access``)."""
    return army_for(session, user=user, army_id=army_id, access=access)


def update_army(
    session: Session,
    *,
    user: User,
    army_id: int,
    expected_version: int,
    name: str | None = None,
    budget: int | None = None,
    notes: str | None = None,
    base: Mapping[str, Any] | None = None,
) -> Army:
    """Change an army's settings; a stale ``expected_version`` is never overwritten.

    A stale edit is merged: the fields it changed since ``base`` (the settings as the
    client loaded them; read from the history when not sent) go on top of the version
    that won, unless that version changed them too (``EditConflict``, a 409).
    """
    army = army_for(session, user=user, army_id=army_id, access=Access.EDIT)
    sent: dict[str, Any] = {
        k: v for k, v in (("name", name), ("budget", budget), ("notes", notes)) if v is not None
    }
    note = ""
    if army.version != expected_version:
        theirs = {"name": army.name, "budget": army.budget, "notes": army.notes}
        latest = history.latest_change(session, army.id)
        # The base sent wins; a field it leaves out is read from the history.
        given = {k: v for k, v in (base or {}).items() if v is not None}
        recorded = history.settings_at(session, army.id, expected_version)
        if recorded is None and not given:
            raise StaleVersion("army", army.version, latest)
        base = {**(recorded or {}), **given}
        # PATCH semantics: a field not sent is not changed.
        mine = {**base, **sent}
        merged = merge.merged_or_conflict(
            session,
            what="army",
            current_version=army.version,
            latest_change=latest,
            base={k: base.get(k) for k in theirs},
            mine={k: mine.get(k) for k in theirs},
            theirs=theirs,
        )
        sent = {k: v for k, v in merged.items() if v != theirs[k]}
        note = f" ({merge.MERGED_NOTE})"
    changes = []
    if "name" in sent and sent["name"] != army.name:
        changes.append(f"renamed “{army.name}” to “{sent['name']}”")
        army.name = sent["name"]
    if "budget" in sent and sent["budget"] != army.budget:
        changes.append(f"budget {army.budget} → {sent['budget']} CP")
        army.budget = sent["budget"]
    if "notes" in sent and sent["notes"] != army.notes:
        changes.append("changed the notes")
        army.notes = sent["notes"]
    session.flush()  # the version_id_col check catches a race between two requests
    if changes:
        history.record(session, army=army, user=user, summary="; ".join(changes) + note)
    return army


def delete_army(session: Session, *, user: User, army_id: int) -> str:
    """Delete an army; returns its name for the confirmation message."""
    army = army_for(session, user=user, army_id=army_id, access=Access.DELETE)
    name = army.name
    # Its units and weapons go back to the owner's account: counted under the army's lock
    # (racing adds wait, and the account's row is locked after it, as an add locks them).
    lock_army(session, army.id)
    units = session.scalar(select(func.count(Unit.id)).where(Unit.army_id == army.id))
    weapons = session.scalar(
        select(func.count(Weapon.id)).join(Unit).where(Unit.army_id == army.id)
    )
    quotas.rows(session, owner_id=army.owner_id, units=-(units or 0), weapons=-(weapons or 0))
    session.delete(army)
    return name
