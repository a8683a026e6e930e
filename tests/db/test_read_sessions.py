"""A GET's session only reads (``make_read_sessionmaker``): a write through it raises, and on
PostgreSQL it sends no BEGIN or COMMIT (each statement commits by itself)."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select, text, update

from app.db.models import User
from app.db.session import WriteInReadOnlySession


def test_a_read_only_session_refuses_every_kind_of_write(app) -> None:  # type: ignore[no-untyped-def]
    maker = app.state.read_sessionmaker
    with maker() as s:
        assert s.scalar(select(func.count()).select_from(User)) == 0
        assert s.execute(text("SELECT 1")).scalar() == 1
        s.add(User(email="ro@example.com", display_name="RO", password_hash="x"))
        with pytest.raises(WriteInReadOnlySession):
            s.flush()
        s.rollback()
        with pytest.raises(WriteInReadOnlySession):
            s.execute(update(User).values(display_name="x"))
        with pytest.raises(WriteInReadOnlySession):
            s.execute(text("DELETE FROM user_account"))
    with app.state.sessionmaker() as s:  # the requests that write have sessions that do
        s.add(User(email="rw@example.com", display_name="RW", password_hash="x"))
        s.commit()
    with maker() as s:
        assert s.scalar(select(func.count()).select_from(User)) == 1


def _in_transaction(raw) -> bool:  # type: ignore[no-untyped-def]
    if hasattr(raw, "in_transaction"):  # SQLite's driver
        return bool(raw.in_transaction)
    from psycopg.pq import TransactionStatus

    return bool(raw.info.transaction_status != TransactionStatus.IDLE)


def test_a_read_holds_no_transaction_open(app) -> None:  # type: ignore[no-untyped-def]
    with app.state.read_sessionmaker() as s:
        s.execute(select(func.count()).select_from(User))
        assert not _in_transaction(s.connection().connection.dbapi_connection)
    with app.state.sessionmaker() as s:  # a writing request's session, once it has written
        s.execute(update(User).where(User.id == -1).values(display_name="x"))
        assert _in_transaction(s.connection().connection.dbapi_connection)
        s.rollback()


def test_a_page_sees_a_change_at_once(app) -> None:  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from tests.web.conftest import sign_up

    with TestClient(app) as c:
        member = sign_up(c, name="Reader")
        headers = {"X-CSRF-Token": member.csrf}
        army = c.post("/api/v1/armies", json={"name": "Before", "budget": 9}, headers=headers)
        army_id = army.json()["id"]
        assert "Before" in c.get(f"/armies/{army_id}").text
        r = c.patch(
            f"/api/v1/armies/{army_id}",
            json={"version": army.json()["version"], "name": "After"},
            headers=headers,
        )
        assert r.status_code == 200, r.text
        assert "After" in c.get(f"/armies/{army_id}").text
        assert c.head(f"/armies/{army_id}").status_code in (200, 405)
