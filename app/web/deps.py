"""Request-scoped dependencies, as ``Annotated`` aliases that read like prose."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from app.db.base import utcnow
from app.db.models import User
from app.services import accounts
from app.services.errors import NotAuthenticated

SESSION_USER_KEY = "user_id"


def get_session(request: Request) -> Iterator[Session]:
    """One database session per request: committed when the handler returns, else rolled back."""
    session: Session = request.app.state.sessionmaker()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


# scope="function": commit before the response is sent, so a failed commit is an error answer.
SessionDep = Annotated[Session, Depends(get_session, scope="function")]


def _session_user(request: Request, session: Session) -> User | None:
    user_id = request.session.get(SESSION_USER_KEY)
    return accounts.get_user(session, user_id) if isinstance(user_id, int) else None


def optional_user(request: Request, session: SessionDep) -> User | None:
    """The logged-in user, if any (pages that also serve visitors)."""
    user = _session_user(request, session)
    request.state.user = user
    return user


def current_user(request: Request, session: SessionDep) -> User:
    """The logged-in user of a page; visitors are sent to the login page."""
    user = optional_user(request, session)
    if user is None:
        raise NotAuthenticated
    return user


def _token_user(request: Request, session: Session, plain: str) -> User | None:
    """The token's user; its ``last_used_at`` is written (at most once a minute) in a short
    transaction of its own, never in the request's (which would hold the write lock)."""
    token = accounts.token_for(session, plain)
    if token is None:
        return None
    now = utcnow()
    if accounts.token_use_due(token, now):
        try:
            with request.app.state.sessionmaker.begin() as own:
                accounts.record_token_use(own, token=token, now=now)
        except OperationalError:
            pass  # bookkeeping only: a busy database must not fail the request
    return accounts.get_user(session, token.user_id)


def api_user(request: Request, session: SessionDep) -> User:
    """The API caller: a personal bearer token, or the browser's session cookie."""
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        user = _token_user(request, session, auth[7:].strip())
    else:
        user = _session_user(request, session)
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
