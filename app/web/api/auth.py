"""Accounts over JSON: register, log in (session cookie), log out, me, tokens."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.services import account_deletion, accounts, sessions
from app.services.errors import NotAuthenticated
from app.web.csrf import csrf_token
from app.web.deps import ApiUser, LoginDep, SessionDep, SessionRoute, client_address
from app.web.inputs import Id
from app.web.routes.auth import end_session, start_session
from app.web.schemas import (
    AccountDelete,
    DeletionPlanOut,
    DisplayNameChange,
    LoginIn,
    LoginOut,
    PasswordChange,
    RegisterIn,
    SessionOut,
    TokenCreate,
    TokenCreated,
    TokenOut,
    UserOut,
)
from app.web.session_cookie import clear_login_cookie

router = APIRouter(route_class=SessionRoute, tags=["accounts"])


def _user_out(user: object) -> UserOut:
    return UserOut.model_validate(user, from_attributes=True)


@router.post("/auth/register", status_code=201)
def register(request: Request, session: SessionDep, body: RegisterIn) -> LoginOut:
    """Create an account and start a session (cookie)."""
    user = accounts.register(
        session,
        email=body.email,
        password=body.password,
        display_name=body.display_name,
        client_address=client_address(request),
    )
    start_session(request, session, user)
    return LoginOut(user=_user_out(user), csrf_token=csrf_token(request))


@router.post("/auth/login")
def login(request: Request, session: SessionDep, body: LoginIn) -> LoginOut:
    """Start a session; 401 on bad credentials, 429 when throttled."""
    result = accounts.log_in(
        session, email=body.email, password=body.password, client_address=client_address(request)
    )
    if result.user is None:
        # (the failure is already recorded, committed apart: it throttles the next tries)
        raise result.error or NotAuthenticated()
    start_session(request, session, result.user)
    return LoginOut(user=_user_out(result.user), csrf_token=csrf_token(request))


@router.post("/auth/logout", status_code=204)
def logout(request: Request, session: SessionDep, user: ApiUser) -> Response:
    """End the browser session (server-side)."""
    end_session(request, session)
    return Response(status_code=204)


@router.post("/auth/password", status_code=204)
def password_change(
    request: Request, session: SessionDep, user: ApiUser, login: LoginDep, body: PasswordChange
) -> Response:
    """Change the password (the current one is needed); every other session ends."""
    accounts.change_password(
        session,
        user=user,
        current_password=body.current_password,
        new_password=body.new_password,
        keep_session_id=login.id if login is not None else None,
        client_address=client_address(request),
    )
    return Response(status_code=204)


@router.get("/auth/sessions")
def session_list(session: SessionDep, user: ApiUser, login: LoginDep) -> list[SessionOut]:
    """Your live browser sessions, most recently seen first (``current``: this one)."""
    current = login.id if login is not None else None
    return [
        SessionOut.model_validate(row).model_copy(update={"current": row.id == current})
        for row in sessions.list_sessions(session, user=user)
    ]


@router.delete("/auth/sessions/{session_id:int}", status_code=204)
def session_end(
    request: Request, session: SessionDep, user: ApiUser, login: LoginDep, session_id: Id
) -> Response:
    """Log one session out (the current one: log out)."""
    if login is not None and login.id == session_id:
        end_session(request, session)
    else:
        sessions.end(session, user=user, session_id=session_id)
    return Response(status_code=204)


@router.post("/auth/sessions/end-others", status_code=204)
def sessions_end_others(session: SessionDep, user: ApiUser, login: LoginDep) -> Response:
    """Log out everywhere else (with a token: every browser session)."""
    sessions.end_all(session, user=user, keep=login.id if login is not None else None)
    return Response(status_code=204)


@router.post("/auth/sessions/end-all", status_code=204)
def sessions_end_all(request: Request, session: SessionDep, user: ApiUser) -> Response:
    """Log out everywhere, this browser included."""
    sessions.end_all(session, user=user)
    request.state.login = None
    clear_login_cookie(request)
    return Response(status_code=204)


@router.get("/me")
def me(user: ApiUser) -> UserOut:
    """The caller's account."""
    return _user_out(user)


@router.patch("/me")
def me_update(session: SessionDep, user: ApiUser, body: DisplayNameChange) -> UserOut:
    """Change your display name."""
    accounts.change_display_name(session, user=user, display_name=body.display_name)
    return _user_out(user)


@router.get("/me/deletion")
def me_deletion(session: SessionDep, user: ApiUser) -> DeletionPlanOut:
    """What deleting your account would delete (``clubs_blocking``: why it is refused)."""
    what = account_deletion.plan(session, user=user)
    return DeletionPlanOut(
        armies=what.armies,
        battles=what.battles,
        clubs_deleted=[c.name for c in what.clubs_deleted],
        clubs_blocking=[c.name for c in what.clubs_blocking],
        memberships=[c.name for c in what.memberships],
    )


@router.post("/me/delete", status_code=204)
def me_delete(
    request: Request, session: SessionDep, user: ApiUser, body: AccountDelete
) -> Response:
    """Delete your account and everything it owns (see ``/me/deletion``); 422 while you own a
    club with other members."""
    account_deletion.delete_account(
        session, user=user, password=body.password, client_address=client_address(request)
    )
    request.state.login = None
    clear_login_cookie(request)
    return Response(status_code=204)


@router.get("/tokens")
def token_list(session: SessionDep, user: ApiUser) -> list[TokenOut]:
    """Your personal API tokens (never their values)."""
    return [TokenOut.model_validate(t) for t in accounts.list_api_tokens(session, user=user)]


@router.post("/tokens", status_code=201)
def token_create(session: SessionDep, user: ApiUser, body: TokenCreate) -> TokenCreated:
    """Create a token; its value is in this answer only."""
    token, plain = accounts.create_api_token(session, user=user, name=body.name)
    return TokenCreated(**TokenOut.model_validate(token).model_dump(), token=plain)


@router.delete("/tokens/{token_id:int}", status_code=204)
def token_revoke(session: SessionDep, user: ApiUser, token_id: Id) -> Response:
    """Revoke a token."""
    accounts.revoke_api_token(session, user=user, token_id=token_id)
    return Response(status_code=204)
