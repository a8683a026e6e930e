"""Sign-up, log-in and log-out pages."""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy.orm import Session

from app.db.models import User
from app.services import accounts, clubs, sessions
from app.services.errors import InvalidField, NotFound, PasswordsBusy, TooManyAttempts
from app.services.sessions import ActiveSession
from app.web.csrf import SESSION_KEY
from app.web.deps import FormDep, OptionalUser, SessionDep, SessionRoute, client_address
from app.web.forms import validate_form
from app.web.htmx import invitation_page, invitation_token, redirect
from app.web.schemas import LoginIn, RegisterIn
from app.web.security_headers import PRIVATE_PAGE
from app.web.session_cookie import clear_login_cookie, set_login_cookie
from app.web.templating import flash, render

router = APIRouter(route_class=SessionRoute)


def safe_next(target: str | None) -> str:
    """Only same-site paths are followed after login (no open redirect).

    Browsers read a backslash as a slash and drop tabs and newlines, so ``/\\evil``
    and ``/<TAB>/evil`` leave the site: only printable ASCII without spaces or
    backslashes is followed (a header must be ASCII anyway), and nothing urllib
    sees a scheme or host in.
    """
    if (
        not target
        or not target.startswith("/")
        or target.startswith("//")
        or any(c == "\\" or not "!" <= c <= "~" for c in target)
    ):
        return "/armies"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return "/armies"
    return target


def start_session(request: Request, session: Session, user: User) -> None:
    """Log this browser in: a new server-side session (any it had ends) and its cookie."""
    previous = getattr(request.state, "login", None)
    if previous is not None:
        sessions.forget(session, session_id=previous.id)
    row, token = sessions.start(
        session,
        user=user,
        user_agent=request.headers.get("user-agent", ""),
        client_address=client_address(request),
    )
    request.state.login = ActiveSession.of(row, user)
    request.session.pop(SESSION_KEY, None)  # the visitor's token is done with
    set_login_cookie(request, token)


def end_session(request: Request, session: Session) -> None:
    """Log this browser out: its session row goes, and so does the cookie."""
    login = getattr(request.state, "login", None)
    if login is not None:
        sessions.forget(session, session_id=login.id)
    request.state.login = None
    clear_login_cookie(request)


def _invitation(session: Session, next_url: str) -> clubs.Invitation | None:
    """The live invitation ``next`` leads to, if it is one (the form names its club)."""
    token = invitation_token(next_url)
    if token is None:
        return None
    try:
        return clubs.invitation(session, token=token)
    except NotFound:
        return None


def _private(next_url: str) -> dict[str, str]:
    """The headers of a log-in or sign-up form on the way to an invitation (its token in
    the address): no-store, no referrer."""
    return PRIVATE_PAGE if invitation_page(next_url) else {}


def _go_on(request: Request, session: Session, user: User, next_url: str) -> Response:
    """Once logged in: into the club of the invitation the form named, else to ``next``."""
    token = invitation_token(next_url)
    if token is not None:
        try:
            club = clubs.join(session, user=user, token=token)
        except NotFound:  # it died meanwhile: its page says so
            pass
        else:
            flash(request, f"You joined {club.name}. Welcome!", "success")
            return redirect(request, f"/clubs/{club.id}")
    return redirect(request, safe_next(next_url))


@router.get("/register")
def register_page(
    request: Request, session: SessionDep, user: OptionalUser, next: str | None = None
) -> Response:
    """The sign-up form (``next``: where to go once signed up; an invitation is named on the
    form and joined on the way)."""
    if user is not None:
        return redirect(request, safe_next(next))
    kept = _kept_next(next)
    return render(
        request,
        "auth/register.html",
        {
            "values": {},
            "errors": {},
            "next": kept,
            "invitation": _invitation(session, kept),
        },
        headers=_private(kept),
    )


def _kept_next(target: str | None) -> str:
    """``next`` as carried between the log-in and sign-up forms: a safe path, or nothing."""
    return target if target and safe_next(target) == target else ""


@router.post("/register")
def register(request: Request, session: SessionDep, form: FormDep) -> Response:
    """Create the account and log in, then go on to ``next`` (an invitation, say)."""
    next_url = _kept_next(form.get("next"))
    data, errors = validate_form(RegisterIn, {k: v for k, v in form.items() if k != "next"})
    error, status, headers = None, 422, {}
    if data is not None:
        try:
            user = accounts.register(
                session,
                email=data.email,
                password=data.password,
                display_name=data.display_name,
                client_address=client_address(request),
            )
        except InvalidField as exc:
            errors = {exc.field: exc.reason}
        except TooManyAttempts as exc:
            error, status = "Too many sign-ups from your address; try again later", 429
            headers = {"Retry-After": str(exc.retry_after_seconds)}
        except PasswordsBusy as busy:
            error, status = str(busy), 503
            headers = {"Retry-After": str(busy.retry_after_seconds)}
        else:
            start_session(request, session, user)
            flash(request, f"Welcome to BrikForge, {user.display_name}!", "success")
            return _go_on(request, session, user, next_url)
    values = {k: v for k, v in form.items() if k not in ("password", "next")}
    return render(
        request,
        "auth/register.html",
        {
            "values": values,
            "errors": errors,
            "error": error,
            "next": next_url,
            "invitation": _invitation(session, next_url),
        },
        block="form",
        status_code=status,
        headers=headers | _private(next_url),
    )


@router.get("/login")
def login_page(
    request: Request, session: SessionDep, user: OptionalUser, next: str | None = None
) -> Response:
    """The log-in form (an invitation in ``next`` is named on it and joined on the way)."""
    if user is not None:
        return redirect(request, safe_next(next))
    kept = _kept_next(next)
    return render(
        request,
        "auth/login.html",
        {"values": {}, "error": None, "next": kept, "invitation": _invitation(session, kept)},
        headers=_private(kept),
    )


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
            start_session(request, session, result.user)
            return _go_on(request, session, result.user, next_url)
        # (the failure is already recorded, committed apart: it throttles the next tries)
        error, status = str(result.error), 401
        if isinstance(result.error, TooManyAttempts | PasswordsBusy):
            status = 429 if isinstance(result.error, TooManyAttempts) else 503
            headers = {"Retry-After": str(result.error.retry_after_seconds)}
    return render(
        request,
        "auth/login.html",
        {
            "values": {"email": form.get("email", "")},
            "errors": errors,
            "error": error,
            "next": next_url,
            "invitation": _invitation(session, next_url),
        },
        block="form",
        status_code=status,
        headers=headers | _private(next_url),
    )


@router.post("/logout")
def logout(request: Request, session: SessionDep) -> Response:
    """End the session (server-side: a copy of the cookie opens nothing)."""
    end_session(request, session)
    flash(request, "You are logged out.")
    return redirect(request, "/login")
