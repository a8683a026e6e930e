"""Shared benchmark plumbing: a throw-away app on SQLite, timing, the results table."""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Row:
    """One measured figure against its target."""

    name: str
    value: float
    unit: str
    target: str
    ok: bool
    note: str = ""


def timed(fn: Callable[[], object], *, repeat: int, warmup: int = 3) -> list[float]:
    """Wall-clock milliseconds of each call after a few warm-up calls."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(target: list[str], port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        *target,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        "1",
        "--log-level",
        "warning",
        "--no-access-log",
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env)  # noqa: S603 (our own fixed command)
    deadline = time.monotonic() + 120  # a busy shared machine starts it slowly
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"uvicorn did not start on port {port}")


def fresh_sqlite_app():  # type: ignore[no-untyped-def]
    """A migrated SQLite database in a temp folder and the app on it (cheap argon2)."""
    folder = Path(tempfile.mkdtemp(prefix="brikforge-bench-"))
    os.environ["DATABASE_URL"] = f"sqlite:///{folder / 'bench.db'}"
    os.environ.setdefault("SECRET_KEY", "bench-secret")
    os.environ["ARGON2_MEMORY_KIB"] = "1024"
    os.environ["ARGON2_TIME_COST"] = "1"
    from alembic import command
    from alembic.config import Config

    from app.settings import get_settings

    get_settings.cache_clear()
    root = Path(__file__).resolve().parent.parent
    command.upgrade(Config(toml_file=str(root / "pyproject.toml")), "head")
    from app.main import create_app

    return create_app(get_settings())


def migrate(database_url: str) -> None:
    """Bring a throw-away database to the newest schema (as ``make run`` does)."""
    from alembic import command
    from alembic.config import Config

    os.environ["DATABASE_URL"] = database_url
    from app.settings import get_settings

    get_settings.cache_clear()
    command.upgrade(Config(toml_file=str(ROOT / "pyproject.toml")), "head")


SERVER_PIDS: dict[int, int] = {}
"""The process id of the app ``served_app`` serves on each port (to read its CPU time)."""


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) a process has used so far, in seconds (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def served_app(email: str) -> Iterator[tuple[httpx.Client, dict[str, str]]]:
    """A migrated throw-away SQLite database, the app on one uvicorn worker, and a client
    signed up as ``email`` with its CSRF header (cheap argon2)."""
    folder = Path(tempfile.mkdtemp(prefix="brikforge-bench-"))
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{folder / 'bench.db'}",
        "SECRET_KEY": "bench-secret",
        "ARGON2_MEMORY_KIB": "1024",
        "ARGON2_TIME_COST": "1",
        # one client timing many requests is not abuse: no per-address rate limit
        "CALC_RATE_PER_MINUTE": "100000000",
        "CALC_RATE_BURST": "100000000",
    }
    migrate(env["DATABASE_URL"])
    port = free_port()
    server = serve(["app.main:create_app", "--factory"], port, env)
    SERVER_PIDS[port] = server.pid
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            login = client.post(
                "/api/v1/auth/register",
                json={"email": email, "password": "benchmark!", "display_name": "Bench"},
            )
            yield client, {"X-CSRF-Token": login.json()["csrf_token"]}
    finally:
        server.terminate()
        server.wait(timeout=10)
