"""Start from an example: a ruleset's sample army (``Ruleset.sample_army``, the texts' own
worked examples) made into one of the player's armies in one step, checked as an import is
(every unit decoded, every problem named) and created whole or not at all."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.db.models import Army, User
from app.rules.registry import get_ruleset
from app.services import quotas, transfer
from app.services.army_document import FORMAT, VERSION


def example_document(ruleset_id: str) -> dict[str, Any]:
    """The ruleset's sample army as an export document (units copied: checking normalises
    them in place)."""
    rules = get_ruleset(ruleset_id)  # UnknownRuleset for an unknown id
    sample = rules.sample_army
    return {
        "format": FORMAT,
        "version": VERSION,
        "ruleset": rules.id,
        "name": sample.name,
        "budget": sample.budget,
        "notes": sample.notes,
        "units": [dict(unit) for unit in sample.units],
    }


def create_example(session: Session, *, user: User, ruleset_id: str) -> Army:
    """A new army of the user's, the ruleset's sample army (named with a suffix if the user
    already has an army of that name); counts against the army quota."""
    doc = transfer.check_document(example_document(ruleset_id))
    quotas.armies(session, user=user)
    return transfer.create_from_document(
        session, user=user, doc=doc, summary="started from the example"
    )
