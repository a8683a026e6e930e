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


def test_two_members_editing_one_unit_never_lose_an_edit_silently(app) -> None:  # type: ignore[no-untyped-def]
    """Both load version 1 of a unit; the second save is refused, naming the first change."""
    from app.services import armies as army_service
    from app.services import builder, clubs
    from app.services.errors import StaleVersion

    make = app.state.sessionmaker
    with make() as s:
        alice = User(email="a@example.com", display_name="Alice", password_hash="x")
        bob = User(email="b@example.com", display_name="Bob", password_hash="x")
        s.add_all([alice, bob])
        s.flush()
        club = clubs.create_club(s, user=alice, name="C")
        _, token = clubs.create_invite(s, user=alice, club_id=club.id)
        clubs.join(s, user=bob, token=token)
        clubs.set_role(s, user=alice, club_id=club.id, member_id=bob.id, role="organiser")
        army = army_service.create_army(
            s, user=alice, name="Shared", ruleset_id="brikwars", budget=50, club_id=club.id
        )
        unit = builder.add_unit(
            s, user=alice, army_id=army.id, data={"name": "Tank", "size": 3, "structure_level": 2}
        )
        s.commit()
        ids = (alice.id, bob.id, army.id, unit.id)

    first, second = make(), make()
    try:
        a, b = first.get(User, ids[0]), second.get(User, ids[1])
        builder.update_unit(
            first,
            user=a,
            army_id=ids[2],
            unit_id=ids[3],
            data={"name": "Tank Mk II"},
            expected_version=1,
        )
        first.commit()
        with pytest.raises(StaleVersion) as refused:
            builder.update_unit(
                second, user=b, army_id=ids[2], unit_id=ids[3], data={"move": 6}, expected_version=1
            )
        second.rollback()
    finally:
        first.close()
        second.close()
    assert refused.value.current_version == 2
    assert refused.value.latest_change is not None
    assert "Alice" in refused.value.latest_change and "renamed 'Tank' to 'Tank Mk II'" in (
        refused.value.latest_change
    )
