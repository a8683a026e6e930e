"""Sign-up, log-in with throttling, and personal API tokens."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from app.db.base import utcnow
from app.db.models import ApiToken, LoginFailure, User
from app.services.errors import InvalidCredentials, InvalidField, NotFound, TooManyAttempts
from app.services.passwords import dummy_hash, hash_password, verify_password
from app.settings import get_settings

TOKEN_PREFIX = "bf_"  # noqa: S105  (a public marker, not a secret)
TOKEN_USE_RESOLUTION = timedelta(minutes=1)
"""``last_used_at`` is written at most this often per token (a write per request would put
every API read behind the database's write lock)."""


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


def token_for(session: Session, plain: str) -> ApiToken | None:
    """The token a bearer value names, or None (read only: nothing is written)."""
    if not plain.startswith(TOKEN_PREFIX):
        return None
    return session.scalar(select(ApiToken).where(ApiToken.token_hash == _digest(plain)))


def user_for_token(session: Session, plain: str) -> User | None:
    """The user a bearer token belongs to, or None (read only; see ``record_token_use``)."""
    token = token_for(session, plain)
    return None if token is None else session.get(User, token.user_id)


def token_use_due(token: ApiToken, now: datetime) -> bool:
    """Whether ``last_used_at`` is older than ``TOKEN_USE_RESOLUTION`` (so worth a write)."""
    last = token.last_used_at
    if last is not None and last.tzinfo is None:  # SQLite hands back naive UTC
        last = last.replace(tzinfo=UTC)
    return last is None or now - last >= TOKEN_USE_RESOLUTION


def record_token_use(session: Session, *, token: ApiToken, now: datetime) -> None:
    """Write ``last_used_at`` (guarded, so racing requests write it once) on ``session``.

    The caller gives a session of its own, committed at once: the write must not share the
    request's transaction, which would hold the database's write lock (all of it on SQLite)
    for as long as the request works. ``token`` (loaded elsewhere) is updated in memory only.
    """
    stale = now - TOKEN_USE_RESOLUTION
    session.execute(
        update(ApiToken)
        .where(
            ApiToken.id == token.id,
            or_(ApiToken.last_used_at.is_(None), ApiToken.last_used_at < stale),
        )
        .values(last_used_at=now)
    )
    set_committed_value(token, "last_used_at", now)
