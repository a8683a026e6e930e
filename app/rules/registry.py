"""The ruleset registry: every ruleset BrikForge knows, by id.

Each ruleset is a package under ``app.rules``; this module only names them so
armies can record which ruleset they were built under. Later capabilities
(catalogue, build validation, attack odds, attack rolls) hang off the same
``Ruleset`` record.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.rules.errors import UnknownRuleset


@dataclass(frozen=True, slots=True)
class Ruleset:
    """A rule system an army can be built under."""

    id: str
    name: str
    summary: str


RULESETS: dict[str, Ruleset] = {
    r.id: r
    for r in (
        Ruleset(
            id="brikwars",
            name="BrikWars",
            summary="BrikWars 2010: chapters 5 (Combat) and 8 (Weaponry).",
        ),
    )
}

DEFAULT_RULESET = "brikwars"


def get_ruleset(ruleset_id: str) -> Ruleset:
    """Return the ruleset with this id.

    >>> get_ruleset("brikwars").name
    'BrikWars'
    """
    try:
        return RULESETS[ruleset_id]
    except KeyError:
        raise UnknownRuleset(ruleset_id) from None
