"""Two app server processes on one database, as a club site behind a load balancer runs.

Every check goes through both servers and would fail if the state it needs were kept in
one process: sessions, login throttling, rate limits, quotas, versions and the battle log.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.conftest import CSRF_RE, alembic_config, another_database_url
from tests.web.battles.test_battles import TANK
from tests.web.conftest import PASSWORD

pytestmark = pytest.mark.slow  # two uvicorn servers to start (the module's fixture)
ROOT = Path(__file__).resolve().parents[3]
SESSION_COOKIE = "brikforge_session"
FORTRESS = {"name": "Fortress", "size": 40, "structure_level": 3}  # outlasts six rolls
ODDS_BODY = {"damage": {"dice": 1, "sides": 6}, "armor": {"fixed": 4}}
SETTINGS = {
    "CALC_RATE_PER_MINUTE": "1",  # next to nothing refills during the test
    "CALC_RATE_BURST": "4",
    "MAX_ARMIES_PER_USER": "4",
    "LOGIN_MAX_FAILURES": "3",
    "CALC_WORKERS": "1",
    "SIGNUP_MAX_PER_ADDRESS": "3",
    # X-Forwarded-For from the test's own address is believed: each check that counts per
    # client address claims one of its own (the throttles would otherwise add up).
    "TRUSTED_PROXIES": "127.0.0.1",
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(database_url: str) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    env = {**os.environ, **SETTINGS, "DATABASE_URL": database_url}  # SECRET_KEY: conftest's
    command = [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--no-proxy-headers"]
    command += ["--log-level", "warning"]
    process = subprocess.Popen(command, cwd=ROOT, env=env)
    return process, f"http://127.0.0.1:{port}"


def _wait_until_up(process: subprocess.Popen[bytes], url: str) -> None:
    deadline = time.monotonic() + 90  # a busy machine imports slowly
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server on {url} exited with {process.returncode}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the server on {url} did not start")


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[str, str]]:
    """Two uvicorn processes on one freshly migrated database (not the suite's: the
    throttles count per client address, and every request here comes from 127.0.0.1)."""
    from alembic import command

    database_url = another_database_url()
    command.upgrade(alembic_config(database_url), "head")
    started = [_start(database_url), _start(database_url)]
    try:
        for process, url in started:
            _wait_until_up(process, url)
        yield started[0][1], started[1][1]
    finally:
        for process, _ in started:
            process.terminate()
        for process, _ in started:
            process.wait(timeout=10)


@dataclass
class Player:
    """A logged-in browser: its session cookie and CSRF token, good on either server."""

    cookie: str
    csrf: str

    def call(self, method: str, url: str, **kw: object) -> httpx.Response:
        headers = {"Cookie": f"{SESSION_COOKIE}={self.cookie}", "X-CSRF-Token": self.csrf}
        return httpx.request(method, url, headers=headers, timeout=30, **kw)  # type: ignore[arg-type]


_emails = iter(f"far{n}@example.com" for n in range(1000))
_hosts = iter(range(1, 255))


def _register(url: str) -> tuple[str, str]:
    email = next(_emails)
    body = {"email": email, "password": PASSWORD, "display_name": "Far"}
    address = {"X-Forwarded-For": f"10.1.0.{next(_hosts)}"}  # not the sign-up race's
    r = httpx.post(f"{url}/api/v1/auth/register", json=body, headers=address)
    assert r.status_code == 201, r.text
    return email, r.json()["csrf_token"]


def _log_in(url: str, email: str, password: str = PASSWORD) -> httpx.Response:
    return httpx.post(f"{url}/api/v1/auth/login", json={"email": email, "password": password})


def _player(url: str) -> Player:
    email, _ = _register(url)
    r = _log_in(url, email)
    assert r.status_code == 200, r.text
    return Player(r.cookies[SESSION_COOKIE], r.json()["csrf_token"])


def _checked_and_refused(codes: list[int], checked: int) -> tuple[int, int]:
    """How many passwords were checked (``checked``: their answer) and how many were refused
    unchecked: throttled (429), or, on a busy machine, refused by the hash gate because the
    same address already had a hash waiting (503: app/services/hash_gate.py). Any other answer
    counts in neither."""
    return codes.count(checked), sum(c in (429, 503) for c in codes)


def _race(*calls: Callable[[], httpx.Response]) -> list[int]:
    """Start the calls together, one thread each; their status codes, sorted."""
    barrier = threading.Barrier(len(calls))
    codes: list[int] = []

    def run(call: Callable[[], httpx.Response]) -> None:
        barrier.wait()
        codes.append(call().status_code)

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(codes)


def test_a_session_started_on_one_server_works_on_the_other_until_logged_out(
    servers: tuple[str, str],
) -> None:
    a, b = servers
    player = _player(a)
    assert player.call("GET", f"{b}/api/v1/me").status_code == 200
    assert player.call("POST", f"{b}/api/v1/auth/logout").status_code == 204
    assert player.call("GET", f"{a}/api/v1/me").status_code == 401
    assert player.call("GET", f"{b}/api/v1/me").status_code == 401


def test_a_log_in_form_served_by_one_server_is_accepted_by_the_other(
    servers: tuple[str, str],
) -> None:
    """The visitor's CSRF token rides in the signed state cookie: the servers share the key."""
    a, b = servers
    email, _ = _register(a)
    with httpx.Client() as browser:  # one cookie jar: cookies ignore the port
        match = CSRF_RE.search(browser.get(f"{a}/login").text)
        assert match
        form = {"csrf_token": match.group(1), "email": email, "password": PASSWORD}
        r = browser.post(f"{b}/login", data=form)
        assert r.status_code == 303, r.text
        assert browser.get(f"{a}/account").status_code == 200


def test_login_throttling_counts_failures_on_both_servers(servers: tuple[str, str]) -> None:
    a, b = servers
    email, _ = _register(a)
    for url in (a, b, a):  # LOGIN_MAX_FAILURES: 3, two on one server and one on the other
        assert _log_in(url, email, "wrong password").status_code == 401
    for url in (a, b):
        r = _log_in(url, email)
        assert r.status_code == 429, r.text
        assert int(r.headers["Retry-After"]) >= 1


def test_wrong_passwords_racing_through_both_servers_get_only_the_free_tries(
    servers: tuple[str, str],
) -> None:
    a, b = servers
    email, _ = _register(a)

    def guess(url: str) -> Callable[[], httpx.Response]:
        return lambda: _log_in(url, email, "wrong password")

    codes = _race(*(guess(url) for url in (a, b) * 3))
    assert _checked_and_refused(codes, 401) == (3, 3)  # LOGIN_MAX_FAILURES: 3


def test_wrong_current_passwords_racing_through_both_servers_are_throttled_too(
    servers: tuple[str, str],
) -> None:
    a, b = servers
    player = _player(a)
    body = {"current_password": "wrong password", "new_password": "a new long password"}

    def change(url: str) -> Callable[[], httpx.Response]:
        return lambda: player.call("POST", f"{url}/api/v1/auth/password", json=body)

    assert _checked_and_refused(_race(*(change(url) for url in (a, b) * 3)), 422) == (3, 3)
    assert player.call("GET", f"{b}/api/v1/me").status_code == 200  # the session is kept


def test_sign_ups_racing_through_both_servers_stop_at_the_limit(servers: tuple[str, str]) -> None:
    a, b = servers
    headers = {"X-Forwarded-For": "10.9.9.9"}  # an address of its own

    def sign_up(url: str) -> Callable[[], httpx.Response]:
        body = {"email": next(_emails), "password": PASSWORD, "display_name": "Far"}
        return lambda: httpx.post(f"{url}/api/v1/auth/register", json=body, headers=headers)

    assert _race(*(sign_up(url) for url in (a, b) * 3)) == [201, 201, 201, 429, 429, 429]


def test_the_calculator_rate_limit_is_one_bucket_across_both_servers(
    servers: tuple[str, str],
) -> None:
    a, b = servers
    for url in (a, b, a, b):  # CALC_RATE_BURST: 4, two on each server
        assert httpx.post(f"{url}/api/v1/brikwars/odds", json=ODDS_BODY).status_code == 200
    for url in (a, b):
        r = httpx.post(f"{url}/api/v1/brikwars/odds", json=ODDS_BODY)
        assert r.status_code == 429, r.text
        assert int(r.headers["Retry-After"]) >= 1


def test_quotas_count_what_was_made_on_both_servers_even_when_racing(
    servers: tuple[str, str],
) -> None:
    a, b = servers
    player = _player(a)

    def create(url: str) -> Callable[[], httpx.Response]:
        return lambda: player.call("POST", f"{url}/api/v1/armies", json={"name": "A", "budget": 9})

    for url in (a, b, a):  # MAX_ARMIES_PER_USER: 4
        assert create(url)().status_code == 201
    assert _race(create(a), create(b)) == [201, 422]  # one place left, two asking at once
    assert create(b)().status_code == 422
    assert len(player.call("GET", f"{a}/api/v1/armies").json()) == 4


def test_racing_edits_through_both_servers_give_exactly_one_409(
    servers: tuple[str, str],
) -> None:
    a, b = servers
    player = _player(a)
    army = player.call("POST", f"{a}/api/v1/armies", json={"name": "Start", "budget": 9}).json()
    url = f"/api/v1/armies/{army['id']}"

    def rename(server: str, name: str) -> Callable[[], httpx.Response]:
        body = {"version": army["version"], "name": name}
        return lambda: player.call("PATCH", server + url, json=body)

    assert _race(rename(a, "Through A"), rename(b, "Through B")) == [200, 409]
    saved = player.call("GET", b + url).json()
    assert saved["version"] == army["version"] + 1
    assert saved["name"] in ("Through A", "Through B")


def test_battle_rolls_through_both_servers_keep_one_gapless_log(
    servers: tuple[str, str],
) -> None:
    a, b = servers
    player = _player(a)
    sides = []
    for name, unit in (("Red", TANK), ("Blue", FORTRESS)):
        army = player.call("POST", f"{a}/api/v1/armies", json={"name": name, "budget": 9999})
        sides.append(army.json()["id"])
        player.call("POST", f"{b}/api/v1/armies/{sides[-1]}/units", json=unit)
    body = {"name": "Ford", "army_ids": sides}
    battle = player.call("POST", f"{b}/api/v1/battles", json=body).json()
    ids = {u["name"]: u["id"] for u in battle["units"]}
    roll = {"attacker_id": ids["Tank"], "weapons": [0], "target_id": ids["Fortress"]}
    base = f"/api/v1/battles/{battle['id']}"

    def fire(server: str) -> Callable[[], httpx.Response]:
        return lambda: player.call("POST", f"{server}{base}/rolls", json=roll)

    assert _race(*(fire(server) for server in (a, b) * 3)) == [201] * 6
    log = player.call("GET", a + base).json()["log"]
    assert [entry["seq"] for entry in log] == [1, 2, 3, 4, 5, 6]
