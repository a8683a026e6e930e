"""Per-client-address rate limits for the public calculators: a token bucket each.

In process: each server process keeps its own buckets, so N processes allow N times the rate
(a shared store such as Redis would be needed to hold one limit across servers). The table of
buckets is bounded: past ``MAX_CLIENTS`` addresses the least recently seen is forgotten (a
forgotten address starts again with a full bucket, which only ever errs towards serving).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict

from fastapi import Request

from app.services.errors import RateLimited

MAX_CLIENTS = 10_000


class TokenBuckets:
    """``burst`` requests at once, refilled at ``per_minute`` a minute, per key."""

    def __init__(self, per_minute: int, burst: int, max_keys: int = MAX_CLIENTS) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(max(1, burst))
        self.max_keys = max_keys
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._buckets)

    def take(self, key: str, now: float | None = None) -> None:
        """Spend one token of ``key``'s bucket, or raise ``RateLimited``."""
        now = time.monotonic() if now is None else now
        with self._lock:
            tokens, last = self._buckets.pop(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            if tokens < 1.0:
                self._buckets[key] = (tokens, now)
                wait = (1.0 - tokens) / self.rate if self.rate > 0 else 60.0
                raise RateLimited(max(1, math.ceil(wait)))
            self._buckets[key] = (tokens - 1.0, now)
            while len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)


def _buckets(request: Request) -> TokenBuckets:
    state = request.app.state
    buckets: TokenBuckets | None = getattr(state, "calculator_buckets", None)
    if buckets is None:
        settings = state.settings
        buckets = TokenBuckets(settings.calc_rate_per_minute, settings.calc_rate_burst)
        state.calculator_buckets = buckets
    return buckets


async def calculator_rate_limit(request: Request) -> None:
    """Dependency of the public calculators: one token per request from this address.

    Async: it takes microseconds, and a sync dependency costs a hop to the thread pool and
    back (a tenth of the cheapest calculator request's time)."""
    if request.method in ("GET", "HEAD") and not request.url.query:
        return  # an empty form (the page itself, the catalogue) computes nothing
    address = request.client.host if request.client else "unknown"
    _buckets(request).take(address)
