"""The live hub under races and failures (issue 31's load run): an action committed while a
battle's events load is sent once, as an entry (no ``reload`` repeating its number); a
stream never repeats an entry; a survey never ends a stream opened while it read; a failed
database read is never taken for lost access, and a failed load is tried again (its events
still come, in order); a stream that failed to open counts against no bound; each event is
rendered once per role.

The hub is driven directly, on a loop of the test's own (as test_live_players.py does).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import event
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import ORMExecuteState

from app.services.tokens import digest
from app.web import live as hub_module
from app.web.live import Grant, Hub, Rendered, Stream, StreamsBusy
from tests.web.battles.own_loop import run_apart
from tests.web.battles.test_battles import _form, api, battle  # noqa: F401  (the fixture)
from tests.web.battles.test_live import _rolls, events
from tests.web.battles.test_live_players import _login, _user
from tests.web.conftest import Member


def _host(app: FastAPI, member: Member, battle_id: int) -> Grant:
    host = _user(app, member.email)
    return Grant(battle_id, "host", user_id=host.id, login_id=_login(app, host))


def _drain(stream: Stream) -> list[tuple[int, str, str]]:
    text = []
    while not stream.queue.empty():
        item = stream.queue.get_nowait()
        text.append("event: ended\n\n" if item is None else item)
    return events("".join(text))


def _run(app: FastAPI, scenario: Callable[[Hub], Awaitable[Any]]) -> Any:
    async def run() -> Any:
        hub = Hub(app.state.settings, app.state.live_sessionmaker)
        hub.retry_first = 0.0  # (a failed read is tried again at once)
        try:
            return await scenario(hub)
        finally:
            hub.stop()

    return run_apart(run())


def _broken(times: int, real: Callable[..., Any]) -> Callable[..., Any]:
    """``real``, failing its first ``times`` calls as a pool timeout would."""
    calls = [0]

    def call(*args: Any) -> Any:
        calls[0] += 1
        if calls[0] <= times:
            raise OperationalError("SELECT", {}, Exception("pool exhausted"))
        return real(*args)

    call.calls = calls  # type: ignore[attr-defined]
    return call


def test_an_action_committed_while_events_load_is_sent_once_as_an_entry(
    app: FastAPI,
    member: Member,
    battle: dict[str, int],  # noqa: F811
) -> None:
    _rolls(member, battle, 1)
    fired: list[bool] = []

    def commit_between(state: ORMExecuteState) -> Any:
        """After the load's first statement, another roll commits (as a request would)."""
        if fired or not state.is_select:
            return None
        fired.append(True)
        frozen = state.invoke_statement().freeze()
        member.form(
            f"/battles/{battle['id']}/rolls", _form(battle, seed="7"), follow_redirects=False
        )
        return frozen()

    async def scenario(hub: Hub) -> list[tuple[int, str, str]]:
        loads = app.state.live_sessionmaker
        event.listen(loads, "do_orm_execute", commit_between)
        try:
            stream = await hub.open(
                _host(app, member, battle["id"]), after=0, key="t", csrf="", as_json=True
            )
        finally:
            event.remove(loads, "do_orm_execute", commit_between)
        await hub._sync(battle["id"], wait=True)  # the next load sees the roll
        return _drain(stream)

    got = _run(app, scenario)
    assert fired
    assert [(seq, kind) for seq, kind, _ in got] == [(1, "entry"), (2, "entry")]


def test_a_stream_never_repeats_an_entry_whatever_syncs_race(
    app: FastAPI,
    member: Member,
    battle: dict[str, int],  # noqa: F811
) -> None:
    stream = Stream(Grant(1, "host"), after=2, key="t", csrf="", as_json=True)
    row = Rendered("<p>", "{}")
    for seq in (2, 3, 3, 1, 4):
        stream.push(seq, "entry", row)
    assert [seq for seq, _, _ in _drain(stream)] == [3, 4]

    async def scenario(hub: Hub) -> list[tuple[int, str, str]]:
        grant = _host(app, member, battle["id"])
        stream = await hub.open(grant, after=0, key="t", csrf="", as_json=True)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, _rolls, member, battle, 3)
        # the commit's own message, a notification, a survey: all at once
        hub.heard([f"b:{battle['id']}:3"])
        await asyncio.gather(
            hub._sync(battle["id"]),
            hub._sync(battle["id"], wait=True),
            hub.survey_once(),
            hub._sync(battle["id"], wait=True),
        )
        await hub._sync(battle["id"], wait=True)
        return _drain(stream)

    got = _run(app, scenario)
    assert [(seq, kind) for seq, kind, _ in got] == [(1, "entry"), (2, "entry"), (3, "entry")]


def test_a_survey_never_ends_a_stream_opened_while_it_read(
    app: FastAPI,
    member: Member,
    battle: dict[str, int],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    token = api(member, "POST", f"/api/v1/battles/{battle['id']}/share-link").json()["token"]
    entered, release = threading.Event(), threading.Event()
    real = hub_module.survey

    def slow_survey(*args: Any) -> Any:
        entered.set()
        release.wait(30)
        return real(*args)

    monkeypatch.setattr(hub_module, "survey", slow_survey)

    async def scenario(hub: Hub) -> tuple[bool, bool]:
        loop = asyncio.get_running_loop()
        host = await hub.open(
            _host(app, member, battle["id"]), after=0, key="t", csrf="", as_json=True
        )
        surveying = asyncio.create_task(hub.survey_once())
        assert await loop.run_in_executor(None, entered.wait, 30)
        grant = Grant(battle["id"], "spectator", link_hash=digest(token))
        spectator = await hub.open(grant, after=0, key="s", csrf="", as_json=False)
        release.set()
        await surveying
        return host.ended, spectator.ended

    assert _run(app, scenario) == (False, False)


def test_a_failed_read_is_not_lost_access_and_is_asked_again(
    app: FastAPI,
    member: Member,
    battle: dict[str, int],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    token = api(member, "POST", f"/api/v1/battles/{battle['id']}/share-link").json()["token"]
    broken = _broken(2, hub_module.survey)
    monkeypatch.setattr(hub_module, "survey", broken)

    async def scenario(hub: Hub) -> tuple[bool, bool, bool]:
        loop = asyncio.get_running_loop()
        host = await hub.open(
            _host(app, member, battle["id"]), after=0, key="t", csrf="", as_json=True
        )
        grant = Grant(battle["id"], "spectator", link_hash=digest(token))
        spectator = await hub.open(grant, after=0, key="s", csrf="", as_json=False)
        await hub.survey_once()  # fails: nobody's stream ends
        kept = not host.ended and not spectator.ended
        # the link is revoked; the recheck it causes fails once, then is asked again
        await loop.run_in_executor(
            None, lambda: api(member, "DELETE", f"/api/v1/battles/{battle['id']}/share-link")
        )
        ended = await asyncio.wait_for(spectator.queue.get(), 30)
        return kept, ended is None, host.ended

    kept, spectator_ended, host_ended = _run(app, scenario)
    assert kept and spectator_ended and not host_ended
    assert broken.calls[0] >= 3  # type: ignore[attr-defined]


def test_a_failed_load_is_tried_again_and_a_failed_open_counts_against_nothing(
    app: FastAPI,
    member: Member,
    battle: dict[str, int],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _rolls(member, battle, 1)
    real = hub_module.load_events

    async def scenario(hub: Hub) -> tuple[list[tuple[int, str, str]], int]:
        loop = asyncio.get_running_loop()
        grant = _host(app, member, battle["id"])
        monkeypatch.setattr(hub_module, "load_events", _broken(10**6, real))
        with pytest.raises(StreamsBusy):
            await hub.open(grant, after=0, key="t", csrf="", as_json=True)
        assert hub.total == 0 and not hub.counts and not hub.watches
        monkeypatch.setattr(hub_module, "load_events", real)
        stream = await hub.open(grant, after=0, key="t", csrf="", as_json=True)
        # the next roll's load fails twice: tried again until its event comes
        failing = _broken(2, real)
        monkeypatch.setattr(hub_module, "load_events", failing)
        await loop.run_in_executor(None, _rolls, member, battle, 2)
        got: list[tuple[int, str, str]] = []
        while len(got) < 3:
            item = await asyncio.wait_for(stream.queue.get(), 30)
            assert item is not None
            got += events(item)
        return got, failing.calls[0]  # type: ignore[attr-defined]

    got, calls = _run(app, scenario)
    assert [(seq, kind) for seq, kind, _ in got] == [(1, "entry"), (2, "entry"), (3, "entry")]
    assert calls >= 3


def test_a_stream_the_database_cannot_open_now_is_a_503(
    member: Member,
    battle: dict[str, int],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = hub_module.load_events
    monkeypatch.setattr(hub_module, "load_events", _broken(10**6, real))
    r = member.client.get(f"/battles/{battle['id']}/events")
    assert r.status_code == 503 and r.headers["retry-after"]
    assert r.json()["detail"][0]["field"] == "stream"
    monkeypatch.setattr(hub_module, "load_events", real)
    assert member.client.get(f"/battles/{battle['id']}/events").status_code == 200


def test_each_event_is_rendered_once_per_role(
    app: FastAPI,
    member: Member,
    battle: dict[str, int],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    token = api(member, "POST", f"/api/v1/battles/{battle['id']}/share-link").json()["token"]
    rendered: list[tuple[int, str]] = []
    real = hub_module._render

    def counting(view: Any, who: Any, entry: Any, undone: Any, *, as_json: bool) -> Rendered:
        assert threading.current_thread() is not threading.main_thread()  # (off the loop)
        rendered.append((entry.row.seq, who.key + (" json" if as_json else "")))
        return real(view, who, entry, undone, as_json=as_json)

    monkeypatch.setattr(hub_module, "_render", counting)

    async def scenario(hub: Hub) -> None:
        loop = asyncio.get_running_loop()
        host = _host(app, member, battle["id"])
        spectator = Grant(battle["id"], "spectator", link_hash=digest(token))
        for key in ("a", "b"):
            await hub.open(host, after=0, key=key, csrf="", as_json=False)
            await hub.open(spectator, after=0, key=key, csrf="", as_json=False)
        await loop.run_in_executor(None, _rolls, member, battle, 2)
        for _ in range(3):
            await hub._sync(battle["id"], wait=True)
        # a JSON stream: the JSON twin's data, rendered once for its role (HTML streams never
        # need it, so it is made only once one reads it), then from the cache
        await hub.open(host, after=0, key="c", csrf="", as_json=True)
        await hub.open(host, after=0, key="d", csrf="", as_json=True)
        await hub._sync(battle["id"], wait=True)

    _run(app, scenario)
    assert sorted(rendered) == [
        (1, "host"), (1, "host json"), (1, "spectator"),
        (2, "host"), (2, "host json"), (2, "spectator"),
    ]  # fmt: skip
