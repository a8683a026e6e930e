"""The engine's settings for running behind a connection pooler."""

from __future__ import annotations

from sqlalchemy import text

from app.db.session import make_engine


def _prepared_after_repeats(url: str, *, prepared_statements: bool) -> int:
    """Run one query ten times on one connection; how many statements the server kept."""
    engine = make_engine(url, prepared_statements=prepared_statements)
    try:
        with engine.connect() as conn:
            for _ in range(10):
                conn.execute(text("SELECT count(*) FROM user_account")).scalar_one()
            if engine.dialect.name != "postgresql":
                return 0  # SQLite: in process, nothing kept on a server
            return int(conn.execute(text("SELECT count(*) FROM pg_prepared_statements")).scalar())
    finally:
        engine.dispose()


def test_prepared_statements_can_be_turned_off_for_a_transaction_pooler(migrated: str) -> None:
    # PgBouncer in transaction mode (before 1.21) hands the next transaction another server
    # connection, where a statement psycopg prepared on this one does not exist.
    assert _prepared_after_repeats(migrated, prepared_statements=False) == 0
    on = _prepared_after_repeats(migrated, prepared_statements=True)
    assert on == (1 if migrated.startswith("postgresql") else 0)
