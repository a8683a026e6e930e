"""Rows read in a session are reused only until the session writes."""

from __future__ import annotations

from sqlalchemy import delete, event

from app.db.base import utcnow
from app.db.models import Army, LoginFailure, Unit, User
from app.services import army_rows, builder


def _army(s) -> int:  # type: ignore[no-untyped-def]
    user = User(email="rows@example.com", display_name="R", password_hash="x")
    s.add(user)
    s.flush()
    army = Army(owner_id=user.id, name="Rows", ruleset_id="brikwars", budget=100)
    s.add(army)
    s.flush()
    return army.id


def _names(s, army_id: int) -> list[str]:  # type: ignore[no-untyped-def]
    return [row.name for row in army_rows.load_rows(s, army_id)]


def test_rows_are_read_again_after_any_write(app) -> None:  # type: ignore[no-untyped-def]
    with app.state.sessionmaker() as s:
        army_id = _army(s)
        assert _names(s, army_id) == []
        assert army_rows.load_rows(s, army_id) is army_rows.load_rows(s, army_id)

        s.add(Unit(army_id=army_id, name="Pending", kind="minifig", spec={}, position=0))
        assert _names(s, army_id) == ["Pending"]  # unflushed change: autoflushed, read again

        # A statement issued directly (as position shifts are), nothing to flush.
        s.execute(
            delete(Unit).where(Unit.army_id == army_id).execution_options(synchronize_session=False)
        )
        assert _names(s, army_id) == []

        rows = army_rows.load_rows(s, army_id)
        s.add(LoginFailure(email="x@example.com", client_address="t", created_at=utcnow()))
        s.flush()  # wrote no unit: the rows still stand
        assert army_rows.load_rows(s, army_id) is rows

        s.add(Unit(army_id=army_id, name="Flushed", kind="minifig", spec={}, position=0))
        s.flush()
        assert _names(s, army_id) == ["Flushed"]
        s.commit()
        s.execute(delete(Unit).where(Unit.army_id == army_id))
        s.rollback()
        assert _names(s, army_id) == ["Flushed"]


def test_a_change_and_the_page_answering_it_read_the_rows_once(app) -> None:  # type: ignore[no-untyped-def]
    reads = []

    def count(state) -> None:  # type: ignore[no-untyped-def]
        if state.statement is army_rows._UNIT_ROWS:
            reads.append(1)

    with app.state.sessionmaker() as s:
        army_id = _army(s)
        user = s.get(User, s.get(Army, army_id).owner_id)
        event.listen(s, "do_orm_execute", count)
        try:
            builder.add_unit(s, user=user, army_id=army_id, data={"name": "A", "kind": "minifig"})
            view = builder.army_view(s, user=user, army_id=army_id)
        finally:
            event.remove(s, "do_orm_execute", count)
        assert [u.row.name for u in view.units] == ["A"]
        assert len(reads) == 1  # the revision's read, reused by the page
