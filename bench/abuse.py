"""`make load`'s ``abuse`` phase (issue 30): each attack beside normal traffic, in one run.

Its own ``uvicorn --workers 4`` serves the seeded database with production's costs where an
attack aims at them: argon2 at the settings' defaults (64 MiB a hash), the public
calculators' per-address rate limit as shipped, and ``TRUSTED_PROXIES=127.0.0.1`` so that an
attacker's requests can come from many addresses (``X-Forwarded-For``: a botnet, which the
per-address limits cannot stop). Normal traffic is other users' GET /login (anonymous),
GET /api/v1/rulesets, the army page of a 20-unit army (logged in) and /healthz, over 16
keep-alive connections, closed loop. For each attack, on a server started for it, normal
traffic runs alone (``without``), then beside the attack (``with``), each for the same
seconds; the server's memory (the sum
of the RSS of its processes: uvicorn, its workers, their calculation workers) is sampled every
100 ms. The attacks:

- F4: 40 connections of failed logins (unknown e-mails and wrong passwords of accounts whose
  hash is production's), each request from another address;
- F2: one account's 1,000-gunship army (12 weapons each: its import document is ~880 kB),
  20 connections of that account asking for its text export, then 20 for its army page;
- F3: 20 connections of one account importing that document (each imported army deleted
  again through the API, so that the account's quotas do not end the attack);
- F1: 50 clients, each from its own address, one explosion-odds request a second with the
  issue's body;
- F5: one account adding 12-weapon gunships as fast as 8 connections can (13 rows a
  request), over ten armies, until its quota answers 422;
- F7: a flood of calculations (64 connections, each request from another address, explosion
  odds of varied bodies): every accepted one must answer within the 3 s deadline (measured
  here from the send, which is no earlier than its arrival).

The bounds (the issue's): normal pages keep at least half their req/s, a p99 within 3x of
the same phase without the attack, and the server's peak memory grows by less than 500 MB.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import random
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from bench.load import (
    PASSWORD,
    Player,
    _answer,
    _descendants,
    _request,
    _why,
    production_server,
)

HEADING = "## Load under attack (issue 30)"
NORMAL_CONNECTIONS = 16
GRACE = 5.0  # seconds a request may still take after its phase's time is up
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
ATTACKER = "attacker@abuse.example"
VICTIMS = 8  # accounts whose password hash is production's (F4's wrong passwords)
WRITE_ARMIES = 10  # F5's armies (1,000 units each at most)
F1_BODY = {
    "dice": 3,
    "sides": 6,
    "over_the_top": True,
    "damage_modifier": -835,
    "deflection": 100,
    "armor": {"fixed": 51},
    "options": {"bonus_die": "d6"},
}
BOUNDS = "req/s ≥ 0.5x, p99 ≤ 3x, peak memory + < 500 MB"


def gunship(i: int) -> dict[str, Any]:
    """A legal BrikWars gunship with 12 weapons, as an export writes it (882 bytes)."""
    kinds: list[dict[str, Any]] = [
        {
            "type": "cannon",
            "mount": "mounted",
            "size": 3,
            "ammo": {"xsize": 2, "variant": "standard", "rounds": 2},
        },
        {"type": "gun", "mount": "mounted", "size": 2},
        {"type": "machinegun", "mount": "mounted", "size": 2},
        {"type": "flamethrower", "mount": "mounted", "size": 2},
        {"type": "armor_plating", "mount": "mounted", "size": 1},
    ]
    return {
        "name": f"Skyhammer {i:04d}",
        "kind": "creation",
        "size": 8,
        "structure_level": 2,
        "propulsion": "flying",
        "move": 8,
        "mind_die": None,
        "specialties": [],
        "size_damage": 0,
        "weapons": [kinds[k % len(kinds)] for k in range(12)],
    }


def document() -> bytes:
    """The F2/F3 army: 1,000 gunships, a legal import document of ~880 kB."""
    doc = {
        "format": "brikforge-army",
        "version": 2,
        "ruleset": "brikwars",
        "name": "Armada",
        "budget": 1_000_000,
        "notes": "",
        "units": [gunship(i) for i in range(1000)],
    }
    return json.dumps(doc, separators=(",", ":")).encode()


@dataclass
class Setup:
    """What the attacks need, seeded beside the players."""

    document: bytes
    big_army: int  # the attacker's 1,000-unit army
    write_armies: list[int]
    victims: list[str]


def seed(database_url: str) -> Setup:
    """The attacker (its big army, F5's armies) and the victims, through the services."""
    from app.db.models import User
    from app.db.session import make_engine, make_sessionmaker
    from app.services import armies, transfer
    from app.services.accounts import register
    from app.services.passwords import _hasher

    raw = document()
    engine = make_engine(database_url)
    maker = make_sessionmaker(engine)
    try:
        with maker.begin() as s:
            attacker = register(s, email=ATTACKER, password=PASSWORD, display_name="Attacker")
            attacker_id = attacker.id
            victims = []
            production = _hasher(65536, 3)  # the settings' defaults: what F4 makes the server pay
            for k in range(VICTIMS):
                email = f"victim{k}@abuse.example"
                user = register(s, email=email, password=PASSWORD, display_name=f"Victim {k}")
                user.password_hash = production.hash(PASSWORD)
                victims.append(email)
        with maker.begin() as s:
            user = s.get_one(User, attacker_id)
            big = transfer.import_army(s, user=user, raw=raw).id
        with maker.begin() as s:
            user = s.get_one(User, attacker_id)
            write = [
                armies.create_army(
                    s, user=user, name=f"Rows {k}", ruleset_id="brikwars", budget=1_000_000
                ).id
                for k in range(WRITE_ARMIES)
            ]
    finally:
        engine.dispose()
    return Setup(raw, big, write, victims)


def server_env(base: dict[str, str]) -> dict[str, str]:
    """Production's costs where the attacks aim (see the module's docstring)."""
    cheap = ("ARGON2_MEMORY_KIB", "ARGON2_TIME_COST", "CALC_RATE_PER_MINUTE", "CALC_RATE_BURST")
    env = {k: v for k, v in base.items() if k not in cheap}
    env["TRUSTED_PROXIES"] = "127.0.0.1"
    return env


# ------------------------------------------------------------------------------ traffic


@dataclass
class Ask:
    """One request: its route (for the tally), bytes, acceptable statuses and what follows
    a good answer (given the status and the answer's head)."""

    route: str
    request: bytes
    good: tuple[int, ...]
    then: Callable[[int, bytes], Ask | None] | None = None


@dataclass
class Conn:
    """One connection's requests: ``next()`` for each, at most one every ``pace`` seconds."""

    next: Callable[[], Ask]
    pace: float = 0.0


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=dict)  # good answers
    statuses: dict[str, dict[str, int]] = field(default_factory=dict)
    samples: dict[str, str] = field(default_factory=dict)  # route: first bad answer
    bad: int = 0

    def add(self, route: str, ms: float, status: str, ok: bool, why: str = "") -> None:
        counts = self.statuses.setdefault(route, {})
        counts[status] = counts.get(status, 0) + 1
        if ok:
            self.latencies.setdefault(route, []).append(ms)
        else:
            self.bad += 1
            self.samples.setdefault(route, why)


async def _connection(port: int, conn: Conn, stop: float, budget: list[int], tally: Tally) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    due = time.monotonic() + conn.pace * random.random()  # noqa: S311  (spread, not secret)
    try:
        while time.monotonic() < stop and budget[0] > 0:
            if conn.pace:
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                due += conn.pace
                if time.monotonic() >= stop:
                    break
            ask: Ask | None = conn.next()
            while ask is not None and budget[0] > 0:
                budget[0] -= 1
                start = time.perf_counter()
                try:
                    writer.write(ask.request)
                    left = stop + GRACE - time.monotonic()
                    status, close, body, head = await asyncio.wait_for(_answer(reader), left)
                except (OSError, asyncio.IncompleteReadError, TimeoutError) as exc:
                    ms = (time.perf_counter() - start) * 1000
                    late = isinstance(exc, TimeoutError)  # still at work when the time was up
                    status = (
                        f"unanswered {GRACE:g} s after the phase" if late else type(exc).__name__
                    )
                    tally.add(ask.route, ms, status, False, status if late else repr(exc))
                    writer.close()
                    if time.monotonic() >= stop:
                        return
                    reader, writer = await asyncio.open_connection("127.0.0.1", port)
                    break
                ok = status in ask.good
                ms = (time.perf_counter() - start) * 1000
                tally.add(ask.route, ms, str(status), ok, "" if ok else _why(status, body))
                if close:
                    writer.close()
                    reader, writer = await asyncio.open_connection("127.0.0.1", port)
                ask = ask.then(status, head) if ok and ask.then else None
    finally:
        writer.close()


def _drive(
    port: int, conns: list[Conn], start_at: float, seconds: float, max_requests: int, out: Any
) -> None:
    """One load process: its connections from ``start_at`` for ``seconds``."""
    tally = Tally()

    async def main() -> None:
        await asyncio.sleep(max(0.0, start_at - time.monotonic()))
        stop = start_at + seconds
        budget = [max_requests]
        await asyncio.gather(*(_connection(port, c, stop, budget, tally) for c in conns))

    asyncio.run(main())
    out.send(tally)
    out.close()


def rss_mb(server_pid: int) -> float:
    """The sum of the resident memory of the server's processes, in MB."""
    total = 0
    for pid in _descendants(server_pid):
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return total * PAGE_SIZE / 1e6


class PeakMemory(threading.Thread):
    """The highest ``rss_mb`` seen, sampled every 100 ms until ``stop()``."""

    def __init__(self, server_pid: int) -> None:
        super().__init__(daemon=True)
        self.server_pid = server_pid
        self.peak = rss_mb(server_pid)
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.wait(0.1):
            self.peak = max(self.peak, rss_mb(self.server_pid))

    def stop(self) -> float:
        self._done.set()
        self.join()
        return self.peak


@dataclass(frozen=True)
class Side:
    """Normal traffic's figures in one phase, the attack's tally, the peak memory."""

    per_second: float
    p50: float
    p99: float
    errors: int
    first_error: str
    peak_mb: float
    attack: Tally | None


def run_side(
    port: int,
    server_pid: int,
    normal: list[Conn],
    attack: list[Conn],
    *,
    seconds: float,
    max_requests: int,
) -> Side:
    """Normal traffic for ``seconds``, with the attack's connections beside it if any (each in
    a load process of its own), sampling the server's memory."""
    ctx = multiprocessing.get_context("fork")
    start_at = time.monotonic() + 0.5
    pipes, procs = [], []
    for conns in (normal, attack):
        if not conns:
            continue
        recv, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_drive, args=(port, conns, start_at, seconds, max_requests, send))
        proc.start()
        pipes.append(recv)
        procs.append(proc)
    memory = PeakMemory(server_pid)
    memory.start()
    tallies = [pipe.recv() for pipe in pipes]
    peak = memory.stop()
    for proc in procs:
        proc.join()
    ok = [ms for values in tallies[0].latencies.values() for ms in values]
    ok.sort()
    return Side(
        len(ok) / seconds,
        statistics.median(ok) if ok else 0.0,
        ok[min(len(ok) - 1, int(len(ok) * 0.99))] if ok else 0.0,
        tallies[0].bad,
        next(iter(tallies[0].samples.values()), ""),
        peak,
        tallies[1] if attack else None,
    )


def _address(rng: random.Random) -> str:
    return f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}"


class Site:
    """The abuse server's sessions and the requests of each kind of traffic."""

    def __init__(self, port: int, players: list[Player], setup: Setup) -> None:
        self.port, self.setup = port, setup
        self.players = players
        self.cookies = [self._log_in(p.email) for p in players]
        self.attacker = self._log_in(ATTACKER)

    def _log_in(self, email: str) -> tuple[str, str]:
        with httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=30) as client:
            r = client.post("/api/v1/auth/login", json={"email": email, "password": PASSWORD})
            r.raise_for_status()
            cookie = "; ".join(f"{c.name}={c.value}" for c in client.cookies.jar)
            return cookie, r.json()["csrf_token"]

    def normal(self) -> list[Conn]:
        """Other users' pages, each connection cycling through the four."""
        out = []
        for k in range(NORMAL_CONNECTIONS):
            player = self.players[k % len(self.players)]
            cookie = self.cookies[k % len(self.players)][0]
            page = {"Cookie": cookie, "Accept": "text/html"}
            asks = [
                Ask("login page", _request("GET", "/login", {"Accept": "text/html"}), (200,)),
                Ask("rulesets", _request("GET", "/api/v1/rulesets", {}), (200,)),
                Ask("army page", _request("GET", f"/armies/{player.own_armies[0]}", page), (200,)),
                Ask("healthz", _request("GET", "/healthz", {}), (200,)),
            ]
            turn = iter(range(k, 10**9))
            out.append(Conn(lambda asks=asks, turn=turn: asks[next(turn) % len(asks)]))
        return out

    def attack(self, name: str) -> list[Conn]:
        return getattr(self, "_" + name.split()[0].lower())(name)  # type: ignore[no-any-return]

    def _f4(self, name: str) -> list[Conn]:
        rng = random.Random(4)  # noqa: S311
        victims = self.setup.victims

        def ask() -> Ask:
            email = (
                rng.choice(victims) if rng.random() < 0.5 else f"nobody{rng.randrange(10**9)}@x.io"
            )
            headers = {"Content-Type": "application/json", "X-Forwarded-For": _address(rng)}
            body = json.dumps({"email": email, "password": "wrong password"}).encode()
            return Ask(name, _request("POST", "/api/v1/auth/login", headers, body), (401,))

        return [Conn(ask) for _ in range(40)]

    def _f2(self, name: str) -> list[Conn]:
        cookie = self.attacker[0]
        path = f"/armies/{self.setup.big_army}" + ("/export.txt" if "export" in name else "")
        request = _request("GET", path, {"Cookie": cookie, "Accept": "text/html"})
        return [Conn(lambda: Ask(name, request, (200,))) for _ in range(20)]

    def _f3(self, name: str) -> list[Conn]:
        cookie, csrf = self.attacker
        boundary = "abuse-boundary-7d1f"
        body = (
            (
                f"--{boundary}\r\n"
                'Content-Disposition: form-data; name="file"; filename="a.json"\r\n'
                "Content-Type: application/json\r\n\r\n"
            ).encode()
            + self.setup.document
            + f"\r\n--{boundary}--\r\n".encode()
        )
        headers = {
            "Cookie": cookie,
            "X-CSRF-Token": csrf,
            "HX-Request": "true",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
        }
        request = _request("POST", "/armies/import", headers, body)
        api = {"Cookie": cookie, "X-CSRF-Token": csrf}

        def delete(status: int, head: bytes) -> Ask | None:
            where = next(
                (
                    line.split(b":", 1)[1].strip().decode()
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"hx-redirect:")
                ),
                "",
            )
            army = where.rsplit("/", 1)[-1]
            if not army.isdigit():
                return None
            return Ask(
                "F3 delete (apart)", _request("DELETE", f"/api/v1/armies/{army}", api), (204,)
            )

        return [Conn(lambda: Ask(name, request, (204,), delete)) for _ in range(20)]

    def _f1(self, name: str) -> list[Conn]:
        headers = {"Content-Type": "application/json"}
        body = json.dumps(F1_BODY).encode()
        out = []
        for k in range(50):
            mine = {**headers, "X-Forwarded-For": f"10.1.{k // 250}.{k % 250 + 1}"}
            request = _request("POST", "/api/v1/brikwars/explosion-odds", mine, body)
            out.append(Conn(lambda r=request: Ask(name, r, (200,)), pace=1.0))
        return out

    def _f5(self, name: str) -> list[Conn]:
        cookie, csrf = self.attacker
        headers = {"Cookie": cookie, "X-CSRF-Token": csrf, "Content-Type": "application/json"}
        armies = self.setup.write_armies
        counter = iter(range(10**9))

        def ask() -> Ask:
            n = next(counter)
            body = json.dumps(gunship(n)).encode()
            path = f"/api/v1/armies/{armies[n % len(armies)]}/units"
            return Ask(name, _request("POST", path, headers, body), (201,))

        return [Conn(ask) for _ in range(8)]

    def _f7(self, name: str) -> list[Conn]:
        rng = random.Random(7)  # noqa: S311

        def ask() -> Ask:
            body = {
                **F1_BODY,
                "dice": rng.randrange(1, 6),
                "damage_modifier": rng.randrange(-900, 20),
                "deflection": rng.randrange(0, 101),
            }
            headers = {"Content-Type": "application/json", "X-Forwarded-For": _address(rng)}
            raw = json.dumps(body).encode()
            # 503: refused (the queue is full, or past the deadline): what a flood should get
            return Ask(
                name, _request("POST", "/api/v1/brikwars/explosion-odds", headers, raw), (200,)
            )

        return [Conn(ask) for _ in range(64)]


ATTACKS = (
    "F4 failed logins",
    "F2 exports",
    "F2 army page",
    "F3 imports",
    "F1 explosions",
    "F5 row writes",
    "F7 calculations",
)


def chosen(names: str) -> tuple[str, ...]:
    """The attacks named by their prefixes ("F4,F2 exports"), all of them if none."""
    wanted = [n.strip().lower() for n in names.split(",") if n.strip()]
    picked = tuple(a for a in ATTACKS if not wanted or any(a.lower().startswith(w) for w in wanted))
    if not picked:
        raise SystemExit(f"no attack is named {names!r}: {', '.join(ATTACKS)}")
    return picked


@dataclass(frozen=True)
class Outcome:
    attack: str
    without: Side
    with_: Side

    @property
    def throughput(self) -> float:
        return self.with_.per_second / self.without.per_second if self.without.per_second else 0

    @property
    def p99(self) -> float:
        return self.with_.p99 / self.without.p99 if self.without.p99 else float("inf")

    @property
    def growth(self) -> float:
        return self.with_.peak_mb - self.without.peak_mb

    @property
    def late(self) -> list[float]:
        """F7: accepted calculations that answered after the deadline (ms)."""
        if not self.attack.startswith("F7") or self.with_.attack is None:
            return []
        return [ms for ms in self.with_.attack.latencies.get(self.attack, []) if ms > 3000]

    @property
    def passed(self) -> bool:
        return (
            self.throughput >= 0.5
            and self.p99 <= 3
            and self.growth < 500
            and not self.late
            and not self.with_.errors
        )


def run(
    env: dict[str, str],
    players: list[Player],
    setup: Setup,
    *,
    seconds: float,
    max_requests: int,
    workers: int,
    attacks: tuple[str, ...] = ATTACKS,
) -> list[Outcome]:
    """Each attack's ``without`` and ``with`` phases, on a server started for it: an
    attack's requests still at work past their client's time (20 imports held every
    database connection of a worker for over a minute on a loaded machine) would otherwise
    weigh on the next attack's ``without``, and its memory stay in the next one's peak."""
    import sys

    out = []
    for name in attacks:
        print(f"abuse: {name}…", file=sys.stderr)
        with production_server(server_env(env), workers) as (port, pid):
            site = Site(port, players, setup)
            run_side(port, pid, site.normal(), [], seconds=3, max_requests=max_requests)  # warm
            alone = run_side(
                port, pid, site.normal(), [], seconds=seconds, max_requests=max_requests
            )
            beside = run_side(
                port,
                pid,
                site.normal(),
                site.attack(name),
                seconds=seconds,
                max_requests=max_requests,
            )
            out.append(Outcome(name, alone, beside))
    return out


def _statuses(tally: Tally | None) -> str:
    if tally is None:
        return ""
    return "; ".join(
        f"{route}: " + ", ".join(f"{n}× {s}" for s, n in sorted(counts.items()))
        for route, counts in tally.statuses.items()
    )


def report(outcomes: list[Outcome], seconds: float, yardstick: Any, workers: int) -> str:
    """The abuse phase's section of bench/results.md (``yardstick``: the run's hello-world
    row, if it ran, to scale the figures by)."""
    scale = (
        f" The yardstick of this run served {yardstick.per_second:.0f} req/s (the issue's "
        "bounds are for a machine whose yardstick serves ~4,000)."
        if yardstick is not None
        else ""
    )
    lines = [
        HEADING,
        "",
        f"`make load`'s abuse phase, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: PostgreSQL on "
        f"127.0.0.1, `uvicorn --workers {workers}`, production's argon2 cost and calculator "
        "rate limits, attackers spread over many addresses (X-Forwarded-For from 127.0.0.1, "
        "a trusted proxy). Each attack beside normal traffic "
        f"({NORMAL_CONNECTIONS} connections, closed loop: "
        "GET /login, /api/v1/rulesets, a 20-unit army page, /healthz), against the same "
        f"traffic alone just before; {seconds:g} s each, after 3 s of warm-up, on a server "
        "started for each attack. Peak memory: the sum of the RSS of the "
        "server's processes, sampled every 100 ms. Bounds: " + BOUNDS + "." + scale,
        "",
        "| attack | normal req/s without → with | ratio | normal p99 without → with | ratio "
        "| peak memory without → with | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        w, a = o.without, o.with_
        errors = f" ({a.errors} normal errors: {a.first_error})" if a.errors else ""
        late = f" ({len(o.late)} accepted after 3 s)" if o.late else ""
        lines.append(
            f"| {o.attack} | {w.per_second:.0f} → {a.per_second:.0f} | {o.throughput:.2f} "
            f"| {w.p99:.1f} → {a.p99:.1f} ms | {o.p99:.2f} "
            f"| {w.peak_mb:.0f} → {a.peak_mb:.0f} MB ({o.growth:+.0f}) "
            f"| {'pass' if o.passed else 'FAIL'}{errors}{late} |"
        )
    lines += [
        "",
        "| attack | its answers (status: count) | good answers' p50 / p99 | first refusal |",
        "|---|---|---|---|",
    ]
    for o in outcomes:
        t = o.with_.attack
        if t is None:
            continue
        good = sorted(t.latencies.get(o.attack, []))
        p99 = good[min(len(good) - 1, int(len(good) * 0.99))] if good else 0.0
        figures = f"{statistics.median(good):.0f} / {p99:.0f} ms" if good else "none"
        if o.attack.startswith("F7") and good:
            figures += f"; {len(o.late)} over 3 s (max {good[-1]:.0f} ms)"
        first = next(iter(t.samples.values()), "")[:120]
        lines.append(f"| {o.attack} | {_statuses(t)} | {figures} | {first} |")
    return "\n".join(lines) + "\n"
