"""`make bench`: run every benchmark and write bench/results.md (also printed)."""

from __future__ import annotations

import os
import platform
import sys
from datetime import UTC, datetime
from pathlib import Path

from bench import (
    attacks,
    bigdata,
    builder,
    calculator,
    d20,
    d20_builder,
    degrees,
    degrees_builder,
    heavy,
    history,
    inline,
    limits,
    writes,
)
from bench.common import Row

LOAD_SECTION = "## Load"  # written by `make load` (bench/load.py)

SUITES = {
    "builder": builder.run,
    "degrees_builder": degrees_builder.run,
    "d20_builder": d20_builder.run,
    "attacks": attacks.run,
    "degrees": degrees.run,
    "d20": d20.run,
    "calculator": calculator.run,
    "limits": limits.run,
    "heavy": heavy.run,
    "inline": inline.run,
    "history": history.run,
    "bigdata": bigdata.run,
    "writes": writes.run,
}


def table(rows: list[Row]) -> str:
    lines = [
        "| benchmark | measured | target | verdict | note |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        verdict = "meets" if r.ok else "MISSES"
        lines.append(f"| {r.name} | {r.value:.2f} {r.unit} | {r.target} | {verdict} | {r.note} |")
    return "\n".join(lines)


def kept_load_section(path: Path) -> str:
    """The ``## Load`` section ``make load`` wrote (bench/load.py), kept across runs."""
    old = path.read_text() if path.exists() else ""
    at = old.find(f"\n{LOAD_SECTION}\n")
    return "\n" + old[at + 1 :] if at >= 0 else ""


def main(argv: list[str]) -> int:
    chosen = argv or list(SUITES)
    rows: list[Row] = []
    for name in chosen:
        print(f"running {name}…", file=sys.stderr)
        rows += SUITES[name]()
    header = (
        f"# BrikForge benchmarks\n\n{datetime.now(UTC):%Y-%m-%d %H:%M} UTC · Python "
        f"{platform.python_version()} · {os.cpu_count()} cores · SQLite unless stated\n\n"
    )
    text = header + table(rows) + "\n"
    out = Path(__file__).resolve().parent / "results.md"
    out.write_text(text + kept_load_section(out))
    print(text)
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
