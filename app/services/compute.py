"""Heavy calculations apart from request handling: a few worker processes, a deadline.

Why processes: a thread cannot be stopped, and a cooperative deadline would have to be
checked inside every loop of the dice core, including single numpy calls that run for a
second. A worker process past its deadline is killed and replaced, so the work really stops,
and the server's own process (its event loop and its 40-thread pool for pages) keeps its
CPU time and the GIL.

At most ``calc_workers`` calculations run at once and ``calc_queue`` more wait for a worker;
past that a request is refused at once with ``Busy`` (503 and ``Retry-After``). A calculation
still running after ``calc_deadline_seconds`` raises ``CalculationTimeout``.

The pool belongs to the process (workers are OS processes): one per server worker. Waiting
for a result blocks a thread, so async routes go through ``run_async`` (its own small
thread limiter, not AnyIO's shared pool).
"""

from __future__ import annotations

import atexit
import math
import multiprocessing
import os
import queue
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

import anyio.to_thread
from anyio import CapacityLimiter

from app.rules.ruleset import Attack, AttackOdds
from app.services import work_slots
from app.services.errors import Busy, CalculationTimeout
from app.settings import Settings, get_settings

T = TypeVar("T")
_CONTEXT = multiprocessing.get_context("spawn")  # no threads or locks inherited from the server
STARTUP_SECONDS = 60.0
"""How long a new worker may take to import the engine (seconds on a busy machine)."""


def _serve(conn: Connection) -> None:  # pragma: no cover - runs in the worker process
    """A worker's loop: ``(fn, args)`` in, ``("ok", result)`` or ``("err", exception)`` out."""
    os.nice(10)  # below the server's own process: requests are answered first
    _warm_up()
    try:
        conn.send(("ready", None))
    except OSError:  # the server stopped while this worker was starting
        return
    while True:
        try:
            fn, args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            answer: tuple[str, Any] = ("ok", fn(*args))
        except Exception as exc:
            answer = ("err", exc)
        try:
            conn.send(answer)
        except Exception as exc:
            conn.send(("err", RuntimeError(f"{type(exc).__name__}: {exc}")))


def _warm_up() -> None:  # pragma: no cover - runs in the worker process
    """Import the engine and compute every ruleset's sample attacks once (numpy's first
    calls are slow), before the worker says it is ready."""
    import app.services.brikwars_jobs
    import app.services.compute_jobs  # noqa: F401  (the jobs the API sends, and their JSON)
    from app.rules.registry import RULESETS
    from app.rules.ruleset import TargetInput

    for rules in RULESETS.values():
        options = rules.decode_options(None)
        for sample in rules.sample_attacks:
            attacker = rules.decode_unit(sample.attacker)
            targets = [TargetInput(rules.decode_unit(t)) for t in sample.targets]
            rules.attack(attacker, sample.weapons, targets, sample.situation, options).odds()


class _Worker:
    def __init__(self, replacement: bool = False) -> None:
        # A replacement (for a worker killed past its deadline) starts while requests wait:
        # its start counts against the deadline of the job that takes it (see _run_admitted).
        self.replacement = replacement
        self.started = time.monotonic()
        self.conn, child = _CONTEXT.Pipe()
        self.process: BaseProcess = _CONTEXT.Process(
            target=_serve, args=(child,), name="brikforge-calculation", daemon=True
        )
        self.process.start()
        child.close()
        self.ready = False

    def wait_ready(self, at_most: float | None = None) -> bool:
        """Wait for the worker's imports, at most ``at_most`` seconds (False: not ready yet);
        EOFError once it has had STARTUP_SECONDS and is still not ready."""
        if not self.ready:
            left = STARTUP_SECONDS - (time.monotonic() - self.started)
            if not self.conn.poll(max(0.0, left if at_most is None else min(at_most, left))):
                if at_most is not None and left > at_most:
                    return False
                raise EOFError("the calculation worker did not start")
            self.conn.recv()
            self.ready = True
        return True

    def stop(self) -> None:
        self.process.kill()
        self.process.join()
        self.conn.close()


class ComputePool:
    """``workers`` processes, ``queue_size`` waiting jobs, ``deadline`` seconds a job."""

    def __init__(self, workers: int, queue_size: int, deadline: float) -> None:
        self.workers = max(1, workers)
        self.deadline = deadline
        self.capacity = self.workers + max(0, queue_size)
        self._slots = threading.BoundedSemaphore(self.capacity)
        self._idle: queue.SimpleQueue[_Worker] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._live: list[_Worker] = []
        self.limiter = CapacityLimiter(self.capacity)
        self.last_worker: _Worker | None = None  # the tests watch a killed worker go

    def start(self) -> None:
        """Start every worker now (their imports run in the background)."""
        with self._lock:
            while len(self._live) < self.workers:
                worker = _Worker()
                self._live.append(worker)
                self._idle.put(worker)

    def wait_ready(self) -> None:
        """Wait until the started workers have imported the engine (before any job)."""
        with self._lock:
            live = list(self._live)
        for worker in live:
            worker.wait_ready()

    @property
    def retry_after(self) -> int:
        """Seconds a refused client should wait: about one job's deadline."""
        return max(1, math.ceil(self.deadline))

    def admit(self) -> None:
        """Take a place (running or queued), or raise ``Busy`` when there is none."""
        if not self._slots.acquire(blocking=False):
            raise Busy(self.retry_after)

    def release(self) -> None:
        self._slots.release()

    def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker (both must pickle), within the deadline."""
        arrived = time.monotonic()
        self.admit()
        try:
            return self.run_admitted(fn, *args, arrived=arrived)
        finally:
            self.release()

    def run_admitted(self, fn: Callable[..., T], *args: Any, arrived: float | None = None) -> T:
        """``fn(*args)`` once admitted; the deadline counts from ``arrived`` (when the job
        was admitted, by default), so a job's wait in the queue is part of it."""
        # Waiting for a worker and its answer is not this process's work: the request's
        # work slot goes to the next in line meanwhile.
        with work_slots.set_aside():
            return self._run_admitted(fn, args, time.monotonic() if arrived is None else arrived)

    def _left(self, arrived: float) -> float:
        """Seconds of the deadline left to a job that arrived at ``arrived``."""
        return self.deadline - (time.monotonic() - arrived)

    def _run_admitted(self, fn: Callable[..., T], args: tuple[Any, ...], arrived: float) -> T:
        worker = self._take(self._left(arrived))
        self.last_worker = worker
        status: str
        value: Any  # the result, or the exception the worker raised
        try:
            if worker.replacement:
                # A replacement's start is part of the job's wait: under a flood of heavy
                # jobs (workers killed and replaced) it took seconds, and accepted answers
                # came 10 s after they were asked for (issue 30 F7). Not ready within what
                # is left: it stays for the next job, this one is refused.
                if not worker.wait_ready(max(0.0, self._left(arrived))):
                    self._idle.put(worker)
                    raise Busy(self.retry_after)
            else:
                importing = time.monotonic()
                worker.wait_ready()  # the pool's first workers: the server's own start
                arrived += time.monotonic() - importing
            worker.conn.send((fn, args))
            done = worker.conn.poll(max(0.0, self._left(arrived)))
            status, value = worker.conn.recv() if done else ("late", None)
        except (EOFError, OSError):  # the worker died (killed, out of memory)
            status, value = "late", None
        if status == "late":
            self._retire(worker)
            raise CalculationTimeout(self.deadline, self.retry_after)
        self._idle.put(worker)
        if status == "err":
            raise value
        result: T = value
        return result

    def _take(self, wait: float) -> _Worker:
        """An idle worker, waiting at most ``wait`` seconds (what is left of the job's
        deadline) when every worker is busy."""
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        with self._lock:
            if len(self._live) < self.workers:
                worker = _Worker()
                self._live.append(worker)
                return worker
        if wait <= 0:
            raise Busy(self.retry_after)
        try:  # every worker busy: this job is one of the queued ones
            return self._idle.get(timeout=wait)
        except queue.Empty:
            raise Busy(self.retry_after) from None

    def _retire(self, worker: _Worker) -> None:
        """Kill a worker past its deadline and start its replacement (its imports run in
        the background; a job that takes it waits for them outside its deadline)."""
        worker.stop()
        with self._lock:
            self._live.remove(worker)
            if len(self._live) < self.workers:
                fresh = _Worker(replacement=True)
                self._live.append(fresh)
                self._idle.put(fresh)

    def close(self) -> None:
        """Kill every worker (at exit, and when the tests swap pools)."""
        with self._lock:
            live, self._live = self._live, []
        for worker in live:
            worker.stop()


_pool: ComputePool | None = None
_pool_lock = threading.Lock()


def get_pool(settings: Settings | None = None) -> ComputePool:
    """The process's pool, sized by ``settings`` (the environment's) when first made."""
    global _pool
    with _pool_lock:
        if _pool is None:
            settings = settings or get_settings()
            _pool = ComputePool(
                settings.calc_workers, settings.calc_queue, settings.calc_deadline_seconds
            )
        return _pool


def set_pool(pool: ComputePool | None) -> ComputePool | None:
    """Replace the process's pool (tests; ``None``: rebuilt from the settings); returns the
    old one, not closed."""
    global _pool
    with _pool_lock:
        old, _pool = _pool, pool
    return old


def run(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in the calculation pool: from sync code (services, sync routes)."""
    return get_pool().run(fn, *args)


def odds(attack: Attack) -> AttackOdds:
    """The attack's odds: computed here when small, else in the pool (sync code only). A
    worker's answer is handed back to the attack's ruleset to keep (``Attack.remember``): an
    equal attack is small next time. Kept only in the worker, it went to the pool again on
    every request, and under load a pool at low priority refused them as busy."""
    if attack.inline():
        return attack.odds()
    found = run(attack.odds)
    attack.remember(found)
    return found


async def run_async(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in the calculation pool, from async routes: refused at once when full,
    waited for in a thread of the pool's own limiter."""
    pool = get_pool()
    arrived = time.monotonic()  # the deadline counts from here: waits in line are part of it
    pool.admit()
    try:
        return await anyio.to_thread.run_sync(
            lambda: pool.run_admitted(fn, *args, arrived=arrived), limiter=pool.limiter
        )
    finally:
        pool.release()


@atexit.register
def _close() -> None:
    if _pool is not None:
        _pool.close()
