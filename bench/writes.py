"""Writes, one at a time, on SQLite against a real uvicorn worker on loopback (issue 30
item 3): a unit edit of a 200-unit army as the builder's form sends it (htmx POST: the
change, its revision, the unit's block and the army's totals back), and a battle roll (each
followed by its undo, not timed), beside the hello-world yardstick measured in the same run.

The target is for a machine whose yardstick serves ``YARDSTICK_RPS``: on a slower one (the
machine is shared, and its speed moves several-fold from hour to hour) it is scaled by
``YARDSTICK_RPS / measured``. Run alone: ``python -m bench.writes``."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench.attacks import _request, _window
from bench.builder import _units
from bench.common import SERVER_PIDS, Row, cpu_seconds, free_port, median, serve, served_app, timed

UNITS = 200
BATTLE_UNITS = 20
EDITS = 150
ROLLS = 100
EDIT_MS = 6.0
"""The unit edit's p50 target on the yardstick machine."""
YARDSTICK_RPS = 4000.0
"""The yardstick machine's hello-world requests per second (one uvicorn worker, 8 keep-alive
connections, as ``bench.attacks`` drives it)."""


def _hello() -> tuple[float, float]:
    """Hello-world requests per second now (two 1 s windows: the machine's speed now), and
    the CPU ms its server used a request (steadier on a shared machine than the rate)."""
    folder = Path(tempfile.mkdtemp(prefix="brikforge-bench-hello-"))
    port = free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{folder / 'unused.db'}"}
    proc = serve(["bench.hello:app"], port, env)
    try:
        request = _request(port, "/hello", {"hello": "world"})
        _window(port, request, 0.3)
        cpu = cpu_seconds(proc.pid)
        windows = [_window(port, request, 1.0) for _ in range(2)]
        cpu = cpu_seconds(proc.pid) - cpu
        served = sum(ok for ok, _, _ in windows)
        return served / sum(t for _, _, t in windows), cpu * 1000 / served
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _cpu_timed(pid: int, fn: Callable[[], object], repeat: int) -> tuple[list[float], float]:
    """``timed``'s wall-clock ms of each call, and the server's CPU ms a call over them."""
    fn()
    cpu = cpu_seconds(pid)
    samples = timed(fn, repeat=repeat, warmup=0)
    return samples, (cpu_seconds(pid) - cpu) * 1000 / repeat


def run() -> list[Row]:
    before, before_cpu = _hello()
    with served_app("writes@example.com") as (client, headers):
        pid = SERVER_PIDS[client.base_url.port or 0]
        htmx = {**headers, "HX-Request": "true"}
        army = client.post(
            "/api/v1/armies", json={"name": "Horde", "budget": 100000}, headers=headers
        ).json()
        unit_ids = []
        for body in _units():
            r = client.post(f"/api/v1/armies/{army['id']}/units", json=body, headers=headers)
            assert r.status_code == 201, r.text
            unit_ids.append(r.json()["id"])
        assert client.get(f"/armies/{army['id']}").status_code == 200  # a page view first
        edits = [0]

        def edit() -> None:
            # as bench/load.py's mix edits: a unit's name, seven names in turn
            edits[0] += 1
            unit = unit_ids[(edits[0] * 37) % len(unit_ids)]
            r = client.post(
                f"/armies/{army['id']}/units/{unit}",
                data={"name": f"Unit {unit} r{edits[0] % 7}"},
                headers=htmx,
            )
            assert r.status_code == 200, r.text[:200]

        for _ in range(10):
            edit()
        edit_ms, edit_cpu = _cpu_timed(pid, edit, EDITS)

        sides = []
        for a in range(2):
            side = client.post(
                "/api/v1/armies", json={"name": f"Side {a}", "budget": 100000}, headers=headers
            ).json()
            for body in _units()[:BATTLE_UNITS]:
                r = client.post(f"/api/v1/armies/{side['id']}/units", json=body, headers=headers)
                assert r.status_code == 201, r.text
            sides.append(side["id"])
        battle = client.post(
            "/api/v1/battles", json={"name": "Skirmish", "army_ids": sides}, headers=headers
        ).json()
        shooters = [
            u["id"]
            for u in battle["units"]
            if u["army_id"] == sides[0] and u["name"].startswith("Tank")
        ]
        victims = [u["id"] for u in battle["units"] if u["army_id"] == sides[1]]
        rolls = [0]

        def undo() -> None:
            r = client.post(f"/battles/{battle['id']}/undo", headers=htmx)
            assert r.status_code == 200, r.text[:200]

        def roll() -> None:
            rolls[0] += 1
            body = {
                "attacker_id": str(shooters[rolls[0] % len(shooters)]),
                "target_id": str(victims[(rolls[0] * 7) % len(victims)]),
                "weapon.0": "on",
                "distance": "3",
            }
            r = client.post(f"/battles/{battle['id']}/rolls", data=body, headers=htmx)
            assert r.status_code == 200, r.text[:200]

        roll_ms: list[float] = []
        for _ in range(5):  # warm-up
            roll()
            undo()
        roll_cpu = 0.0
        for _ in range(ROLLS):
            cpu = cpu_seconds(pid)
            roll_ms += timed(roll, repeat=1, warmup=0)
            roll_cpu += cpu_seconds(pid) - cpu
            undo()
        roll_cpu *= 1000 / ROLLS
    after, after_cpu = _hello()
    hello = (before + after) / 2
    hello_cpu = (before_cpu + after_cpu) / 2
    scale = max(1.0, YARDSTICK_RPS / hello)
    target = EDIT_MS * scale
    # CPU a request as hello-world requests, then in ms at the yardstick's rate: the
    # steadiest comparison on a busy machine (a request's waits for I/O left out).
    at_yardstick = 1000 / YARDSTICK_RPS / hello_cpu
    note = (
        f"one uvicorn worker on 127.0.0.1, keep-alive client; yardstick: hello-world "
        f"{before:.0f} and {after:.0f} req/s before and after (one worker, 8 connections)"
    )
    return [
        Row(
            f"unit edit one at a time, {UNITS}-unit army (htmx POST, revision recorded)",
            median(edit_ms),
            "ms p50",
            f"< {EDIT_MS:g} ms at {YARDSTICK_RPS:.0f} req/s hello-world (scaled: {target:.1f})",
            median(edit_ms) < target,
            f"n={len(edit_ms)}, p90 {sorted(edit_ms)[int(len(edit_ms) * 0.9)]:.1f} ms; server "
            f"CPU {edit_cpu:.2f} ms a request ({edit_cpu * at_yardstick:.2f} ms at the "
            f"yardstick's speed); {note}",
        ),
        Row(
            f"battle roll one at a time, {BATTLE_UNITS}+{BATTLE_UNITS} units (htmx POST)",
            median(roll_ms),
            "ms p50",
            "for the record (load: bench/load.py)",
            True,
            f"n={len(roll_ms)}, p90 {sorted(roll_ms)[int(len(roll_ms) * 0.9)]:.1f} ms, "
            f"each followed by its undo (not timed); server CPU {roll_cpu:.2f} ms a roll "
            f"({roll_cpu * at_yardstick:.2f} ms at the yardstick's speed); {note}",
        ),
        Row(
            "hello-world yardstick (one worker, 8 connections)",
            hello,
            "req/s",
            "baseline",
            True,
            f"server CPU {hello_cpu:.3f} ms a request",
        ),
    ]


if __name__ == "__main__":
    for row in run():
        print(f"{row.name}: {row.value:.2f} {row.unit} (target {row.target}) {row.note}")
    sys.exit(0)
