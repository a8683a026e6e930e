"""Sign-up, log-in with throttling, and personal API tokens."""

from __future__ import annotations

import hashlib
import math
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import and_, delete, func, or_, select, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from app.db.base import utcnow
from app.db.models import ApiToken, LoginFailure, SignupAttempt, User
from app.db.session import bookkeeping_bind
from app.services import hash_gate, live, quotas, sessions
from app.services.errors import (
    InvalidCredentials,
    InvalidField,
    NotFound,
    PasswordsBusy,
    TooManyAttempts,
)
from app.services.passwords import dummy_hash, hash_password, verify_password
from app.settings import get_settings

TOKEN_PREFIX = "bf_"  # noqa: S105  (a public marker, not a secret)
TOKEN_USE_RESOLUTION = timedelta(minutes=1)
"""``last_used_at`` is written at most this often per token (a write per request would put
every API read behind the database's write lock)."""


def register(
    session: Session,
    *,
    email: str,
    password: str,
    display_name: str,
    client_address: str | None = None,
) -> User:
    """Create an account; the email must not be taken (case-insensitive).

    Sign-ups from one client address are throttled (``signup_max_per_address`` in
    ``signup_window_seconds``); ``client_address=None`` (scripts, tests) skips that.
    The hash waits its turn (``hash_gate``): ``PasswordsBusy`` when none comes in time.
    """
    if client_address is not None:
        _throttle_signups(session, client_address=client_address)
    email = email.strip().lower()
    if session.scalar(select(User.id).where(User.email == email)) is not None:
        raise InvalidField("email", "is already registered")
    with hash_gate.gate().turn(client_address):
        password_hash = hash_password(password)
    user = User(email=email, display_name=display_name.strip(), password_hash=password_hash)
    session.add(user)
    if client_address is not None:
        session.add(SignupAttempt(client_address=client_address, created_at=utcnow()))
    session.flush()
    return user


def _throttle_signups(session: Session, *, client_address: str) -> None:
    settings = get_settings()
    now = utcnow()
    if session.get_bind().dialect.name == "postgresql":
        # Sign-ups from one address queue here until the request commits, so two racing
        # through two servers count each other (on SQLite the delete below takes the one
        # write lock first).
        lock = func.pg_advisory_xact_lock(func.hashtext("signup " + client_address))
        session.execute(select(lock))
    window = timedelta(seconds=settings.signup_window_seconds)
    session.execute(delete(SignupAttempt).where(SignupAttempt.created_at < now - window))
    count, oldest = session.execute(
        select(func.count(SignupAttempt.id), func.min(SignupAttempt.created_at)).where(
            SignupAttempt.client_address == client_address
        )
    ).one()
    if count >= settings.signup_max_per_address:
        wait = max(1, math.ceil((_aware(oldest) + window - now).total_seconds()))
        raise TooManyAttempts(wait, "too many sign-ups from your address; try again later")


@dataclass(frozen=True)
class LoginResult:
    user: User | None
    error: InvalidCredentials | TooManyAttempts | PasswordsBusy | None


def log_in(session: Session, *, email: str, password: str, client_address: str) -> LoginResult:
    """Check credentials, throttled per account-and-address and, more loosely, per address.

    Failures of one account from one address back off exponentially: after
    ``login_max_failures`` of them, the next try waits 2 s, then 4 s, 8 s... up to
    ``login_backoff_max_seconds``. An address failing ``login_address_max_failures``
    times in the window, over any accounts, waits for the window. Nobody is throttled
    by failures from other addresses: an attacker cannot lock a player out.

    Each try is recorded as a failure before the password is checked (``_claim_try``), so
    tries racing it, on this server or another, count it; a right password deletes it.
    The password is checked in its turn (``hash_gate``); a try refused there
    (``PasswordsBusy``) was no try: its record is deleted.
    Returns the error instead of raising it, as the request's own changes roll back.
    """
    email = email.strip().lower()
    wait, claim = _claim_try(session, email=email, client_address=client_address)
    if wait > 0:
        return LoginResult(None, TooManyAttempts(wait))

    user = session.scalar(select(User).where(User.email == email))
    _give_connection_back(session)
    try:
        with hash_gate.gate().turn(client_address):
            if user is None:
                verify_password(dummy_hash(), password)
                right = False
            else:
                right = verify_password(user.password_hash, password)
    except PasswordsBusy as busy:
        _forget_try(session, claim)
        return LoginResult(None, busy)
    if user is not None and right:
        session.execute(
            delete(LoginFailure).where(
                LoginFailure.email == email, LoginFailure.client_address == client_address
            )
        )
        return LoginResult(user, None)
    return LoginResult(None, InvalidCredentials())


def _claim_try(session: Session, *, email: str, client_address: str) -> tuple[int, int]:
    """Record a try as a failure, committed at once, unless it must wait: the seconds to wait
    (0: go ahead) and the record's id.

    Only the failures recorded before it count, and the record and the count are one step
    (PostgreSQL: a transaction lock on the address; SQLite: the insert takes the one write
    lock), so of two tries racing past the last free one exactly one goes ahead.
    """
    settings = get_settings()
    now = utcnow()
    memory = max(settings.login_window_seconds, settings.login_address_window_seconds)
    with Session(bind=bookkeeping_bind(session)) as own:
        if own.get_bind().dialect.name == "postgresql":
            own.execute(select(func.pg_advisory_xact_lock(func.hashtext(client_address))))
        own.execute(
            delete(LoginFailure).where(LoginFailure.created_at < now - timedelta(seconds=memory))
        )
        claim = LoginFailure(email=email, client_address=client_address, created_at=now)
        own.add(claim)
        own.flush()
        wait = login_wait(own, email=email, client_address=client_address, now=now, before=claim.id)
        if wait > 0:
            own.rollback()
        else:
            own.commit()
        return wait, claim.id


def _give_connection_back(session: Session) -> None:
    """End the request's transaction before a password's turn (ruling G12): a log-in
    waits up to ``password_hash_wait_seconds`` and then hashes, and a waiter holding its
    pooled connection all that time let 9 log-ins (1 hashing, 8 in line) take a process's 8
    connections: every other page of that process waited for one. Nothing is lost: the
    caller has only read so far (``expire_on_commit=False`` keeps what it read)."""
    if session.in_transaction():
        session.commit()


def _forget_try(session: Session, claim: int) -> None:
    """Delete a claimed try that never checked a password (committed at once, as it was)."""
    with Session(bind=bookkeeping_bind(session)) as own:
        own.execute(delete(LoginFailure).where(LoginFailure.id == claim))
        own.commit()


def login_wait(
    session: Session, *, email: str, client_address: str, now: datetime, before: int | None = None
) -> int:
    """Seconds this address must wait, at ``now``, before trying this account (0: go ahead);
    ``before``: count only the failures recorded before that one."""
    settings = get_settings()
    from_address = LoginFailure.client_address == client_address
    if before is not None:
        from_address = and_(from_address, LoginFailure.id < before)
    spray_window = timedelta(seconds=settings.login_address_window_seconds)
    spray_count, spray_oldest = session.execute(
        select(func.count(LoginFailure.id), func.min(LoginFailure.created_at)).where(
            from_address, LoginFailure.created_at >= now - spray_window
        )
    ).one()
    if spray_count >= settings.login_address_max_failures:
        ends = _aware(spray_oldest) + spray_window
        return max(1, math.ceil((ends - now).total_seconds()))
    count, last = session.execute(
        select(func.count(LoginFailure.id), func.max(LoginFailure.created_at)).where(
            from_address,
            LoginFailure.email == email,
            LoginFailure.created_at >= now - timedelta(seconds=settings.login_window_seconds),
        )
    ).one()
    if count < settings.login_max_failures:
        return 0
    doublings = min(count - settings.login_max_failures + 1, 30)
    delay = min(2**doublings, settings.login_backoff_max_seconds)
    remaining = (_aware(last) + timedelta(seconds=delay) - now).total_seconds()
    return math.ceil(remaining) if remaining > 0 else 0


def _aware(moment: datetime) -> datetime:
    """An aggregate's timestamp (SQLite hands back a naive or text UTC value)."""
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def change_password(
    session: Session,
    *,
    user: User,
    current_password: str,
    new_password: str,
    keep_session_id: int | None,
    client_address: str,
) -> int:
    """Set a new password (the current one must be given) and end every other session.

    API tokens are kept (they are revoked one by one on the account page).
    Returns how many sessions ended.
    """
    check_password(
        session,
        user=user,
        password=current_password,
        client_address=client_address,
        field="current_password",
    )
    with hash_gate.gate().turn(client_address):
        user.password_hash = hash_password(new_password)
    return sessions.end_all(session, user=user, keep=keep_session_id)


def check_password(
    session: Session, *, user: User, password: str, client_address: str, field: str
) -> None:
    """Raise unless ``password`` is the user's (throttled like a log-in; ``field`` is blamed).

    A wrong password counts as a failed login of the account from this address, with the
    same backoff: a stolen session cannot be used to guess the password at speed.
    The check waits its turn (``hash_gate``): ``PasswordsBusy`` (the try not counted) when
    none comes in time.
    """
    wait, claim = _claim_try(session, email=user.email, client_address=client_address)
    if wait > 0:
        raise TooManyAttempts(wait, f"too many wrong passwords; try again in {wait} s", field)
    _give_connection_back(session)
    try:
        with hash_gate.gate().turn(client_address):
            right = verify_password(user.password_hash, password)
    except PasswordsBusy:
        _forget_try(session, claim)
        raise
    if not right:
        raise InvalidField(field, "is not your password")  # the claimed try stays a failure
    session.execute(delete(LoginFailure).where(LoginFailure.id == claim))


def change_display_name(session: Session, *, user: User, display_name: str) -> None:
    """Rename the account (the name other players see in clubs and battles)."""
    user.display_name = display_name.strip()


def get_user(session: Session, user_id: int) -> User | None:
    return session.get(User, user_id)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_api_token(session: Session, *, user: User, name: str) -> tuple[ApiToken, str]:
    """Make a token; the plain value is returned once and only its hash is stored."""
    quotas.api_tokens(session, user=user)
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
    live.access_changed(session, user_id=user.id)  # streams it opened end


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
