"""argon2id password hashing, cost taken from the settings.

Every hash runs in this process's hashing threads, at a lower OS priority than the threads
that answer requests (ruling G12): argon2 releases the GIL, so while a log-in hashes, the
machine's cores still go first to other users' pages. 40 concurrent failed log-ins (one
hash at a time in each of 4 workers on 2 cores) otherwise took every core: the other pages
kept 0.11 of their requests a second. The hash gate (``hash_gate``) bounds how many hash at
once (and so these threads' memory); these threads only lower their priority.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from app.settings import get_settings


@lru_cache
def _hasher(memory_kib: int, time_cost: int) -> PasswordHasher:
    return PasswordHasher(memory_cost=memory_kib, time_cost=time_cost)


def hasher() -> PasswordHasher:
    settings = get_settings()
    return _hasher(settings.argon2_memory_kib, settings.argon2_time_cost)


HASH_NICE = 10
"""The hashing threads' niceness (the request threads keep 0): like the calculation workers'."""

T = TypeVar("T")


def _lower_priority() -> None:
    """A hashing thread's start: lower its own priority (Linux: per thread; elsewhere a
    no-op rather than lowering the whole process's)."""
    if hasattr(os, "setpriority"):
        me = threading.get_native_id()
        with contextlib.suppress(OSError):  # not allowed here: hash at the request's priority
            os.setpriority(os.PRIO_PROCESS, me, max(HASH_NICE, os.getpriority(os.PRIO_PROCESS, me)))


@lru_cache
def _threads(pid: int, count: int) -> ThreadPoolExecutor:
    """This process's (``pid``: a forked child makes its own) hashing threads."""
    return ThreadPoolExecutor(count, "password-hash", initializer=_lower_priority)


def in_hash_thread(fn: Callable[[], T]) -> T:
    """``fn()`` in a hashing thread; the calling thread waits for it (the hash gate lets at
    most ``password_hash_permits`` in at once, so none waits here for a thread)."""
    return _threads(os.getpid(), get_settings().password_hash_permits).submit(fn).result()


def hash_password(password: str) -> str:
    h = hasher()
    return in_hash_thread(lambda: h.hash(password))


def verify_password(password_hash: str, password: str) -> bool:
    h = hasher()

    def verify() -> bool:
        try:
            return h.verify(password_hash, password)
        except (VerificationError, InvalidHashError):
            return False

    return in_hash_thread(verify)


# A hash to verify against when the email is unknown, so timing does not reveal accounts.
def dummy_hash() -> str:
    return _dummy(get_settings().argon2_memory_kib, get_settings().argon2_time_cost)


@lru_cache
def _dummy(memory_kib: int, time_cost: int) -> str:
    return _hasher(memory_kib, time_cost).hash("not a real password")
