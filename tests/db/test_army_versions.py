"""Optimistic locking holds even when two requests race past the version check."""

from __future__ import annotations

import pytest
from sqlalchemy.orm.exc import StaleDataError

from app.db.models import Army, User
from app.services import armies


def test_racing_saves_one_wins_one_is_stale(app) -> None:  # type: ignore[no-untyped-def]
    make = app.state.sessionmaker
    with make() as s:
        user = User(email="race@example.com", display_name="R", password_hash="x")
        s.add(user)
        s.flush()
        army = Army(owner_id=user.id, name="Start", ruleset_id="brikwars", budget=10)
        s.add(army)
        s.commit()
        user_id, army_id = user.id, army.id

    first, second = make(), make()
    try:
        u1, u2 = first.get(User, user_id), second.get(User, user_id)
        # Both requests load version 1 before either writes (held: the identity map is weak).
        loaded = first.get(Army, army_id), second.get(Army, army_id)
        assert [a.version for a in loaded] == [1, 1]
        armies.update_army(first, user=u1, army_id=army_id, expected_version=1, name="First")
        first.commit()
        with pytest.raises(StaleDataError):
            armies.update_army(second, user=u2, army_id=army_id, expected_version=1, name="Second")
        second.rollback()
    finally:
        first.close()
        second.close()
    with make() as s:
        saved = s.get(Army, army_id)
        assert (saved.name, saved.version) == ("First", 2)
