"""A few places for work in a server process: past them, a request waits its turn, in order.

Why: a server process works on every request it has accepted at once, in threads that take
turns on one GIL, on a machine of few cores. Under load (32 connections on 4 workers, 2 cores)
the calculator fragment's p99 was three to six times its median: the requests in flight on a
worker took turns unevenly. Let in a few at a time (the rest queue on the event loop, costing
nothing) and each runs nearly alone while the line moves in order: about the same requests a
second, a shorter tail (the figures: ``Settings.reading_slots``).

A slot is held while a request works, not while it waits on something that is not CPU work:
``set_aside`` gives it back while a thread waits for a calculation worker (up to its deadline),
so the requests queued behind it run meanwhile.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token


class Slot:
    """A request's place: given back once (``give_back``), lent out while its thread waits
    (``set_aside``). Its state changes under a lock: the event loop and a thread both touch it."""

    def __init__(self, semaphore: asyncio.Semaphore, loop: asyncio.AbstractEventLoop) -> None:
        self._semaphore = semaphore
        self._loop = loop
        self._lock = threading.Lock()
        self.held = True
        self.done = False

    def give_back(self) -> None:
        """The request is done with it (on the event loop; a second call does nothing)."""
        with self._lock:
            self.done = True
            if not self.held:
                return
            self.held = False
        self._semaphore.release()

    def lend(self) -> bool:
        """From a thread about to wait: give the place back for now. False: not held."""
        with self._lock:
            if not self.held or self.done:
                return False
            self.held = False
        self._loop.call_soon_threadsafe(self._semaphore.release)
        return True

    def retake(self) -> None:
        """From the thread, its wait over: queue for a place again (unless the request ended)."""
        if self.done:
            return
        try:
            asyncio.run_coroutine_threadsafe(self._semaphore.acquire(), self._loop).result()
        except RuntimeError:  # the event loop is gone (the server stopping): nothing to take
            return
        with self._lock:
            if not self.done:
                self.held = True
                return
        self._loop.call_soon_threadsafe(self._semaphore.release)  # ended meanwhile


class Slots:
    """At most ``size`` requests hold a slot at once, per event loop (a server process has
    one; the tests' clients start their own)."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("at least one slot")
        self.size = size
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore]
        self._by_loop = weakref.WeakKeyDictionary()

    async def take(self) -> Slot:
        """Wait for a place (first come, first served)."""
        loop = asyncio.get_running_loop()
        semaphore = self._by_loop.get(loop)
        if semaphore is None:
            semaphore = self._by_loop[loop] = asyncio.Semaphore(self.size)
        await semaphore.acquire()
        return Slot(semaphore, loop)

    def free(self) -> int:
        """Places free now on the running loop (for the tests)."""
        semaphore = self._by_loop.get(asyncio.get_running_loop())
        return self.size if semaphore is None else semaphore._value


_CURRENT: ContextVar[Slot | None] = ContextVar("work_slot", default=None)


def hold(slot: Slot) -> Token[Slot | None]:
    """Make ``slot`` the current request's (its threads inherit the context)."""
    return _CURRENT.set(slot)


def release(token: Token[Slot | None]) -> None:
    _CURRENT.reset(token)


@contextmanager
def set_aside() -> Iterator[None]:
    """Lend the current request's slot while this thread waits (not on the event loop)."""
    slot = _CURRENT.get()
    lent = slot is not None and not _on_loop(slot) and slot.lend()
    try:
        yield
    finally:
        if lent:
            assert slot is not None
            slot.retake()


def _on_loop(slot: Slot) -> bool:
    try:
        return asyncio.get_running_loop() is slot._loop
    except RuntimeError:
        return False


def step_out() -> None:
    """Give the current request's slot back for good: its work is heavy and takes its turn
    elsewhere (``heavy_gate``), never holding a place that light pages need."""
    slot = _CURRENT.get()
    if slot is not None:
        slot.lend()
