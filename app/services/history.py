"""Revisions: every saved change to an army, in words, with the army as it then stood.

A revision's snapshot is the export document (``army_document.export_doc``), so viewing
an old revision, restoring it and exporting share one format.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from app.db.models import Army, ArmyRevision, Unit, User
from app.services.army_document import add_units, export_json
from app.services.army_figures import cost_value, total_cost
from app.services.army_rows import KEEPS_ROWS, load_rows, lock_army
from app.services.errors import NotFound
from app.services.permissions import Access, army_for


def record(session: Session, *, army: Army, user: User | None, summary: str) -> ArmyRevision:
    """Save a revision of the army as it stands now (after this action's changes)."""
    session.flush()
    rows = load_rows(session, army.id)
    # The cost the club search filters on, written as a plain UPDATE: the army's version
    # (its optimistic lock) counts its settings' edits, and a unit change is not one.
    cost = cost_value(total_cost(army, rows))
    session.execute(
        update(Army)
        .where(Army.id == army.id)
        .values(cost=cost)
        .execution_options(synchronize_session=False, **KEEPS_ROWS)
    )
    set_committed_value(army, "cost", cost)
    revision = ArmyRevision(
        army_id=army.id,
        user_id=user.id if user else None,
        summary=summary[:500],
        snapshot_json=export_json(army, rows),
        army_version=army.version,
    )
    session.add(revision)
    session.flush()
    return revision


def revisions(session: Session, *, user: User, army_id: int) -> list[tuple[ArmyRevision, str]]:
    """The army's revisions, newest first, with who made each."""
    army = army_for(session, user=user, army_id=army_id, access=Access.READ)
    rows = session.execute(
        select(ArmyRevision, User.display_name)
        .outerjoin(User, User.id == ArmyRevision.user_id)
        .where(ArmyRevision.army_id == army.id)
        .order_by(ArmyRevision.id.desc())
    ).all()
    return [(rev, name or "someone") for rev, name in rows]


def revision(session: Session, *, user: User, army_id: int, revision_id: int) -> ArmyRevision:
    army = army_for(session, user=user, army_id=army_id, access=Access.READ)
    rev = session.get(ArmyRevision, revision_id)
    if rev is None or rev.army_id != army.id:
        raise NotFound("revision")
    return rev


def restore(session: Session, *, user: User, army_id: int, revision_id: int) -> Army:
    """Make the army what it was at a revision again, recorded as a new revision."""
    army = army_for(session, user=user, army_id=army_id, access=Access.EDIT)
    rev = revision(session, user=user, army_id=army_id, revision_id=revision_id)
    number = session.scalar(
        select(ArmyRevision.id)
        .where(ArmyRevision.army_id == army.id, ArmyRevision.id <= rev.id)
        .order_by(ArmyRevision.id.desc())
    )
    replace_contents(session, army=army, doc=rev.snapshot)
    record(
        session,
        army=army,
        user=user,
        summary=f"restored the revision of {rev.created_at:%Y-%m-%d %H:%M} (#{number})",
    )
    return army


def replace_contents(session: Session, *, army: Army, doc: dict[str, Any]) -> None:
    """Set an army's settings and units to those of an export document."""
    lock_army(session, army.id)  # racing adds wait: positions restart at 0
    army.name = doc["name"]
    army.budget = doc["budget"]
    army.notes = doc.get("notes", "")
    army.house_rules = doc.get("house_rules", {})
    session.execute(delete(Unit).where(Unit.army_id == army.id))
    add_units(session, army_id=army.id, units=doc["units"])


def settings_at(session: Session, army_id: int, version: int) -> dict[str, Any] | None:
    """The army's name, budget and notes as they stood at ``version`` (None if unrecorded)."""
    snapshot = session.scalar(
        select(ArmyRevision.snapshot_json)
        .where(ArmyRevision.army_id == army_id, ArmyRevision.army_version == version)
        .order_by(ArmyRevision.id.desc())
        .limit(1)
    )
    if snapshot is None:
        return None
    doc = json.loads(snapshot)
    return {"name": doc["name"], "budget": doc["budget"], "notes": doc.get("notes", "")}


def latest_change(session: Session, army_id: int) -> str | None:
    """The newest revision in words: 'Alice at 12:04 UTC: renamed ...'."""
    row = session.execute(
        select(ArmyRevision, User.display_name)
        .outerjoin(User, User.id == ArmyRevision.user_id)
        .where(ArmyRevision.army_id == army_id)
        .order_by(ArmyRevision.id.desc())
        .limit(1)
    ).first()
    if row is None:
        return None
    rev, name = row
    return f"{name or 'someone'} at {rev.created_at:%H:%M} UTC: {rev.summary}"
