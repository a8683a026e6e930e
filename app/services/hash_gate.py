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

from functools import lru_cache

from app.services.errors import PasswordsBusy
from app.services.keyed_gate import KeyedGate
from app.settings import get_settings


def _busy(retry_after: int, reason: str | None) -> PasswordsBusy:
    return PasswordsBusy(retry_after, reason)


class HashGate(KeyedGate):
    """``permits`` hashes at once; up to ``queue`` more wait in order, each at most
    ``wait_seconds``, one a client address (``KeyedGate`` with no bound on what an address
    holds: a hash is short, the line is what one address must not fill)."""

    def __init__(self, permits: int, wait_seconds: float, queue: int) -> None:
        super().__init__(
            permits,
            wait_seconds,
            queue,
            busy=_busy,
            key_queue=1,
            own_line_reason="one of your log-ins is already waiting",
        )


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
