"""A few permits a server process, handed out in order, fair between keys (client addresses,
accounts): the shape of the password-hash gate (``hash_gate``) and the heavy-work gate
(``heavy_gate``).

A gate holds ``permits`` at once. A key may hold at most ``per_key`` of them (None: any
number), so one key can never take every permit while another waits. Past that, a request
waits in one line, first come first served among the waiters whose key has room, for at
most ``wait_seconds``; at most ``queue`` wait in all and at most ``key_queue`` for any one
key (the key's next one is refused at once: one key cannot fill the line). A refusal, at once
or after the wait, is the gate's ``busy`` exception (a 503 with ``Retry-After``).

The waits block a thread (the callers are synchronous, run in the server's thread pool, never
on the event loop): a waiter holds its own thread only, for a bounded time, and the line's
bounds bound how many threads wait.
"""

from __future__ import annotations

import math
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass(eq=False)
class _Waiter:
    key: str | None
    granted: bool = False
    ready: threading.Event = field(default_factory=threading.Event)


# (seconds to retry after, the reason when it is the key's own doing, else None) -> exception
BusyFactory = Callable[[int, str | None], Exception]


class KeyedGate:
    """``permits`` at once, at most ``per_key`` a key; up to ``queue`` more wait in order
    (``key_queue`` a key), each at most ``wait_seconds``."""

    def __init__(
        self,
        permits: int,
        wait_seconds: float,
        queue: int,
        *,
        busy: BusyFactory,
        per_key: int | None = None,
        key_queue: int = 1,
        own_line_reason: str = "one of your requests is already waiting",
    ) -> None:
        if permits < 1:
            raise ValueError("at least one permit")
        if per_key is not None and per_key < 1:
            raise ValueError("at least one permit a key")
        self.permits = permits
        self.per_key = per_key
        self.wait_seconds = max(0.0, wait_seconds)
        self.queue = max(0, queue)
        self.key_queue = max(0, key_queue)
        self._busy = busy
        self._own_line_reason = own_line_reason
        self._lock = threading.Lock()
        self._free = permits
        self._waiting: deque[_Waiter] = deque()
        self._held: Counter[str] = Counter()
        self._queued: Counter[str] = Counter()

    @property
    def retry_after(self) -> int:
        """Seconds a refused client is told to wait (``Retry-After``)."""
        return max(1, math.ceil(self.wait_seconds))

    @contextmanager
    def turn(self, key: str | None) -> Iterator[None]:
        """Hold one permit while the block runs (given back however the block ends); raise
        the busy exception when none comes in time. ``key=None`` (scripts): only the shared
        bounds apply."""
        self.enter(key)
        try:
            yield
        finally:
            self.leave(key)

    def enter(self, key: str | None) -> None:
        """Take a permit (waiting in line if need be), or raise the busy exception. Pair it
        with exactly one ``leave(key)``."""
        with self._lock:
            if self._free > 0 and self._has_room(key):
                # (every waiter left has a key at its bound, or a free permit would be theirs)
                self._grant(key)
                return
            if key is not None and self._queued[key] >= self.key_queue:
                raise self._busy(self.retry_after, self._own_line_reason)
            if len(self._waiting) >= self.queue:
                raise self._busy(self.retry_after, None)
            waiter = _Waiter(key)
            self._waiting.append(waiter)
            if key is not None:
                self._queued[key] += 1
        waiter.ready.wait(self.wait_seconds)
        with self._lock:
            if waiter.granted:  # (maybe just after the wait ran out: the permit is ours)
                return
            self._waiting.remove(waiter)
            self._unqueue(waiter)
        raise self._busy(self.retry_after, None)

    def leave(self, key: str | None) -> None:
        """Give a permit back: it goes straight to the first waiter in line whose key has room."""
        with self._lock:
            self._free += 1
            if key is not None:
                self._held[key] -= 1
                if self._held[key] <= 0:
                    del self._held[key]
            chosen = next((w for w in self._waiting if self._has_room(w.key)), None)
            if chosen is None:
                return
            self._waiting.remove(chosen)
            self._unqueue(chosen)
            self._grant(chosen.key)
            chosen.granted = True
        chosen.ready.set()

    def _has_room(self, key: str | None) -> bool:
        return self.per_key is None or key is None or self._held[key] < self.per_key

    def _grant(self, key: str | None) -> None:
        self._free -= 1
        if key is not None:
            self._held[key] += 1

    def _unqueue(self, waiter: _Waiter) -> None:
        if waiter.key is not None:
            self._queued[waiter.key] -= 1
            if self._queued[waiter.key] <= 0:
                del self._queued[waiter.key]

    def state(self) -> tuple[int, int]:
        """(permits free, requests waiting), for the tests."""
        with self._lock:
            return self._free, len(self._waiting)

    def held_by(self, key: str) -> int:
        """Permits the key holds now, for the tests."""
        with self._lock:
            return self._held[key]
