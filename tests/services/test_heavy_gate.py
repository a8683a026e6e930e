"""The heavy-work gate (``app.services.heavy_gate``, a ``KeyedGate`` with a bound a key):
one account never takes every permit, another account's request gets in past its waiters,
each account's own requests keep their order, and a full line is refused with a Retry-After.

Each request here is a thread that holds its turn until the test lets it go: the tests
assert who got in, in what order, and who was refused, never how long anything took.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.services import heavy_gate
from app.services.errors import HeavyBusy
from app.services.keyed_gate import KeyedGate

PATIENT = 30.0  # a wait no test reaches: every waiter is let in or refused first


def _until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, "the threads never got there"
        time.sleep(0.002)


class Requests:
    """Threads that each take a turn and hold it until ``let_go``; ``entered`` in order."""

    def __init__(self, gate: KeyedGate) -> None:
        self.gate = gate
        self.entered: list[str] = []
        self.refused: list[str] = []
        self._go: dict[str, threading.Event] = {}
        self._threads: list[threading.Thread] = []

    def start(self, name: str, key: str) -> None:
        go = self._go[name] = threading.Event()

        def run() -> None:
            try:
                with self.gate.turn(key):
                    self.entered.append(name)
                    go.wait(PATIENT)
            except HeavyBusy:
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


def _gate(
    permits: int = 3,
    per_key: int = 2,
    wait_seconds: float = PATIENT,
    queue: int = 16,
    key_queue: int = 2,
) -> KeyedGate:
    """A gate as ``heavy_gate.gate()`` makes it (its settings' defaults), fresh for a test."""
    make = heavy_gate._gate.__wrapped__  # (the uncached maker)
    return make(permits, per_key, wait_seconds, queue, key_queue)  # type: ignore[no-any-return]


@pytest.fixture
def requests() -> Iterator[Requests]:
    running = Requests(_gate())
    yield running
    running.let_all_go()


def test_one_account_holds_at_most_its_share_and_another_gets_in_past_its_waiters(
    requests: Requests,
) -> None:
    gate = requests.gate
    for name in ("A1", "A2", "A3", "A4"):
        requests.start(name, "account:1")
        _until(lambda n=name: n in requests.entered or gate.state()[1] >= 1)  # type: ignore[misc]
    _until(lambda: gate.state() == (1, 2))
    assert requests.entered == ["A1", "A2"]  # its share: 2 of the 3 permits, one left free
    requests.start("B1", "account:2")  # behind A's two waiters, yet in at once
    _until(lambda: "B1" in requests.entered)
    assert gate.held_by("account:1") == 2 and gate.held_by("account:2") == 1
    requests.let_go("A1")  # A's freed permit goes to A's first waiter, in order
    _until(lambda: requests.entered[-1] == "A3")
    requests.let_go("A2")
    _until(lambda: requests.entered[-1] == "A4")
    assert requests.entered == ["A1", "A2", "B1", "A3", "A4"] and requests.refused == []


def test_a_freed_permit_goes_to_the_first_waiter_whose_account_has_room(
    requests: Requests,
) -> None:
    gate = requests.gate
    requests.start("A1", "account:1")
    requests.start("A2", "account:1")
    requests.start("B1", "account:2")
    _until(lambda: gate.state() == (0, 0))
    requests.start("A3", "account:1")  # first in line, but A holds its share
    _until(lambda: gate.state()[1] == 1)
    requests.start("C1", "account:3")
    _until(lambda: gate.state()[1] == 2)
    requests.let_go("B1")  # B's permit: A3 may not take it, C1 may
    _until(lambda: "C1" in requests.entered)
    assert "A3" not in requests.entered and gate.state() == (0, 1)
    requests.let_go("A1")
    _until(lambda: "A3" in requests.entered)


def test_an_accounts_full_line_is_refused_at_once_naming_its_own_requests(
    requests: Requests,
) -> None:
    gate = requests.gate
    for name in ("A1", "A2", "A3", "A4"):
        requests.start(name, "account:1")
    _until(lambda: gate.state() == (1, 2))
    with pytest.raises(HeavyBusy) as refused, gate.turn("account:1"):
        pytest.fail("a third waiting request of one account got in")
    assert refused.value.retry_after_seconds >= 1
    assert "your account already has" in str(refused.value)
    requests.start("B1", "account:2")  # others are not refused for it
    _until(lambda: "B1" in requests.entered)


def test_a_full_process_line_and_a_wait_run_out_are_refused_with_a_retry_after() -> None:
    gate = _gate(permits=1, per_key=1, wait_seconds=0.01, queue=0)
    held = Requests(gate)
    held.start("holder", "account:1")
    _until(lambda: held.entered == ["holder"])
    with pytest.raises(HeavyBusy) as refused, gate.turn("account:2"):
        pytest.fail("got in past a full line")
    assert refused.value.retry_after_seconds == 1
    assert "busy with other large" in str(refused.value)
    waiting = _gate(permits=1, per_key=1, wait_seconds=0.01, queue=4)
    held2 = Requests(waiting)
    held2.start("holder", "account:1")
    _until(lambda: held2.entered == ["holder"])
    with pytest.raises(HeavyBusy), waiting.turn("account:2"):
        pytest.fail("got in while the permit was held")
    assert waiting.state() == (0, 0)  # the refused waiter left the line
    held.let_all_go()
    held2.let_all_go()
    assert gate.state() == (1, 0) and waiting.state() == (1, 0)


def test_a_keys_machine_turn_is_one_at_a_time_refused_at_once_and_given_back(
    tmp_path: Path,
) -> None:
    """Ruling G13: two handles on one folder stand for two server processes."""
    here = heavy_gate.MachineTurns(tmp_path, "postgresql://one")
    there = heavy_gate.MachineTurns(tmp_path, "postgresql://one")
    give_back = there.take("account:1")
    with pytest.raises(HeavyBusy) as refused:
        here.take("account:1")
    assert str(refused.value) == heavy_gate.OWN_LINE_REASON
    other_account = here.take("account:2")  # another account's turn is its own
    other_database = heavy_gate.MachineTurns(tmp_path, "postgresql://two").take("account:1")
    give_back()
    here.take("account:1")()  # free again once given back
    other_account()
    other_database()
