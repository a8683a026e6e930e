"""Sign-up, log-in and log-out pages."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.services import accounts
from app.services.errors import InvalidField, TooManyAttempts
from app.web.csrf import rotate_csrf_token
from app.web.deps import SESSION_USER_KEY, FormDep, OptionalUser, SessionDep, client_address
from app.web.forms import validate_form
from app.web.htmx import redirect
from app.web.inputs import Id
from app.web.schemas import LoginIn, RegisterIn
from app.web.templating import flash, render

router = APIRouter()


def safe_next(target: str | None) -> str:
    """Only same-site paths are followed after login (no open redirect)."""
    if target and target.startswith("/") and not target.startswith("//"):
        return target
    return "/armies"


def start_session(request: Request, user_id: Id) -> None:
    request.session.clear()
    request.session[SESSION_USER_KEY] = user_id
    rotate_csrf_token(request)


@router.get("/register")
def register_page(request: Request, user: OptionalUser) -> Response:
    """The sign-up form."""
    if user is not None:
        return redirect(request, "/armies")
    return render(request, "auth/register.html", {"values": {}, "errors": {}})


@router.post("/register")
def register(request: Request, session: SessionDep, form: FormDep) -> Response:
    """Create the account and log in."""
    data, errors = validate_form(RegisterIn, form)
    if data is not None:
        try:
            user = accounts.register(
                session, email=data.email, password=data.password, display_name=data.display_name
            )
        except InvalidField as exc:
            errors = {exc.field: exc.reason}
        else:
            start_session(request, user.id)
            flash(request, f"Welcome to BrikForge, {user.display_name}!", "success")
            return redirect(request, "/armies")
    values = {k: v for k, v in form.items() if k != "password"}
    return render(
        request,
        "auth/register.html",
        {"values": values, "errors": errors},
        block="form",
        status_code=422,
    )


@router.get("/login")
def login_page(request: Request, user: OptionalUser, next: str | None = None) -> Response:
    """The log-in form."""
    if user is not None:
        return redirect(request, safe_next(next))
    return render(request, "auth/login.html", {"values": {}, "error": None, "next": next or ""})


@router.post("/login")
def login(request: Request, session: SessionDep, form: FormDep) -> Response:
    """Check the credentials (throttled) and start a session."""
    next_url = form.get("next", "")
    data, errors = validate_form(LoginIn, {k: v for k, v in form.items() if k != "next"})
    status, error, headers = 422, None, {}
    if data is not None:
        result = accounts.log_in(
            session,
            email=data.email,
            password=data.password,
            client_address=client_address(request),
        )
        if result.user is not None:
            start_session(request, result.user.id)
            return redirect(request, safe_next(next_url))
        error, status = str(result.error), 401
        if isinstance(result.error, TooManyAttempts):
            status = 429
            headers = {"Retry-After": str(result.error.retry_after_seconds)}
    return render(
        request,
        "auth/login.html",
        {
            "values": {"email": form.get("email", "")},
            "errors": errors,
            "error": error,
            "next": next_url,
        },
        block="form",
        status_code=status,
        headers=headers,
    )


@router.post("/logout")
def logout(request: Request) -> Response:
    """End the session."""
    request.session.clear()
    flash(request, "You are logged out.")
    return redirect(request, "/login")
