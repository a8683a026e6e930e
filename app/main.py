"""``create_app()``: routers, static files, sessions, error handlers."""

from __future__ import annotations

import gc
from collections.abc import Sequence

from fastapi import APIRouter, Depends, FastAPI
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from starlette.middleware.sessions import SessionMiddleware
from starlette.routing import BaseRoute
from starlette.types import Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from app.db.session import (
    make_engine,
    make_live_sessionmaker,
    make_read_sessionmaker,
    make_sessionmaker,
)
from app.services import compute
from app.settings import PROJECT_ROOT, Settings, get_settings
from app.web.api import armies as api_armies
from app.web.api import auth as api_auth
from app.web.api import battle_players as api_battle_players
from app.web.api import battles as api_battles
from app.web.api import brikwars as api_brikwars
from app.web.api import builder as api_builder
from app.web.api import calculator as api_calculator
from app.web.api import clubs as api_clubs
from app.web.api import open_calculator as api_open_calculator
from app.web.api import rulesets as api_rulesets
from app.web.csrf import csrf_protect, page_csrf_protect
from app.web.errors import install_error_handlers
from app.web.heavy import HeavyTurnsMiddleware
from app.web.openapi import build_openapi
from app.web.reading_slots import ReadingSlotsMiddleware
from app.web.routes import (
    account,
    armies,
    auth,
    battle_players,
    battles,
    builder,
    calculator,
    clubs,
    docs,
    home,
    live,
    open_calculator,
    roster,
    sharing,
)
from app.web.security_headers import SecurityHeadersMiddleware
from app.web.session_cookie import LoginCookieMiddleware

API_PREFIX = "/api/v1"
BOOKKEEPING_POOL = 2  # connections per process (none more at a peak: see Settings)
LIVE_POOL = 2  # the live hub's connections per process (its two threads': app.web.live)
LIVE_POOL_TIMEOUT = 5.0  # seconds; past it the hub tries again later (its streams wait)
STATELESS_PREFIXES = (f"{API_PREFIX}/brikwars/", f"{API_PREFIX}/rulesets")
# The router tries every route in this order until one matches (two of FastAPI's passes for
# the router that holds it): the busiest pages come first. The calculator's fragment, last
# of 89 page routes, spent a third of its time matching its path.
PAGE_ROUTERS: tuple[APIRouter, ...] = (
    calculator.router,
    open_calculator.router,
    roster.router,  # before armies: /armies/import must not match /armies/{army_id}
    armies.router,
    builder.router,
    battles.router,
    battle_players.router,
    home.router,
    docs.router,  # /docs (Swagger UI from the app's own files) and /favicon.ico
    auth.router,
    sharing.router,
    clubs.router,
    account.router,
)
API_ROUTERS: tuple[APIRouter, ...] = (
    api_auth.router,
    api_clubs.router,  # before armies: /armies/import must not match /armies/{army_id}
    api_armies.router,
    api_builder.router,
    api_brikwars.builder_router,
    api_brikwars.router,
    api_rulesets.router,
    api_open_calculator.router,  # before calculator: its paths are /calculator/open...
    api_calculator.router,
    api_battles.router,
    api_battle_players.router,
)


def served_routes() -> set[tuple[str, str]]:
    """Every (method, path) the app answers, for the authorisation table test."""
    out: set[tuple[str, str]] = set()
    pages, api = (*PAGE_ROUTERS, live.page_router), (*API_ROUTERS, live.api_router)
    for prefix, routers in (("", pages), (API_PREFIX, api)):
        for router in routers:
            for route in router.routes:
                if isinstance(route, APIRoute):
                    out |= {(m, prefix + route.path_format) for m in route.methods or ()}
    return out


class StatelessCalculators(SessionMiddleware):
    """The signed state cookie for everything but the public, stateless rules calculators.

    It carries no authority: flash messages and a visitor's CSRF token (the log-in
    and sign-up forms). Logins are server-side sessions (``app.services.sessions``)
    whose cookie only holds a random token. ``/api/v1/brikwars/`` (odds, rolls,
    weapon stats, the catalogue) and ``/api/v1/rulesets`` need no login and keep no
    state, and they are the API's busiest paths: they skip the cookie handling.
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(STATELESS_PREFIXES):
            await self.app(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the application for these settings (the environment's by default)."""
    settings = settings or get_settings()
    app = FastAPI(
        title="BrikForge",
        summary="Army builder and battle calculator for brick wargames.",
        version="0.1.0",
        openapi_url=f"{API_PREFIX}/openapi.json",
        docs_url=None,  # our own /docs (app/web/routes/docs.py): Swagger UI served by the app
        redoc_url=None,
    )
    engine = make_engine(
        settings.database_url,
        prepared_statements=settings.database_prepared_statements,
        pool_size=settings.database_pool_size,
        max_overflow=settings.database_max_overflow,
    )
    # Bookkeeping a request does beside its own transaction (the rate limits' buckets, "last
    # seen", a token's last use) takes its connection from a small pool of its own: taken from
    # the requests' pool, by requests that each hold one connection already, it deadlocked
    # the pool as soon as every connection was held that way (30 s, then a 500).
    bookkeeping = make_engine(
        settings.database_url,
        prepared_statements=settings.database_prepared_statements,
        pool_size=BOOKKEEPING_POOL,
        max_overflow=0,
    )
    app.state.settings = settings
    app.state.engine = engine
    app.state.sessionmaker = make_sessionmaker(engine, bookkeeping=bookkeeping)
    app.state.read_sessionmaker = make_read_sessionmaker(engine)  # GET and HEAD
    app.state.bookkeeping_engine = bookkeeping
    app.state.bookkeeping = make_sessionmaker(bookkeeping)
    # The live streams' reads (``app.web.live``) take their connections from a small pool of
    # their own: from the requests' pool, a burst of events waited on requests (and made them
    # wait: 30 s, then a 500) under load.
    app.state.live_sessionmaker = make_live_sessionmaker(
        make_engine(
            settings.database_url,
            prepared_statements=settings.database_prepared_statements,
            pool_size=LIVE_POOL,
            max_overflow=0,
            pool_timeout=LIVE_POOL_TIMEOUT,
        )
    )
    compute.get_pool(settings).start()  # the calculation workers import in the background

    app.add_middleware(
        LoginCookieMiddleware,
        max_age=settings.session_max_age_seconds,
        secure=settings.secure_cookies,
    )
    app.add_middleware(
        StatelessCalculators,
        secret_key=settings.secret_key,
        session_cookie="brikforge_state",
        max_age=settings.session_max_age_seconds,
        same_site="lax",
        https_only=settings.secure_cookies,
    )
    app.add_middleware(SecurityHeadersMiddleware)
    # Heavy turns are given back once the whole answer is sent (``app.web.heavy``).
    app.add_middleware(HeavyTurnsMiddleware)
    # Outside the session and login handling: a queued read has done no work yet.
    app.add_middleware(ReadingSlotsMiddleware, slots=settings.reading_slots)
    if settings.trusted_proxy_list:
        # Outermost: the client address is the proxy's word only when a trusted proxy
        # relays it. Run uvicorn with --no-proxy-headers: by default it believes any
        # X-Forwarded-For from 127.0.0.1, which is every local process.
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.trusted_proxy_list)
    install_error_handlers(app)

    # Each router straight onto the app: a nested router adds a matching pass per request.
    # The stateless attack calculators come first: the router tries every included router's
    # routes in order, and theirs (the API's busiest, /api/v1/brikwars/...) overlap no other
    # path, so they match at once instead of after ~100 page and API routes.
    # They are stateless and outside the session: nothing to forge, no CSRF check.
    app.include_router(api_brikwars.router, prefix=API_PREFIX)
    app.include_router(api_rulesets.router, prefix=API_PREFIX)
    for router in PAGE_ROUTERS:
        app.include_router(
            router, dependencies=[Depends(page_csrf_protect)], include_in_schema=False
        )
    for router in API_ROUTERS:
        if router not in (api_brikwars.router, api_rulesets.router):
            app.include_router(router, prefix=API_PREFIX, dependencies=[Depends(csrf_protect)])

    # Live streams: safe GETs that open no request session (``app.web.routes.live``).
    app.include_router(live.page_router, include_in_schema=False)
    app.include_router(live.api_router, prefix=API_PREFIX)

    app.openapi = lambda: build_openapi(app)  # type: ignore[method-assign]
    app.mount("/static", StaticFiles(directory=PROJECT_ROOT / "static"), name="static")
    build_routes(app.router.routes)
    settle_heap()
    return app


_settled = False

# The collector's thresholds for a server process (CPython's are 700, 10, 10). A request
# keeps a few hundred containers alive while it runs (its ORM objects, its template context,
# uvicorn's and the thread pool's): a young collection every 700 new ones walked every request
# in flight and promoted them, to be walked again. Measured per worker (gc.callbacks, thread
# CPU time) over 26 s of army pages and calculator fragments on 32 connections: 300-450 young,
# 28-41 middle and 2-4 full collections, 0.2-0.4 s of CPU, a full one up to 37 ms of CPU and
# up to 700 ms of wall time on the busy 2-core machine, while every request in flight on that
# worker waited. At 20,000 a request's temporaries are gone before a collection comes: 0-2
# young and no full collection in the same load, memory as flat (144-152 MB a worker). Same
# code A/B, wrk: army page 536-547 req/s and p99 171-221 ms, against 391-468 and 227-355.
# A full collection still comes after 20 middle ones.
GC_THRESHOLDS = (20_000, 50, 20)


def settle_heap() -> None:
    """Move what start-up made (modules, templates, catalogues, routes: some 200,000 objects)
    out of the garbage collector's reach, once per process.

    They live as long as the process, yet every full collection walked them all: a pause of
    tens of milliseconds (hundreds on a busy machine) for every request in flight on that
    worker, the slowest percent of the army page under load. Frozen, a full collection walks
    only what requests left behind. Garbage made later is collected as before.
    """
    global _settled
    if not _settled:
        _settled = True
        gc.collect()
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)


def build_routes(routes: Sequence[BaseRoute]) -> None:
    """Build every included router's routes now, not on the first request that reaches them.

    FastAPI builds an included router's routes (their dependants and models, about 1.7 ms
    each) the first time a request is matched against it, on the event loop: the first
    request after a start held it for 80-150 ms, and /healthz waited that long.
    """
    for route in routes:
        candidates = getattr(route, "effective_candidates", None)
        if callable(candidates):
            build_routes(candidates())
            route.effective_low_priority_routes()  # type: ignore[attr-defined]
