"""Alembic environment: the URL comes from the app settings (DATABASE_URL)."""

from __future__ import annotations

from alembic import context

from app.db import models  # noqa: F401  (registers every table on Base.metadata)
from app.db.base import Base, UTCDateTime
from app.db.session import make_engine
from app.settings import get_settings

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    # Tests pass an explicit URL through the config; everything else reads the settings.
    return config.attributes.get("database_url") or get_settings().database_url


def run_migrations_offline() -> None:
    context.configure(
        url=_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = make_engine(_url(), prepared_statements=get_settings().database_prepared_statements)
    with engine.connect() as conn:
        _run(conn)
    engine.dispose()


def _render_item(type_: str, obj: object, autogen_context: object) -> str | bool:
    # Our UTCDateTime decorator is a plain timezone-aware DateTime in the schema.
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def _run(connection: object) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,  # SQLite needs batch mode for ALTER
        compare_type=True,
        render_item=_render_item,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
