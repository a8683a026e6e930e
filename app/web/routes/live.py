"""The live streams of a battle (Server-Sent Events, ``app.web.live``): the page's for its
owner and for the read-only link, and the JSON twin ``/api/v1/battles/{id}/events``.

Plain async routes, outside ``SessionRoute``: a stream lasts minutes and must hold no
database connection, so who may watch is asked in one short session, closed before the first
event. A stranger's stream is a 404 like the battle's page; past a bound, a 503 with
Retry-After. The stream starts after the number the page last saw: ``Last-Event-ID`` (the
browser's own reconnection) or ``?after=`` (the page's, when htmx's extension opens a new
stream), whichever is newer.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response, StreamingResponse
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import Battle
from app.services import accounts, sessions
from app.services.errors import NotAuthenticated, NotFound
from app.services.permissions import battle_viewer
from app.services.tokens import digest
from app.web.deps import client_address
from app.web.inputs import Id
from app.web.live import Grant, StreamsBusy, events, hub_for, role_key
from app.web.session_cookie import COOKIE

page_router = APIRouter()
api_router = APIRouter(tags=["battles"])
MAX_ID = 2**31 - 1
EVENT_STREAM = {
    "Cache-Control": "no-store",
    "X-Accel-Buffering": "no",  # (nginx: send each event as it comes)
}
After = Annotated[int, Query(ge=0, le=MAX_ID, description="the last entry number seen")]


def _after(request: Request, after: int) -> int:
    """The newer of ``?after=`` and ``Last-Event-ID`` (a junk header counts as none)."""
    last = request.headers.get("last-event-id", "").strip()
    if last.isdigit() and len(last) <= 10 and int(last) <= MAX_ID:
        return max(after, int(last))
    return after


def _owner_grant(
    session: Session, request: Request, battle_id: int, *, api: bool
) -> tuple[Grant, str, str]:
    """The host's or a player's grant (its role as ``battle_viewer`` says: a player's stream
    carries their sides' secrets and no other's), bound key and CSRF token, by session cookie
    (or, on the API, a bearer token); NotAuthenticated or NotFound."""
    auth = request.headers.get("authorization", "")
    if api and auth.lower().startswith("bearer "):
        token = accounts.token_for(session, auth[7:].strip())
        if token is None:
            raise NotAuthenticated
        user = accounts.get_user(session, token.user_id)
        if user is None:
            raise NotAuthenticated
        key = role_key(battle_viewer(session, user=user, battle_id=battle_id))
        grant = Grant(battle_id, key, user_id=user.id, token_id=token.id)
        return grant, f"user:{user.id}", ""
    cookie = request.cookies.get(COOKIE)
    login = sessions.find(session, cookie) if cookie else None
    if login is None:
        raise NotAuthenticated
    key = role_key(battle_viewer(session, user=login.user, battle_id=battle_id))
    grant = Grant(battle_id, key, user_id=login.user.id, login_id=login.id)
    return grant, f"user:{login.user.id}", login.csrf_token


def _link_grant(session: Session, request: Request, token: str) -> tuple[Grant, str, str]:
    hashed = digest(token)
    battle_id = session.scalar(select(Battle.id).where(Battle.share_token_hash == hashed))
    if battle_id is None:
        raise NotFound("battle")
    cookie = request.cookies.get(COOKIE)
    login = sessions.find(session, cookie) if cookie else None
    key = f"user:{login.user.id}" if login is not None else f"address:{client_address(request)}"
    return Grant(battle_id, "spectator", link_hash=hashed), key, ""


async def _stream(request: Request, find: object, *, after: int, as_json: bool) -> Response:
    def ask() -> tuple[Grant, str, str]:
        with request.app.state.read_sessionmaker() as session:
            return find(session)  # type: ignore[operator,no-any-return]

    grant, key, csrf = await run_in_threadpool(ask)
    hub = hub_for(request.app)
    try:
        stream = await hub.open(
            grant, after=_after(request, after), key=key, csrf=csrf, as_json=as_json
        )
    except StreamsBusy as busy:
        return JSONResponse(
            {"detail": [{"field": "stream", "reason": busy.reason}]},
            status_code=503,
            headers={"Retry-After": str(busy.retry_after)},
        )
    return StreamingResponse(
        events(hub, stream), media_type="text/event-stream", headers=EVENT_STREAM
    )


@page_router.get("/battles/{battle_id:int}/events")
async def battle_events(request: Request, battle_id: Id, after: After = 0) -> Response:
    """The battle page's live stream: each new entry's fragments, as its host or the player
    sees them."""
    return await _stream(
        request,
        lambda s: _owner_grant(s, request, battle_id, api=False),
        after=after,
        as_json=False,
    )


@page_router.get("/battles/shared/{token}/events")
async def battle_shared_events(request: Request, token: str, after: After = 0) -> Response:
    """The read-only link's live stream: each new entry as others see the battle; it ends
    when the link is revoked."""
    if len(token) > 200:
        raise NotFound("battle")
    return await _stream(
        request, lambda s: _link_grant(s, request, token), after=after, as_json=False
    )


@api_router.get(
    "/battles/{battle_id:int}/events",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def battle_events_json(request: Request, battle_id: Id, after: After = 0) -> Response:
    """The battle's live stream (text/event-stream): each new log entry as an ``entry``
    event numbered by its ``seq``, its data JSON ``{"seq", "entry", "undone", "units",
    "status", "last_seq"}`` (the entry, the entry an undo took back as it now stands or null,
    and the units it changed, as ``GET /battles/{id}`` has them, as the caller's role sees
    them: a player, their own side's secrets only);
    ``presence``: who has the battle open changed, ``{"connected": [names]}`` (its id
    repeats the last entry's); ``reload``: read the battle again; ``ended``: access is gone.
    Reconnect with
    ``Last-Event-ID`` or ``?after=`` to be sent what was missed."""
    return await _stream(
        request,
        lambda s: _owner_grant(s, request, battle_id, api=True),
        after=after,
        as_json=True,
    )
