"""The account page: who you are, your password, your sessions and personal API tokens."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.db.models import User
from app.services import account_deletion, accounts, sessions
from app.services.errors import InvalidField, PasswordsBusy, TooManyAttempts
from app.web.deps import CurrentUser, FormDep, LoginDep, SessionDep, SessionRoute, client_address
from app.web.forms import validate_form
from app.web.htmx import redirect
from app.web.inputs import Id
from app.web.routes.auth import end_session
from app.web.schemas import AccountDelete, DisplayNameChange, PasswordChange, TokenCreate
from app.web.session_cookie import clear_login_cookie
from app.web.templating import flash, render

router = APIRouter(route_class=SessionRoute)


def _page(
    request: Request,
    session: SessionDep,
    user: User,
    *,
    block: str = "tokens",
    new_token: str | None = None,
    errors: dict[str, str] | None = None,
    values: dict[str, str] | None = None,
    status_code: int = 200,
) -> Response:
    login = getattr(request.state, "login", None)
    context: dict[str, Any] = {
        "values": values or {},
        "tokens": accounts.list_api_tokens(session, user=user),
        "sessions": sessions.list_sessions(session, user=user),
        "current_session_id": login.id if login is not None else None,
        "new_token": new_token,
        "errors": errors or {},
    }
    return render(request, "account/index.html", context, block=block, status_code=status_code)


@router.get("/account")
def account(request: Request, session: SessionDep, user: CurrentUser) -> Response:
    """Account details, password, sessions and API tokens."""
    return _page(request, session, user)


@router.post("/account/name")
def display_name_change(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep
) -> Response:
    """Change the display name (the name other players see)."""
    data, errors = validate_form(DisplayNameChange, form)
    if data is None:
        values = {"display_name": form.get("display_name", "")}
        return _page(
            request, session, user, block="profile", errors=errors, values=values, status_code=422
        )
    accounts.change_display_name(session, user=user, display_name=data.display_name)
    flash(request, f"Your display name is now {data.display_name}.", "success")
    return redirect(request, "/account")


def _deletion_page(
    request: Request,
    session: SessionDep,
    user: User,
    *,
    errors: dict[str, str] | None = None,
    status_code: int = 200,
) -> Response:
    what = account_deletion.plan(session, user=user)
    return render(
        request,
        "account/delete.html",
        {"plan": what, "errors": errors or {}, "values": {}},
        status_code=status_code,
    )


@router.get("/account/delete")
def account_delete_page(request: Request, session: SessionDep, user: CurrentUser) -> Response:
    """What deleting the account deletes, and the form that confirms it."""
    return _deletion_page(request, session, user)


@router.post("/account/delete")
def account_delete(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep
) -> Response:
    """Delete the account and everything it owns (the password confirms it)."""
    data, errors = validate_form(AccountDelete, form)
    if data is not None:
        try:
            account_deletion.delete_account(
                session, user=user, password=data.password, client_address=client_address(request)
            )
        except InvalidField as exc:
            errors = {exc.field: exc.reason}
        except (TooManyAttempts, PasswordsBusy) as exc:
            status = 429 if isinstance(exc, TooManyAttempts) else 503
            response = _deletion_page(
                request, session, user, errors={exc.field: str(exc)}, status_code=status
            )
            response.headers["Retry-After"] = str(exc.retry_after_seconds)
            return response
        else:
            request.state.login = None
            clear_login_cookie(request)
            flash(request, "Your account and everything it owned are deleted.", "success")
            return redirect(request, "/")
    return _deletion_page(request, session, user, errors=errors, status_code=422)


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


@router.post("/account/tokens/{token_id:int}/revoke")
def token_revoke(
    request: Request, session: SessionDep, user: CurrentUser, token_id: Id
) -> Response:
    """Revoke a token at once."""
    accounts.revoke_api_token(session, user=user, token_id=token_id)
    flash(request, "Token revoked.", "success")
    return _page(request, session, user)


@router.post("/account/password")
def password_change(
    request: Request, session: SessionDep, user: CurrentUser, login: LoginDep, form: FormDep
) -> Response:
    """Change the password (the current one is needed); every other session ends."""
    data, errors = validate_form(PasswordChange, form)
    if data is not None:
        try:
            ended = accounts.change_password(
                session,
                user=user,
                current_password=data.current_password,
                new_password=data.new_password,
                keep_session_id=login.id if login is not None else None,
                client_address=client_address(request),
            )
        except InvalidField as exc:
            errors = {exc.field: exc.reason}
        except (TooManyAttempts, PasswordsBusy) as exc:
            errors = {exc.field: str(exc)}
            status = 429 if isinstance(exc, TooManyAttempts) else 503
            response = _page(
                request, session, user, block="password", errors=errors, status_code=status
            )
            response.headers["Retry-After"] = str(exc.retry_after_seconds)
            return response
        else:
            message = f"Password changed; {ended} other session{'s' if ended != 1 else ''} ended."
            flash(request, message, "success")
            return redirect(request, "/account")
    return _page(request, session, user, block="password", errors=errors, status_code=422)


@router.post("/account/sessions/{session_id:int}/end")
def session_end(
    request: Request, session: SessionDep, user: CurrentUser, login: LoginDep, session_id: Id
) -> Response:
    """Log one session out (this one: log out)."""
    if login is not None and login.id == session_id:
        end_session(request, session)
        flash(request, "You are logged out.")
        return redirect(request, "/login")
    sessions.end(session, user=user, session_id=session_id)
    flash(request, "That session is logged out.", "success")
    return _page(request, session, user, block="sessions")


@router.post("/account/sessions/end-others")
def sessions_end_others(
    request: Request, session: SessionDep, user: CurrentUser, login: LoginDep
) -> Response:
    """Log out everywhere else."""
    ended = sessions.end_all(session, user=user, keep=login.id if login is not None else None)
    flash(request, f"Logged out everywhere else ({ended} session{'s' if ended != 1 else ''}).")
    return _page(request, session, user, block="sessions")


@router.post("/account/sessions/end-all")
def sessions_end_all(request: Request, session: SessionDep, user: CurrentUser) -> Response:
    """Log out everywhere, here included."""
    sessions.end_all(session, user=user)
    request.state.login = None
    clear_login_cookie(request)
    flash(request, "You are logged out everywhere.")
    return redirect(request, "/login")
