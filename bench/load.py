"""`make load`: the app served as production runs it, under a mix of real traffic.

A throw-away PostgreSQL database on 127.0.0.1 is migrated with Alembic and seeded through the
services (clubs, members, 20-unit armies with weapons, battles); ``uvicorn --workers 4`` serves
it on a free loopback port; logged-in browser sessions (cookie + CSRF header) and anonymous
callers then drive it in short phases, each bounded in seconds and in requests:

- ``army``: the army page of a 20-unit army alone (the issue's ``wrk -c32`` figure);
- ``calculator``: the calculator's htmx results fragment alone;
- ``odds``: the public ``/api/v1/brikwars/odds`` alone (anonymous);
- ``mix``: builder pages, unit edits, calculator fragments, battle rolls (each followed by
  its undo, so no unit dies for good) and public odds together.
- ``abuse`` (``bench.abuse``, a server of its own): issue 30's attacks, each beside normal
  pages, in the section "Load under attack (issue 30)";
- ``live`` (``bench.live``, a server of its own): issue 31's battles' live streams, 100
  battles of two players and a spectator each while their players roll, in the section
  "Live battles (issue 31)";
- ``yardstick``: a hello-world app served the same way (how fast the machine was).

``--compare-old REV`` runs only the mix at a fixed offered rate, on REV's code and this
tree's alternately (``bench.openmix``), in its own section.

The load generator is an asyncio HTTP/1.1 keep-alive client on raw sockets in a few
processes (its own CPU time is reported: it shares the machine with the server). Every
figure is written as the ``## Load`` section of bench/results.md (``make bench`` keeps it),
and the database is dropped afterwards. Loopback only: other hosts are refused.

    python -m bench.load [--seconds 12] [--max-requests 40000]
                         [--phases army,calculator,odds,mix,abuse,live,yardstick]
                         [--attacks F4,F3] [--live-battles 100]
    python -m bench.load --compare-old REV [--rate 60] [--rounds 2] [--seconds 12]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx

from bench.common import ROOT, free_port

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
DEFAULT_DB = "postgresql://postgres@127.0.0.1:5432/postgres"
PASSWORD = "load-test-password"  # noqa: S105  (throw-away accounts on a throw-away database)
RESULTS = Path(__file__).resolve().parent / "results.md"
SECTION = "## Load"

CLUBS = 4
MEMBERS = 4  # per club: 16 users
SESSIONS = 2  # logged-in sessions a member (a laptop and a phone)
UNITS = 20
MIX = {  # route: weight
    "army page": 30,
    "unit edit": 15,
    "calculator fragment": 25,
    "battle roll": 10,
    "odds (public)": 20,
}
PHASES = {
    "army": {"army page": 1},
    "calculator": {"calculator fragment": 1},
    "odds": {"odds (public)": 1},
    "mix": MIX,
    "yardstick": {"hello-world": 1},  # bench.hello's app, served the same way: the machine
}
APP_PHASES = ("army", "calculator", "odds", "mix")  # on the app (the yardstick: its own server)
ORDER = (*APP_PHASES, "abuse", "live", "yardstick")  # abuse, live: servers of their own
ODDS_BODY = json.dumps(
    {
        "action": {"die": 6, "use": 4, "modifier": 0},
        "damage": {"dice": 1, "sides": 6, "modifier": 0, "per_die_modifier": 0},
        "armor": {"fixed": 4},
        "deflection": 0,
        "options": {"bonus_die": "same"},
    }
).encode()


# ------------------------------------------------------------------------------ set-up


def loopback_only(url: str) -> None:
    """Refuse any database or server that is not on this machine's loopback."""
    host = urlsplit(url).hostname or ""
    if host not in LOOPBACK:
        raise SystemExit(f"make load runs on loopback only, not on {host!r}")


@contextmanager
def throwaway_database(base_url: str, tag: str = "load") -> Iterator[str]:
    """A fresh PostgreSQL database beside ``base_url``'s, dropped afterwards."""
    import psycopg

    loopback_only(base_url)
    name = f"brikforge_{tag}_{os.getpid()}"
    admin = base_url.replace("postgresql+psycopg://", "postgresql://", 1)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield admin.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _units(k: int) -> list[dict[str, Any]]:
    """A club-sized BrikWars army: tanks with three guns, troopers, a few heroes."""
    out: list[dict[str, Any]] = []
    for i in range(UNITS):
        if i % 4 == 0:
            out.append(
                {
                    "name": f"Tank {k}-{i}",
                    "size": 4,
                    "structure_level": 2,
                    "move": 6,
                    "mind_die": 6,
                    "weapons": [
                        {"type": "gun", "size": 3},
                        {"type": "machinegun", "size": 2},
                        {"type": "cannon", "size": 3, "ammo": {"xsize": 2, "rounds": 4}},
                    ],
                }
            )
        elif i % 4 == 3:
            out.append(
                {
                    "name": f"Walker {k}-{i}",
                    "size": 3,
                    "structure_level": 2,
                    "weapons": [{"type": "gun", "size": 2}, {"type": "hand_weapon"}],
                }
            )
        else:
            out.append(
                {
                    "name": f"Trooper {k}-{i}",
                    "kind": "minifig",
                    "count": 1 + i % 3 // 2,
                    "weapons": [{"type": "long_ranged_weapon"}, {"type": "hand_weapon"}],
                }
            )
    return out


@dataclass
class Player:
    """One seeded member: the ids the traffic needs."""

    email: str
    own_armies: list[int] = field(default_factory=list)
    club_armies: list[int] = field(default_factory=list)  # clubmates' (read only)
    units: dict[int, list[int]] = field(default_factory=dict)  # army id: unit ids
    guns: list[tuple[int, int]] = field(default_factory=list)  # (tank unit id, gun id)
    targets: list[int] = field(default_factory=list)  # unit ids to shoot at
    battles: list[Skirmish] = field(default_factory=list)  # one a session


@dataclass
class Skirmish:
    """A player's battle between their two armies: the ids a roll needs."""

    id: int
    shooters: list[int]  # battle unit ids with a gun first
    victims: list[int]  # the other side's battle unit ids


def seed(database_url: str) -> list[Player]:
    """Clubs, members, armies and battles, made through the services as the app makes them."""
    from app.db.session import make_engine, make_sessionmaker
    from app.services import armies, builder, clubs
    from app.services.accounts import register
    from app.services.battles.creating import battle_unit_ids, create_battle

    engine = make_engine(database_url)
    maker = make_sessionmaker(engine)
    players: list[Player] = []
    try:
        for c in range(CLUBS):
            with maker.begin() as s:
                users = [
                    register(
                        s,
                        email=f"player{c}-{m}@load.example",
                        password=PASSWORD,
                        display_name=f"Player {c}-{m}",
                    )
                    for m in range(MEMBERS)
                ]
                club = clubs.create_club(s, user=users[0], name=f"Club {c}")
                for user in users[1:]:
                    _, token = clubs.create_invite(s, user=users[0], club_id=club.id)
                    clubs.join(s, user=user, token=token)
                user_ids = [u.id for u in users]
                club_id = club.id
            for m, user_id in enumerate(user_ids):
                player = Player(email=f"player{c}-{m}@load.example")
                for a in range(2):
                    # one army a transaction (its 20 units each add a revision, as in the app)
                    with maker.begin() as s:
                        user = s.get_one(_user_model(), user_id)
                        army = armies.create_army(
                            s,
                            user=user,
                            name=f"Host {c}-{m}-{a}",
                            ruleset_id="brikwars",
                            budget=100_000,
                            club_id=club_id if a == 0 else None,
                        )
                        army_id = army.id
                        ids = []
                        for body in _units(a):
                            unit = builder.add_unit(s, user=user, army_id=army_id, data=body)
                            s.flush()
                            ids.append(unit.id)
                            if unit.name.startswith("Tank"):
                                player.guns.append((unit.id, unit.weapons[0].id))
                    player.own_armies.append(army_id)
                    player.units[army_id] = ids
                    player.targets += ids[1::4]
                # A battle for each of the player's two sessions: two devices rolling in one
                # battle at once refuse each other's turns (a jammed gun, a used shooter),
                # which is the game's answer, not the server's error.
                for session in range(SESSIONS):
                    with maker.begin() as s:
                        user = s.get_one(_user_model(), user_id)
                        battle = create_battle(
                            s,
                            user=user,
                            name=f"Skirmish {c}-{m}-{session}",
                            army_ids=player.own_armies,
                        )
                        by_unit = battle_unit_ids(s, battle.id)
                        first, second = (player.units[a] for a in player.own_armies)
                        player.battles.append(
                            Skirmish(
                                battle.id,
                                [by_unit[u] for u, _ in player.guns if u in first],
                                [by_unit[u] for u in second],
                            )
                        )
                players.append(player)
        for p in players:  # clubmates' club armies: read-only page views
            club = p.email.split("-")[0]
            p.club_armies = [
                q.own_armies[0] for q in players if q is not p and q.email.startswith(club + "-")
            ]
    finally:
        engine.dispose()
    return players


def _user_model() -> Any:
    from app.db.models import User

    return User


def server_env(database_url: str) -> dict[str, str]:
    """The environment a measured server runs with."""
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "SECRET_KEY": "load-test-secret",
        # every request comes from 127.0.0.1: the per-address limit would refuse the test
        "CALC_RATE_PER_MINUTE": "100000000",
        "CALC_RATE_BURST": "100000000",
        # the seeded accounts' password hashes: logging in is not what is measured
        "ARGON2_MEMORY_KIB": "1024",
        "ARGON2_TIME_COST": "1",
    }


def migrate(env: dict[str, str], cwd: Path = ROOT) -> None:
    subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"], cwd=cwd, env=env, check=True
    )


@contextmanager
def production_server(
    env: dict[str, str],
    workers: int,
    app: tuple[str, ...] = ("app.main:create_app", "--factory"),
    cwd: Path = ROOT,
) -> Iterator[tuple[int, int]]:
    """``uvicorn --workers N`` on a free loopback port, as the Dockerfile runs it (the app
    imported from ``cwd``: another checkout serves its own code)."""
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        *app,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--no-proxy-headers",
        "--no-access-log",
        "--log-level",
        "warning",
    ]
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, start_new_session=True)  # noqa: S603
    try:
        deadline = time.monotonic() + 180  # four workers importing on a busy machine
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None:
                raise RuntimeError(f"the server stopped (exit status {proc.returncode})")
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not answer /healthz within 180 s")
            time.sleep(0.2)
        time.sleep(2)  # every worker up (each answers /healthz on its own)
        settle(proc.pid)
        yield port, proc.pid
    finally:
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def settle(server_pid: int, *, quiet: float = 0.05, limit: float = 180.0) -> float:
    """Wait until the server's processes are idle: each uvicorn worker starts its own
    calculation workers, which import the engine and compute sample attacks (seconds of CPU
    each, at low priority); measured while they warm up, a phase would count their CPU and
    lose the cores they take. Returns the seconds waited."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        before = sum(_cpu_seconds(p) for p in _descendants(server_pid))
        time.sleep(1.0)
        if sum(_cpu_seconds(p) for p in _descendants(server_pid)) - before < quiet:
            break
    return time.monotonic() - started


@dataclass
class Browser:
    """One logged-in browser: its cookie, its CSRF token and the player's ids."""

    cookie: str
    csrf: str
    player: Player
    seat: int = 0  # which of the player's sessions (and battles) this is


def log_in(port: int, players: list[Player], connections: int) -> list[Browser]:
    """One session per connection (two browsers per player, as a laptop and a phone)."""
    out = []
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
        for k in range(connections):
            player = players[k % len(players)]
            r = client.post(
                "/api/v1/auth/login", json={"email": player.email, "password": PASSWORD}
            )
            r.raise_for_status()
            cookie = "; ".join(f"{c.name}={c.value}" for c in client.cookies.jar)
            client.cookies.clear()
            seat = k // len(players) % SESSIONS
            out.append(Browser(cookie, r.json()["csrf_token"], player, seat))
    return out


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of one process (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        parent = todo.pop()
        out.append(parent)
        with suppress(OSError):
            for task in Path(f"/proc/{parent}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
    return out


def _database_pids(url: str) -> list[int]:
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", (name,))
        return [int(r[0]) for r in rows]


@dataclass(frozen=True)
class CpuMeter:
    """CPU seconds spent by the app server's processes and its database connections."""

    server_pid: int
    database_url: str

    def read(self) -> tuple[float, float]:
        app = sum(_cpu_seconds(p) for p in _descendants(self.server_pid))
        db = sum(_cpu_seconds(p) for p in _database_pids(self.database_url))
        return app, db


# ------------------------------------------------------------------------------ traffic


def _request(method: str, path: str, headers: dict[str, str], body: bytes = b"") -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    if method == "POST":
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def _rng(seed: int) -> random.Random:
    return random.Random(seed)  # noqa: S311  (a replayable traffic mix, not a secret)


class Traffic:
    """The requests one connection sends: each route's next request, as bytes."""

    def __init__(self, browser: Browser, rng: random.Random) -> None:
        self.b = browser
        self.rng = rng
        self.pending_undo = False
        self.edits = 0
        p = browser.player
        self.page = {"Cookie": browser.cookie, "Accept": "text/html"}
        self.htmx = {**self.page, "HX-Request": "true", "X-CSRF-Token": browser.csrf}
        self.form = {**self.htmx, "Content-Type": "application/x-www-form-urlencoded"}
        self.readable = p.own_armies * 4 + p.club_armies  # mostly one's own
        self.battle = p.battles[browser.seat % len(p.battles)]

    def next(self, route: str) -> tuple[str, bytes, tuple[int, ...]]:
        """(route, request, acceptable statuses); a roll is always followed by its undo."""
        p, rng = self.b.player, self.rng
        if route == "battle roll" and self.pending_undo:
            self.pending_undo = False
            return "battle undo", self.undo(), (200,)
        if route == "army page":
            return route, _request("GET", f"/armies/{rng.choice(self.readable)}", self.page), (200,)
        if route == "unit edit":
            army = rng.choice(p.own_armies)
            unit = rng.choice(p.units[army])
            self.edits += 1
            body = urlencode({"name": f"Unit {unit} r{self.edits % 7}"}).encode()
            return route, _request("POST", f"/armies/{army}/units/{unit}", self.form, body), (200,)
        if route == "calculator fragment":
            tank, gun = rng.choice(p.guns)
            query = urlencode(
                {
                    "attacker": tank,
                    "weapons": gun,
                    "target": rng.choice(p.targets),
                    "distance": rng.randrange(1, 30),
                }
            )
            return route, _request("GET", f"/calculator?{query}", self.htmx), (200,)
        if route == "battle roll":
            self.pending_undo = True
            body = urlencode(
                {
                    "attacker_id": rng.choice(self.battle.shooters),
                    "target_id": rng.choice(self.battle.victims),
                    "weapon.0": "on",
                    "distance": "3",
                }
            ).encode()
            url = f"/battles/{self.battle.id}/rolls"
            return route, _request("POST", url, self.form, body), (200,)
        if route == "odds (public)":
            headers = {"Content-Type": "application/json"}
            return route, _request("POST", "/api/v1/brikwars/odds", headers, ODDS_BODY), (200,)
        if route == "hello-world":  # the yardstick: the odds' request to a hello-world app
            headers = {"Content-Type": "application/json"}
            return route, _request("POST", "/hello", headers, ODDS_BODY), (200,)
        raise ValueError(route)

    def undo(self) -> bytes:
        return _request("POST", f"/battles/{self.battle.id}/undo", self.form)


async def _answer(reader: asyncio.StreamReader) -> tuple[int, bool, bytes, bytes]:
    """Read one response; (status, whether the server closes the connection, the body, the
    head)."""
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    lower = head.lower()
    close = b"connection: close" in lower
    body = b""
    at = lower.find(b"content-length:")
    if at >= 0:
        end = lower.index(b"\r\n", at)
        body = await reader.readexactly(int(lower[at + 15 : end]))
    elif b"transfer-encoding: chunked" in lower:
        parts = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            parts.append((await reader.readexactly(size + 2))[:-2])
            if size == 0:
                break
        body = b"".join(parts)
    return status, close, body, head


def _why(status: int, body: bytes) -> str:
    """A refused request's status and the reason its answer gives (for the report)."""
    text = re.sub(rb"<[^>]+>", b" ", body[:4000]).decode("utf-8", "replace")
    reason = " ".join(text.split())
    for marker in ('"reason":"', 'role="alert"'):
        if marker in reason:
            reason = reason.split(marker, 1)[1]
    return f"{status}: {reason[:160]}" if reason else str(status)


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    samples: dict[str, str] = field(default_factory=dict)  # route: first error seen

    def add(self, route: str, ms: float, ok: bool, why: str = "") -> None:
        self.latencies.setdefault(route, []).append(ms)
        if not ok:
            self.errors[route] = self.errors.get(route, 0) + 1
            self.samples.setdefault(route, why)


async def _connection(
    port: int, traffic: Traffic, mix: dict[str, int], stop: float, budget: list[int], tally: Tally
) -> None:
    routes, weights = list(mix), list(mix.values())
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while time.monotonic() < stop and budget[0] > 0:
            budget[0] -= 1
            route, request, good = traffic.next(traffic.rng.choices(routes, weights)[0])
            start = time.perf_counter()
            try:
                writer.write(request)
                status, close, body, _ = await asyncio.wait_for(_answer(reader), 30)
            except (OSError, asyncio.IncompleteReadError, TimeoutError) as exc:
                tally.add(route, (time.perf_counter() - start) * 1000, False, repr(exc))
                writer.close()
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                continue
            ok = status in good
            why = "" if ok else _why(status, body)
            if route == "battle roll" and not ok:
                traffic.pending_undo = False  # nothing of ours to undo
            tally.add(route, (time.perf_counter() - start) * 1000, ok, why)
            if close:
                writer.close()
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
        if traffic.pending_undo:  # leave no unit destroyed for the next phase
            writer.write(traffic.undo())
            await asyncio.wait_for(_answer(reader), 30)
    finally:
        writer.close()


def _drive(
    port: int,
    browsers: list[Browser],
    mix: dict[str, int],
    seconds: float,
    max_requests: int,
    rng_seed: int,
    out: Any,
) -> None:
    """One load process: its connections until the time or the request budget runs out."""
    tally = Tally()
    budget = [max_requests]

    async def main() -> None:
        stop = time.monotonic() + seconds
        await asyncio.gather(
            *(
                _connection(port, Traffic(b, _rng(rng_seed + i)), mix, stop, budget, tally)
                for i, b in enumerate(browsers)
            )
        )

    cpu = time.process_time()
    asyncio.run(main())
    out.send((tally, time.process_time() - cpu))
    out.close()


@dataclass(frozen=True)
class RouteFigures:
    phase: str
    route: str
    requests: int
    per_second: float
    p50: float
    p99: float
    errors: int
    first_error: str


@dataclass(frozen=True)
class Phase:
    """One phase: each route's figures, and the CPU the phase cost (seconds a second of the
    load generator; milliseconds a request of the app's processes and of PostgreSQL's)."""

    name: str
    rows: list[RouteFigures]
    generator_cpu: float
    app_ms: float
    db_ms: float


def run_phase(
    name: str,
    port: int,
    browsers: list[Browser],
    *,
    seconds: float,
    max_requests: int,
    processes: int,
    meter: CpuMeter | None = None,
) -> Phase:
    """Drive one phase with ``processes`` load processes sharing the connections."""
    mix = PHASES[name]
    ctx = multiprocessing.get_context("fork")
    pipes, procs = [], []
    before = meter.read() if meter else (0.0, 0.0)
    start = time.monotonic()
    for k in range(processes):
        recv, send = ctx.Pipe(duplex=False)
        share = max_requests // processes
        proc = ctx.Process(
            target=_drive,
            args=(port, browsers[k::processes], mix, seconds, share, k * 1000, send),
        )
        proc.start()
        pipes.append(recv)
        procs.append(proc)
    results = [pipe.recv() for pipe in pipes]
    for proc in procs:
        proc.join()
    wall = time.monotonic() - start
    after = meter.read() if meter else (0.0, 0.0)
    merged = Tally()
    cpu = 0.0
    for tally, used in results:
        cpu += used
        for route, values in tally.latencies.items():
            merged.latencies.setdefault(route, []).extend(values)
        for route, n in tally.errors.items():
            merged.errors[route] = merged.errors.get(route, 0) + n
        for route, why in tally.samples.items():
            merged.samples.setdefault(route, why)
    rows = []
    for route in sorted(merged.latencies, key=lambda r: -len(merged.latencies[r])):
        values = sorted(merged.latencies[route])
        rows.append(
            RouteFigures(
                name,
                route,
                len(values),
                len(values) / wall,
                statistics.median(values),
                values[min(len(values) - 1, int(len(values) * 0.99))],
                merged.errors.get(route, 0),
                merged.samples.get(route, ""),
            )
        )
    done = max(1, sum(r.requests for r in rows))
    return Phase(
        name,
        rows,
        cpu / wall,
        (after[0] - before[0]) * 1000 / done,
        (after[1] - before[1]) * 1000 / done,
    )


# ------------------------------------------------------------------------------ report


TARGETS = {
    # issue 15: p99 under 150 ms at "at least double today's" 455 req/s
    ("army", "army page"): (
        "p99 < 150 ms and ≥ 910 req/s",
        lambda r: r.p99 < 150 and r.per_second >= 910,
    ),
    ("calculator", "calculator fragment"): ("p99 < 100 ms", lambda r: r.p99 < 100),
}


def section(phases: list[Phase], notes: list[str]) -> str:
    lines = [
        SECTION,
        "",
        f"`make load`, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC. " + " ".join(notes),
        "",
        "| phase | route | requests | req/s | p50 | p99 | errors | CPU a request "
        "(app + PostgreSQL) | target |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for phase in phases:
        for k, r in enumerate(phase.rows):
            target = TARGETS.get((r.phase, r.route))
            verdict = f"{target[0]}: {'meets' if target[1](r) else 'MISSES'}" if target else ""
            err = f"{r.errors} ({r.first_error})" if r.errors else "0"
            cpu = "" if k else f"{phase.app_ms:.1f} + {phase.db_ms:.1f} ms"
            if not k and len(phase.rows) > 1:
                cpu += " (the mix)"
            lines.append(
                f"| {r.phase} | {r.route} | {r.requests} | {r.per_second:.0f} | {r.p50:.1f} ms "
                f"| {r.p99:.1f} ms | {err} | {cpu} | {verdict} |"
            )
    return "\n".join(lines) + "\n"


def write_section(text: str, heading: str = SECTION) -> None:
    """Replace (or add, at the end) the ``heading`` section of bench/results.md (up to the
    next ``## `` heading); the other sections stay as they are."""
    current = RESULTS.read_text() if RESULTS.exists() else "# BrikForge benchmarks\n"
    before, found, after = current.partition(f"\n{heading}\n")
    rest = after.partition("\n## ")
    tail = "\n## " + rest[2] if found and rest[1] else ""
    RESULTS.write_text(before.rstrip("\n") + "\n\n" + text.rstrip("\n") + "\n" + tail)


def _live_section(outcome: Any, done: list[Phase], yardstick: Any, args: Any) -> bool:
    """Print (and write) the live phase's section; whether it met the issue's targets."""
    from bench import live

    army_phase = next((p.rows[0] for p in done if p.name == "army"), None)
    text = live.report(outcome, yardstick, args.workers, army_phase)
    print(text)
    if not args.no_write:
        write_section(text, live.HEADING)
    return live.passed(outcome, yardstick.per_second if yardstick else None)


def main(argv: list[str]) -> int:
    from bench import abuse, live  # they build on this module

    parser = argparse.ArgumentParser(prog="python -m bench.load", description="make load")
    parser.add_argument("--seconds", type=float, default=12, help="per phase (at most 60)")
    parser.add_argument("--max-requests", type=int, default=40_000, help="per phase")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workers", type=int, default=4, help="uvicorn workers")
    parser.add_argument("--processes", type=int, default=2, help="load generator processes")
    parser.add_argument("--phases", default=",".join(ORDER))
    parser.add_argument(
        "--attacks", default="", help="the abuse phase's attacks, e.g. F4,F3 (default: all)"
    )
    parser.add_argument(
        "--live-battles", type=int, default=live.BATTLES, help="the live phase's battles"
    )
    parser.add_argument(
        "--compare-old",
        metavar="REV",
        help="only the mix at a fixed rate, on REV's code and this tree's, alternately",
    )
    parser.add_argument("--rate", type=float, help="--compare-old's offered requests a second")
    parser.add_argument("--rounds", type=int, default=2, help="--compare-old's old-new rounds")
    parser.add_argument("--database-url", default=os.environ.get("LOAD_DATABASE_URL", DEFAULT_DB))
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    if args.compare_old:
        from bench import openmix

        return openmix.run(args)
    phases = [p for p in args.phases.split(",") if p]
    if unknown := set(phases) - set(ORDER):
        parser.error(f"unknown phases: {sorted(unknown)}")
    seconds = min(args.seconds, 60.0)
    load_before = os.getloadavg()[0]
    with throwaway_database(args.database_url) as url:
        env = server_env(url)
        os.environ.update(env)
        print("migrating and seeding…", file=sys.stderr)
        migrate(env)
        from app.settings import get_settings

        get_settings.cache_clear()
        started = time.monotonic()
        players = seed(url)
        setup = abuse.seed(url) if "abuse" in phases else None  # the attacker, its big army
        tables = live.seed(url, max(1, min(args.live_battles, 1000))) if "live" in phases else []
        print(
            f"seeded {len(players)} players in {time.monotonic() - started:.0f} s", file=sys.stderr
        )
        on_app = [p for p in APP_PHASES if p in phases]
        done: list[Phase] = []
        # the yardstick's connections (a hello-world app reads no cookie)
        browsers = [Browser("", "", players[k % len(players)]) for k in range(args.connections)]
        if on_app:
            with production_server(env, args.workers) as (port, pid):
                browsers = log_in(port, players, args.connections)
                meter = CpuMeter(pid, url)
                # Warm every worker before measuring: its templates, and each army's page and unit
                # views, which a worker renders once for each version of the army (a cold start:
                # measured cold, the army page's p99 was 896 ms, then 450 to 486 ms in the three
                # runs after it). Then every route of the phases to measure.
                for warm in ("mix", *(p for p in on_app if p != "mix")):
                    run_phase(
                        warm, port, browsers, seconds=3, max_requests=2000, processes=args.processes
                    )
                for name in on_app:
                    print(f"phase {name}…", file=sys.stderr)
                    done.append(
                        run_phase(
                            name,
                            port,
                            browsers,
                            seconds=seconds,
                            max_requests=args.max_requests,
                            processes=args.processes,
                            meter=meter,
                        )
                    )
        outcomes: list[abuse.Outcome] = []
        if setup is not None:
            outcomes = abuse.run(
                env,
                players,
                setup,
                seconds=seconds,
                max_requests=args.max_requests,
                workers=args.workers,
                attacks=abuse.chosen(args.attacks),
            )
        live_outcome = None
        if tables:
            live_outcome = live.run(env, tables, seconds=seconds, workers=args.workers)
        if "yardstick" in phases:
            # The machine's speed moves (the same server's CPU a request went from 4.2 to 7.2
            # ms between runs minutes apart): a hello-world app, served and driven the same
            # way right after, says how fast the machine was during this run.
            print("phase yardstick…", file=sys.stderr)
            with production_server(env, args.workers, ("bench.hello:app",)) as (port, pid):
                run_phase(
                    "yardstick",
                    port,
                    browsers,
                    seconds=3,
                    max_requests=2000,
                    processes=args.processes,
                )
                done.append(
                    run_phase(
                        "yardstick",
                        port,
                        browsers,
                        seconds=seconds,
                        max_requests=args.max_requests,
                        processes=args.processes,
                        meter=CpuMeter(pid, url),
                    )
                )
    notes = [
        f"PostgreSQL on 127.0.0.1, `uvicorn --workers {args.workers}`, {args.connections}",
        f"keep-alive connections ({len(players)} members of {CLUBS} clubs logged in,",
        f"{SESSIONS} sessions each, each rolling in a battle of its own; {UNITS}-unit armies);",
        "the server's calculation workers and each phase's routes warmed up first (3 s each);",
        f"each phase {seconds:g} s or at most",
        f"{args.max_requests} requests. The load generator ({args.processes} asyncio processes,",
        "raw HTTP/1.1) runs on the same",
        f"{os.cpu_count()}-core machine and used "
        + ", ".join(f"{p.generator_cpu:.2f}" for p in done)
        + " of a CPU in "
        + ", ".join(p.name for p in done)
        + f"; the machine's load average was {load_before:.1f} at the start and"
        + f" {os.getloadavg()[0]:.1f} at the end (all its work: compare runs by CPU a request).",
        "The mix: "
        + ", ".join(f"{r} {w}%" for r, w in MIX.items())
        + " (each roll followed by its undo, counted apart).",
        "CPU a request: the app's processes and PostgreSQL's backends, over the phase;",
        "it compares runs better than req/s does, but it too moves with the machine's speed",
        "(on 2026-12-02 the same code's army page took 1.8 to 4.4 ms, and the yardstick",
        "served 2,674 to 4,620 req/s, within 90 minutes): compare code A/B, alternating.",
    ]
    yardstick = next((p.rows[0] for p in done if p.name == "yardstick"), None)
    if yardstick is not None:
        notes.append(
            "The yardstick: a hello-world FastAPI app (bench/hello.py: parses the odds' JSON "
            "body, answers a constant) served and driven the same way, after the app (the "
            "machine's speed also moves within a run: the same code's army page was 0.13 and "
            "0.27 of it in runs a minute apart); each route's req/s as a share of it: "
            + ", ".join(
                f"{r.route} {r.per_second / yardstick.per_second:.3f}"
                for p in done
                if p.name in ("army", "calculator", "odds")
                for r in p.rows
            )
            + "."
        )
    if done:
        text = section(done, notes)
        print(text)
        if not args.no_write:
            write_section(text)
    if outcomes:
        text = abuse.report(outcomes, seconds, yardstick, args.workers)
        print(text)
        if not args.no_write:
            write_section(text, abuse.HEADING)
    rows = [r for p in done for r in p.rows]
    missed = [r for r in rows if r.errors] + [
        r for r in rows if (t := TARGETS.get((r.phase, r.route))) and not t[1](r)
    ]
    live_ok = live_outcome is None or _live_section(live_outcome, done, yardstick, args)
    return 1 if missed or not all(o.passed for o in outcomes) or not live_ok else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
