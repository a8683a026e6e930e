"""The Alembic migrations are the schema: they match the models and run both ways."""

from __future__ import annotations

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

from app.db.base import Base
from app.db.session import make_engine
from tests.conftest import alembic_config, another_database_url


def _diff(url: str) -> list[object]:
    engine = make_engine(url)
    with engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True})
        diff = compare_metadata(ctx, Base.metadata)
    engine.dispose()
    return diff


def test_models_and_migrations_agree(migrated: str) -> None:
    assert _diff(migrated) == []
    command.check(alembic_config(migrated))  # raises if autogenerate would write anything


def test_upgrade_downgrade_upgrade_round_trip() -> None:
    url = another_database_url()
    cfg = alembic_config(url)
    command.upgrade(cfg, "head")
    engine = make_engine(url)
    tables = set(inspect(engine).get_table_names())
    assert {"user_account", "army", "api_token", "login_failure"} <= tables

    command.downgrade(cfg, "base")
    engine.dispose()
    engine = make_engine(url)
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}

    command.upgrade(cfg, "head")
    engine.dispose()
    assert _diff(url) == []


def test_single_head() -> None:
    script = ScriptDirectory.from_config(alembic_config())
    assert len(script.get_heads()) == 1


def test_unique_positions_migration_renumbers_duplicates_in_order() -> None:
    """Armies left with duplicate unit and weapon positions keep their order, now unique."""
    from sqlalchemy import text
    from sqlalchemy.exc import IntegrityError

    url = another_database_url()
    cfg = alembic_config(url)
    command.upgrade(cfg, "fa72e9a66851")  # the revision before unique positions
    engine = make_engine(url)
    now = "2026-12-01 00:00:00+00:00"
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO user_account (id, email, display_name, password_hash, created_at,"
                " updated_at) VALUES (1, 'd@example.com', 'D', 'x', :now, :now)"
            ),
            {"now": now},
        )
        for army_id in (1, 2):
            conn.execute(
                text(
                    "INSERT INTO army (id, owner_id, name, ruleset_id, budget, notes, house_rules,"
                    " version, created_at, updated_at)"
                    " VALUES (:id, 1, 'A', 'brikwars', 100, '', '{}', 1, :now, :now)"
                ),
                {"id": army_id, "now": now},
            )
        # Army 1: positions 0, 0, 1, 1, 5 (ids 1..5); army 2: already fine.
        units = [(1, 1, 0), (2, 1, 0), (3, 1, 1), (4, 1, 1), (5, 1, 5), (6, 2, 0), (7, 2, 1)]
        for unit_id, army_id, position in units:
            conn.execute(
                text(
                    "INSERT INTO unit (id, army_id, position, name, kind, spec, version,"
                    " created_at, updated_at)"
                    " VALUES (:id, :army, :pos, :name, 'minifig', '{}', 1, :now, :now)"
                ),
                {
                    "id": unit_id,
                    "army": army_id,
                    "pos": position,
                    "name": f"U{unit_id}",
                    "now": now,
                },
            )
        for weapon_id, position in [(1, 2), (2, 2), (3, 0)]:
            conn.execute(
                text(
                    "INSERT INTO weapon (id, unit_id, position, type, spec, version, created_at,"
                    " updated_at) VALUES (:id, 1, :pos, 'pistol', '{}', 1, :now, :now)"
                ),
                {"id": weapon_id, "pos": position, "now": now},
            )
    engine.dispose()

    command.upgrade(cfg, "head")
    engine = make_engine(url)
    with engine.connect() as conn:
        units_now = conn.execute(text("SELECT id, army_id, position FROM unit ORDER BY id")).all()
        weapons_now = conn.execute(text("SELECT id, position FROM weapon ORDER BY id")).all()
    assert [tuple(r) for r in units_now] == [
        (1, 1, 0),
        (2, 1, 1),
        (3, 1, 2),
        (4, 1, 3),
        (5, 1, 4),
        (6, 2, 0),
        (7, 2, 1),
    ]
    assert [tuple(r) for r in weapons_now] == [(1, 1), (2, 2), (3, 0)]
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(text("UPDATE unit SET position = 0 WHERE id = 2"))
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(text("UPDATE weapon SET position = 0 WHERE id = 1"))
    engine.dispose()

    command.downgrade(cfg, "fa72e9a66851")
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE unit SET position = 0 WHERE id = 2"))  # allowed again
    engine.dispose()
