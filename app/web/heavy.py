"""Heavy requests (``app.services.heavy_gate``) hold their turn until their answer is sent.

``HeavyTurnsMiddleware`` gives each request a place to keep the turns it takes; a route
that finds its work heavy calls ``army_turn`` or ``import_turn``, which (if heavy) ends the
request's database transaction (a waiter holds no pooled connection), gives its reading slot
back and takes the account's machine turn (refused at once if held: ruling G13) and a turn
of its process's gate, or raises ``HeavyBusy``. The middleware gives the turns back once the
whole answer is sent (a streamed export's last chunk included) or the request fails.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

from fastapi import Request
from sqlalchemy.orm import Session
from starlette.types import ASGIApp, Receive, Scope, Send

from app.db.models import User
from app.services import heavy_gate, work_slots
from app.services.permissions import Access, army_for
from app.web.deps import client_address

_TURNS: ContextVar[list[Callable[[], None]] | None] = ContextVar("heavy_turns", default=None)
"""The request's turns, as what gives each back."""


class HeavyTurnsMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        turns: list[Callable[[], None]] = []
        token = _TURNS.set(turns)
        try:
            await self.app(scope, receive, send)
        finally:
            _TURNS.reset(token)
            for give_back in reversed(turns):
                give_back()


def key_of(request: Request, user: User | None) -> str:
    """Whose turn: the account's, or (a shared link's anonymous viewer) the address's."""
    return f"account:{user.id}" if user is not None else f"address:{client_address(request)}"


def take_turn(request: Request, session: Session, user: User | None) -> None:
    """Wait for a heavy turn (``HeavyBusy`` if none comes), held until the answer is sent.
    Called from the route's thread, never on the event loop."""
    turns = _TURNS.get()
    if turns is None or turns:  # (outside the middleware, or held already)
        return
    key = key_of(request, user)
    if session.in_transaction():
        session.commit()  # nothing written yet: the waiter gives its connection back
    work_slots.step_out()
    # the account's one turn on the machine first (refused at once, never waited for:
    # ruling G13), then a place in this process's gate (waited for, in line)
    give_back = heavy_gate.machine().take(key)
    gate = heavy_gate.gate()
    try:
        gate.enter(key)
    except BaseException:
        give_back()  # (now: not held while the refusal is answered)
        raise
    turns.append(give_back)
    turns.append(lambda: gate.leave(key))


def army_turn(
    request: Request, session: Session, user: User | None, army_id: int, *, linked: bool = False
) -> None:
    """Take a heavy turn if the army is large (``Settings.heavy_army_rows``). Unless it was
    reached by its read-only link (``linked``), the user's right to read a large one is checked
    before its turn: a stranger gets the same 404 for a large army as for a small one, never a
    turn or a 503."""
    if heavy_gate.is_heavy_army(session, army_id):
        if not linked and user is not None:
            army_for(session, user=user, army_id=army_id, access=Access.READ)
        take_turn(request, session, user)


def import_turn(request: Request, session: Session, user: User, size: int) -> None:
    """Take a heavy turn if the import document is large (``Settings.heavy_import_bytes``)."""
    if heavy_gate.is_heavy_import(size):
        take_turn(request, session, user)
