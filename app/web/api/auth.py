"""Accounts over JSON: register, log in (session cookie), log out, me, tokens."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.services import accounts
from app.services.errors import NotAuthenticated
from app.web.csrf import csrf_token
from app.web.deps import ApiUser, SessionDep, client_address
from app.web.inputs import Id
from app.web.routes.auth import start_session
from app.web.schemas import (
    LoginIn,
    LoginOut,
    RegisterIn,
    TokenCreate,
    TokenCreated,
    TokenOut,
    UserOut,
)

router = APIRouter(tags=["accounts"])


def _user_out(user: object) -> UserOut:
    return UserOut.model_validate(user, from_attributes=True)


@router.post("/auth/register", status_code=201)
def register(request: Request, session: SessionDep, body: RegisterIn) -> LoginOut:
    """Create an account and start a session (cookie)."""
    user = accounts.register(
        session, email=body.email, password=body.password, display_name=body.display_name
    )
    start_session(request, user.id)
    return LoginOut(user=_user_out(user), csrf_token=csrf_token(request))


@router.post("/auth/login")
def login(request: Request, session: SessionDep, body: LoginIn) -> LoginOut:
    """Start a session; 401 on bad credentials, 429 when throttled."""
    result = accounts.log_in(
        session, email=body.email, password=body.password, client_address=client_address(request)
    )
    if result.user is None:
        # The failure row must be kept: commit it before answering with the error.
        session.commit()
        raise result.error or NotAuthenticated()
    start_session(request, result.user.id)
    return LoginOut(user=_user_out(result.user), csrf_token=csrf_token(request))


@router.post("/auth/logout", status_code=204)
def logout(request: Request, user: ApiUser) -> Response:
    """End the browser session."""
    request.session.clear()
    return Response(status_code=204)


@router.get("/me")
def me(user: ApiUser) -> UserOut:
    """The caller's account."""
    return _user_out(user)


@router.get("/tokens")
def token_list(session: SessionDep, user: ApiUser) -> list[TokenOut]:
    """Your personal API tokens (never their values)."""
    return [TokenOut.model_validate(t) for t in accounts.list_api_tokens(session, user=user)]


@router.post("/tokens", status_code=201)
def token_create(session: SessionDep, user: ApiUser, body: TokenCreate) -> TokenCreated:
    """Create a token; its value is in this answer only."""
    token, plain = accounts.create_api_token(session, user=user, name=body.name)
    return TokenCreated(**TokenOut.model_validate(token).model_dump(), token=plain)


@router.delete("/tokens/{token_id}", status_code=204)
def token_revoke(session: SessionDep, user: ApiUser, token_id: Id) -> Response:
    """Revoke a token."""
    accounts.revoke_api_token(session, user=user, token_id=token_id)
    return Response(status_code=204)
