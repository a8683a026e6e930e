"""A memo with a bound on entries and on bytes: what ``functools.lru_cache`` lacks.

Every cache in the app must have a bound (a fuzzer's 160,000 distinct requests grew one
server to 1 GB): an entry count, and where a value's size depends on the input (a pool's
distribution, a rendered block) a byte budget as well. The least recently used entries go
first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, NamedTuple, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


class CacheInfo(NamedTuple):
    hits: int
    misses: int
    maxsize: int
    currsize: int
    nbytes: int
    max_bytes: int


def nbytes_of(value: object) -> int:
    """Bytes held by the numpy arrays in ``value`` (a dataclass, tuple or array), plus a
    small constant for the object itself; what a byte budget counts."""
    total = 64
    stack = [value]
    while stack:
        item = stack.pop()
        size = getattr(item, "nbytes", None)
        if isinstance(size, int):
            total += size
        elif isinstance(item, tuple | list):
            stack.extend(item)
        elif hasattr(item, "__slots__"):
            stack.extend(getattr(item, s) for s in item.__slots__ if hasattr(item, s))
    return total


class BoundedMemo(Generic[P, R]):
    """``fn`` memoised on its (hashable) arguments, at most ``maxsize`` entries and
    ``max_bytes`` bytes of values as ``size`` counts them (thread-safe)."""

    def __init__(
        self,
        fn: Callable[P, R],
        maxsize: int,
        max_bytes: int | None = None,
        size: Callable[[Any], int] = nbytes_of,
    ) -> None:
        self.__wrapped__ = fn
        self.__doc__ = fn.__doc__
        self.maxsize = maxsize
        self.max_bytes = max_bytes
        self._size = size
        self._data: OrderedDict[Hashable, tuple[R, int]] = OrderedDict()
        self._bytes = 0
        self._hits = 0
        self._misses = 0
        self._lock = threading.Lock()

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        key: Hashable = (args, tuple(sorted(kwargs.items()))) if kwargs else args
        return self.keyed(key, *args, **kwargs)

    def keyed(self, key: Hashable, *args: P.args, **kwargs: P.kwargs) -> R:
        """``fn(*args, **kwargs)`` kept under the caller's ``key``: for a value that depends on
        less than the arguments carry (equal keys must give equal values)."""
        with self._lock:
            found = self._data.get(key)
            if found is not None:
                self._data.move_to_end(key)
                self._hits += 1
                return found[0]
            self._misses += 1
        value = self.__wrapped__(*args, **kwargs)  # outside the lock: may take a while
        self.put(key, value)
        return value

    def put(self, key: Hashable, value: R) -> None:
        """Store ``value`` under ``key``, then forget the oldest entries past the bounds."""
        nbytes = self._size(value) if self.max_bytes is not None else 0
        if self.max_bytes is not None and nbytes > self.max_bytes:
            return  # larger than the whole budget: not kept at all
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._data[key] = (value, nbytes)
            self._bytes += nbytes
            while len(self._data) > self.maxsize or (
                self.max_bytes is not None and self._bytes > self.max_bytes
            ):
                _, (_, gone) = self._data.popitem(last=False)
                self._bytes -= gone

    def get(self, key: Hashable) -> R | None:
        """The value stored under ``key`` (marked recently used), or None."""
        with self._lock:
            found = self._data.get(key)
            if found is None:
                return None
            self._data.move_to_end(key)
            return found[0]

    def cache_clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._bytes = 0
            self._hits = self._misses = 0

    def cache_info(self) -> CacheInfo:
        with self._lock:
            return CacheInfo(
                self._hits,
                self._misses,
                self.maxsize,
                len(self._data),
                self._bytes,
                self.max_bytes or 0,
            )


def bounded_cache(
    maxsize: int, max_bytes: int | None = None, size: Callable[[Any], int] = nbytes_of
) -> Callable[[Callable[P, R]], BoundedMemo[P, R]]:
    """Decorator: ``@bounded_cache(256, max_bytes=64 << 20)``.

    >>> @bounded_cache(2)
    ... def square(x: int) -> int:
    ...     return x * x
    >>> [square(x) for x in (1, 2, 3, 3)], square.cache_info().currsize
    ([1, 4, 9, 9], 2)
    """

    def wrap(fn: Callable[P, R]) -> BoundedMemo[P, R]:
        return BoundedMemo(fn, maxsize, max_bytes, size)

    return wrap
