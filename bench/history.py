"""History on SQLite, against a real uvicorn worker on loopback: the bytes of revisions
written while a 200-unit army is built one unit at a time and 100 of its units are renamed
(issue 15 item 1), the time to view its slowest revision to rebuild, and to restore it as
it was before the renames."""

from __future__ import annotations

import os
import sqlite3

from bench.builder import _units
from bench.common import Row, median, served_app, timed

UNITS = 200
RENAMES = 100
# Revisions timed when looking for the slowest to view: the newest ones, which reach back
# past a full snapshot of the whole army, so one of them has the longest chain to apply.
CANDIDATES = 60
MB = 1_000_000


def _history_bytes(db_path: str) -> int:
    """The bytes stored for the army's history: every text column of ``army_revision``
    that holds the army as it stood (whole documents, or the changes between them)."""
    with sqlite3.connect(db_path) as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(army_revision)")}
        held = [c for c in ("snapshot_json", "delta_json") if c in columns]
        total = " + ".join(f"COALESCE(LENGTH(CAST({c} AS BLOB)), 0)" for c in held)
        return int(conn.execute(f"SELECT SUM({total}) FROM army_revision").fetchone()[0])  # noqa: S608 (fixed names)


def run() -> list[Row]:
    with served_app("history@example.com") as (client, headers):
        db_path = os.environ["DATABASE_URL"].removeprefix("sqlite:///")
        army = client.post(
            "/api/v1/armies", json={"name": "Horde", "budget": 100000}, headers=headers
        ).json()
        units = []
        for body in _units()[:UNITS]:
            r = client.post(f"/api/v1/armies/{army['id']}/units", json=body, headers=headers)
            assert r.status_code == 201, r.text
            units.append(r.json())
        built = _history_bytes(db_path)
        for unit in units[:: UNITS // RENAMES][:RENAMES]:
            r = client.patch(
                f"/api/v1/armies/{army['id']}/units/{unit['id']}",
                json={"version": unit["version"], "name": unit["name"] + " the Bold"},
                headers=headers,
            )
            assert r.status_code == 200, r.text
        renamed = _history_bytes(db_path) - built
        revisions = [r["id"] for r in client.get(f"/api/v1/armies/{army['id']}/history").json()]

        def view(revision_id: int) -> None:
            r = client.get(f"/armies/{army['id']}/history/{revision_id}")
            assert r.status_code == 200, r.text[:200]

        by_time = {
            rid: median(timed(lambda rid=rid: view(rid), repeat=3, warmup=1))
            for rid in revisions[:CANDIDATES]
        }
        slowest = max(by_time, key=by_time.__getitem__)
        view_ms = timed(lambda: view(slowest), repeat=15)
        # Restoring the army as built (before the renames) and as renamed in turn: each
        # restore makes 100 of its 200 units differ, and records a revision.
        targets = iter([revisions[RENAMES], revisions[0]] * 20)

        def restore() -> None:
            r = client.post(
                f"/armies/{army['id']}/history/{next(targets)}/restore", headers=headers
            )
            assert r.status_code == 303, r.text[:200]

        restore_ms = timed(restore, repeat=15, warmup=2)
    note = "one uvicorn worker on 127.0.0.1, keep-alive client"
    total = built + renamed
    return [
        Row(
            f"history written: {UNITS}-unit army built one unit at a time, then {RENAMES} renames",
            total / MB,
            "MB",
            "< 1 MB",
            total < MB,
            f"building {built / MB:.2f} MB + renaming {renamed / MB:.2f} MB (stored column bytes)",
        ),
        Row(
            f"view the slowest revision of the {UNITS}-unit army (GET, full page)",
            median(view_ms),
            "ms median",
            "< 50 ms",
            median(view_ms) < 50,
            f"n={len(view_ms)}, slowest of the newest {CANDIDATES}; {note}",
        ),
        Row(
            f"restore a revision of the {UNITS}-unit army, {RENAMES} units differing (form POST)",
            median(restore_ms),
            "ms median",
            "< 50 ms",
            median(restore_ms) < 50,
            f"n={len(restore_ms)}, as built and as renamed in turn; {note}",
        ),
    ]
