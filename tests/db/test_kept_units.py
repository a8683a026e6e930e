"""The army's unit views kept per server under its rows stamp (``builder.stored_view``).

A view of an unchanged army reads no units; any recorded change, by any session, shows at
once; what a writing transaction sees is never kept, so a rollback leaves nothing behind.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.orm import Session, sessionmaker

from app.db.models import Army, User
from app.services import armies, builder

_ids = itertools.count(1)
TROOPER = {"name": "Trooper", "kind": "minifig", "weapons": [{"type": "gun", "size": 1}]}


@pytest.fixture
def maker(app) -> sessionmaker[Session]:  # type: ignore[no-untyped-def]
    builder._KEPT_UNITS.cache_clear()
    return app.state.sessionmaker  # type: ignore[no-any-return]


@pytest.fixture
def owner(maker: sessionmaker[Session]) -> int:
    with maker.begin() as s:
        user = User(email=f"kept{next(_ids)}@example.com", display_name="K", password_hash="x")
        s.add(user)
        s.flush()
        return user.id


def _army(maker: sessionmaker[Session], owner: int, *names: str) -> int:
    with maker.begin() as s:
        user = s.get_one(User, owner)
        army = armies.create_army(s, user=user, name="Kept", ruleset_id="brikwars", budget=99)
        for name in names:
            builder.add_unit(s, user=user, army_id=army.id, data={**TROOPER, "name": name})
        return army.id


@contextmanager
def _unit_reads(session: Session) -> Iterator[list[str]]:
    """The statements the session sends that read units or weapons."""
    seen: list[str] = []
    bind = session.get_bind()

    def note(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        if "FROM unit" in statement or "FROM weapon" in statement:
            seen.append(statement)

    event.listen(bind, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(bind, "before_cursor_execute", note)


def _shown(maker: sessionmaker[Session], owner: int, army_id: int) -> tuple[list[str], int]:
    """The unit names the builder shows, and how many reads of units that took."""
    with maker() as s, _unit_reads(s) as reads:
        view = builder.army_view(s, user=s.get_one(User, owner), army_id=army_id)
        return [u.row.name for u in view.units], len(reads)


def test_an_unchanged_army_is_shown_again_without_reading_its_units(maker, owner) -> None:  # type: ignore[no-untyped-def]
    army = _army(maker, owner, "Ann", "Bob")
    assert _shown(maker, owner, army) == (["Ann", "Bob"], 2)  # units, then weapons
    assert _shown(maker, owner, army) == (["Ann", "Bob"], 0)
    with maker() as s:  # the same figures as a view built from the rows
        user = s.get_one(User, owner)
        kept = builder.army_view(s, user=user, army_id=army)
        built = builder.build_view(s.get_one(Army, army), builder.load_rows(s, army))
        assert kept.total_cost == built.total_cost and kept.units == built.units


def test_every_recorded_change_draws_a_new_stamp_and_shows_at_once(maker, owner) -> None:  # type: ignore[no-untyped-def]
    army = _army(maker, owner, "Ann")
    stamps = set()
    for step in range(3):
        _shown(maker, owner, army)  # kept under the current stamp
        with maker.begin() as s:  # another session (another server): a recorded change
            user = s.get_one(User, owner)
            unit = builder.army_view(s, user=user, army_id=army).units[0].row
            builder.update_unit(
                s, user=user, army_id=army, unit_id=unit.id, data={"name": f"Ann {step}"},
                expected_version=unit.version,
            )  # fmt: skip
            stamps.add(s.get_one(Army, army).rows_stamp)
        assert _shown(maker, owner, army) == ([f"Ann {step}"], 2)
    assert len(stamps) == 3 and 0 not in stamps


def test_a_writing_transaction_keeps_nothing_and_its_rollback_leaves_no_trace(maker, owner) -> None:  # type: ignore[no-untyped-def]
    army = _army(maker, owner, "Ann")
    with maker() as s:
        user = s.get_one(User, owner)
        unit = builder.army_view(s, user=user, army_id=army).units[0].row
        s.commit()
        builder.update_unit(
            s, user=user, army_id=army, unit_id=unit.id, data={"name": "Never"},
            expected_version=unit.version,
        )  # fmt: skip
        kept = builder._KEPT_UNITS.cache_info().currsize
        assert [u.row.name for u in builder.army_view(s, user=user, army_id=army).units] == [
            "Never"
        ]
        assert builder._KEPT_UNITS.cache_info().currsize == kept  # its own change: not kept
        s.rollback()
    assert _shown(maker, owner, army)[0] == ["Ann"]


def test_an_army_id_handed_out_again_shows_the_new_armys_units(maker, owner) -> None:  # type: ignore[no-untyped-def]
    # SQLite gives the newest row's id to the next one once that row is deleted.
    first = _army(maker, owner, "Old")
    assert _shown(maker, owner, first)[0] == ["Old"]
    with maker.begin() as s:
        armies.delete_army(s, user=s.get_one(User, owner), army_id=first)
    second = _army(maker, owner, "New")
    assert _shown(maker, owner, second)[0] == ["New"]
