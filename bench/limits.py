"""The worst legal request of each public calculator, and a cheap request answered meanwhile.

Each heavy body runs on the served app (one uvicorn worker, its calculation workers) while
another client asks ``/healthz`` every 10 ms: the heavy answer's time (or its refusal) and
the cheap answer's worst latency are the rows. Then the issue's case: 45 concurrent 16-die
explosions (the calculators full: refused with 503) while ``/healthz`` still answers.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event as EventType

import httpx

from bench.common import Row, served_app

HEAVY: list[tuple[str, str, dict[str, object]]] = [
    (
        "/api/v1/brikwars/odds",
        "99d20 vs Armour 100d20 through 49 Deflection, d6 vs Use 4",
        {
            "action": {"die": 6, "use": 4},
            "damage": {"dice": 99, "sides": 20},
            "armor": {"dice": 100, "sides": 20},
            "deflection": 49,
        },
    ),
    (
        "/api/v1/brikwars/odds",
        "the issue's 99d4 at +1000 a die vs Armour 4",
        {"damage": {"dice": 99, "sides": 4, "per_die_modifier": 1000}, "armor": {"fixed": 4}},
    ),
    (
        "/api/v1/brikwars/roll",
        "99d20 +1000/die vs Armour 100d20 through 100 Deflection",
        {
            "action": {"die": 12, "use": 0},
            "damage": {"dice": 99, "sides": 20, "per_die_modifier": 1000},
            "armor": {"dice": 100, "sides": 20},
            "deflection": 100,
            "seed": 7,
        },
    ),
    (
        "/api/v1/rulesets/brikwars/odds",
        "the same 99d20 vs Armour 100d20 through 49 Deflection, through the Ruleset interface",
        {
            "action": {"die": 6, "use": 4},
            "damage": {"dice": 99, "sides": 20},
            "armor": {"dice": 100, "sides": 20},
            "deflection": 49,
        },
    ),
    (
        "/api/v1/rulesets/brikwars/roll",
        "99d20 +1000/die vs Armour 100d20 through 100 Deflection, through the interface",
        {
            "action": {"die": 12, "use": 0},
            "damage": {"dice": 99, "sides": 20, "per_die_modifier": 1000},
            "armor": {"dice": 100, "sides": 20},
            "deflection": 100,
            "seed": 7,
        },
    ),
    (
        "/api/v1/brikwars/weapon-stats",
        "a Gun of Size 10^9 (the largest number allowed)",
        {"type": "gun", "size": "1000000000"},
    ),
    (
        "/api/v1/brikwars/explosion-odds",
        "12d10 against a Deflecting object (the most d10s allowed: one sweep a ring)",
        {"dice": 12, "sides": 10, "armor": {"fixed": 4}, "deflection": 1},
    ),
    (
        "/api/v1/brikwars/explosion-odds",
        "14d6 against a Deflecting object (the most d6s allowed)",
        {"dice": 14, "sides": 6, "armor": {"fixed": 4}, "deflection": 1},
    ),
    (
        "/api/v1/brikwars/explosion-odds",
        "10d20 against a Deflecting object (the most d20s allowed)",
        {"dice": 10, "sides": 20, "armor": {"fixed": 4}, "deflection": 1},
    ),
    (
        "/api/v1/brikwars/explosion-odds",
        "13d10 against a Deflecting object: refused before any ring",
        {"dice": 13, "sides": 10, "armor": {"fixed": 4}, "deflection": 1},
    ),
    (
        "/api/v1/brikwars/explosion-odds",
        "8 Armor Piercing bricks Over the Top vs 1 Deflection (the mixed sweep)",
        {
            "dice": 8,
            "variant": "armor_piercing",
            "over_the_top": True,
            "armor": {"fixed": 4},
            "deflection": 1,
        },
    ),
    (
        "/api/v1/brikwars/explosion-odds",
        "68d10 vs Armour 100d20, every ring (the most d10s allowed)",
        {"dice": 68, "sides": 10, "armor": {"dice": 100, "sides": 20}},
    ),
]
# 12d10 against Deflection: ~0.8 s of one worker each
HEAVY_EXPLOSION = next(body for _, label, body in HEAVY if label.startswith("12d10"))


def _poll(base_url: str, done: EventType, out: Connection) -> None:
    """Time /healthz every 10 ms until ``done``; send the latencies (ms) back. Runs in a
    process of its own: in the bench's process the heavy clients' threads would hold the
    GIL, and their delay would be counted as the server's."""
    cheap: list[float] = []
    with httpx.Client(base_url=base_url, timeout=60) as client:
        client.get("/healthz")  # the connection is open before the clock starts
        out.send("ready")
        while not done.is_set():
            start = time.perf_counter()
            client.get("/healthz")
            cheap.append((time.perf_counter() - start) * 1000)
            time.sleep(0.01)
    out.send(cheap)


def _during(base_url: str, work: list[tuple[str, dict[str, object]]]) -> tuple[list, list]:
    """Send every body at once, each on a connection opened beforehand; meanwhile time
    /healthz every 10 ms from another process. Returns the heavy answers as
    (status, seconds) and the cheap latencies in ms."""
    context = multiprocessing.get_context("spawn")
    done = context.Event()
    mine, theirs = context.Pipe()
    poller = context.Process(target=_poll, args=(base_url, done, theirs))
    clients = [httpx.Client(base_url=base_url, timeout=120) for _ in work]
    try:
        for client in clients:
            client.get("/healthz")
        poller.start()
        mine.recv()

        def heavy(client: httpx.Client, path: str, body: dict[str, object]) -> tuple[int, float]:
            start = time.perf_counter()
            status = client.post(path, json=body).status_code
            return status, time.perf_counter() - start

        with ThreadPoolExecutor(len(work)) as pool:
            answers = list(
                pool.map(lambda cw: heavy(cw[0], *cw[1]), zip(clients, work, strict=True))
            )
        done.set()
        cheap = mine.recv()
        poller.join()
    finally:
        for client in clients:
            client.close()
    return answers, cheap


def run() -> list[Row]:
    # the throughput of one client is not what these rows measure: no rate limit here
    os.environ["CALC_RATE_PER_MINUTE"] = "1000000"
    os.environ["CALC_RATE_BURST"] = "1000000"
    rows = []
    with served_app("limits@example.com") as (client, _):
        base = str(client.base_url)
        client.post("/api/v1/brikwars/odds", json=HEAVY[1][2])  # the workers are up
        for path, label, body in HEAVY:
            [(status, seconds)], cheap = _during(base, [(path, body)])
            worst = max(cheap, default=0.0)
            rows.append(
                Row(
                    f"worst legal {path}: {label}",
                    seconds * 1000,
                    "ms",
                    "< 2000 ms",
                    seconds < 2 and status in (200, 422),
                    f"HTTP {status}; one request, calculation workers "
                    f"{os.environ.get('CALC_WORKERS', '2')}, deadline "
                    f"{os.environ.get('CALC_DEADLINE_SECONDS', '3')} s",
                )
            )
            rows.append(
                Row(
                    f"/healthz answered during it (worst of {len(cheap)})",
                    worst,
                    "ms",
                    "< 50 ms",
                    worst < 50,
                    "polled every 10 ms while the heavy request ran",
                )
            )
        answers, cheap = _during(base, [("/api/v1/brikwars/explosion-odds", HEAVY_EXPLOSION)] * 45)
        worst = max(cheap, default=0.0)
        statuses = [s for s, _ in answers]
        rows.append(
            Row(
                "/healthz during 45 concurrent heavy explosion-odds (12d10 vs Deflection)",
                worst,
                "ms",
                "< 50 ms",
                worst < 50 and all(s in (200, 503) for s in statuses),
                f"{statuses.count(200)} answered 200, {statuses.count(503)} refused 503 "
                f"(Retry-After); slowest answer {max(t for _, t in answers):.2f} s; "
                f"{len(cheap)} /healthz polls (was 347 s before the worker pool)",
            )
        )
    return rows
