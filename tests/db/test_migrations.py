"""The Alembic migrations are the schema: they match the models and run both ways."""

from __future__ import annotations

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
