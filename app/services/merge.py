"""Three-way merge of a stale edit: re-apply only what this form changed onto the winner.

``base`` is the record as the form loaded it, ``mine`` what the form submitted and
``theirs`` the record as it now stands. A field only I changed takes my value; a field
only they changed keeps theirs; a field both changed to different values is a conflict.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy.orm import Session

from app.services.errors import EditConflict, FieldConflict

MERGED_KEY = "brikforge.merged"
MERGED_NOTE = "merged with a change made elsewhere"


def three_way(
    base: Mapping[str, Any], mine: Mapping[str, Any], theirs: Mapping[str, Any]
) -> tuple[dict[str, Any], tuple[FieldConflict, ...]]:
    """Theirs with my changes applied, and the fields both changed differently.

    A field absent from a mapping is absent from the record (a removal is a change).

    >>> three_way({"budget": 170, "notes": ""}, {"budget": 170, "notes": "x"},
    ...           {"budget": 180, "notes": ""})
    ({'budget': 180, 'notes': 'x'}, ())
    """
    result = dict(theirs)
    conflicts = []
    for key in [*base, *(k for k in mine if k not in base)]:
        was, want, now = base.get(key), mine.get(key), theirs.get(key)
        if _same(want, was) or _same(want, now):
            continue  # not changed here, or both made the same change
        if not _same(now, was):
            conflicts.append(FieldConflict(key, want, now))
        elif want is None:
            result.pop(key, None)
        else:
            result[key] = want
    return result, tuple(conflicts)


def _same(a: Any, b: Any) -> bool:
    """Equal, counting line breaks alike: browsers send a textarea's as CRLF."""
    if isinstance(a, str) and isinstance(b, str):
        return a.replace("\r\n", "\n") == b.replace("\r\n", "\n")
    return bool(a == b)


def merged_or_conflict(
    session: Session,
    *,
    what: str,
    current_version: int,
    latest_change: str | None,
    base: Mapping[str, Any],
    mine: Mapping[str, Any],
    theirs: Mapping[str, Any],
) -> dict[str, Any]:
    """The merged record; raises ``EditConflict`` listing the fields both changed."""
    result, conflicts = three_way(base, mine, theirs)
    if conflicts:
        raise EditConflict(what, current_version, latest_change, conflicts)
    session.info[MERGED_KEY] = True
    return result


def was_merged(session: Session) -> bool:
    """Whether a change in this request was merged onto one made elsewhere."""
    return bool(session.info.get(MERGED_KEY))
