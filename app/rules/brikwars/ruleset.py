"""BrikWars behind the ``Ruleset`` interface: the registry's ``brikwars`` entry.

The adapter puts the three jobs together: the builder (``building``), the calculator
(``calculating``: a turn of saved units, ``known_odds``, or a raw dice attack,
``raw_attack``) and battles (``battles``), each translating the engine's own types
(``UnitSpec``, ``BrikWarsOptions``, ``Turn``, ``UnitState``) into the interface's plain
shapes (``shapes``). No rule lives in these modules.
"""

from __future__ import annotations

from app.rules.brikwars.battles import BrikWarsBattles
from app.rules.brikwars.building import BrikWarsBuilding
from app.rules.brikwars.calculating import BrikWarsCalculating
from app.rules.ruleset import Ruleset

RULES_VERSION = "BrikWars 2010"


class BrikWars(BrikWarsBuilding, BrikWarsCalculating, BrikWarsBattles):
    """The ``brikwars`` ruleset."""

    id = "brikwars"
    name = "BrikWars"
    summary = "BrikWars 2010: chapters 5 (Combat) and 8 (Weaponry)."
    rules_version = RULES_VERSION


RULESET = BrikWars()

_CHECK: Ruleset = RULESET  # the adapter satisfies the interface (checked by mypy --strict)
