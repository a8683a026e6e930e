"""The ruleset registry: every rule system BrikForge knows, by id.

Each ruleset is a package under ``app.rules`` exposing one object that satisfies
``app.rules.ruleset.Ruleset``; adding a rule system adds one line to ``_ALL``. Nothing else
in the product names a ruleset: services, pages and the API look it up here.
"""

from __future__ import annotations

from app.rules.brikwars.ruleset import RULESET as BRIKWARS
from app.rules.d20.ruleset import RULESET as D20
from app.rules.degrees.ruleset import RULESET as DEGREES
from app.rules.errors import UnknownRuleset
from app.rules.ruleset import Ruleset

_ALL: tuple[Ruleset, ...] = (BRIKWARS, DEGREES, D20)

RULESETS: dict[str, Ruleset] = {r.id: r for r in _ALL}

DEFAULT_RULESET = BRIKWARS.id


def get_ruleset(ruleset_id: str) -> Ruleset:
    """Return the ruleset with this id (``UnknownRuleset``, a 422, when there is none).

    >>> get_ruleset("brikwars").name
    'BrikWars'
    """
    try:
        return RULESETS[ruleset_id]
    except (KeyError, TypeError):
        raise UnknownRuleset(str(ruleset_id)) from None
