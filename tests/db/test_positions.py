"""Positions are unique per army (and per unit), and racing adds all get a place."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import IntegrityError

from app.db.models import Army, Unit, User, Weapon
from app.services import builder

ADDS = 20


def _army(make) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    with make() as s:
        user = User(email="pos@example.com", display_name="P", password_hash="x")
        s.add(user)
        s.flush()
        army = Army(owner_id=user.id, name="Burst", ruleset_id="brikwars", budget=1000)
        s.add(army)
        s.commit()
        return user.id, army.id


def _race(make, work) -> list[BaseException]:  # type: ignore[no-untyped-def]
    """Run ``work(session, user)`` in ADDS threads released at once, each committing."""
    user_id = work.user_id
    start = threading.Barrier(ADDS)
    failures: list[BaseException] = []

    def one(i: int) -> None:
        start.wait(timeout=60)  # before any connection: the pool has fewer than ADDS
        with make() as s:
            try:
                if s.bind.dialect.name == "sqlite":
                    # what this checks is that every add gets its own place, not how long
                    # the 20th waits for SQLite's one writer: on a loaded machine (CI runs
                    # its two database passes side by side) that can pass the app's 15 s
                    s.execute(text("PRAGMA busy_timeout = 120000"))
                user = s.get(User, user_id)
                work(s, user, i)
                s.commit()
            except BaseException as exc:  # every failure is reported
                s.rollback()
                failures.append(exc)
            finally:
                if s.bind.dialect.name == "sqlite":  # the pooled connection goes back as it came
                    s.execute(text("PRAGMA busy_timeout = 15000"))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(ADDS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return failures


def test_concurrent_unit_adds_get_distinct_positions(app) -> None:  # type: ignore[no-untyped-def]
    make = app.state.sessionmaker
    user_id, army_id = _army(make)

    def work(s, user, i):  # type: ignore[no-untyped-def]
        builder.add_unit(s, user=user, army_id=army_id, data={"name": f"U{i}", "kind": "minifig"})

    work.user_id = user_id  # type: ignore[attr-defined]
    assert _race(make, work) == []
    with make() as s:
        positions = s.scalars(select(Unit.position).where(Unit.army_id == army_id)).all()
    assert sorted(positions) == list(range(ADDS))


def test_concurrent_weapon_adds_get_distinct_positions(app) -> None:  # type: ignore[no-untyped-def]
    make = app.state.sessionmaker
    user_id, army_id = _army(make)
    with make() as s:
        user = s.get(User, user_id)
        unit_id = builder.add_unit(
            s,
            user=user,
            army_id=army_id,
            data={"name": "Tank", "kind": "creation", "size": "20", "structure_level": "4"},
        ).id
        s.commit()

    def work(s, user, i):  # type: ignore[no-untyped-def]
        builder.add_weapon(
            s, user=user, army_id=army_id, unit_id=unit_id, data={"type": "gun", "size": 1}
        )

    work.user_id = user_id  # type: ignore[attr-defined]
    assert _race(make, work) == []
    with make() as s:
        positions = s.scalars(select(Weapon.position).where(Weapon.unit_id == unit_id)).all()
    assert sorted(positions) == list(range(ADDS))


def test_the_database_refuses_a_duplicate_position(app) -> None:  # type: ignore[no-untyped-def]
    make = app.state.sessionmaker
    _, army_id = _army(make)
    with make() as s:
        s.add_all(
            [
                Unit(army_id=army_id, position=0, name="A", kind="minifig", spec={}),
                Unit(army_id=army_id, position=0, name="B", kind="minifig", spec={}),
            ]
        )
        with pytest.raises(IntegrityError):
            s.flush()


def test_moves_duplicates_and_deletes_keep_positions_gapless(app) -> None:  # type: ignore[no-untyped-def]
    make = app.state.sessionmaker
    user_id, army_id = _army(make)
    with make() as s:
        user = s.get(User, user_id)
        ids = [
            builder.add_unit(s, user=user, army_id=army_id, data={"name": n, "kind": "minifig"}).id
            for n in "ABCD"
        ]
        s.flush()
        builder.move_unit(s, user=user, army_id=army_id, unit_id=ids[0], offset=1)  # B A C D
        builder.duplicate_unit(s, user=user, army_id=army_id, unit_id=ids[1])  # B (copy) A C D
        builder.delete_unit(s, user=user, army_id=army_id, unit_id=ids[2])  # B (copy) A D
        builder.move_unit(s, user=user, army_id=army_id, unit_id=ids[3], offset=-1)
        s.commit()
        rows = builder.load_rows(s, army_id)
    assert [(r.position, r.name) for r in rows] == [
        (0, "B"),
        (1, "B (copy)"),
        (2, "D"),
        (3, "A"),
    ]
