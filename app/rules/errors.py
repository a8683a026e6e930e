"""The engine's error tree; the web layer maps these to HTTP answers once."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

T = TypeVar("T")


class RulesError(Exception):
    """Base class of every error the rules engine raises."""


class InvalidInput(RulesError):
    """A value the rules cannot accept (a size of zero, an unknown weapon type...).

    ``field`` names the offending input so the web layer can show it inline.
    """

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason

    def reasons(self) -> dict[str, str]:
        """Every refused field and its reason (one here; ``InvalidFields``: each)."""
        return {self.field: self.reason}

    def __reduce__(self) -> tuple[type[InvalidInput], tuple[str, str]]:
        # pickled back from a calculation worker (the default would pass the message only)
        return (type(self), (self.field, self.reason))


class InvalidFields(InvalidInput):
    """Several values the rules cannot accept, each by its field (``errors``: field -> reason,
    in the order found): a unit or weapon read whole names every wrong field at once, so a
    form shows them all. ``field`` and ``reason`` are the first's, so a reader that shows one
    still names a real field."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        if not errors:
            raise ValueError("InvalidFields needs at least one field")
        field, reason = next(iter(errors.items()))
        super().__init__(field, reason)
        self.errors = dict(errors)
        self.args = ("; ".join(f"{f}: {r}" for f, r in self.errors.items()),)

    def reasons(self) -> dict[str, str]:
        return dict(self.errors)

    def __reduce__(self) -> tuple[type[InvalidFields], tuple[dict[str, str]]]:  # type: ignore[override]
        return (InvalidFields, (self.errors,))


class FieldErrors:
    """Collects the refusals of a reading that goes on past the first (a unit's fields, then
    each weapon's), and raises them together.

    >>> def size(text: str) -> int:
    ...     if not text.isdigit():
    ...         raise InvalidInput("size", "needs a whole number")
    ...     return int(text)
    >>> errors = FieldErrors()
    >>> errors.read(size, "x") is None, errors.read(size, "3")
    (True, 3)
    >>> errors.add("name", "is required")
    >>> errors.raise_any()
    Traceback (most recent call last):
    ...
    app.rules.errors.InvalidFields: size: needs a whole number; name: is required
    """

    def __init__(self) -> None:
        self.errors: dict[str, str] = {}

    def add(self, field: str, reason: str) -> None:
        """Note a refusal (the first reason for a field is kept)."""
        self.errors.setdefault(field, reason)

    def read(self, read: Callable[..., T], *args: object) -> T | None:
        """``read(*args)``, or None with its refusal noted (``InvalidFields``: each of them)."""
        try:
            return read(*args)
        except InvalidFields as err:
            for name, reason in err.errors.items():
                self.add(name, reason)
        except InvalidInput as err:
            self.add(err.field, err.reason)
        return None

    def __bool__(self) -> bool:
        return bool(self.errors)

    def raise_any(self) -> None:
        """Raise every refusal noted, if any."""
        if self.errors:
            raise InvalidFields(self.errors)


class UnknownRuleset(InvalidInput):
    """A ruleset id that the registry does not know."""

    def __init__(self, ruleset_id: str) -> None:
        super().__init__("ruleset_id", f"is an unknown ruleset ({ruleset_id!r})")
        self.ruleset_id = ruleset_id

    def __reduce__(self) -> tuple[type[UnknownRuleset], tuple[str]]:  # type: ignore[override]
        return (UnknownRuleset, (self.ruleset_id,))


class TooMuchWork(RulesError):
    """A calculation that would exceed the engine's work bound (e.g. 2 s).

    ``field`` names the input to reduce (``"body"`` when no single one is to blame), so the
    web layer answers like ``InvalidInput``.
    """

    def __init__(self, reason: str, field: str = "body") -> None:
        super().__init__(reason)
        self.field = field
        self.reason = reason

    def __reduce__(self) -> tuple[type[TooMuchWork], tuple[str, str]]:
        return (type(self), (self.reason, self.field))

    def renamed(self, fields: dict[str, str]) -> TooMuchWork:
        """The same refusal with the field named as the caller's input calls it."""
        return TooMuchWork(self.reason, fields.get(self.field, self.field))
