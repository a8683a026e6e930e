"""`make compare OLD=<rev>`: `make bench` on an older commit and on this code, in alternating
pairs, and each row's median new/old ratio (a row above 1.10 is a regression to fix).

The old code runs from a temporary git worktree with this checkout's virtualenv (its own
`app` first on the path). The machine's speed moves within minutes, so the two codes take
turns: old, new, old, new... and the ratio is taken per pair before the median, so a slow
minute weighs on both sides of a pair alike.

    python -m bench.compare --old d345edc --pairs 5 [suite ...]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.common import ROOT

LIMIT = 1.10  # the threshold on the median new/old ratio


# Run in each tree with that tree's own suites: the rows as JSON, full precision (the results
# table rounds to 2 decimals, too coarse for a 0.04 ms row), and no results.md written.
PROBE = (
    "import json, sys\n"
    "from bench.__main__ import SUITES\n"
    "rows = [r for s in (sys.argv[1:] or SUITES) for r in SUITES[s]()]\n"
    "print(MARK + json.dumps([[r.name, r.value, r.unit] for r in rows]))\n"
)
MARK = "ROWS:"


def run_bench(tree: Path, suites: list[str]) -> dict[str, tuple[float, str]]:
    """Every benchmark row of ``tree``'s code: its value and unit."""
    done = subprocess.run(  # noqa: S603  (this interpreter, on the benchmarks' own code)
        [sys.executable, "-c", f"MARK = {MARK!r}\n" + PROBE, *suites],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
        timeout=1800,
    )
    for line in reversed(done.stdout.splitlines()):
        if line.startswith(MARK):
            rows: dict[str, tuple[float, str]] = {}
            for name, value, unit in json.loads(line[len(MARK) :]):
                rows[_key(name, rows)] = (value, unit)
            return rows
    raise SystemExit(f"no rows from {tree}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")


def _key(name: str, seen: dict[str, tuple[float, str]]) -> str:
    """A row's name as the same row is named in every run: a count that varies from run to
    run ('worst of 48') left out, and a name that recurs numbered by its place ('#2')."""
    key = re.sub(r"\(worst of \d+\)", "(worst of N)", name)
    n = 1
    while (numbered := key if n == 1 else f"{key} #{n}") in seen:
        n += 1
    return numbered


def higher_is_better(unit: str) -> bool:
    """Rates (req/s, rows/s...) are better higher; times and sizes lower."""
    return "/s" in unit


def compare(old: str, pairs: int, suites: list[str]) -> str:
    with tempfile.TemporaryDirectory(prefix="bench-old-") as tmp:
        tree = Path(tmp) / "old"
        subprocess.run(  # noqa: S603  (git from PATH, as the developer's shell finds it)
            ["git", "worktree", "add", "--detach", "--quiet", str(tree), old],  # noqa: S607
            cwd=ROOT,
            check=True,
        )
        try:
            ratios: dict[str, list[float]] = {}
            seen: dict[str, tuple[list[float], list[float], str]] = {}
            for k in range(pairs):
                print(f"pair {k + 1} of {pairs}…", file=sys.stderr)
                before, after = run_bench(tree, suites), run_bench(ROOT, suites)
                for name, (new, unit) in after.items():
                    if name not in before or before[name][0] <= 0 or new <= 0:
                        continue
                    value = before[name][0]
                    ratio = value / new if higher_is_better(unit) else new / value
                    ratios.setdefault(name, []).append(ratio)
                    olds, news, _ = seen.setdefault(name, ([], [], unit))
                    olds.append(value)
                    news.append(new)
        finally:
            subprocess.run(  # noqa: S603
                ["git", "worktree", "remove", "--force", str(tree)],  # noqa: S607
                cwd=ROOT,
                check=False,
            )
    lines = [
        f"Old {old} against new, {pairs} alternating pairs; ratio new/old of cost "
        "(time, or 1/rate): above 1.10 is a regression.",
        "",
        "| benchmark | old median | new median | median ratio | verdict |",
        "|---|---|---|---|---|",
    ]
    for name, found in ratios.items():
        olds, news, unit = seen[name]
        ratio = statistics.median(found)
        verdict = "REGRESSION" if ratio > LIMIT else "ok"
        lines.append(
            f"| {name} | {statistics.median(olds):.4g} {unit} | "
            f"{statistics.median(news):.4g} {unit} | {ratio:.3f} | {verdict} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--old", required=True, help="the commit to compare against")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("suites", nargs="*")
    args = parser.parse_args(argv)
    text = compare(args.old, args.pairs, args.suites)
    print(text)
    (ROOT / "bench" / "compare.md").write_text(text)
    return 1 if "REGRESSION" in text else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
