"""House rules of a D20 army (RULINGS 3.3): over budget allowed, wounds by Power margin,
natural 1 and 20, and what cover adds against explosions that respect it."""

from __future__ import annotations

from dataclasses import dataclass

from app.rules.fields import InputField

OPTION_FIELDS = (
    InputField("allow_over_budget", "Over budget is only a warning", "flag", False),
    InputField(
        "margin_wounds",
        "Wounds by margin",
        "flag",
        False,
        help="A wound removes the margin over the defence / 5, rounded up, in CP (not 1)",
    ),
    InputField(
        "naturals",
        "Natural 20 always wounds, natural 1 always misses",
        "flag",
        False,
    ),
    InputField(
        "cover_bonus",
        "Cover against explosions",
        "whole",
        5,
        low=0,
        high=20,
        help="Added to the defence of a figurine in cover, where cover protects",
    ),
)


@dataclass(frozen=True, slots=True)
class D20Options:
    """The house rules (``RulesetBase.decode_options`` reads them through ``OPTION_FIELDS``)."""

    allow_over_budget: bool = False
    margin_wounds: bool = False
    naturals: bool = False
    cover_bonus: int = 5
