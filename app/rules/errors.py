"""The engine's error tree; the web layer maps these to HTTP answers once."""


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


class UnknownRuleset(InvalidInput):
    """A ruleset id that the registry does not know."""

    def __init__(self, ruleset_id: str) -> None:
        super().__init__("ruleset_id", f"is an unknown ruleset ({ruleset_id!r})")
        self.ruleset_id = ruleset_id


class TooMuchWork(RulesError):
    """A calculation that would exceed the engine's work bound (e.g. 2 s)."""
