"""The engine's error tree; the web layer maps these to HTTP answers once."""

from __future__ import annotations


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

    def __reduce__(self) -> tuple[type[InvalidInput], tuple[str, str]]:
        # pickled back from a calculation worker (the default would pass the message only)
        return (type(self), (self.field, self.reason))


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
