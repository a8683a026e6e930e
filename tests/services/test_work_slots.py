"""Work slots: at most N holders, first come first served, lent while a thread waits."""

from __future__ import annotations

import asyncio
import threading

import pytest

from app.services import work_slots
from tests.conftest import run_coroutine


def test_at_most_size_hold_a_slot_and_the_line_moves_in_order() -> None:
    slots = work_slots.Slots(2)
    inside, peak, order = [0], [0], []

    async def request(k: int) -> None:
        slot = await slots.take()
        order.append(k)
        inside[0] += 1
        peak[0] = max(peak[0], inside[0])
        await asyncio.sleep(0.01)
        inside[0] -= 1
        slot.give_back()

    async def main() -> int:
        tasks = []
        for k in range(8):
            tasks.append(asyncio.create_task(request(k)))
            await asyncio.sleep(0)  # each queued before the next arrives
        await asyncio.gather(*tasks)
        return slots.free()

    assert run_coroutine(main()) == 2
    assert peak[0] == 2
    assert order == list(range(8))


def test_a_slot_given_back_twice_frees_one_place() -> None:
    slots = work_slots.Slots(1)

    async def main() -> int:
        slot = await slots.take()
        slot.give_back()
        slot.give_back()
        return slots.free()

    assert run_coroutine(main()) == 1


def test_a_thread_waiting_lends_its_slot_and_retakes_it_after() -> None:
    slots = work_slots.Slots(1)
    waiting, go_on = threading.Event(), threading.Event()
    seen: list[str] = []

    def worker_thread() -> None:
        with work_slots.set_aside():
            waiting.set()
            go_on.wait(10)
            seen.append("wait over")
        seen.append("retaken")

    async def first() -> None:
        slot = await slots.take()
        token = work_slots.hold(slot)
        try:
            await asyncio.to_thread(worker_thread)  # the context (and the slot) go along
            assert slot.held
        finally:
            slot.give_back()
            work_slots.release(token)

    async def second() -> None:
        await asyncio.to_thread(waiting.wait, 10)
        slot = await slots.take()  # the first one's place, lent
        seen.append("second ran")
        go_on.set()
        await asyncio.sleep(0.05)  # the first one cannot retake it yet
        seen.append("second done")
        slot.give_back()

    async def main() -> int:
        await asyncio.gather(first(), second())
        return slots.free()

    assert run_coroutine(main()) == 1
    assert seen == ["second ran", "wait over", "second done", "retaken"]


def test_a_request_that_ends_while_its_slot_is_lent_gives_back_nothing_twice() -> None:
    slots = work_slots.Slots(1)

    async def main() -> int:
        slot = await slots.take()
        lent = await asyncio.to_thread(slot.lend)
        assert lent
        slot.give_back()  # the request ended: its place was already lent
        await asyncio.to_thread(slot.retake)  # takes nothing back for a finished request
        await asyncio.sleep(0)
        return slots.free()

    assert run_coroutine(main()) == 1


def test_setting_aside_without_a_slot_or_on_the_event_loop_does_nothing() -> None:
    with work_slots.set_aside():  # no request's slot in this context
        pass
    slots = work_slots.Slots(1)

    async def main() -> int:
        slot = await slots.take()
        token = work_slots.hold(slot)
        with work_slots.set_aside():  # on the loop itself: nothing lent
            free = slots.free()
        work_slots.release(token)
        slot.give_back()
        return free

    assert run_coroutine(main()) == 0


def test_no_slots_is_refused() -> None:
    with pytest.raises(ValueError):
        work_slots.Slots(0)


def test_heavy_work_steps_out_for_good_and_the_next_reader_gets_in() -> None:
    """``step_out`` (a heavy request, ruling G10): its slot goes to the next in line at once
    and is never taken back; the request's final give_back frees nothing twice."""
    slots = work_slots.Slots(1)
    order: list[str] = []

    async def heavy(stepped: asyncio.Event, go: threading.Event) -> None:
        loop = asyncio.get_running_loop()
        slot = await slots.take()
        token = work_slots.hold(slot)

        def work() -> None:
            work_slots.step_out()
            loop.call_soon_threadsafe(stepped.set)
            go.wait(30)

        try:
            await asyncio.to_thread(work)
            order.append("heavy done")
        finally:
            slot.give_back()
            work_slots.release(token)

    async def light() -> None:
        slot = await slots.take()
        order.append("light")
        slot.give_back()

    async def main() -> int:
        stepped, go = asyncio.Event(), threading.Event()
        task = asyncio.create_task(heavy(stepped, go))
        await stepped.wait()
        await light()  # gets in while the heavy request still works
        go.set()
        await task
        return slots.free()

    assert run_coroutine(main()) == 1
    assert order == ["light", "heavy done"]
