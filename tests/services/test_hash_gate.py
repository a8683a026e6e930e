"""The password-hash gate (``app.services.hash_gate``): its line's order, its fairness between
client addresses, its bounded wait and queue, and permits given back however a hash ends.

Each "hash" here is a thread that holds its turn until the test lets it go: the tests assert
who got in, in what order, and who was refused, never how long anything took.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import pytest

from app.services.errors import PasswordsBusy
from app.services.hash_gate import HashGate

PATIENT = 30.0  # a wait no test reaches: every waiter is let in or refused first


def _until(condition: Callable[[], bool]) -> None:
    """Wait for the other threads to get there (no assertion on how long they took)."""
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, "the threads never got there"
        time.sleep(0.002)


class Hashes:
    """Threads that each take a turn and hold it until ``let_go``; ``entered`` in order."""

    def __init__(self, gate: HashGate) -> None:
        self.gate = gate
        self.entered: list[str] = []
        self.refused: list[str] = []
        self._go: dict[str, threading.Event] = {}
        self._threads: list[threading.Thread] = []

    def start(self, name: str, address: str) -> None:
        go = self._go[name] = threading.Event()

        def run() -> None:
            try:
                with self.gate.turn(address):
                    self.entered.append(name)
                    go.wait(PATIENT)
            except PasswordsBusy:
                self.refused.append(name)

        thread = threading.Thread(target=run, daemon=True)
        self._threads.append(thread)
        thread.start()

    def let_go(self, name: str) -> None:
        self._go[name].set()

    def let_all_go(self) -> None:
        for go in self._go.values():
            go.set()
        for thread in self._threads:
            thread.join(PATIENT)


@pytest.fixture
def hashes() -> Iterator[Hashes]:
    running = Hashes(HashGate(permits=1, wait_seconds=PATIENT, queue=8))
    yield running
    running.let_all_go()


def _waiting(gate: HashGate, n: int) -> Callable[[], bool]:
    return lambda: gate.state()[1] == n


def test_one_hash_at_a_time_the_rest_in_arrival_order(hashes: Hashes) -> None:
    gate = hashes.gate
    hashes.start("first", "10.0.0.1")
    _until(lambda: hashes.entered == ["first"])
    for n, (name, address) in enumerate(
        [("second", "10.0.0.2"), ("third", "10.0.0.3"), ("fourth", "10.0.0.4")], start=1
    ):
        hashes.start(name, address)
        _until(_waiting(gate, n))
    assert hashes.entered == ["first"] and gate.state() == (0, 3)
    for name, now_in in [("first", 2), ("second", 3), ("third", 4)]:
        hashes.let_go(name)
        _until(lambda n=now_in: len(hashes.entered) == n)  # type: ignore[misc]
        assert gate.state()[0] == 0  # the permit went to the next in line, never free
    assert hashes.entered == ["first", "second", "third", "fourth"]
    hashes.let_go("fourth")
    _until(lambda: gate.state() == (1, 0))
    assert hashes.refused == []


def test_an_address_has_at_most_one_hash_waiting_while_others_still_get_in(
    hashes: Hashes,
) -> None:
    gate = hashes.gate
    hashes.start("A1", "198.51.100.7")
    _until(lambda: hashes.entered == ["A1"])
    hashes.start("A2", "198.51.100.7")  # A's one waiting hash
    _until(_waiting(gate, 1))
    # its second waiting one: refused at once (PATIENT would fail the run if it waited)
    with pytest.raises(PasswordsBusy) as refused, gate.turn("198.51.100.7"):
        pytest.fail("a second waiting hash of one address got in")
    assert refused.value.retry_after_seconds >= 1
    assert "already waiting" in str(refused.value)
    hashes.start("B", "203.0.113.9")  # another address still queues behind A's
    _until(_waiting(gate, 2))
    hashes.let_go("A1")
    hashes.let_go("A2")
    hashes.let_go("B")
    _until(lambda: gate.state() == (1, 0))
    assert hashes.entered == ["A1", "A2", "B"] and hashes.refused == []
    # A's place in the line is free again once its waiting hash got in
    with gate.turn("198.51.100.7"):
        assert gate.state() == (0, 0)


def test_a_hash_that_waits_too_long_is_refused_with_a_retry_after() -> None:
    gate = HashGate(permits=1, wait_seconds=0.01, queue=8)
    held = Hashes(gate)
    held.start("holder", "10.0.0.1")
    _until(lambda: held.entered == ["holder"])
    try:
        with pytest.raises(PasswordsBusy) as refused, gate.turn("10.0.0.2"):
            pytest.fail("got in while the only permit was held")
        assert refused.value.retry_after_seconds == 1
        assert gate.state() == (0, 0)  # the refused waiter left the line
    finally:
        held.let_all_go()
    assert gate.state() == (1, 0)


def test_a_full_line_refuses_at_once() -> None:
    gate = HashGate(permits=1, wait_seconds=PATIENT, queue=1)
    running = Hashes(gate)
    try:
        running.start("holder", "10.0.0.1")
        _until(lambda: running.entered == ["holder"])
        running.start("waiter", "10.0.0.2")
        _until(_waiting(gate, 1))
        # (PATIENT would fail the run if it waited)
        with pytest.raises(PasswordsBusy), gate.turn("10.0.0.3"):
            pytest.fail("got into a full line")
    finally:
        running.let_all_go()
    assert running.entered == ["holder", "waiter"]


def test_the_permit_is_given_back_when_the_hash_fails() -> None:
    gate = HashGate(permits=1, wait_seconds=0, queue=0)
    with pytest.raises(ValueError, match="bad hash"), gate.turn("10.0.0.1"):
        raise ValueError("bad hash")
    assert gate.state() == (1, 0)
    with gate.turn("10.0.0.1"):  # wait 0, no line: it gets in only because the permit is back
        assert gate.state() == (0, 0)


def test_several_permits_let_as_many_hashes_run_at_once() -> None:
    gate = HashGate(permits=2, wait_seconds=PATIENT, queue=8)
    running = Hashes(gate)
    try:
        running.start("one", "10.0.0.1")
        running.start("two", "10.0.0.2")
        _until(lambda: len(running.entered) == 2)
        running.start("three", "10.0.0.3")
        _until(_waiting(gate, 1))
        assert gate.state() == (0, 1) and len(running.entered) == 2
    finally:
        running.let_all_go()
    assert sorted(running.entered) == ["one", "three", "two"] and gate.state() == (2, 0)


def test_no_permit_is_refused() -> None:
    with pytest.raises(ValueError, match="permit"):
        HashGate(permits=0, wait_seconds=1, queue=1)
