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
FractionalDice = Literal["floor", "nearest", "up"]
FRACTIONAL_DICE_CHOICES: tuple[str, ...] = ("floor", "nearest", "up")
TurretCost = Literal["structure", "free"]
TURRET_COST_CHOICES: tuple[str, ...] = ("structure", "free")


@dataclass(frozen=True, slots=True)
class BrikWarsOptions:
    """The house rules a club may switch.

    ``allow_over_budget``: an army over its CP budget is a warning instead of an error.
    ``bonus_die``: the type of a Bonus die (RULINGS 1.1): ``same`` as the die that earned it,
    always ``d6``, or ``none``. Read by the attack engine.

    The others make BrikForge's own build rulings (``docs/rulings.md``) switchable:
    ``fractional_dice``: how a fractional Weapon Size counts dice (``floor``: 2.5" rolls 2;
    ``nearest``: halves up, 2.5" rolls 3; ``up``); at least one die in every case.
    ``turret_cost``: a Small/Large Turret costs its Size (``structure``: 1CP/2CP) or nothing.
    ``compensating_power``: a Compensating unit counts 1" larger for Power while standing still.
    ``minifig_item_power``: fixed minifig items need Power by their class (1", 1.5", 2").

    >>> BrikWarsOptions.from_dict({"allow_over_budget": True}).allow_over_budget
    True
    """

    allow_over_budget: bool = False
    bonus_die: BonusDie = "same"
    fractional_dice: FractionalDice = "floor"
    turret_cost: TurretCost = "structure"
    compensating_power: bool = True
    minifig_item_power: bool = True

    def __post_init__(self) -> None:
        for name in ("allow_over_budget", "compensating_power", "minifig_item_power"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidInput(name, "must be true or false")
        for name, choices in (
            ("bonus_die", BONUS_DIE_CHOICES),
            ("fractional_dice", FRACTIONAL_DICE_CHOICES),
            ("turret_cost", TURRET_COST_CHOICES),
        ):
            if getattr(self, name) not in choices:
                raise InvalidInput(name, f"must be one of {', '.join(choices)}")

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


@dataclass(frozen=True, slots=True)
class OptionInfo:
    """How to present one rule option: a label, and its choices (None for on/off)."""

    name: str
    label: str
    choices: tuple[str, ...] | None = None


OPTION_INFO: tuple[OptionInfo, ...] = (
    OptionInfo("allow_over_budget", "Allow builds over budget (a warning, not an error)"),
    OptionInfo("bonus_die", "Bonus die type", BONUS_DIE_CHOICES),
    OptionInfo("fractional_dice", "Dice of fractional Weapon Sizes", FRACTIONAL_DICE_CHOICES),
    OptionInfo("turret_cost", "Turret cost", TURRET_COST_CHOICES),
    OptionInfo("compensating_power", 'Compensating adds 1" of Size for Power when still'),
    OptionInfo("minifig_item_power", "Minifig items need Power by their class"),
)
