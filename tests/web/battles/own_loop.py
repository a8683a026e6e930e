"""Run a coroutine on an event loop of its own thread: after a browser test the suite's main
thread has Playwright's loop running, and ``asyncio.run`` refuses to start there."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run_apart(coroutine: Coroutine[Any, Any, T]) -> T:
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
