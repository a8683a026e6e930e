"""Reads wait their turn for a server process's work slots; writes, the health check and
static files do not; a slot is given back as the answer starts, and lent while a request's
thread waits for a calculation worker."""

from __future__ import annotations

import asyncio
import threading
import time

import httpx
import pytest
from starlette.types import Receive, Scope, Send

from app.services import compute, work_slots
from app.web.reading_slots import ReadingSlotsMiddleware
from tests.conftest import run_coroutine


class _Counting:
    """An app that counts the requests working at once (until their answer starts);
    ``/stream`` then waits for ``release`` before its body; ``/boom`` fails."""

    def __init__(self) -> None:
        self.inside = 0
        self.peak = 0
        self.release: asyncio.Event | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.inside += 1  # working on the answer until it starts
        self.peak = max(self.peak, self.inside)
        try:
            if scope["path"] == "/boom":
                raise RuntimeError("boom")
            await asyncio.sleep(0.02)
        finally:
            self.inside -= 1
        await send({"type": "http.response.start", "status": 200, "headers": []})
        if scope["path"] == "/stream":
            assert self.release is not None
            await self.release.wait()
        await send({"type": "http.response.body", "body": b"ok"})


async def _all_at_once(app: ReadingSlotsMiddleware, method: str, paths: list[str]) -> None:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        answers = await asyncio.gather(*(client.request(method, p) for p in paths))
    assert all(a.status_code == 200 for a in answers)


@pytest.mark.parametrize(
    ("method", "path", "peak"),
    [
        ("GET", "/armies/1", 2),
        ("HEAD", "/armies/1", 2),
        ("POST", "/armies/1/units", 6),
        ("GET", "/healthz", 6),
        ("GET", "/static/app.css", 6),
    ],
)
def test_reads_wait_for_a_slot_and_nothing_else_does(method: str, path: str, peak: int) -> None:
    inner = _Counting()
    app = ReadingSlotsMiddleware(inner, slots=2)
    run_coroutine(_all_at_once(app, method, [path] * 6))
    assert inner.peak == peak


def test_no_slots_setting_queues_nothing() -> None:
    inner = _Counting()
    run_coroutine(_all_at_once(ReadingSlotsMiddleware(inner, slots=0), "GET", ["/a"] * 6))
    assert inner.peak == 6


def test_a_slot_is_given_back_when_the_answer_starts_and_after_an_error() -> None:
    inner = _Counting()
    app = ReadingSlotsMiddleware(inner, slots=1)
    assert app.slots is not None

    async def main() -> int:
        inner.release = asyncio.Event()
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            streaming = asyncio.create_task(client.get("/stream"))
            await asyncio.sleep(0.05)  # its answer started; its body still comes
            failed = await client.get("/boom")
            assert failed.status_code == 500
            page = await asyncio.wait_for(client.get("/page"), 5)  # not behind either
            assert page.status_code == 200 and not streaming.done()
            inner.release.set()
            await streaming
        assert app.slots is not None
        return app.slots.free()

    assert run_coroutine(main()) == 1


def test_a_read_waiting_for_a_calculation_worker_lends_its_slot() -> None:
    pool = compute.ComputePool(1, 0, 30.0)
    pool.start()
    pool.wait_ready()
    slots = work_slots.Slots(1)
    started = threading.Event()
    order: list[str] = []

    def slow_calculation() -> None:
        started.set()
        pool.run(time.sleep, 0.5)  # the request's thread waits for the worker
        order.append("calculated")

    async def heavy() -> None:
        slot = await slots.take()
        token = work_slots.hold(slot)
        try:
            await asyncio.to_thread(slow_calculation)
        finally:
            slot.give_back()
            work_slots.release(token)

    async def light() -> None:
        await asyncio.to_thread(started.wait, 10)
        slot = await asyncio.wait_for(slots.take(), 0.4)  # not 0.5 s behind the calculation
        order.append("page")
        slot.give_back()

    async def main() -> None:
        await asyncio.gather(heavy(), light())

    try:
        run_coroutine(main())
    finally:
        pool.close()
    assert order == ["page", "calculated"]


def test_the_app_queues_reads_by_its_setting(app) -> None:  # type: ignore[no-untyped-def]
    (installed,) = (m for m in app.user_middleware if m.cls is ReadingSlotsMiddleware)
    assert installed.kwargs["slots"] == app.state.settings.reading_slots
