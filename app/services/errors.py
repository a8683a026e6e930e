"""The service layer's error tree; ``app.web.errors`` maps each to one HTTP answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class ServiceError(Exception):
    """Base of every use-case failure."""


class NotFound(ServiceError):
    """Missing, or not visible to this user: the two are indistinguishable on purpose."""

    def __init__(self, what: str = "resource") -> None:
        super().__init__(f"{what} not found")
        self.what = what


class Forbidden(ServiceError):
    """Visible to this user, but not theirs to change (a club member reading a roster)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)


class InvalidField(ServiceError):
    """A value that passed the schema but not the use case (a taken email, say)."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


class QuotaExceeded(InvalidField):
    """The account already has as many of something as one account may have."""

    def __init__(self, field: str, what: str, limit: int, *, reason: str | None = None) -> None:
        super().__init__(
            field,
            reason or f"you already have {limit} {what}, the most allowed; delete one first",
        )
        self.limit = limit


class StaleVersion(ServiceError):
    """The record changed since the client loaded it (optimistic locking).

    ``latest_change`` names the change that won ("Alice: renamed ..."), when known.
    """

    def __init__(self, what: str, current_version: int, latest_change: str | None = None) -> None:
        message = f"this {what} was changed elsewhere; reload"
        if latest_change:
            message += f" (latest change: {latest_change})"
        super().__init__(message)
        self.what = what
        self.current_version = current_version
        self.latest_change = latest_change


@dataclass(frozen=True)
class FieldConflict:
    """A field this edit and another one both changed, to different values."""

    field: str
    mine: Any
    theirs: Any


class EditConflict(StaleVersion):
    """A stale edit merged onto the version that won, except fields both changed (listed)."""

    def __init__(
        self,
        what: str,
        current_version: int,
        latest_change: str | None,
        conflicts: tuple[FieldConflict, ...],
    ) -> None:
        super().__init__(what, current_version, latest_change)
        self.conflicts = conflicts


class Conflict(ServiceError):
    """An action from a page (or client) that is behind: a newer entry of the battle's log,
    ``entry`` by ``by``, changed a unit the action acts on (a 409; ruling P24)."""

    def __init__(self, message: str, *, entry: int, by: str | None, field: str = "seen") -> None:
        super().__init__(message)
        self.entry = entry
        self.by = by
        self.field = field


class InvalidCredentials(ServiceError):
    """Unknown email or wrong password (never says which)."""

    def __init__(self) -> None:
        super().__init__("Email or password is incorrect.")


class TooManyAttempts(ServiceError):
    """Throttled: too many failed logins, password checks or sign-ups from this client address."""

    def __init__(
        self,
        retry_after_seconds: int,
        message: str = "too many failed logins; try again later",
        field: str = "email",
    ) -> None:
        super().__init__(message)
        self.retry_after_seconds = retry_after_seconds
        self.field = field


class NotAuthenticated(ServiceError):
    """No valid session or API token."""


class Busy(ServiceError):
    """Every calculation worker is taken and the short queue is full: try again shortly."""

    def __init__(self, retry_after_seconds: int, message: str | None = None) -> None:
        super().__init__(
            message or "the calculators are busy with other requests; try again in a moment"
        )
        self.retry_after_seconds = retry_after_seconds


class PasswordsBusy(Busy):
    """Too many password hashes are running or waiting on this server (``hash_gate``)."""

    def __init__(self, retry_after_seconds: int, message: str | None = None) -> None:
        super().__init__(
            retry_after_seconds,
            message or "the server is busy checking other passwords; try again in a moment",
        )
        self.field = "password"


class HeavyBusy(Busy):
    """Too many large exports, imports or army pages are running or waiting (``heavy_gate``):
    the account's own, or the server's."""

    def __init__(self, retry_after_seconds: int, message: str | None = None) -> None:
        super().__init__(
            retry_after_seconds,
            message
            or "the server is busy with other large armies' exports, imports and pages; "
            "try again in a moment",
        )


class CalculationTimeout(Busy):
    """A calculation ran past its deadline and was stopped (its worker was killed)."""

    def __init__(self, seconds: float, retry_after_seconds: int) -> None:
        super().__init__(
            retry_after_seconds,
            f"the calculation took longer than {seconds:g} s and was stopped; "
            "try again later, or with fewer dice",
        )
        self.seconds = seconds


class RateLimited(ServiceError):
    """Too many calculator requests from one client address."""

    def __init__(self, retry_after_seconds: int) -> None:
        super().__init__("too many calculator requests from this address; slow down")
        self.retry_after_seconds = retry_after_seconds
