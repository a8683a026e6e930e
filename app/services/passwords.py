"""argon2id password hashing, cost taken from the settings."""

from __future__ import annotations

from functools import lru_cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from app.settings import get_settings


@lru_cache
def _hasher(memory_kib: int, time_cost: int) -> PasswordHasher:
    return PasswordHasher(memory_cost=memory_kib, time_cost=time_cost)


def hasher() -> PasswordHasher:
    settings = get_settings()
    return _hasher(settings.argon2_memory_kib, settings.argon2_time_cost)


def hash_password(password: str) -> str:
    return hasher().hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    try:
        return hasher().verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


# A hash to verify against when the email is unknown, so timing does not reveal accounts.
def dummy_hash() -> str:
    return _dummy(get_settings().argon2_memory_kib, get_settings().argon2_time_cost)


@lru_cache
def _dummy(memory_kib: int, time_cost: int) -> str:
    return _hasher(memory_kib, time_cost).hash("not a real password")
