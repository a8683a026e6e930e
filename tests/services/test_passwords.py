"""Password hashes run in this process's hashing threads, below the request threads' OS
priority (ruling G12), and still hash and verify as before."""

from __future__ import annotations

import os
import threading

from app.services import passwords


def _niceness() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def test_a_hash_runs_in_another_thread_at_a_lower_priority_than_the_caller() -> None:
    mine = (threading.get_native_id(), _niceness())
    theirs = passwords.in_hash_thread(lambda: (threading.get_native_id(), _niceness()))
    assert theirs[0] != mine[0]
    assert theirs[1] == max(mine[1], passwords.HASH_NICE)
    assert _niceness() == mine[1]  # the caller's own priority is untouched


def test_hashing_and_verifying_still_work_through_the_hashing_threads() -> None:
    hashed = passwords.hash_password("correct horse")
    assert passwords.verify_password(hashed, "correct horse")
    assert not passwords.verify_password(hashed, "wrong horse")
    assert not passwords.verify_password("not a hash", "correct horse")
