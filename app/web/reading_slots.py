"""Reading requests (GET, HEAD) take one of a server process's few work slots
(``app.services.work_slots``) and keep it until their answer starts.

Only reads wait in this line: they take no locks, so a read holding a slot never waits on a
request that is queued behind it. A write may hold a row lock while it waits for its next
trip to the thread pool; it never queues here. The health check and static files skip it:
a load balancer's probe must not time out behind a busy worker's pages.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.services import work_slots

READS = frozenset({"GET", "HEAD"})
UNQUEUED = ("/healthz", "/static/")


class ReadingSlotsMiddleware:
    def __init__(self, app: ASGIApp, slots: int) -> None:
        self.app = app
        self.slots = work_slots.Slots(slots) if slots > 0 else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            self.slots is None
            or scope["type"] != "http"
            or scope["method"] not in READS
            or scope["path"].startswith(UNQUEUED)
        ):
            await self.app(scope, receive, send)
            return
        slot = await self.slots.take()
        token = work_slots.hold(slot)

        async def send_and_give_back(message: Message) -> None:
            # The answer is made once it starts (a page's body is rendered before its
            # headers go): a slow client reading it holds no slot.
            if message["type"] == "http.response.start":
                slot.give_back()
            await send(message)

        try:
            await self.app(scope, receive, send_and_give_back)
        finally:
            slot.give_back()
            work_slots.release(token)
