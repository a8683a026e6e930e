"""Attack engine speed: exact odds of one attack, a 10d10 explosion, a 6-target Arc Fire, and
the /api/v1/brikwars/odds endpoint's requests per second on one uvicorn worker next to a
hello-world endpoint's, measured in the same run."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from app.rules.brikwars import Armour
from app.rules.brikwars.attacks import (
    ActionRoll,
    ArcFire,
    ArcTarget,
    Attack,
    Explosion,
    Target,
)
from app.rules.brikwars.catalogue import DamageExpr
from app.rules.dice import exact
from bench.common import Row, free_port, median, migrate, serve, timed

ROOT = Path(__file__).resolve().parent.parent
ODDS_BODY = {
    "action": {"die": 6, "use": 4, "modifier": 0},
    "damage": {"dice": 1, "sides": 6, "modifier": 0, "per_die_modifier": 0},
    "armor": {"fixed": 4},
    "deflection": 0,
    "options": {"bonus_die": "same"},
}
LOAD_SECONDS = 4.0
"""Seconds of load per server, in ROUNDS alternating windows."""
ROUNDS = 8
CONNECTIONS = 8


def _single() -> None:
    exact.clear_caches()  # uncached: the dice core's pool caches emptied on every call
    Attack(DamageExpr(1, 6), Target.minifig(), ActionRoll(6, 4)).odds()


def _single_heavy() -> None:
    exact.clear_caches()
    hero = Target(Armour(dice=2, sides=6, deflection=1), kind="hero")
    Attack(DamageExpr(3, 6), hero, ActionRoll(6, 4, -1), per_die=-1).odds()


def _explosion() -> None:
    exact.clear_caches()
    wall = Target(Armour(dice=5, sides=10), kind="object")
    Explosion(DamageExpr(10, 10, explosion=True)).odds(wall)


def _arc() -> None:
    exact.clear_caches()
    minifig = Target.minifig()
    hero = Target(Armour(dice=2, sides=6), kind="hero", visible_sections=2)
    tank = Target(Armour(dice=3, sides=10), kind="creation", reach=4, effective_size=4)
    ArcFire(
        "machinegun",
        ActionRoll(8, 4),
        DamageExpr(2, 6),
        arc=3,
        targets=(
            ArcTarget(minifig),
            ArcTarget(hero),
            ArcTarget(tank, spans=2),
            ArcTarget(minifig, out_of_range=1),
            ArcTarget(Target(small="2x2")),
            ArcTarget(minifig, out_of_range=2),
        ),
    ).odds()


# --------------------------------------------------------------------------- load


async def _client(port: int, request: bytes, stop: float, counts: list[int]) -> None:
    """One keep-alive connection sending the request again as soon as the answer is read."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while time.perf_counter() < stop:
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            status = head.split(b" ", 2)[1]
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            await reader.readexactly(length)
            counts[0 if status == b"200" else 1] += 1
    finally:
        writer.close()


def _request(port: int, path: str, body: dict[str, object]) -> bytes:
    data = json.dumps(body).encode()
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(data)}\r\n\r\n"
    ).encode() + data


def _window(port: int, request: bytes, seconds: float) -> tuple[int, int, float]:
    """(ok, errors, elapsed) over one window with CONNECTIONS keep-alive connections."""

    async def run() -> list[int]:
        counts = [0, 0]
        stop = time.perf_counter() + seconds
        await asyncio.gather(*(_client(port, request, stop, counts) for _ in range(CONNECTIONS)))
        return counts

    start = time.perf_counter()
    ok, bad = asyncio.run(run())
    return ok, bad, time.perf_counter() - start


def _compare(
    a: tuple[int, bytes], b: tuple[int, bytes], rounds: int = ROUNDS
) -> tuple[tuple[float, int], tuple[float, int]]:
    """Requests per second of two servers, measured in alternating windows so that a change
    in the machine's load (other processes) hits both alike."""
    _window(*a, 0.5)  # warm-up
    _window(*b, 0.5)
    totals = [[0, 0, 0.0], [0, 0, 0.0]]
    for _ in range(rounds):
        for i, (port, request) in enumerate((a, b)):
            ok, bad, elapsed = _window(port, request, LOAD_SECONDS / rounds)
            totals[i][0] += ok
            totals[i][1] += bad
            totals[i][2] += elapsed
    return (
        (totals[0][0] / totals[0][2], int(totals[0][1])),
        (totals[1][0] / totals[1][2], int(totals[1][1])),
    )


def _load_rows() -> list[Row]:
    folder = Path(tempfile.mkdtemp(prefix="brikforge-bench-rps-"))
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{folder / 'bench.db'}",
        "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-secret"),
        "PYTHONPATH": str(ROOT),
        # requests per second of one client, not abuse: no per-address rate limit here
        "CALC_RATE_PER_MINUTE": "100000000",
        "CALC_RATE_BURST": "100000000",
    }
    migrate(env["DATABASE_URL"])  # the rate limit's buckets are rows, even for the odds API
    app_port, hello_port = free_port(), free_port()
    servers = [
        serve(["app.main:create_app", "--factory"], app_port, env),
        serve(["bench.hello:app"], hello_port, env),
    ]
    try:
        (odds_rps, odds_bad), (hello_rps, hello_bad) = _compare(
            (app_port, _request(app_port, "/api/v1/brikwars/odds", ODDS_BODY)),
            (hello_port, _request(hello_port, "/hello", ODDS_BODY)),
        )
    finally:
        for proc in servers:
            proc.terminate()
        for proc in servers:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    ratio = odds_rps / hello_rps if hello_rps else 0.0
    note = (
        f"one uvicorn worker each on 127.0.0.1; {CONNECTIONS} keep-alive connections, "
        f"{LOAD_SECONDS:.0f} s each in {ROUNDS} alternating windows; errors "
        f"{odds_bad}/{hello_bad}; the same body repeated, so the dice core's caches are warm"
    )
    return [
        Row("hello-world endpoint (POST JSON)", hello_rps, "req/s", "baseline", True, note),
        Row(
            "/api/v1/brikwars/odds (1d6 vs Armour 4, d6 vs Use 4)",
            odds_rps,
            "req/s",
            ">= 1/2 of hello-world",
            ratio >= 0.5 and odds_bad == 0,
            f"{ratio:.2f} of hello-world; " + note,
        ),
    ]


def run() -> list[Row]:
    single_ms = timed(_single, repeat=200)
    heavy_ms = timed(_single_heavy, repeat=200)
    explosion_ms = timed(_explosion, repeat=30)
    arc_ms = timed(_arc, repeat=50)
    rows = [
        Row(
            "single attack exact odds (the /odds example: 1d6 vs Armour 4, d6 vs Use 4)",
            median(single_ms),
            "ms median",
            "< 1 ms",
            median(single_ms) < 1,
            f"n={len(single_ms)}; uncached: dice-core caches cleared before every call",
        ),
        Row(
            "single attack exact odds, heavier (3d6 -1/die vs Hero 2d6 through 1 Deflection)",
            median(heavy_ms),
            "ms median",
            "< 1 ms",
            median(heavy_ms) < 1,
            f"n={len(heavy_ms)}; uncached; plain and Over-the-Top pools in one Deflection pass",
        ),
        Row(
            "10d10 explosion vs 5d10 Armour, all rings (outcomes + KnockBack)",
            median(explosion_ms),
            "ms median",
            "< 25 ms",
            median(explosion_ms) < 25,
            f"n={len(explosion_ms)}; uncached (caches cleared before every call)",
        ),
        Row(
            "6-target Arc Fire (MachineGun Arc 3, 8 shots, jam rule)",
            median(arc_ms),
            "ms median",
            "< 10 ms",
            median(arc_ms) < 10,
            f"n={len(arc_ms)}; uncached (caches cleared before every call)",
        ),
    ]
    return rows + _load_rows()
