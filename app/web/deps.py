"""Request-scoped dependencies, as ``Annotated`` aliases that read like prose."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Coroutine, Sequence
from contextlib import suppress
from contextvars import ContextVar
from typing import Annotated, Any, Generic, TypeVar

from fastapi import Depends, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.routing import APIRoute
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from app.db.base import utcnow
from app.db.models import User
from app.db.session import READ_ONLY
from app.services import accounts, sessions
from app.services.errors import NotAuthenticated
from app.services.sessions import ActiveSession
from app.web.session_cookie import COOKIE

# Requests that only read: their session is read-only (``make_read_sessionmaker``).
READING_METHODS = frozenset({"GET", "HEAD"})
F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


# The request's database session, for the route's own thread to finish (``SessionRoute``).
_REQUEST_SESSION: ContextVar[Session | None] = ContextVar("request_session", default=None)
_REQUEST: ContextVar[Request | None] = ContextVar("request", default=None)
# request.state: the route looks the login up in its own thread (``SessionRoute``).
_LOGIN_IN_ROUTE = "login_in_route"
_SESSION = "db_session"  # request.state: the request's database session (``SessionRoute``)


class Later(Generic[T]):
    """What a login dependency hands a synchronous GET route in place of its ``T``, for the
    route's own thread to fill in (``_fill_in_login``): it looks the login up and puts
    ``value(login)`` where the placeholder stands. The dependencies say so in their return
    types (``T | Later[T]``); the route's own parameter is a plain ``T`` by the time it runs."""

    def __init__(self, name: str, value: Callable[[ActiveSession | None], T]) -> None:
        self.name = name
        self.value = value

    def __repr__(self) -> str:
        return f"<{self.name}, looked up by the route>"


def _login(login: ActiveSession | None) -> ActiveSession | None:
    return login


def _user(login: ActiveSession | None) -> User | None:
    return login.user if login is not None else None


def _required_user(login: ActiveSession | None) -> User:
    if login is None:
        raise NotAuthenticated
    return login.user


LATER_LOGIN: Later[ActiveSession | None] = Later("login session", _login)
LATER_USER: Later[User | None] = Later("user or None", _user)
LATER_REQUIRED_USER: Later[User] = Later("required user", _required_user)


class SessionRoute(APIRoute):
    """A route that opens the request's database session (``_open_session``; its
    dependencies read it with ``get_session``) and whose answer's status decides its fate.

    A synchronous route runs in the thread pool; its request session is committed (answer
    below 400) or rolled back (an error answer or exception) in that same thread, right after
    the route returns. Every trip to the thread pool costs a thread switch and the GIL's
    hand-over twice: finishing the session there, rather than in one more trip of its own,
    took a page from four trips to two (the login lookup and the route). A GET or HEAD
    looks its login up there too (``login_session`` hands the route ``LATER_*``
    placeholders, which ``_finishing_session`` fills in first): one trip.
    What a route left open (an async route, or a dependency that refused before the route
    ran) is finished here, by the answer's status.
    """

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        if not inspect.iscoroutinefunction(endpoint):
            endpoint = _finishing_session(endpoint)
        super().__init__(path, endpoint, **kwargs)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        sync = getattr(self.endpoint, "_finishes_session", False)

        async def answer(request: Request) -> Response:
            if sync and request.method in READING_METHODS:
                setattr(request.state, _LOGIN_IN_ROUTE, True)
            session = _open_session(request)
            reset, reset_request = _REQUEST_SESSION.set(session), _REQUEST.set(request)
            try:
                response = await handler(request)
                if session.in_transaction():  # (left open: an async route, a refusal before it)
                    await run_in_threadpool(_finish, session, keep=response.status_code < 400)
            except BaseException:
                if session.in_transaction():
                    await run_in_threadpool(_finish, session, keep=False)
                raise
            finally:
                if session.in_transaction():  # (the rollback above failed): close it off the loop
                    await run_in_threadpool(session.close)
                else:
                    session.close()  # nothing to end: no I/O
                with suppress(ValueError):  # (finished in another context than it began)
                    _REQUEST_SESSION.reset(reset)
                with suppress(ValueError):
                    _REQUEST.reset(reset_request)
            return response

        return answer


def _finishing_session(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    """The synchronous ``endpoint``, committing or rolling back the request session after it."""
    if getattr(endpoint, "_finishes_session", False):
        return endpoint

    @functools.wraps(endpoint)
    def run(*args: Any, **kwargs: Any) -> Any:
        session = _REQUEST_SESSION.get()
        try:
            _fill_in_login(kwargs, getattr(endpoint, _READS_ARMY, None))
            answer = endpoint(*args, **kwargs)
        except BaseException:
            if session is not None:
                _finish(session, keep=False)
            raise
        if session is not None:
            # A route that returns data (not a Response) answers with its 2xx status.
            status = answer.status_code if isinstance(answer, Response) else 200
            _finish(session, keep=status < 400)
        return answer

    run._finishes_session = True  # type: ignore[attr-defined]
    return run


_READS_ARMY = "_reads_army"  # an endpoint's attribute (``reads_army``)


def reads_army(find: Callable[[Request], Sequence[int]]) -> Callable[[F], F]:
    """Route decorator (under the router's): the armies the route reads first, as ``find``
    names them from the request (at most two), are loaded with the login, in the same query.
    (A page under /armies/{army_id} needs none: that argument names it.) Loading an army
    grants nothing: the route's access check decides."""

    def mark(endpoint: F) -> F:
        setattr(endpoint, _READS_ARMY, find)
        return endpoint

    return mark


def _fill_in_login(
    kwargs: dict[str, Any], armies_of: Callable[[Request], Sequence[int]] | None = None
) -> None:
    """Look up the login a dependency left to the route (``LATER_*``), in the route's
    thread and with its session, and put it where the placeholders stand."""
    request = _REQUEST.get()
    if request is None or getattr(request.state, "login", None) is not LATER_LOGIN:
        return
    session = _REQUEST_SESSION.get()
    token = request.cookies.get(COOKIE)
    # A page under /armies/{army_id} reads that army next: it comes in the same query (the
    # route's own argument, validated as an Id by now), as do the ones ``reads_army`` names.
    army_id = kwargs.get("army_id")
    army_ids: Sequence[int] = ()
    if isinstance(army_id, int) and not isinstance(army_id, bool):
        army_ids = (army_id,)
    elif armies_of is not None:
        army_ids = armies_of(request)
    active = (
        _find_login(request, session, token, army_ids=army_ids)
        if session is not None and token
        else None
    )
    request.state.login = active
    request.state.user = _user(active)
    for name, value in kwargs.items():
        if isinstance(value, Later):
            kwargs[name] = value.value(active)


def _finish(session: Session, *, keep: bool) -> None:
    if not session.in_transaction():
        return
    if session.info.get(READ_ONLY):
        # A GET's session wrote nothing (a write raises) and began no transaction on the
        # server: closing it gives its connection back, without a commit's bookkeeping.
        session.close()
    elif keep:
        session.commit()
    else:
        session.rollback()


def commit_change(session: Session) -> None:
    """Commit a route's change before its answer is rendered: the locks the change took
    (the army's, the battle's) are held for the change alone, not while the page is made;
    the answer reads what is committed, in a transaction of its own (finished as usual)."""
    session.commit()


def _open_session(request: Request) -> Session:
    """The request's database session (``SessionRoute`` opens and finishes it): committed when
    the route answers below 400, rolled back on any error answer or exception, so a refusal
    keeps nothing a route wrote before it refused. A refusal that must keep a record (a failed
    login) commits it itself first. It is finished before the answer is sent: a failed commit
    is an error answer. Making a session costs no I/O (it connects on its first query).

    A GET or HEAD only reads: its session is read-only (``make_read_sessionmaker``), with no
    BEGIN or COMMIT round trip on PostgreSQL.
    """
    state = request.app.state
    reads = request.method in READING_METHODS and hasattr(state, "read_sessionmaker")
    session: Session = state.read_sessionmaker() if reads else state.sessionmaker()
    setattr(request.state, _SESSION, session)
    return session


async def get_session(request: Request) -> Session:
    """The request's database session, which its route opened and finishes
    (``SessionRoute``, ``_open_session``). A plain value, not a generator dependency:
    FastAPI's context manager and exit stack for one were 5% of the army page's samples
    under load (py-spy)."""
    return getattr(request.state, _SESSION)  # type: ignore[no-any-return]


SessionDep = Annotated[Session, Depends(get_session)]
# The login as a dependency sees it: on a synchronous GET route, a placeholder (``Later``).
LoginOrLater = ActiveSession | Later[ActiveSession | None] | None


async def login_session(request: Request, session: SessionDep) -> LoginOrLater:
    """The live login session (and its user) the request's cookie opens, looked up once.

    Async, so a request without the cookie costs no trip to the thread pool; a GET's
    synchronous route looks it up in its own thread (``LATER_LOGIN``, see ``SessionRoute``).
    """
    if hasattr(request.state, "login"):
        known: LoginOrLater = request.state.login
        return known
    token = request.cookies.get(COOKIE)
    if token and getattr(request.state, _LOGIN_IN_ROUTE, False):
        request.state.login = LATER_LOGIN
        return LATER_LOGIN
    active = await run_in_threadpool(_find_login, request, session, token) if token else None
    request.state.login = active
    return active


def _find_login(
    request: Request, session: Session, token: str, *, army_ids: Sequence[int] = ()
) -> ActiveSession | None:
    active = sessions.find(session, token, army_ids=army_ids)
    if active is not None and sessions.touch_due(active):
        # "Last seen" (at most once a minute) goes in a short transaction of its own,
        # committed at once: a GET holds no write lock while it runs.
        with request.app.state.bookkeeping() as db:
            try:
                sessions.touch(db, session_id=active.id)
                db.commit()
            except OperationalError:  # busy: "last seen" is a hint, not worth a failure
                db.rollback()
    return active


# What the route's parameter holds (its placeholder filled in before it runs); the
# dependencies that pass the login on to a route take ``PendingLoginDep``.
LoginDep = Annotated[ActiveSession | None, Depends(login_session)]
PendingLoginDep = Annotated[LoginOrLater, Depends(login_session)]


async def bearer_user(request: Request, session: SessionDep) -> User | None:
    """The owner of a valid personal token sent to the API, else None.

    Only API routes authenticate by token: a page ignores the header.
    """
    auth = request.headers.get("authorization", "")
    if not request.scope["path"].startswith("/api/") or not auth.lower().startswith("bearer "):
        return None
    return await run_in_threadpool(_token_user, request, session, auth[7:].strip())


def _token_user(request: Request, session: Session, plain: str) -> User | None:
    """The token's owner; ``last_used_at`` is written (at most once a minute) in a short
    transaction of its own, never in the request's, which would hold the write lock while
    the request works."""
    token = accounts.token_for(session, plain)
    if token is None:
        return None
    now = utcnow()
    if accounts.token_use_due(token, now):
        try:
            with request.app.state.bookkeeping.begin() as own:
                accounts.record_token_use(own, token=token, now=now)
        except OperationalError:
            pass  # bookkeeping only: a busy database must not fail the request
    return accounts.get_user(session, token.user_id)


BearerUser = Annotated[User | None, Depends(bearer_user)]


async def optional_user(
    request: Request, login: PendingLoginDep
) -> User | Later[User | None] | None:
    """The logged-in user, if any (pages that also serve visitors)."""
    if isinstance(login, Later):
        return LATER_USER
    user = _user(login)
    request.state.user = user
    return user


async def current_user(request: Request, login: PendingLoginDep) -> User | Later[User]:
    """The logged-in user of a page; visitors are sent to the login page. (On the login
    itself, not on ``optional_user``: a dependency fewer to resolve on every page.)"""
    if isinstance(login, Later):
        return LATER_REQUIRED_USER
    user = _required_user(login)
    request.state.user = user
    return user


async def api_user(
    request: Request, login: PendingLoginDep, token_user: BearerUser
) -> User | Later[User]:
    """The API caller: a personal bearer token, or the browser's session cookie."""
    if request.headers.get("authorization", "").lower().startswith("bearer "):
        user = token_user
    elif isinstance(login, Later):
        return LATER_REQUIRED_USER
    else:
        user = _user(login)
    if user is None:
        raise NotAuthenticated
    request.state.user = user
    return user


OptionalUser = Annotated[User | None, Depends(optional_user)]
CurrentUser = Annotated[User, Depends(current_user)]
ApiUser = Annotated[User, Depends(api_user)]


async def form_data(request: Request) -> dict[str, str]:
    """The submitted form as plain strings (files are not accepted anywhere)."""
    form = await request.form()
    return {k: v for k, v in form.items() if isinstance(v, str)}


FormDep = Annotated[dict[str, str], Depends(form_data)]


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"
