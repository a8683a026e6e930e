"""House rules (rule options) for BrikWars, stored with each army and battle.

Defaults are those of ``shared/rules/RULINGS.md``; every result shows the options it used, so a
club can play its own variant and still get exact numbers.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

from app.rules.errors import InvalidInput

BonusDie = Literal["same", "d6", "none"]
BONUS_DIE_CHOICES: tuple[str, ...] = ("same", "d6", "none")


@dataclass(frozen=True, slots=True)
class BrikWarsOptions:
    """The house rules a club may switch.

    ``allow_over_budget``: an army over its CP budget is a warning instead of an error.
    ``bonus_die``: the type of a Bonus die (RULINGS 1.1): ``same`` as the die that earned it,
    always ``d6``, or ``none``. Read by the attack engine.

    >>> BrikWarsOptions.from_dict({"allow_over_budget": True}).allow_over_budget
    True
    """

    allow_over_budget: bool = False
    bonus_die: BonusDie = "same"

    def __post_init__(self) -> None:
        if not isinstance(self.allow_over_budget, bool):
            raise InvalidInput("allow_over_budget", "must be true or false")
        if self.bonus_die not in BONUS_DIE_CHOICES:
            raise InvalidInput("bonus_die", f"must be one of {', '.join(BONUS_DIE_CHOICES)}")

    def to_dict(self) -> dict[str, Any]:
        """Every option by name, defaults included (JSON-ready)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> BrikWarsOptions:
        """Options from a stored dict; missing keys take their default, unknown keys fail.

        >>> BrikWarsOptions.from_dict({"colour": "red"})
        Traceback (most recent call last):
        ...
        app.rules.errors.InvalidInput: colour: unknown rule option
        """
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise InvalidInput("options", "must be a mapping of option names to values")
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise InvalidInput(str(key), "unknown rule option")
        return cls(**data)


DEFAULT_OPTIONS = BrikWarsOptions()
