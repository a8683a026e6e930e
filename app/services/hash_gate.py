"""Few password hashes at once per server process, in order, fair between client addresses.

Why: an argon2id hash (log-in, sign-up, password change, the password that confirms an
account's deletion) takes ``ARGON2_MEMORY_KIB`` (64 MiB) for as long as it runs. Nothing
bounded how many ran at once: 40 concurrent failed log-ins (an unknown e-mail costs the same,
on purpose) took a 4-worker server from 1.25 to 3.74 GB, and the settings allowed ~160 at once.

Here a process hashes at most ``password_hash_permits`` passwords at once (1 by default). The
others wait their turn, first come first served, for at most ``password_hash_wait_seconds``;
at most ``password_hash_queue`` of them wait, and at most one of them from any one client
address (the address's second hash while one of its own already waits is refused at once:
one address cannot fill the line). A hash refused, at once or after its wait, is a
``PasswordsBusy`` (503 with ``Retry-After``). Memory then stays at ``permits`` hashes a
process however many log-ins arrive, and each waiter holds a thread for a bounded time.

The callers are synchronous service functions, run in the server's thread pool (never on the
event loop): a waiter blocks its own thread only.
"""

from __future__ import annotations

import math
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache

from app.services.errors import PasswordsBusy
from app.settings import get_settings


@dataclass(eq=False)
class _Waiter:
    address: str | None
    granted: bool = False
    ready: threading.Event = field(default_factory=threading.Event)


class HashGate:
    """``permits`` hashes at once; up to ``queue`` more wait in order, each at most
    ``wait_seconds``, one a client address."""

    def __init__(self, permits: int, wait_seconds: float, queue: int) -> None:
        if permits < 1:
            raise ValueError("at least one permit")
        self.permits = permits
        self.wait_seconds = max(0.0, wait_seconds)
        self.queue = max(0, queue)
        self._lock = threading.Lock()
        self._free = permits
        self._waiting: deque[_Waiter] = deque()
        self._waiting_addresses: set[str] = set()

    @property
    def retry_after(self) -> int:
        """Seconds a refused client is told to wait (``Retry-After``)."""
        return max(1, math.ceil(self.wait_seconds))

    @contextmanager
    def turn(self, address: str | None) -> Iterator[None]:
        """Hold one permit while the block runs (it is given back however the block ends);
        raise ``PasswordsBusy`` when none comes in time. ``address=None`` (scripts): only
        the shared line applies."""
        self._enter(address)
        try:
            yield
        finally:
            self._leave()

    def _enter(self, address: str | None) -> None:
        with self._lock:
            if self._free > 0 and not self._waiting:
                self._free -= 1
                return
            if address is not None and address in self._waiting_addresses:
                raise PasswordsBusy(self.retry_after, "one of your log-ins is already waiting")
            if len(self._waiting) >= self.queue:
                raise PasswordsBusy(self.retry_after)
            waiter = _Waiter(address)
            self._waiting.append(waiter)
            if address is not None:
                self._waiting_addresses.add(address)
        waiter.ready.wait(self.wait_seconds)
        with self._lock:
            if waiter.granted:  # (maybe just after the wait ran out: the permit is ours)
                return
            self._waiting.remove(waiter)
            self._forget(waiter)
        raise PasswordsBusy(self.retry_after)

    def _leave(self) -> None:
        with self._lock:
            if not self._waiting:
                self._free += 1
                return
            waiter = self._waiting.popleft()  # the permit goes straight to the first in line
            self._forget(waiter)
            waiter.granted = True
        waiter.ready.set()

    def _forget(self, waiter: _Waiter) -> None:
        if waiter.address is not None:
            self._waiting_addresses.discard(waiter.address)

    def state(self) -> tuple[int, int]:
        """(permits free, hashes waiting), for the tests."""
        with self._lock:
            return self._free, len(self._waiting)


@lru_cache
def _gate(permits: int, wait_seconds: float, queue: int) -> HashGate:
    return HashGate(permits, wait_seconds, queue)


def gate() -> HashGate:
    """This process's gate, as the settings shape it."""
    settings = get_settings()
    return _gate(
        settings.password_hash_permits,
        settings.password_hash_wait_seconds,
        settings.password_hash_queue,
    )
