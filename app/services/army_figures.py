"""A stored unit's figures under its ruleset, memoised on the unit's content, and an army's
total cost from its rows (kept on the army by ``history.record`` for the club search).

Apart from the builder so that history, which the builder calls, can cost an army too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from app.db.models import Army
from app.rules.memo import bounded_cache
from app.rules.registry import get_ruleset
from app.rules.ruleset import Ruleset, UnitFigures
from app.services.army_rows import UnitRow


class _Detail:
    """A ruleset's own figures (``figures.detail``) read as attributes: its templates, and
    the pages written before the interface, say ``uv.fig.size_text`` and ``wv.line``."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        figures = vars(self).get("figures")  # absent while a copy is being built
        if figures is None or name.startswith("_"):
            raise AttributeError(name)
        try:
            return figures.detail[name]
        except KeyError:
            raise AttributeError(name) from None


# ------------------------------------------------------------------------------ figures


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: memoised, one per content
class Figures(_Detail):
    """A stored unit as its ruleset reads it (``unit``) and everything the ruleset shows of
    it under one set of house rules (``figures``)."""

    unit: Any
    figures: UnitFigures

    @property
    def cost(self) -> Any:
        return self.figures.cost

    @property
    def cost_text(self) -> str:
        return self.figures.cost_text


class _Content:
    """A memo key that compares by a unit's stored content and carries the unit along."""

    __slots__ = ("_hash", "key", "row")

    def __init__(self, row: UnitRow) -> None:
        self.key = row.content
        self.row = row
        self._hash = hash(self.key)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Content) and self.key == other.key


def unit_figures(rules: Ruleset, row: UnitRow, options: Any) -> Figures:
    """A stored unit's figures, memoised on its content, the ruleset and the house rules."""
    return _figures(_Content(row), rules.id, options)


def _figures_size(fig: Figures) -> int:
    """About the bytes one unit's figures hold: measured ~6 KB plus ~3 KB a weapon (its stats,
    line and findings), and 100 bytes an item of the sequences its detail keeps (BrikWars'
    activation sets)."""
    items = sum(len(v) for v in fig.figures.detail.values() if isinstance(v, tuple))
    return 6144 + 3072 * len(fig.figures.weapons) + 100 * items


@bounded_cache(4096, max_bytes=64 << 20, size=_figures_size)
def _figures(content: _Content, ruleset_id: str, options: Any) -> Figures:
    rules = get_ruleset(ruleset_id)
    unit = rules.decode_unit(content.row.as_dict())
    return Figures(unit, rules.unit_figures(unit, options))


def total_cost(army: Army, rows: list[UnitRow]) -> Any:
    """The army's cost (each unit's cost times its count), in its ruleset's numbers."""
    rules = get_ruleset(army.ruleset_id)
    options = rules.decode_options(army.house_rules)
    return sum((unit_figures(rules, row, options).cost * row.count for row in rows), 0)


def cost_value(cost: Any) -> float:
    """An exact cost as the float the database filters on (correctly rounded, so order is
    kept: only costs closer than a float's precision can compare equal); past a float's
    range, infinity."""
    try:
        return float(cost)
    except OverflowError:
        return math.inf if cost > 0 else -math.inf
