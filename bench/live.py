"""`make load`'s ``live`` phase (issue 31): battles' live streams while their players roll.

``--live-battles`` battles (default 100) are seeded through the services: two accounts a
battle, each with an army of its own; the host creates the battle with theirs, invites the
guest by link, who joins with theirs; the host makes the read-only link. A server of its own
(``uvicorn --workers 4``, ``TRUSTED_PROXIES=127.0.0.1`` so that each spectator comes from an
address of its own, as ``LIVE_STREAMS_PER_USER`` counts a visitor by address) serves it.
Each battle then has three streams open, as a browser opens them: the host's and the guest's
page streams (``GET /battles/{id}/events``, HTML fragments, with their session cookie) and a
spectator's (``GET /battles/shared/{token}/events``), each read by a raw asyncio socket in a
load process of their own. Each battle's players take turns to roll every 3 s (``POST
/api/v1/battles/{id}/rolls``, a legal attack of one of their units on one of the other's:
an attack refused because a unit was destroyed or its weapon put out of action is tried
again with others, at once). Beside it, a small army-page load (closed loop), also run alone
on the same server just before the streams open.

Measured: for each roll, from its HTTP answer to its event (its ``id`` is the log's seq)
arriving at each stream of the battle (the other player's and the spectator's; the roller's
own apart); the server's memory (the RSS of its processes) with the streams open less before
they opened, per stream; each stream's missed and duplicated event ids, from the stream alone
(its ids must run 1, 2, 3, … as the log's seqs do: the streams open at ``after=0``), and
rolls whose event never came by the end; ``reload``/``ended`` events (there should be none);
the army page's p99 beside the streams against alone. The clocks of the load processes are
one (``time.monotonic``: CLOCK_MONOTONIC).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx

from bench.abuse import PeakMemory, rss_mb
from bench.load import PASSWORD, CpuMeter, _answer, _request, _units, _why, production_server

HEADING = "## Live battles (issue 31)"
BATTLES = 100
ROLL_EVERY = 3.0  # seconds between a battle's rolls (its players take turns)
UNITS = 10  # an army's units (a few of them two figures: more battle units)
ARMY_CONNECTIONS = 8  # the army-page load beside the streams (closed loop)
OPEN_AT_ONCE = 20  # streams being opened at a time
GRACE = 3.0  # seconds the streams are read after the last roll
IDLE = 4.0  # seconds: a connection idle longer is opened again (uvicorn closes it at 5)
TRIES = 4  # a roll refused (a unit out): tried again with other units at once
TARGET_MS, TARGET_KB, TARGET_RATIO = 250.0, 100.0, 2.0
YARDSTICK = 4000.0  # the targets are for a machine whose yardstick serves this


@dataclass
class Table:
    """One seeded battle: who plays it and the battle units each may use and shoot at."""

    id: int
    link: str  # the read-only link's token
    host: str  # e-mails
    guest: str
    host_units: list[int]
    guest_units: list[int]
    host_army: int


def seed(database_url: str, battles: int) -> list[Table]:
    """The battles, their players and links, through the services as the app makes them."""
    from sqlalchemy import select

    from app.db.models import BattleSide, BattleUnit, User
    from app.db.session import make_engine, make_sessionmaker
    from app.services import armies, builder
    from app.services import battles as battle_services
    from app.services.accounts import register

    engine = make_engine(database_url)
    maker = make_sessionmaker(engine)
    out = []
    try:
        for b in range(battles):
            with maker.begin() as s:
                people: list[User] = []
                army_ids: list[list[int]] = []
                for who in ("host", "guest"):
                    user = register(
                        s,
                        email=f"{who}{b}@live.example",
                        password=PASSWORD,
                        display_name=f"{who.title()} {b}",
                    )
                    army = armies.create_army(
                        s,
                        user=user,
                        name=f"{who.title()} army {b}",
                        ruleset_id="brikwars",
                        budget=100_000,
                    )
                    ids = []
                    for body in _units(b)[:UNITS]:
                        unit = builder.add_unit(s, user=user, army_id=army.id, data=body)
                        s.flush()
                        ids.append(unit.id)
                    people.append(user)
                    army_ids.append([army.id, *ids])
                host, guest = people
                # One army of the host's: its units as a battle of chosen units (the app's
                # way to start a battle with one army of one's own; its sides are the host's).
                battle = battle_services.create_battle(
                    s,
                    user=host,
                    name=f"Live {b}",
                    army_ids=[army_ids[0][0]],
                    unit_ids=army_ids[0][1:],
                )
                _, invite = battle_services.create_invite(s, user=host, battle_id=battle.id)
                side = battle_services.join_by_link(
                    s, user=guest, token=invite, army_id=army_ids[1][0]
                )
                link = battle_services.share_link(s, user=host, battle_id=battle.id)
                rows = s.execute(
                    select(BattleUnit.id, BattleUnit.side_id)
                    .join(BattleSide, BattleSide.id == BattleUnit.side_id)
                    .where(BattleUnit.battle_id == battle.id)
                    .order_by(BattleUnit.position)
                ).all()
                out.append(
                    Table(
                        battle.id,
                        link,
                        host.email,
                        guest.email,
                        [u for u, sid in rows if sid != side.id],
                        [u for u, sid in rows if sid == side.id],
                        army_ids[0][0],
                    )
                )
    finally:
        engine.dispose()
    return out


def server_env(base: dict[str, str]) -> dict[str, str]:
    """The load's environment, spectators from addresses of their own (a trusted proxy)."""
    return {**base, "TRUSTED_PROXIES": "127.0.0.1"}


@dataclass(frozen=True)
class Login:
    cookie: str
    csrf: str


def log_in(port: int, emails: list[str]) -> dict[str, Login]:
    out = {}
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
        for email in emails:
            r = client.post("/api/v1/auth/login", json={"email": email, "password": PASSWORD})
            r.raise_for_status()
            cookie = "; ".join(f"{c.name}={c.value}" for c in client.cookies.jar)
            client.cookies.clear()
            out[email] = Login(cookie, r.json()["csrf_token"])
    return out


# ------------------------------------------------------------------------------ streams


@dataclass
class Watched:
    """One stream's record: its battle, whose it is, and each event (id, kind, arrival)."""

    battle: int
    who: str  # "host", "guest", "spectator"
    status: int = 0
    events: list[tuple[int, str, float]] = field(default_factory=list)
    comments: int = 0  # heartbeats
    error: str = ""


def _stream_request(table: Table, who: str, logins: dict[str, Login], k: int) -> bytes:
    headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
    if who == "spectator":
        path = f"/battles/shared/{table.link}/events?after=0"
        headers["X-Forwarded-For"] = f"10.9.{k // 250}.{k % 250 + 1}"  # a visitor's own
    else:
        path = f"/battles/{table.id}/events?after=0"
        headers["Cookie"] = logins[table.host if who == "host" else table.guest].cookie
    return _request("GET", path, headers)


def _parse_block(block: bytes, record: Watched, now: float) -> None:
    """One SSE event block (its lines; ``data`` may span many)."""
    ident, kind, comment = None, "message", False
    for line in block.split(b"\n"):
        if line.startswith(b":"):
            comment = True
        elif line.startswith(b"id:"):
            ident = line[3:].strip().decode()
        elif line.startswith(b"event:"):
            kind = line[6:].strip().decode()
    if kind == "presence":  # who is connected, not an entry (its id repeats the last one)
        return
    if ident is not None and ident.isdigit():
        record.events.append((int(ident), kind, now))
    elif kind in ("reload", "ended"):
        record.events.append((-1, kind, now))
    elif comment:
        record.comments += 1


async def _read_stream(
    port: int, request: bytes, record: Watched, opened: asyncio.Semaphore, ready: list[int]
) -> None:
    """Open one stream (at most ``OPEN_AT_ONCE`` being opened), then record its events until
    cancelled."""
    async with opened:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(request)
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 60)
        except (OSError, asyncio.IncompleteReadError, TimeoutError) as exc:
            record.error = repr(exc)
            ready[0] += 1
            return
        record.status = int(head[9:12])
        if record.status != 200 or b"chunked" not in head.lower():
            record.error = head.split(b"\r\n", 1)[0].decode()
            ready[0] += 1
            writer.close()
            return
        ready[0] += 1
    buffer = b""
    try:
        while True:
            line = await reader.readuntil(b"\r\n")
            size = int(line.split(b";")[0], 16)
            chunk = await reader.readexactly(size + 2)
            if size == 0:
                record.error = "the server ended the stream"
                break
            now = time.monotonic()
            buffer += chunk[:-2]
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                _parse_block(block, record, now)
    except (OSError, asyncio.IncompleteReadError) as exc:
        record.error = repr(exc)
    finally:
        writer.close()


def _watch(port: int, requests: list[tuple[Watched, bytes]], stop: Any, out: Any) -> None:
    """The streams' load process: open them all, say so, read them until ``stop``."""
    records = [r for r, _ in requests]

    async def main() -> None:
        opened = asyncio.Semaphore(OPEN_AT_ONCE)
        ready = [0]
        tasks = [
            asyncio.create_task(_read_stream(port, req, rec, opened, ready))
            for rec, req in requests
        ]
        while ready[0] < len(tasks):
            await asyncio.sleep(0.05)
        out.send(("open", sum(1 for r in records if r.status == 200)))
        while not stop.is_set():  # (a multiprocessing Event: polled, not awaited)
            await asyncio.sleep(0.1)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    cpu = time.process_time()
    asyncio.run(main())
    out.send(("done", records, time.process_time() - cpu))
    out.close()


# ------------------------------------------------------------------------------ rolls


@dataclass
class Rolled:
    """The rolls' record: (battle, seq, roller, answered at); refusals and errors."""

    rolls: list[tuple[int, int, str, float]] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)
    refused: dict[str, int] = field(default_factory=dict)  # reason: count (then tried again)
    errors: dict[str, int] = field(default_factory=dict)


async def _roll_battle(
    port: int, table: Table, logins: dict[str, Login], start: float, stop: float, rec: Rolled
) -> None:
    rng = random.Random(table.id)  # noqa: S311  (a replayable choice of units)
    sides = {
        "host": (table.host_units, table.guest_units),
        "guest": (table.guest_units, table.host_units),
    }
    out: set[int] = set()  # units seen destroyed or without a working first weapon
    conns = {}
    for who in ("host", "guest"):
        conns[who] = await asyncio.open_connection("127.0.0.1", port)
    used = dict.fromkeys(conns, time.monotonic())  # when each connection last answered
    turn = 0
    try:
        while True:
            due = start + turn * ROLL_EVERY
            if due >= stop:
                break
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            who = ("host", "guest")[turn % 2]
            turn += 1
            login = logins[table.host if who == "host" else table.guest]
            headers = {
                "Cookie": login.cookie,
                "X-CSRF-Token": login.csrf,
                "Content-Type": "application/json",
            }
            mine, theirs = sides[who]
            if time.monotonic() - used[who] > IDLE:  # the server has closed it by now
                conns[who][1].close()
                conns[who] = await asyncio.open_connection("127.0.0.1", port)
            reader, writer = conns[who]
            for _ in range(TRIES):
                shooters = [u for u in mine if u not in out] or mine
                targets = [u for u in theirs if u not in out] or theirs
                shooter, target = rng.choice(shooters), rng.choice(targets)
                body = json.dumps(
                    {
                        "attacker_id": shooter,
                        "weapons": [0],
                        "target_id": target,
                        "situation": {"distance": 3},
                    }
                ).encode()
                sent = time.monotonic()
                try:
                    writer.write(
                        _request("POST", f"/api/v1/battles/{table.id}/rolls", headers, body)
                    )
                    status, close, answer, _ = await asyncio.wait_for(_answer(reader), 30)
                except (OSError, asyncio.IncompleteReadError, TimeoutError) as exc:
                    rec.errors[type(exc).__name__] = rec.errors.get(type(exc).__name__, 0) + 1
                    writer.close()
                    conns[who] = await asyncio.open_connection("127.0.0.1", port)
                    reader, writer = conns[who]
                    break
                done = used[who] = time.monotonic()
                if close:
                    writer.close()
                    conns[who] = await asyncio.open_connection("127.0.0.1", port)
                    reader, writer = conns[who]
                if status == 201:
                    rec.rolls.append((table.id, int(json.loads(answer)["seq"]), who, done))
                    rec.ms.append((done - sent) * 1000)
                    break
                why = _why(status, answer)
                if status == 422:  # a unit out of the fight: others, at once
                    try:
                        field_ = str(json.loads(answer)["detail"][0].get("field", ""))
                    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
                        field_ = "?"
                    out.add(target if field_ == "target_id" else shooter)
                    key = "422 " + field_
                    rec.refused[key] = rec.refused.get(key, 0) + 1
                    continue
                rec.errors[why[:120]] = rec.errors.get(why[:120], 0) + 1
                break
    finally:
        for _, w in conns.values():
            w.close()


def _roll(
    port: int, tables: list[Table], logins: dict[str, Login], seconds: float, out: Any
) -> None:
    rec = Rolled()

    async def main() -> None:
        start = time.monotonic() + 0.2
        stop = start + seconds
        spread = random.Random(31)  # noqa: S311
        await asyncio.gather(
            *(
                _roll_battle(port, t, logins, start + spread.random() * ROLL_EVERY, stop, rec)
                for t in tables
            )
        )

    cpu = time.process_time()
    asyncio.run(main())
    out.send((rec, time.process_time() - cpu))
    out.close()


# ------------------------------------------------------------------------------ army pages


def _army(port: int, requests: list[bytes], seconds: float, out: Any) -> None:
    """The army-page load: each connection its page, closed loop, for ``seconds``."""
    ms: list[float] = []
    errors: list[str] = []

    async def one(request: bytes, stop: float) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while time.monotonic() < stop:
                sent = time.perf_counter()
                writer.write(request)
                status, close, body, _ = await asyncio.wait_for(_answer(reader), 30)
                if status == 200:
                    ms.append((time.perf_counter() - sent) * 1000)
                else:
                    errors.append(_why(status, body))
                if close:
                    writer.close()
                    reader, writer = await asyncio.open_connection("127.0.0.1", port)
        finally:
            writer.close()

    async def main() -> None:
        stop = time.monotonic() + seconds
        await asyncio.gather(*(one(r, stop) for r in requests))

    asyncio.run(main())
    out.send((ms, errors))
    out.close()


def _p(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))] if values else float("nan")


@dataclass(frozen=True)
class ArmyFigures:
    requests: int
    per_second: float
    p50: float
    p99: float
    errors: list[str]


def _army_figures(result: tuple[list[float], list[str]], seconds: float) -> ArmyFigures:
    ms, errors = result
    return ArmyFigures(
        len(ms), len(ms) / seconds, statistics.median(ms) if ms else 0.0, _p(ms, 0.99), errors
    )


# ------------------------------------------------------------------------------ the phase


@dataclass
class Outcome:
    battles: int
    streams: int
    opened: int
    seconds: float
    rolls: int
    roll_ms: tuple[float, float]  # the rolls' own answers, p50 / p99
    others: list[float]  # ms from a roll's answer to its event at the other streams
    own: list[float]  # … at the roller's own stream
    rss_before: float
    rss_open: float
    rss_peak: float
    missed: int  # ids skipped within a stream
    duplicated: int
    undelivered: int  # rolls whose event never reached a stream of its battle by the end
    odd_events: dict[str, int]  # reload / ended
    oddities: list[str]  # the first gaps and duplicates, for the report
    stream_errors: list[str]
    refused: dict[str, int]
    roll_errors: dict[str, int]
    heartbeats: int
    army_alone: ArmyFigures
    army_beside: ArmyFigures
    generator_cpu: float
    load: tuple[float, float]
    server_cpu: tuple[float, float]  # CPUs used while rolling: the app's processes, PostgreSQL

    @property
    def per_stream_kb(self) -> float:
        return (self.rss_open - self.rss_before) * 1000 / max(1, self.opened)

    @property
    def army_ratio(self) -> float:
        alone = self.army_alone.p99
        return self.army_beside.p99 / alone if alone else float("inf")


def _pipe_process(target: Any, *args: Any) -> tuple[Any, Any]:
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=target, args=(*args, send))
    proc.start()
    return recv, proc


def run(env: dict[str, str], tables: list[Table], *, seconds: float, workers: int) -> Outcome:
    """The phase on a server of its own (see the module's doc)."""
    load_start = os.getloadavg()[0]
    with production_server(server_env(env), workers) as (port, pid):
        logins = log_in(port, [e for t in tables for e in (t.host, t.guest)])
        army_requests = [
            _request(
                "GET",
                f"/armies/{t.host_army}",
                {"Cookie": logins[t.host].cookie, "Accept": "text/html"},
            )
            for t in tables[:ARMY_CONNECTIONS]
        ]
        # Warm-up: every worker's templates, pages and live rendering (a few battles' streams
        # while they roll), not measured.
        print("live: warming up…", file=sys.stderr)
        _warm(port, tables[: min(8, len(tables))], logins, army_requests)
        print("live: the army page alone…", file=sys.stderr)
        recv, proc = _pipe_process(_army, port, army_requests, seconds)
        alone = _army_figures(recv.recv(), seconds)
        proc.join()
        time.sleep(1)
        rss_before = statistics.median(_samples(pid))
        print(f"live: opening {3 * len(tables)} streams…", file=sys.stderr)
        ctx = multiprocessing.get_context("fork")
        stop = ctx.Event()
        requests = []
        for k, t in enumerate(tables):
            for who in ("host", "guest", "spectator"):
                requests.append((Watched(t.id, who), _stream_request(t, who, logins, k)))
        watch_recv, watch_proc = _pipe_process(_watch, port, requests, stop)
        _, opened = watch_recv.recv()
        time.sleep(2)
        rss_open = statistics.median(_samples(pid))
        print(f"live: {opened} streams open; rolling for {seconds:g} s…", file=sys.stderr)
        peak = PeakMemory(pid)
        peak.start()
        meter = CpuMeter(pid, env["DATABASE_URL"])
        cpu_before = meter.read()
        roll_recv, roll_proc = _pipe_process(_roll, port, tables, logins, seconds)
        army_recv, army_proc = _pipe_process(_army, port, army_requests, seconds)
        rolled, roll_cpu = roll_recv.recv()
        beside = _army_figures(army_recv.recv(), seconds)
        cpu_after = meter.read()
        time.sleep(GRACE)
        stop.set()
        _, records, watch_cpu = watch_recv.recv()
        rss_peak = peak.stop()
        for p in (watch_proc, roll_proc, army_proc):
            p.join()
    return _outcome(
        tables,
        records,
        rolled,
        opened,
        seconds,
        (rss_before, rss_open, rss_peak),
        (alone, beside),
        (roll_cpu + watch_cpu) / (seconds + GRACE),
        (load_start, os.getloadavg()[0]),
        ((cpu_after[0] - cpu_before[0]) / seconds, (cpu_after[1] - cpu_before[1]) / seconds),
    )


def _samples(pid: int) -> list[float]:
    out = []
    for _ in range(5):
        out.append(rss_mb(pid))
        time.sleep(0.2)
    return out


def _warm(port: int, tables: list[Table], logins: dict[str, Login], army: list[bytes]) -> None:
    ctx = multiprocessing.get_context("fork")
    stop = ctx.Event()
    requests = [
        (Watched(t.id, who), _stream_request(t, who, logins, 1000 + k))
        for k, t in enumerate(tables)
        for who in ("host", "guest", "spectator")
    ]
    watch_recv, watch_proc = _pipe_process(_watch, port, requests, stop)
    watch_recv.recv()
    roll_recv, roll_proc = _pipe_process(_roll, port, tables, logins, 2 * ROLL_EVERY)
    army_recv, army_proc = _pipe_process(_army, port, army, 3.0)
    roll_recv.recv()
    army_recv.recv()
    time.sleep(1)
    stop.set()
    watch_recv.recv()
    for p in (watch_proc, roll_proc, army_proc):
        p.join()


def _outcome(
    tables: list[Table],
    records: list[Watched],
    rolled: Rolled,
    opened: int,
    seconds: float,
    rss: tuple[float, float, float],
    army: tuple[ArmyFigures, ArmyFigures],
    generator_cpu: float,
    load: tuple[float, float],
    server_cpu: tuple[float, float],
) -> Outcome:
    missed = duplicated = undelivered = 0
    oddities: list[str] = []
    odd: dict[str, int] = {}
    errors = []
    arrived: dict[tuple[int, str], dict[int, float]] = {}
    for r in records:
        if r.error:
            errors.append(f"{r.who} {r.battle}: {r.error}")
        seen: dict[int, float] = {}
        last = 0
        for ident, kind, at in r.events:
            if ident < 0:
                odd[kind] = odd.get(kind, 0) + 1
                continue
            if ident in seen or ident <= last:
                duplicated += 1
                oddities.append(f"{r.who} of battle {r.battle}: id {ident} after {last}")
                continue
            if ident > last + 1:
                oddities.append(f"{r.who} of battle {r.battle}: id {ident} after {last}")
            missed += ident - last - 1  # the ids skipped (the log's seqs run 1, 2, 3, …)
            last = ident
            seen[ident] = at
        arrived[(r.battle, r.who)] = seen
    others: list[float] = []
    own: list[float] = []
    for battle, seq, roller, at in rolled.rolls:
        for who in ("host", "guest", "spectator"):
            got = arrived.get((battle, who))
            if got is None:
                continue  # (a stream that did not open: in the stream errors)
            if seq not in got:
                undelivered += 1
                continue
            (own if who == roller else others).append((got[seq] - at) * 1000)
    return Outcome(
        battles=len(tables),
        streams=len(records),
        opened=opened,
        seconds=seconds,
        rolls=len(rolled.rolls),
        roll_ms=(statistics.median(rolled.ms) if rolled.ms else 0.0, _p(rolled.ms, 0.99)),
        others=others,
        own=own,
        rss_before=rss[0],
        rss_open=rss[1],
        rss_peak=rss[2],
        missed=missed,
        duplicated=duplicated,
        undelivered=undelivered,
        odd_events=odd,
        oddities=oddities,
        stream_errors=errors,
        refused=rolled.refused,
        roll_errors=rolled.errors,
        heartbeats=sum(r.comments for r in records),
        army_alone=army[0],
        army_beside=army[1],
        generator_cpu=generator_cpu,
        load=load,
        server_cpu=server_cpu,
    )


# ------------------------------------------------------------------------------ report


def passed(o: Outcome, yardstick_rps: float | None) -> bool:
    scale = (yardstick_rps / YARDSTICK) if yardstick_rps else 1.0
    return (
        _p(o.others, 0.99) * scale < TARGET_MS
        and o.per_stream_kb < TARGET_KB
        and o.missed == 0
        and o.duplicated == 0
        and o.undelivered == 0
        and not o.odd_events
        and o.opened == o.streams
        and o.army_ratio <= TARGET_RATIO
        and not o.roll_errors
    )


def report(o: Outcome, yardstick: Any, workers: int, army_phase: Any = None) -> str:
    """The live phase's section of bench/results.md (``yardstick``: the run's hello-world
    row, if it ran; ``army_phase``: the army phase's row of the same run, if it ran)."""
    rps = yardstick.per_second if yardstick is not None else None
    scale = rps / YARDSTICK if rps else None
    p50, p99 = statistics.median(o.others) if o.others else 0.0, _p(o.others, 0.99)
    own50, own99 = (statistics.median(o.own) if o.own else 0.0), _p(o.own, 0.99)

    def verdict(ok: bool) -> str:
        return "meets" if ok else "MISSES"

    scaled = (
        f"{p99 * scale:.0f} ms scaled (yardstick {rps:.0f} req/s: × {scale:.2f})"
        if scale
        else "not scaled (no yardstick in this run)"
    )
    lines = [
        HEADING,
        "",
        f"`make load`'s live phase, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: PostgreSQL on "
        f"127.0.0.1, `uvicorn --workers {workers}` of its own; {o.battles} battles (two "
        f"accounts each: the host's army and the guest's, joined by an invitation link; "
        f"{UNITS}-unit armies), each with its host's and its guest's page stream (HTML) and a "
        f"spectator's (the read-only link, each from an address of its own): {o.streams} "
        f"streams read by raw asyncio sockets in one load process; each battle's players "
        f"rolling in turn every {ROLL_EVERY:g} s through the API for {o.seconds:g} s (then "
        f"{GRACE:g} s more of reading); {ARMY_CONNECTIONS} connections of army pages beside "
        f"them (closed loop), and alone just before. The load generator used "
        f"{o.generator_cpu:.2f} of a CPU (streams and rolls); the machine's load average was "
        f"{o.load[0]:.1f} at the start and {o.load[1]:.1f} at the end (2 cores, shared). "
        f"While they rolled, the server used {o.server_cpu[0]:.2f} CPUs in its processes and "
        f"{o.server_cpu[1]:.2f} in PostgreSQL's backends: "
        f"{sum(o.server_cpu) * o.seconds * 1000 / max(1, o.rolls):.1f} ms a roll, the army "
        "pages beside included.",
        "",
        "| measure | figure | target | verdict |",
        "|---|---|---|---|",
        f"| a roll's answer → its event at the other streams (other player, spectator): "
        f"{len(o.others)} deliveries | p50 {p50:.0f} ms, p99 {p99:.0f} ms; {scaled} "
        f"| p99 < {TARGET_MS:.0f} ms (scaled) "
        f"| {verdict(p99 * (scale or 1.0) < TARGET_MS)} |",
        f"| … at the roller's own stream ({len(o.own)}) | p50 {own50:.0f} ms, p99 {own99:.0f} ms "
        "| | |",
        f"| rolls | {o.rolls} answered 201 (p50 {o.roll_ms[0]:.0f} ms, p99 {o.roll_ms[1]:.0f} "
        f"ms); refused then tried again: {_counts(o.refused) or 'none'}; errors: "
        f"{_counts(o.roll_errors) or 'none'} | | {verdict(not o.roll_errors)} |",
        f"| streams open | {o.opened} of {o.streams}"
        + (f" ({'; '.join(o.stream_errors[:3])})" if o.stream_errors else "")
        + f" | all | {verdict(o.opened == o.streams and not o.stream_errors)} |",
        f"| server memory (RSS of its processes), streams open less before | "
        f"{o.rss_before:.0f} → {o.rss_open:.0f} MB: {o.per_stream_kb:.1f} kB a stream "
        f"(peak while rolling {o.rss_peak:.0f} MB) | < {TARGET_KB:.0f} kB "
        f"| {verdict(o.per_stream_kb < TARGET_KB)} |",
        f"| missed / duplicated event ids, from the streams alone | {o.missed} / {o.duplicated};"
        f" rolls whose event never came by the end: {o.undelivered}; reload/ended events: "
        f"{_counts(o.odd_events) or 'none'}; heartbeats {o.heartbeats}"
        + (f" ({'; '.join(o.oddities[:3])})" if o.oddities else "")
        + " | 0 "
        f"| {verdict(not (o.missed or o.duplicated or o.undelivered or o.odd_events))} |",
        f"| army page p99 beside the streams vs alone (same server, {ARMY_CONNECTIONS} "
        f"connections) | {o.army_alone.p99:.1f} → {o.army_beside.p99:.1f} ms "
        f"(×{o.army_ratio:.2f}; {o.army_alone.per_second:.0f} → "
        f"{o.army_beside.per_second:.0f} req/s"
        + (
            f"; {len(o.army_beside.errors)} errors: {o.army_beside.errors[0]}"
            if o.army_beside.errors
            else ""
        )
        + ")"
        + (
            f"; the army phase's p99 in this run: {army_phase.p99:.1f} ms (32 connections)"
            if army_phase is not None
            else ""
        )
        + f" | ≤ {TARGET_RATIO:g}x | {verdict(o.army_ratio <= TARGET_RATIO)} |",
    ]
    return "\n".join(lines) + "\n"


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{n}× {k}" for k, n in sorted(counts.items()))
