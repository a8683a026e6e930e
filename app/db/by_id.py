"""One row by its primary key, with the statement built once per model.

``Session.get`` builds and keys a fresh SELECT on every call it cannot answer from the
session: about 0.2 ms of the army page's army lookup (measured on a loaded machine, where
the session, its connection and the query took 0.43 ms). A statement built once keeps
its cache key.
"""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import Select, bindparam, inspect, select
from sqlalchemy.orm import Session

T = TypeVar("T")

_STATEMENTS: dict[type[Any], Select[Any]] = {}


def by_id(session: Session, model: type[T], ident: int) -> T | None:
    """``session.get(model, ident)``: the session's own copy if it holds one, else one query."""
    if session.identity_key(model, ident) in session.identity_map:
        return session.get(model, ident)
    statement = _STATEMENTS.get(model)
    if statement is None:
        (key,) = inspect(model).primary_key
        statement = _STATEMENTS[model] = select(model).where(key == bindparam("ident"))
    return session.execute(statement, {"ident": ident}).scalar_one_or_none()
