"""`make load LOAD_ARGS="--compare-old REV"`: the mix at a fixed offered rate, old and new code.

Issue 30: unit edits and battle rolls must answer with a p99 at most a third of the old
code's, at the same offered load. A closed loop (each connection sending its next request
when the last one answered) offers less when the server is slower and hides its queue; here
arrivals are scheduled (Poisson, seeded: the same sequence for both codes) at one rate for
both, each request's latency counted from its scheduled time (a wait for a free connection
counts: no coordinated omission). The offered rate is ``--rate``, or 65% of what the old code
serves in a closed loop measured first (the same mix, the same connections).

The old code (``REV``) is checked out into a temporary git worktree (removed afterwards);
each code gets its own throw-away PostgreSQL database migrated by its own Alembic and seeded
by ``bench.load.seed`` run against its own services (a subprocess importing that tree's
``app``), its own ``uvicorn --workers 4``, and the same logged-in browsers. Both servers run
throughout; they are driven alternately (old, new, old, new...), each segment ``--seconds``.
After each segment, one browser edits a unit one at a time (the issue's "one at a time a unit
edit p50 < 6 ms", scaled by the yardstick: a hello-world app served and driven after the
rounds). The figures go to the ``## Load: the mix at a fixed rate, old and new code`` section
of bench/results.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bench.baseline import baseline_tree
from bench.common import ROOT
from bench.load import (
    MIX,
    Browser,
    Player,
    Skirmish,
    Tally,
    Traffic,
    _answer,
    _rng,
    _why,
    log_in,
    migrate,
    production_server,
    run_phase,
    server_env,
    throwaway_database,
    write_section,
)

LOAD = ROOT / "bench" / "load.py"  # this tree's seeding, run against the old code too
HEADING = "## Load: the mix at a fixed rate, old and new code"
SHARE = 0.65  # of the old code's closed-loop throughput: sustained without collapse
ONE_AT_A_TIME = 100  # unit edits, one after another, after each segment
TARGET_P99 = 1 / 3
TARGET_ONE_MS = 6.0  # at a yardstick of YARDSTICK req/s
YARDSTICK = 4000.0


def seed_with(tree: Path, env: dict[str, str], url: str) -> list[Player]:
    """``bench.load.seed`` run against ``tree``'s code (its services and models)."""
    script = (
        "import dataclasses, json, sys, importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('seeding', {str(LOAD)!r})\n"
        "mod = sys.modules['seeding'] = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(mod)\n"
        "print(json.dumps([dataclasses.asdict(p) for p in mod.seed(sys.argv[1])]))\n"
    )
    out = subprocess.run(  # noqa: S603  (this interpreter, this checkout's seeding)
        [sys.executable, "-c", script, url],
        cwd=tree,
        env={**env, "PYTHONPATH": str(tree)},
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    ).stdout
    players = []
    for p in json.loads(out.strip().splitlines()[-1]):
        p["units"] = {int(k): v for k, v in p["units"].items()}
        p["guns"] = [tuple(g) for g in p["guns"]]
        p["battles"] = [Skirmish(**b) for b in p["battles"]]
        players.append(Player(**p))
    return players


@dataclass
class Slot:
    traffic: Traffic
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter


async def _send(slot: Slot, port: int, request: bytes) -> tuple[int, bytes]:
    """One exchange on the slot's connection (opened again if the server closed it)."""
    try:
        slot.writer.write(request)
        status, close, body, _ = await asyncio.wait_for(_answer(slot.reader), 30)
    except (OSError, asyncio.IncompleteReadError, TimeoutError) as exc:
        slot.writer.close()
        slot.reader, slot.writer = await asyncio.open_connection("127.0.0.1", port)
        return 0, repr(exc).encode()
    if close:
        slot.writer.close()
        slot.reader, slot.writer = await asyncio.open_connection("127.0.0.1", port)
    return status, body


async def _arrival(
    port: int, pool: asyncio.Queue[Slot], route: str, due: float, tally: Tally
) -> None:
    """One scheduled request: its latency counts from ``due``, a wait for a browser included;
    a roll's undo follows it on the same connection (timed from its own send)."""
    slot = await pool.get()
    try:
        name, request, good = slot.traffic.next(route)
        status, body = await _send(slot, port, request)
        ok = status in good
        tally.add(name, (time.monotonic() - due) * 1000, ok, "" if ok else _why(status, body))
        if name == "battle roll" and ok:
            sent = time.monotonic()
            status, body = await _send(slot, port, slot.traffic.undo())
            ok = status == 200
            why = "" if ok else _why(status, body)
            tally.add("battle undo", (time.monotonic() - sent) * 1000, ok, why)
        slot.traffic.pending_undo = False
    finally:
        pool.put_nowait(slot)


async def _open_loop(
    port: int, browsers: list[Browser], rate: float, seconds: float, seed: int, most: int
) -> tuple[Tally, float]:
    """Poisson arrivals at ``rate`` a second for ``seconds`` (at most 60 s and ``most``
    arrivals); returns the tally and the arrivals a second actually scheduled."""
    pool: asyncio.Queue[Slot] = asyncio.Queue()
    for k, browser in enumerate(browsers):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        pool.put_nowait(Slot(Traffic(browser, _rng(seed + k)), reader, writer))
    rng = _rng(seed)
    routes, weights = list(MIX), list(MIX.values())
    tally = Tally()
    tasks = []
    start = due = time.monotonic() + 0.2
    end = start + min(seconds, 60.0)
    while True:
        due += rng.expovariate(rate)
        if due >= end or len(tasks) >= most:
            break
        route = rng.choices(routes, weights)[0]
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        tasks.append(asyncio.create_task(_arrival(port, pool, route, due, tally)))
    await asyncio.gather(*tasks)
    while not pool.empty():
        pool.get_nowait().writer.close()
    return tally, len(tasks) / (end - start)


async def _one_at_a_time(port: int, browser: Browser, count: int) -> list[float]:
    """Unit edits one after another on one connection: each one's milliseconds."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    slot = Slot(Traffic(browser, _rng(99)), reader, writer)
    out = []
    try:
        for _ in range(count):
            _, request, _ = slot.traffic.next("unit edit")
            sent = time.perf_counter()
            status, body = await _send(slot, port, request)
            if status != 200:
                raise RuntimeError(f"a unit edit answered {_why(status, body)}")
            out.append((time.perf_counter() - sent) * 1000)
    finally:
        slot.writer.close()
    return out


@dataclass(frozen=True)
class Segment:
    code: str
    round: int
    offered: float
    tally: Tally
    one_at_a_time: list[float]


def _p(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))] if values else 0.0


def compare(
    old: str,
    *,
    database_url: str,
    seconds: float,
    rounds: int,
    rate: float | None,
    connections: int,
    workers: int,
    max_requests: int,
) -> tuple[list[Segment], float, float, float]:
    """The rounds of segments; the offered rate, the old code's closed-loop rate (0 if the
    rate was given) and the yardstick's req/s."""
    codes = [f"old {old}", "new (this tree)"]
    with ExitStack() as stack:
        trees = [stack.enter_context(baseline_tree(old)), ROOT]
        sites = []
        for k, (code, tree) in enumerate(zip(codes, trees, strict=True)):
            url = stack.enter_context(throwaway_database(database_url, f"mix{k}"))
            env = server_env(url)
            print(f"{code}: migrating, seeding, starting {workers} workers…", file=sys.stderr)
            migrate(env, cwd=tree)
            players = seed_with(tree, env, url)
            port, _ = stack.enter_context(production_server(env, workers, cwd=tree))
            sites.append((code, port, log_in(port, players, connections)))
        for _, port, browsers in sites:  # warm: templates, each army's views, the workers
            run_phase("mix", port, browsers, seconds=3, max_requests=2000, processes=1)
        closed = 0.0
        if rate is None:
            _, port, browsers = sites[0]
            phase = run_phase(
                "mix", port, browsers, seconds=min(seconds, 8), max_requests=40_000, processes=1
            )
            closed = sum(r.per_second for r in phase.rows if r.route != "battle undo")
            rate = max(1.0, round(closed * SHARE))
            print(f"old code closed loop: {closed:.0f} req/s; offering {rate:g}/s", file=sys.stderr)
        segments = []
        for r in range(rounds):
            for code, port, browsers in sites:
                tally, offered = asyncio.run(
                    _open_loop(port, browsers, rate, seconds, seed=r, most=max_requests)
                )
                edits = asyncio.run(_one_at_a_time(port, browsers[0], ONE_AT_A_TIME))
                segments.append(Segment(code, r, offered, tally, edits))
                got = tally.latencies
                print(
                    f"round {r}, {code}: unit edit p99 {_p(got.get('unit edit', []), 0.99):.0f} "
                    f"ms, battle roll p99 {_p(got.get('battle roll', []), 0.99):.0f} ms, one at "
                    f"a time p50 {statistics.median(edits):.1f} ms",
                    file=sys.stderr,
                )
        env = server_env(database_url)
        with production_server(env, workers, ("bench.hello:app",)) as (port, _):
            run_phase("yardstick", port, sites[1][2], seconds=3, max_requests=2000, processes=2)
            hello = run_phase(
                "yardstick", port, sites[1][2], seconds=seconds, max_requests=40_000, processes=2
            )
    return segments, rate, closed, hello.rows[0].per_second


def section(
    segments: list[Segment], rate: float, closed: float, yardstick: float, seconds: float
) -> str:
    codes = list(dict.fromkeys(s.code for s in segments))
    how = (
        f"{SHARE:.0%} of the old code's {closed:.0f} req/s in a closed loop just before"
        if closed
        else "given"
    )
    lines = [
        HEADING,
        "",
        f"`make load --compare-old`, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: the mix ("
        + ", ".join(f"{r} {w}%" for r, w in MIX.items())
        + f") offered at {rate:g} requests a second ({how}), Poisson arrivals, the same for "
        "both codes, each request timed from its scheduled time (a wait for one of the "
        "logged-in browsers' connections included); each roll's undo follows it on its "
        f"connection, timed apart. Old and new alternate, {seconds:g} s a segment, each on "
        "its own database and `uvicorn --workers 4`. After each segment, "
        f"{ONE_AT_A_TIME} unit edits one at a time. The yardstick (hello-world) served "
        f"{yardstick:.0f} req/s after the rounds.",
        "",
        "| code | round | offered/s | unit edit p50 / p99 | battle roll p50 / p99 | other "
        "routes' p99 | errors | one at a time: unit edit p50 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for s in segments:
        lat = s.tally.latencies
        other = max(
            (_p(v, 0.99) for k, v in lat.items() if k not in ("unit edit", "battle roll")),
            default=0.0,
        )
        errors = sum(s.tally.errors.values())
        first = next(iter(s.tally.samples.values()), "")[:100]
        lines.append(
            f"| {s.code} | {s.round} | {s.offered:.0f} "
            f"| {statistics.median(lat.get('unit edit', [0])):.1f} / "
            f"{_p(lat.get('unit edit', []), 0.99):.1f} ms "
            f"| {statistics.median(lat.get('battle roll', [0])):.1f} / "
            f"{_p(lat.get('battle roll', []), 0.99):.1f} ms | {other:.1f} ms "
            f"| {errors}{f' ({first})' if errors else ''} "
            f"| {statistics.median(s.one_at_a_time):.1f} ms |"
        )
    pooled = {
        code: {
            route: [
                ms for s in segments if s.code == code for ms in s.tally.latencies.get(route, [])
            ]
            for route in ("unit edit", "battle roll")
        }
        for code in codes
    }
    old, new = codes
    scaled = TARGET_ONE_MS * YARDSTICK / yardstick if yardstick else TARGET_ONE_MS
    lines.append("")
    for route in ("unit edit", "battle roll"):
        ratio = _p(pooled[new][route], 0.99) / max(_p(pooled[old][route], 0.99), 1e-9)
        verdict = "meets" if ratio <= TARGET_P99 else "MISSES"
        lines.append(
            f"- {route}: p99 {_p(pooled[old][route], 0.99):.1f} ms (old) and "
            f"{_p(pooled[new][route], 0.99):.1f} ms (new), all rounds pooled: new/old "
            f"{ratio:.2f} (target ≤ 0.33: {verdict})."
        )
    one = statistics.median(ms for s in segments if s.code == new for ms in s.one_at_a_time)
    lines.append(
        f"- One at a time, the new code's unit edit p50: {one:.1f} ms (target < 6 ms at a "
        f"yardstick of 4,000 req/s, {scaled:.1f} ms at this run's: "
        f"{'meets' if one < scaled else 'MISSES'})."
    )
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """``--compare-old``: the comparison alone, its own section of bench/results.md."""
    seconds = min(args.seconds, 60.0)
    segments, rate, closed, yardstick = compare(
        args.compare_old,
        database_url=args.database_url,
        seconds=seconds,
        rounds=min(max(args.rounds, 1), 10),
        rate=args.rate,
        connections=args.connections,
        workers=args.workers,
        max_requests=args.max_requests,
    )
    text = section(segments, rate, closed, yardstick, seconds)
    print(text)
    if not args.no_write:
        write_section(text, HEADING)
    return 0 if "MISSES" not in text else 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit("run it as: python -m bench.load --compare-old REV")
