"""`make baseline`: the issue's own load figure, on the code it was measured on and on this one.

Issue 15 measured the army page of a 20-unit army with ``wrk -t2 -c32`` (PostgreSQL, 4
workers) at 455 req/s, p99 474 ms, and asks for "at least double today's". This machine's
speed moves several-fold from hour to hour (a hello-world app served 1,382 to 5,708 req/s in
one day), so a figure from another hour says little. Here both codes run side by side in the
same minutes: the issue's baseline (``BASELINE``, checked out from this repository's history
into a temporary git worktree) and the working tree, each with its own throw-away PostgreSQL
database migrated by its own Alembic, its own ``uvicorn --workers 4`` and the same account and
armies made through the JSON API. ``wrk`` drives each in turn, alternating, for a few rounds:

- the army page (the issue's figure): one 20-unit army's page, as the issue measured it;
- the calculator fragment (htmx): 750 attacks (5 tanks x 3 guns x 10 targets x 5 ranges),
  cycled by a wrk script, so that the kept odds do not answer every request.

The medians and each round go to the ``## Load against the issue's baseline`` section of
bench/results.md. Needs ``git`` and ``wrk`` (Debian's package); loopback only.

    python -m bench.baseline [--seconds 10] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlencode

import httpx

from bench.common import ROOT
from bench.load import (
    DEFAULT_DB,
    _units,
    migrate,
    production_server,
    server_env,
    throwaway_database,
    write_section,
)

BASELINE = "d02259b"  # main when issue 15 was filed (issue 14 merged, nothing of 15 yet)
HEADING = "## Load against the issue's baseline"
PASSWORD = "baseline-password"  # noqa: S105  (a throw-away account on a throw-away database)
RANGES = (2, 6, 12, 18, 26)
WRK_SCRIPT = """
paths = {%s}
local n = 0
init = function(args) n = math.random(#paths) end
request = function()
  n = n %% #paths + 1
  return wrk.format("GET", paths[n])
end
"""


@dataclass(frozen=True)
class Site:
    """One running server of one code, with what the traffic needs."""

    code: str
    port: int
    cookie: str
    army_page: str
    calculator: list[str]


@dataclass(frozen=True)
class Figures:
    per_second: float
    p50: float
    p99: float
    bad: int  # non-2xx answers and socket errors


@contextmanager
def baseline_tree(commit: str) -> Iterator[Path]:
    """The baseline's code in a temporary git worktree, removed afterwards."""
    where = Path(tempfile.mkdtemp(prefix="brikforge-baseline-")) / "tree"
    subprocess.run(  # noqa: S603  (git from PATH, as the developer's shell finds it)
        ["git", "worktree", "add", "--detach", "--quiet", str(where), commit],  # noqa: S607
        cwd=ROOT,
        check=True,
    )
    try:
        yield where
    finally:
        subprocess.run(  # noqa: S603
            ["git", "worktree", "remove", "--force", str(where)],  # noqa: S607
            cwd=ROOT,
            check=False,
        )
        shutil.rmtree(where.parent, ignore_errors=True)


def furnish(code: str, port: int) -> Site:
    """An account, a 20-unit army (its page is measured) and a second one to shoot at, made
    through the JSON API that both codes share."""
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
        r = client.post(
            "/api/v1/auth/register",
            json={"email": "baseline@example.com", "password": PASSWORD, "display_name": "AB"},
        )
        r.raise_for_status()
        headers = {"X-CSRF-Token": r.json()["csrf_token"]}
        armies = []
        for k in range(2):
            made = client.post(
                "/api/v1/armies", json={"name": f"Army {k}", "budget": 10_000}, headers=headers
            )
            made.raise_for_status()
            army_id = made.json()["id"]
            units = []
            for unit in _units(k):
                added = client.post(f"/api/v1/armies/{army_id}/units", json=unit, headers=headers)
                added.raise_for_status()
                units.append(added.json())
            armies.append((army_id, units))
        (army_id, own), (_, theirs) = armies
        tanks = [u for u in own if u["name"].startswith("Tank")]
        guns = [(t["id"], w["id"]) for t in tanks for w in t["weapons"]]
        targets = [u["id"] for u in theirs[:10]]
        calculator = [
            "/calculator?"
            + urlencode({"attacker": tank, "weapons": gun, "target": target, "distance": d})
            for tank, gun in guns
            for target in targets
            for d in RANGES
        ]
        cookie = "; ".join(f"{c.name}={c.value}" for c in client.cookies.jar)
        for path in (f"/armies/{army_id}", calculator[0]):
            answer = client.get(path, headers={"HX-Request": "true"} if "calc" in path else {})
            if answer.status_code != 200:
                raise RuntimeError(f"{code}: {path} answered {answer.status_code}")
    return Site(code, port, cookie, f"/armies/{army_id}", calculator)


def drive(site: Site, route: str, seconds: int, script_dir: Path) -> Figures:
    """``wrk -t2 -c32`` on one route of one site."""
    headers = ["-H", f"Cookie: {site.cookie}", "-H", "Accept: text/html"]
    if route == "army page":
        target = [f"http://127.0.0.1:{site.port}{site.army_page}"]
    else:
        script = script_dir / f"calculator-{site.port}.lua"
        paths = ", ".join(f'"{p}"' for p in site.calculator)
        script.write_text(WRK_SCRIPT % paths)
        headers += ["-H", "HX-Request: true", "-s", str(script)]
        target = [f"http://127.0.0.1:{site.port}/"]
    out = subprocess.run(  # noqa: S603  (wrk from PATH, loopback only)
        ["wrk", "-t2", "-c32", f"-d{seconds}s", "--latency", *headers, *target],  # noqa: S607
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return Figures(
        float(_match(r"Requests/sec:\s+([\d.]+)", out)),
        _ms(out, "50"),
        _ms(out, "99"),
        _errors(out),
    )


def _errors(out: str) -> int:
    """Non-2xx answers and socket errors (connect, read, write, timeout) wrk counted."""
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    sockets = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out
    )
    return (int(bad.group(1)) if bad else 0) + (sum(map(int, sockets.groups())) if sockets else 0)


def _match(pattern: str, text: str) -> str:
    found = re.search(pattern, text)
    if found is None:
        raise RuntimeError(f"wrk printed no {pattern!r}:\n{text}")
    return found.group(1)


def _ms(out: str, percentile: str) -> float:
    found = re.search(rf"\s{percentile}%\s+([\d.]+)(us|ms|s)\b", out)
    if found is None:
        raise RuntimeError(f"wrk printed no {percentile}% latency:\n{out}")
    value, unit = float(found.group(1)), found.group(2)
    return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value


def section(rounds: dict[tuple[str, str], list[Figures]], codes: list[str], notes: str) -> str:
    lines = [
        HEADING,
        "",
        notes,
        "",
        "| route | code | req/s (median) | p50 | p99 | non-2xx or errors | each round's req/s "
        "and p99 |",
        "|---|---|---|---|---|---|---|",
    ]
    for route in ("army page", "calculator fragment"):
        for code in codes:
            runs = rounds[(route, code)]
            each = "; ".join(f"{f.per_second:.0f}, {f.p99:.0f} ms" for f in runs)
            lines.append(
                f"| {route} | {code} | {statistics.median(f.per_second for f in runs):.0f} | "
                f"{statistics.median(f.p50 for f in runs):.1f} ms | "
                f"{statistics.median(f.p99 for f in runs):.1f} ms | "
                f"{sum(f.bad for f in runs)} | {each} |"
            )
    base, this = codes
    for route in ("army page", "calculator fragment"):
        old, new = rounds[(route, base)], rounds[(route, this)]
        speedup = statistics.median(
            n.per_second / o.per_second for o, n in zip(old, new, strict=True)
        )
        lines.append("")
        lines.append(
            f"{route}: this code served {speedup:.2f} times the baseline's req/s "
            "(the median of the rounds' ratios)."
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.baseline", description=__doc__)
    parser.add_argument("--seconds", type=int, default=10, help="per route, code and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--database-url", default=os.environ.get("LOAD_DATABASE_URL", DEFAULT_DB))
    parser.add_argument(
        "--baseline", default=BASELINE, help="another commit to compare with (prints only)"
    )
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    if args.baseline != BASELINE:
        args.no_write = True  # the section is the comparison
    if shutil.which("wrk") is None:
        parser.error("needs wrk (apt-get install wrk)")
    seconds, rounds = min(max(args.seconds, 2), 60), min(max(args.rounds, 1), 10)
    codes = [f"baseline {args.baseline}", "this code"]
    with ExitStack() as stack:
        trees = [stack.enter_context(baseline_tree(args.baseline)), ROOT]
        script_dir = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        sites = []
        for k, (code, tree) in enumerate(zip(codes, trees, strict=True)):
            url = stack.enter_context(throwaway_database(args.database_url, f"baseline{k}"))
            env = server_env(url)
            print(f"{code}: migrating, starting 4 workers…", file=sys.stderr)
            migrate(env, cwd=tree)
            port, _ = stack.enter_context(production_server(env, 4, cwd=tree))
            sites.append(furnish(code, port))
        for site in sites:  # warm: templates, kept odds, each worker's caches
            for route in ("army page", "calculator fragment"):
                drive(site, route, 3, script_dir)
        figures: dict[tuple[str, str], list[Figures]] = {}
        for k in range(rounds):
            for route in ("army page", "calculator fragment"):
                for site in sites:
                    got = drive(site, route, seconds, script_dir)
                    figures.setdefault((route, site.code), []).append(got)
                    print(
                        f"round {k}: {route}, {site.code}: {got.per_second:.0f} req/s, "
                        f"p99 {got.p99:.1f} ms",
                        file=sys.stderr,
                    )
    notes = (
        f"`make baseline`, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: the issue's measurement "
        f"(`wrk -t2 -c32`, PostgreSQL on 127.0.0.1, `uvicorn --workers 4`) on the code the "
        f"issue measured ({args.baseline}) and on this code, side by side: {rounds} rounds of "
        f"{seconds} s a route and code, alternating, after 3 s of warm-up each. Both servers "
        "run throughout; only the one driven is busy. The issue saw 455 req/s and a p99 of "
        "474 ms for the army page on this kind of machine; the baseline's figures here say "
        "how fast the machine was in these minutes."
    )
    text = section(figures, codes, notes)
    print(text)
    if not args.no_write:
        write_section(text, HEADING)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
