"""Sign-up, log-in with throttling, and personal API tokens."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.db.base import utcnow
from app.db.models import ApiToken, LoginFailure, User
from app.services import sessions
from app.services.errors import InvalidCredentials, InvalidField, NotFound, TooManyAttempts
from app.services.passwords import dummy_hash, hash_password, verify_password
from app.settings import get_settings

TOKEN_PREFIX = "bf_"  # noqa: S105  (a public marker, not a secret)


def register(session: Session, *, email: str, password: str, display_name: str) -> User:
    """Create an account; the email must not be taken (case-insensitive)."""
    email = email.strip().lower()
    if session.scalar(select(User.id).where(User.email == email)) is not None:
        raise InvalidField("email", "is already registered")
    user = User(
        email=email, display_name=display_name.strip(), password_hash=hash_password(password)
    )
    session.add(user)
    session.flush()
    return user


@dataclass(frozen=True)
class LoginResult:
    user: User | None
    error: InvalidCredentials | TooManyAttempts | None


def log_in(session: Session, *, email: str, password: str, client_address: str) -> LoginResult:
    """Check credentials, counting failures per account and per client address.

    Returns the error instead of raising it: a failed attempt must still be saved
    (it is this action's only effect), so the caller commits and then reports it.
    """
    settings = get_settings()
    email = email.strip().lower()
    now = utcnow()
    window_start = now - timedelta(seconds=settings.login_window_seconds)
    session.execute(delete(LoginFailure).where(LoginFailure.created_at < window_start))
    per_email = session.scalar(
        select(func.count(LoginFailure.id)).where(
            LoginFailure.created_at >= window_start, LoginFailure.email == email
        )
    )
    per_address = session.scalar(
        select(func.count(LoginFailure.id)).where(
            LoginFailure.created_at >= window_start,
            LoginFailure.client_address == client_address,
        )
    )
    if max(per_email or 0, per_address or 0) >= settings.login_max_failures:
        return LoginResult(None, TooManyAttempts(settings.login_window_seconds))

    user = session.scalar(select(User).where(User.email == email))
    if user is None:
        verify_password(dummy_hash(), password)
    elif verify_password(user.password_hash, password):
        session.execute(delete(LoginFailure).where(LoginFailure.email == email))
        return LoginResult(user, None)
    session.add(LoginFailure(email=email, client_address=client_address, created_at=now))
    return LoginResult(None, InvalidCredentials())


def change_password(
    session: Session,
    *,
    user: User,
    current_password: str,
    new_password: str,
    keep_session_id: int | None,
) -> int:
    """Set a new password (the current one must be given) and end every other session.

    Returns how many sessions ended.
    """
    if not verify_password(user.password_hash, current_password):
        raise InvalidField("current_password", "is not your password")
    user.password_hash = hash_password(new_password)
    return sessions.end_all(session, user=user, keep=keep_session_id)


def get_user(session: Session, user_id: int) -> User | None:
    return session.get(User, user_id)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_api_token(session: Session, *, user: User, name: str) -> tuple[ApiToken, str]:
    """Make a token; the plain value is returned once and only its hash is stored."""
    plain = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken(user_id=user.id, name=name.strip(), token_hash=_digest(plain))
    session.add(token)
    session.flush()
    return token, plain


def list_api_tokens(session: Session, *, user: User) -> list[ApiToken]:
    return list(
        session.scalars(select(ApiToken).where(ApiToken.user_id == user.id).order_by(ApiToken.id))
    )


def revoke_api_token(session: Session, *, user: User, token_id: int) -> None:
    token = session.scalar(
        select(ApiToken).where(ApiToken.id == token_id, ApiToken.user_id == user.id)
    )
    if token is None:
        raise NotFound("token")
    session.delete(token)


def user_for_token(session: Session, plain: str) -> User | None:
    """The user a bearer token belongs to, or None; records when it was last used."""
    if not plain.startswith(TOKEN_PREFIX):
        return None
    token = session.scalar(select(ApiToken).where(ApiToken.token_hash == _digest(plain)))
    if token is None:
        return None
    token.last_used_at = utcnow()
    return session.get(User, token.user_id)
