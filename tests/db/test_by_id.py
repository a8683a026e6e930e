"""``by_id`` answers as ``Session.get`` does, with its statement built once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import event
from sqlalchemy.orm import Session

from app.db import by_id as by_id_module
from app.db.by_id import by_id
from app.db.models import Army, User
from app.services import armies


@pytest.fixture
def session(app) -> Iterator[Session]:  # type: ignore[no-untyped-def]
    with app.state.sessionmaker() as s:
        yield s
        s.rollback()


def _statements(session: Session) -> list[str]:
    seen: list[str] = []
    event.listen(session, "do_orm_execute", lambda state: seen.append(str(state.statement)))
    return seen


def test_by_id_answers_as_session_get_does(app, session: Session) -> None:  # type: ignore[no-untyped-def]
    user = User(email="by-id@example.com", display_name="By Id", password_hash="x")
    session.add(user)
    session.flush()
    army = armies.create_army(session, user=user, name="Held", ruleset_id="brikwars", budget=9)
    session.commit()
    army_id = army.id

    seen = _statements(session)
    assert by_id(session, Army, army_id) is army  # the session's own copy, no query
    assert seen == []

    with app.state.sessionmaker() as fresh:
        seen = _statements(fresh)
        loaded = by_id(fresh, Army, army_id)
        assert loaded is not None and loaded.name == "Held" and loaded.owner_id == user.id
        assert len(seen) == 1
        assert by_id(fresh, Army, army_id) is loaded  # now held: no second query
        assert len(seen) == 1
        assert by_id(fresh, Army, 10**9) is None
        assert fresh.get(Army, 10**9) is None

    # pending changes are flushed first, as session.get's query does
    session.add(Army(owner_id=user.id, name="Pending", ruleset_id="brikwars", budget=1))
    assert session.new
    by_id(session, Army, 10**9)
    assert not session.new


def test_the_statement_is_built_once_per_model(session: Session) -> None:
    by_id(session, Army, 10**9)
    built = by_id_module._STATEMENTS[Army]
    by_id(session, Army, 10**9 + 1)
    assert by_id_module._STATEMENTS[Army] is built
