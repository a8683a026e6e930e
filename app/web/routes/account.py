"""The account page: who you are, and personal API tokens."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.db.models import User
from app.services import accounts
from app.web.deps import CurrentUser, FormDep, SessionDep
from app.web.forms import validate_form
from app.web.inputs import Id
from app.web.schemas import TokenCreate
from app.web.templating import flash, render

router = APIRouter()


def _page(
    request: Request,
    session: SessionDep,
    user: User,
    *,
    new_token: str | None = None,
    errors: dict[str, str] | None = None,
    status_code: int = 200,
) -> Response:
    return render(
        request,
        "account/index.html",
        {
            "tokens": accounts.list_api_tokens(session, user=user),
            "new_token": new_token,
            "errors": errors or {},
        },
        block="tokens",
        status_code=status_code,
    )


@router.get("/account")
def account(request: Request, session: SessionDep, user: CurrentUser) -> Response:
    """Account details and API tokens."""
    return _page(request, session, user)


@router.post("/account/tokens")
def token_create(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep
) -> Response:
    """Create a personal API token, shown once."""
    data, errors = validate_form(TokenCreate, form)
    if data is None:
        return _page(request, session, user, errors=errors, status_code=422)
    _, plain = accounts.create_api_token(session, user=user, name=data.name)
    return _page(request, session, user, new_token=plain)


@router.post("/account/tokens/{token_id}/revoke")
def token_revoke(
    request: Request, session: SessionDep, user: CurrentUser, token_id: Id
) -> Response:
    """Revoke a token at once."""
    accounts.revoke_api_token(session, user=user, token_id=token_id)
    flash(request, "Token revoked.", "success")
    return _page(request, session, user)
