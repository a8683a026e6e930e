"""Live battle streams across two app servers on one database: what happens on one server
reaches (or ends) a stream held open by the other. On PostgreSQL it travels by
LISTEN/NOTIFY; on SQLite by each server's poll of the log's newest number.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import alembic_config, another_database_url
from tests.web.battles.test_battles import TANK, WALKER
from tests.web.server.test_multi_server import (
    ROOT,
    SESSION_COOKIE,
    Player,
    _free_port,
    _player,
    _wait_until_up,
)

pytestmark = pytest.mark.slow  # two uvicorn servers to start (the module's fixture)
LIVE = {
    "LIVE_STREAM_SECONDS": "120",
    "LIVE_HEARTBEAT_SECONDS": "1",
    "LIVE_STREAMS_PER_USER": "2",
    "TRUSTED_PROXIES": "127.0.0.1",
}
WAIT = 30.0  # seconds for an event to arrive on a busy machine (never a speed check)


def _start(database_url: str) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    env = {**os.environ, **LIVE, "DATABASE_URL": database_url}
    command = [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--no-proxy-headers"]
    command += ["--log-level", "warning"]
    return subprocess.Popen(command, cwd=ROOT, env=env), f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[str, str]]:
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


class Listener:
    """A stream read in a thread of its own: its events (id, event, data) in a queue, and
    None once the server ends it."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        self.events: queue.Queue[tuple[int, str, str] | None] = queue.Queue()
        self.opened = threading.Event()
        self.status = 0
        self.closed = False
        self.client = httpx.Client(timeout=httpx.Timeout(WAIT))
        self.thread = threading.Thread(target=self._read, args=(url, headers), daemon=True)
        self.thread.start()
        assert self.opened.wait(WAIT), "the stream did not open"

    def _read(self, url: str, headers: dict[str, str]) -> None:
        try:
            with self.client.stream("GET", url, headers=headers) as r:
                self.status = r.status_code
                self.opened.set()
                fields: dict[str, str] = {}
                for line in r.iter_lines():
                    if self.closed:
                        return
                    if line == "":
                        if "id" in fields:
                            self.events.put((int(fields["id"]), fields["event"], fields["data"]))
                        fields = {}
                        continue
                    name, _, value = line.partition(": ")
                    if name in ("id", "event"):
                        fields[name] = value
                    elif name == "data":
                        fields["data"] = fields.get("data", "") + value
        except httpx.HTTPError:
            pass
        finally:
            self.opened.set()
            self.events.put(None)

    def next(self) -> tuple[int, str, str] | None:
        return self.events.get(timeout=WAIT)

    def close(self) -> None:
        self.closed = True
        self.client.close()


def _battle(player: Player, url: str) -> dict[str, int]:
    red = player.call("POST", f"{url}/api/v1/armies", json={"name": "Red", "budget": 100})
    blue = player.call("POST", f"{url}/api/v1/armies", json={"name": "Blue", "budget": 100})
    ids = [red.json()["id"], blue.json()["id"]]
    player.call("POST", f"{url}/api/v1/armies/{ids[0]}/units", json=TANK)
    player.call("POST", f"{url}/api/v1/armies/{ids[1]}/units", json=WALKER)
    body = {"name": "Live", "army_ids": ids}
    r = player.call("POST", f"{url}/api/v1/battles", json=body)
    assert r.status_code == 201, r.text
    units = {u["name"]: u["id"] for u in r.json()["units"]}
    return {"id": r.json()["id"], "tank": units["Tank"], "walker": units["Walker"]}


def _roll(player: Player, url: str, battle: dict[str, int], seed: int) -> int:
    body = {
        "attacker_id": battle["tank"],
        "target_id": battle["walker"],
        "weapons": [0],
        "situation": {"distance": 3},
        "seed": seed,
    }
    r = player.call("POST", f"{url}/api/v1/battles/{battle['id']}/rolls", json=body)
    assert r.status_code == 201, r.text
    seq: int = r.json()["seq"]
    return seq


def _cookie(player: Player) -> dict[str, str]:
    return {"Cookie": f"{SESSION_COOKIE}={player.cookie}"}


def _entry(listener: Listener) -> Any:
    """The listener's next entry event ("presence" events, who has the battle open, apart)."""
    while True:
        event = listener.next()
        if not event or event[1] != "presence":
            return event


def test_a_roll_on_one_server_reaches_a_stream_on_the_other(servers: tuple[str, str]) -> None:
    a, b = servers
    alice = _player(a)
    battle = _battle(alice, a)
    page = Listener(f"{b}/battles/{battle['id']}/events?after=0", _cookie(alice))
    api = Listener(f"{b}/api/v1/battles/{battle['id']}/events?after=0", _cookie(alice))
    try:
        assert page.status == 200 and api.status == 200
        seqs = [_roll(alice, a, battle, seed) for seed in (1, 2)]
        for listener, shows in ((page, 'id="entry-{}"'), (api, '"seq":{}')):
            got = [_entry(listener), _entry(listener)]
            assert [(e[0], e[1]) for e in got if e] == [(seqs[0], "entry"), (seqs[1], "entry")]
            assert all(shows.format(e[0]) in e[2] for e in got if e)
    finally:
        page.close()
        api.close()


def test_reconnecting_with_last_event_id_gets_what_it_missed_in_order_once(
    servers: tuple[str, str],
) -> None:
    a, b = servers
    alice = _player(a)
    battle = _battle(alice, a)
    first = Listener(f"{b}/battles/{battle['id']}/events?after=0", _cookie(alice))
    _roll(alice, a, battle, 1)
    seen = _entry(first)
    assert seen is not None and seen[0] == 1
    first.close()
    for seed in (2, 3, 4):
        _roll(alice, b if seed % 2 else a, battle, seed)
    # the page's first address (after=0) and the browser's header: the header's is newer
    again = Listener(
        f"{a}/battles/{battle['id']}/events?after=0", {**_cookie(alice), "Last-Event-ID": "1"}
    )
    try:
        got = [_entry(again) for _ in range(3)]
        assert [e[0] for e in got if e] == [2, 3, 4]
        assert all(f'id="entry-{e[0]}"' in e[2] for e in got if e)
        _roll(alice, b, battle, 5)
        latest = _entry(again)
        assert latest is not None and latest[0] == 5  # no repeat of 2-4 before it
    finally:
        again.close()


def test_revoking_the_link_on_one_server_ends_its_stream_on_the_other(
    servers: tuple[str, str],
) -> None:
    a, b = servers
    alice = _player(a)
    battle = _battle(alice, a)
    token = alice.call("POST", f"{a}/api/v1/battles/{battle['id']}/share-link").json()["token"]
    spectator = Listener(f"{b}/battles/shared/{token}/events?after=0", {})
    host = Listener(f"{b}/battles/{battle['id']}/events?after=0", _cookie(alice))
    try:
        assert spectator.status == 200
        _roll(alice, a, battle, 1)
        assert (_entry(spectator) or (0,))[0] == 1
        assert (
            alice.call("DELETE", f"{a}/api/v1/battles/{battle['id']}/share-link").status_code == 204
        )
        assert _entry(spectator) is None  # ended: the server closed it
        assert httpx.get(f"{b}/battles/shared/{token}/events").status_code == 404
        # the host's stream goes on
        _roll(alice, a, battle, 2)
        got = [_entry(host), _entry(host)]
        assert [e[0] for e in got if e] == [1, 2]
    finally:
        spectator.close()
        host.close()


def test_logging_out_on_one_server_ends_the_sessions_streams_on_the_other(
    servers: tuple[str, str],
) -> None:
    a, b = servers
    alice = _player(a)
    battle = _battle(alice, a)
    stream = Listener(f"{b}/battles/{battle['id']}/events", _cookie(alice))
    try:
        assert stream.status == 200
        assert alice.call("POST", f"{a}/api/v1/auth/logout").status_code in (200, 204)
        assert _entry(stream) is None
    finally:
        stream.close()


def test_streams_past_the_bound_are_a_503_with_retry_after(servers: tuple[str, str]) -> None:
    a, _ = servers
    alice = _player(a)
    battle = _battle(alice, a)
    url = f"{a}/battles/{battle['id']}/events"
    held = [Listener(url, _cookie(alice)) for _ in range(2)]  # LIVE_STREAMS_PER_USER
    try:
        assert [h.status for h in held] == [200, 200]
        r = httpx.get(url, headers=_cookie(alice), timeout=WAIT)
        assert r.status_code == 503 and int(r.headers["retry-after"]) > 0
        assert r.json()["detail"][0]["field"] == "stream"
        # someone else's streams are not counted against Alice
        bob = _player(a)
        other = _battle(bob, a)
        extra = Listener(f"{a}/battles/{other['id']}/events", _cookie(bob))
        assert extra.status == 200
        extra.close()
        # a stranger's stream is a 404, before any bound
        assert httpx.get(url, headers=_cookie(bob), timeout=WAIT).status_code == 404
    finally:
        for h in held:
            h.close()
