"""Shared benchmark plumbing: a throw-away app on SQLite, timing, the results table."""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


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
