"""Every password hash behind the gate (``app.services.hash_gate``), on the pages and the API:
an address's second waiting log-in is refused while another address gets in, a hash that
waits too long is a 503 with ``Retry-After`` (and no counted try), permits come back.

The hashes are slowed by holding them until the test lets them go: the tests assert who got
in and who was refused, never how long it took.
"""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db.models import LoginFailure, User
from app.services import accounts, hash_gate
from app.services.hash_gate import HashGate
from tests.web.conftest import PASSWORD, Member, page_csrf

PATIENT = 30.0


def _until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, "the requests never got there"
        time.sleep(0.005)


def _use(monkeypatch: pytest.MonkeyPatch, gate: HashGate) -> HashGate:
    monkeypatch.setattr(hash_gate, "gate", lambda: gate)
    return gate


@pytest.fixture
def short_gate(monkeypatch: pytest.MonkeyPatch) -> HashGate:
    """One permit and a wait of 10 ms: a held permit makes every other hash a 503."""
    return _use(monkeypatch, HashGate(permits=1, wait_seconds=0.01, queue=8))


def _failures(app: Any) -> int:
    with app.state.sessionmaker() as s:
        return s.scalar(select(func.count(LoginFailure.id))) or 0


def _api_login(client: TestClient, email: str, password: str):  # type: ignore[no-untyped-def]
    return client.post("/api/v1/auth/login", json={"email": email, "password": password})


def test_an_address_waits_with_one_login_at_most_while_another_gets_in(
    app: Any, member: Member, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = _use(monkeypatch, HashGate(permits=1, wait_seconds=PATIENT, queue=8))
    hashing: list[str] = []
    let_go = threading.Event()
    real_verify = accounts.verify_password

    def slow_verify(password_hash: str, password: str) -> bool:
        hashing.append(password)
        let_go.wait(PATIENT)
        return real_verify(password_hash, password)

    monkeypatch.setattr(accounts, "verify_password", slow_verify)
    answers: dict[str, int] = {}

    def log_in(name: str, address: str, password: str) -> threading.Thread:
        def run() -> None:
            client = TestClient(app, client=(address, 4000))
            answers[name] = _api_login(client, member.email, password).status_code

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread

    try:
        a1 = log_in("A1", "198.51.100.7", "wrong password 1")
        _until(lambda: hashing == ["wrong password 1"])
        a2 = log_in("A2", "198.51.100.7", "wrong password 2")
        _until(lambda: gate.state() == (0, 1))
        # A's third: A already has a hash waiting, so it is refused at once, its try uncounted
        a3 = TestClient(app, client=("198.51.100.7", 4000))
        refused = _api_login(a3, member.email, "wrong password 3")
        assert refused.status_code == 503
        assert refused.headers["Retry-After"] == str(gate.retry_after)
        assert refused.json()["detail"][0]["field"] == "password"
        assert _failures(app) == 2  # A1's and A2's claimed tries, not A3's
        b = log_in("B", "203.0.113.9", PASSWORD)  # another address still queues
        _until(lambda: gate.state() == (0, 2))
    finally:
        let_go.set()
    for thread in (a1, a2, b):
        thread.join(PATIENT)
    assert answers == {"A1": 401, "A2": 401, "B": 200}
    assert hashing == ["wrong password 1", "wrong password 2", PASSWORD]  # in arrival order
    assert gate.state() == (1, 0)


def test_a_login_that_waits_too_long_is_a_503_with_retry_after_not_a_failure(
    app: Any, member: Member, short_gate: HashGate
) -> None:
    fresh = TestClient(app)
    token = page_csrf(fresh)
    with short_gate.turn("somebody else"):
        api = _api_login(fresh, member.email, PASSWORD)
        page = fresh.post(
            "/login",
            data={"csrf_token": token, "email": member.email, "password": PASSWORD, "next": ""},
            headers={"HX-Request": "true"},
        )
        unknown = _api_login(fresh, "nobody@example.com", "wrong password")
    assert api.status_code == page.status_code == unknown.status_code == 503
    assert api.headers["Retry-After"] == page.headers["Retry-After"] == "1"
    assert api.json()["detail"][0]["field"] == "password"
    assert "busy checking other passwords" in page.text and 'name="email"' in page.text
    assert _failures(app) == 0  # a refused try checked no password: it does not count
    assert short_gate.state() == (1, 0)
    assert _api_login(fresh, member.email, PASSWORD).status_code == 200


def test_permits_come_back_after_failed_and_good_logins_and_sign_ups(
    app: Any, member: Member, short_gate: HashGate
) -> None:
    fresh = TestClient(app)
    assert _api_login(fresh, member.email, "wrong password").status_code == 401
    assert _api_login(fresh, "nobody@example.com", "wrong password").status_code == 401
    assert short_gate.state() == (1, 0)
    assert _api_login(fresh, member.email, PASSWORD).status_code == 200
    new = {"email": "new@example.com", "password": PASSWORD, "display_name": "New"}
    assert TestClient(app).post("/api/v1/auth/register", json=new).status_code == 201
    assert short_gate.state() == (1, 0)


def test_sign_up_password_change_and_deletion_wait_their_turn(
    app: Any, member: Member, short_gate: HashGate
) -> None:
    headers = {"X-CSRF-Token": member.csrf}
    change = {"current_password": PASSWORD, "new_password": "n" * 12}
    new = {"email": "new@example.com", "password": PASSWORD, "display_name": "New"}
    with short_gate.turn("somebody else"):
        signup = TestClient(app).post("/api/v1/auth/register", json=new)
        api_change = member.client.post("/api/v1/auth/password", json=change, headers=headers)
        page_change = member.form("/account/password", change)
        delete = member.client.post(
            "/api/v1/me/delete", json={"password": PASSWORD}, headers=headers
        )
        page_delete = member.form("/account/delete", {"password": PASSWORD})
    for answer in (signup, api_change, page_change, delete, page_delete):
        assert answer.status_code == 503, answer.text
        assert answer.headers["Retry-After"] == "1"
    assert "busy checking other passwords" in page_change.text + page_delete.text
    with app.state.sessionmaker() as s:
        assert s.scalar(select(User.id).where(User.email == "new@example.com")) is None
        assert s.scalar(select(User.id).where(User.email == member.email)) is not None
    assert _failures(app) == 0
    assert (
        member.client.post("/api/v1/auth/password", json=change, headers=headers).status_code == 204
    )


def test_routes_that_hash_run_in_the_thread_pool() -> None:
    """A waiting hash blocks its thread: never the event loop (a sync route runs in a thread)."""
    from app.web.api import auth as api_auth
    from app.web.routes import account, auth

    hashing = [
        auth.login,
        auth.register,
        account.password_change,
        account.account_delete,
        api_auth.login,
        api_auth.register,
        api_auth.password_change,
        api_auth.me_delete,
    ]
    assert not any(inspect.iscoroutinefunction(route) for route in hashing)


def test_the_default_gate_is_one_hash_a_process_with_a_short_wait() -> None:
    from app.settings import Settings

    settings = Settings()
    assert settings.password_hash_permits == 1
    assert 0 < settings.password_hash_wait_seconds <= 5
    assert hash_gate.gate() is hash_gate.gate()  # one gate a process (for unchanged settings)


def test_a_password_check_holds_no_database_connection_while_it_waits_and_hashes(
    app: Any, member: Member, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ruling G12: a log-in (known or unknown e-mail) or a password check ends its read
    transaction before its turn, so log-ins waiting for the hash gate never hold the pool."""
    real_verify = accounts.verify_password
    with app.state.sessionmaker() as session:
        in_transaction: list[bool] = []

        def verify(password_hash: str, password: str) -> bool:
            in_transaction.append(session.in_transaction())
            return real_verify(password_hash, password)

        monkeypatch.setattr(accounts, "verify_password", verify)
        known = accounts.log_in(
            session, email=member.email, password=PASSWORD, client_address="10.0.0.1"
        )
        session.commit()  # (each request commits its own)
        unknown = accounts.log_in(
            session, email="nobody@example.com", password=PASSWORD, client_address="10.0.0.2"
        )
        assert known.user is not None and unknown.user is None
        session.commit()
        user = session.get_one(User, known.user.id)
        accounts.check_password(
            session, user=user, password=PASSWORD, client_address="10.0.0.3", field="password"
        )
    assert in_transaction == [False, False, False]
