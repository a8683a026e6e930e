"""Per-client-address rate limits for the public calculators: one token bucket per address,
held in the database so that every app server (and every worker) draws on the same bucket.

A database round trip per request would cost the hottest API more than its own work, so each
process takes tokens a few at a time (a tenth of the burst, and of a second's refill) and
spends them locally for up to ``LEASE_SECONDS``; what it has not spent by then is dropped.
The shared bucket never gives out more than its limit, and a token is spent at most
``LEASE_SECONDS`` after it was taken: over any span a client gets at most what the limit
allows over that span and one second more (two requests at the default rate). Below 20
tokens a second (the default is 2) a lease is one token: exact. An empty bucket's answer (how
long until a token is back) is remembered too, so a flood from one address is refused
without a database round trip. The per-process table is bounded: past ``MAX_CLIENTS``
addresses the least recently seen is forgotten (its lease dropped, its next request asks the
database).

A process draws for one client at a time: requests that find no token in hand while a draw
for their client is on its way wait for it, then spend from what it brought. Before, every
request in flight when a lease ran out (up to 32 at once under ``make load``) drew for itself,
each an upsert of the bucket's one row: 44 draws in 300 requests on one worker, against 2.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections import OrderedDict

from fastapi import Request
from sqlalchemy import Engine
from starlette.concurrency import run_in_threadpool

from app.services import rate_limits
from app.services.errors import RateLimited

MAX_CLIENTS = 10_000
LEASE_SECONDS = 1.0
LEASE_SHARE = 10  # a lease is this fraction of the burst and of a second's refill
PRUNE_EVERY_SECONDS = 60.0


class SharedLimit:
    """``burst`` requests at once, refilled at ``per_minute`` a minute, per client, across
    every process that uses the same database."""

    def __init__(
        self,
        engine: Engine,
        *,
        name: str,
        per_minute: int,
        burst: int,
        max_clients: int = MAX_CLIENTS,
    ) -> None:
        # One statement, its own transaction: autocommit saves the BEGIN and COMMIT trips.
        self.engine = engine.execution_options(isolation_level="AUTOCOMMIT")
        self.name = name
        self.per_minute = per_minute
        self.burst = max(1, burst)
        # A tenth of the burst, and of what comes back while a lease is held: several
        # processes' leases (dropped unspent after a second) never drain the bucket faster
        # than it refills.
        refill = per_minute / 60.0 * LEASE_SECONDS
        self.lease = max(1, min(self.burst // LEASE_SHARE, int(refill // LEASE_SHARE)))
        self.max_clients = max_clients
        # client -> (tokens in hand, until when); no tokens: refused until then
        self._local: OrderedDict[str, tuple[int, float]] = OrderedDict()
        self._drawing: dict[str, asyncio.Future[None]] = {}  # client -> its draw on its way
        self._lock = threading.Lock()
        self._pruned_at = time.monotonic()

    def __len__(self) -> int:
        return len(self._local)

    async def take(self, client: str) -> None:
        """Spend one of ``client``'s tokens, or raise ``RateLimited``."""
        loop = asyncio.get_running_loop()
        while True:
            if self._spend_local(client, time.monotonic()):
                return
            pending = self._drawing.get(client)
            if pending is None or pending.get_loop() is not loop:
                break
            # (shielded: a waiter that is cancelled must not cancel the draw for the others)
            await asyncio.shield(pending)
        mine = self._drawing[client] = loop.create_future()
        try:
            await self._draw_and_keep(client)
        finally:
            if self._drawing.get(client) is mine:
                del self._drawing[client]
            mine.set_result(None)

    async def _draw_and_keep(self, client: str) -> None:
        draw = await run_in_threadpool(self._draw, client)
        now = time.monotonic()
        if draw.taken > 1:
            self._keep(client, draw.taken - 1, now + LEASE_SECONDS)
        if draw.taken:
            return
        self._keep(client, 0, now + draw.wait)
        raise RateLimited(max(1, math.ceil(draw.wait)))

    def _spend_local(self, client: str, now: float) -> bool:
        """True when a token in hand was spent; raises while the bucket is known empty."""
        with self._lock:
            tokens, until = self._local.pop(client, (0, 0.0))
            if now >= until:
                return False
            if tokens == 0:
                self._local[client] = (0, until)
                raise RateLimited(max(1, math.ceil(until - now)))
            if tokens > 1:
                self._local[client] = (tokens - 1, until)
            return True

    def _keep(self, client: str, tokens: int, until: float) -> None:
        """Hold ``tokens`` more until then (none: refused until then)."""
        with self._lock:
            held, held_until = self._local.pop(client, (0, 0.0))
            if held_until <= time.monotonic():
                held = 0
            if tokens:
                self._local[client] = (held + tokens, until)
            elif held:  # refused, but another request took a lease meanwhile: keep it
                self._local[client] = (held, held_until)
            else:
                self._local[client] = (0, until)
            while len(self._local) > self.max_clients:
                self._local.popitem(last=False)

    def _draw(self, client: str) -> rate_limits.Draw:
        with self.engine.connect() as connection:
            draw = rate_limits.take(
                connection,
                key=f"{self.name} {client}"[:100],
                per_minute=self.per_minute,
                burst=self.burst,
                want=self.lease,
            )
            if time.monotonic() - self._pruned_at > PRUNE_EVERY_SECONDS:
                self._pruned_at = time.monotonic()
                refill = 60.0 * self.burst / self.per_minute if self.per_minute > 0 else 3600.0
                rate_limits.prune(connection, idle_seconds=max(refill, 60.0))
        return draw


def _calculator_limit(request: Request) -> SharedLimit:
    state = request.app.state
    limit: SharedLimit | None = getattr(state, "calculator_limit", None)
    if limit is None:
        settings = state.settings
        limit = SharedLimit(
            state.bookkeeping_engine,  # not the requests' pool: the caller holds one of those
            name="calc",
            per_minute=settings.calc_rate_per_minute,
            burst=settings.calc_rate_burst,
        )
        state.calculator_limit = limit
    return limit


async def calculator_rate_limit(request: Request) -> None:
    """Dependency of the public calculators: one token per request from this address.

    Tokens in hand are spent on the event loop (microseconds); the database's round trip
    runs in the thread pool, so a slow database never holds the loop."""
    # (the scope's query string: ``request.url`` would build a URL object on every request)
    if request.method in ("GET", "HEAD") and not request.scope.get("query_string"):
        return  # an empty form (the page itself, the catalogue) computes nothing
    address = request.client.host if request.client else "unknown"
    await _calculator_limit(request).take(address)
