"""The units a calculation names, looked up for both calculators (``services.calculator``
and ``services.open_calculator``) behind one interface, ``UnitLookup``: each unit with its
army's view, as the calculator's code and templates read them.

``SavedUnits`` reads saved units with the viewer's rights (another user's roster is a
NotFound), each army loaded once per calculation; ``TypedUnits`` holds the open
calculator's typed-in units, in armies that are never stored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import Army, Unit, User
from app.rules.memo import BoundedMemo
from app.rules.registry import DEFAULT_RULESET, get_ruleset
from app.rules.ruleset import Ruleset
from app.services import battles, builder
from app.services.army_rows import UnitRow, WeaponRow
from app.services.errors import NotFound


class UnitLookup(Protocol):
    """What a calculation asks of the units it names."""

    def offered(self) -> list[Army]:
        """The armies the pickers offer."""
        ...

    def unit(self, unit_id: int) -> tuple[builder.ArmyView, builder.UnitView]:
        """The unit and its army's view (NotFound: no such unit, or not visible)."""
        ...

    def ruleset(self, unit_ids: tuple[int | None, ...]) -> Ruleset:
        """The ruleset a calculation naming these units is read under."""
        ...


# Which army a unit is in (units never change army), remembered across requests: a
# calculation names two or three units, and each lookup was a query of its own. Only a hint:
# the army's view, read with the viewer's rights, must hold the unit (SQLite hands a deleted
# unit's id out again).
_ARMY_OF: BoundedMemo[[], int] = BoundedMemo(lambda: 0, maxsize=20_000)


def army_hint(unit_id: int) -> int | None:
    """The army this server last saw ``unit_id`` in, if it remembers (only a hint)."""
    return _ARMY_OF.get(unit_id)


class SavedUnits:
    """Saved units, read with ``user``'s rights: army views loaded once per calculation (an
    army appears as attacker and target)."""

    def __init__(self, session: Session, user: User, *, pickers: bool = True) -> None:
        self.session, self.user = session, user
        self.pickers = pickers  # the pickers are drawn: read their armies first (see ruleset)
        self._armies: dict[int, builder.ArmyView] = {}
        self._army_of: dict[int, int] = {}  # unit id -> army id
        self._offered: list[Army] | None = None

    def offered(self) -> list[Army]:
        """The armies the pickers offer (the user's and their clubs'), read once."""
        if self._offered is None:
            self._offered = battles.armies_for_battle(self.session, user=self.user)
        return self._offered

    def army(self, army_id: int) -> builder.ArmyView:
        if army_id not in self._armies:
            self._armies[army_id] = builder.army_view(self.session, user=self.user, army_id=army_id)
        return self._armies[army_id]

    def unit(self, unit_id: int) -> tuple[builder.ArmyView, builder.UnitView]:
        army_id = self._army_of.get(unit_id)
        if army_id is None:
            hint = _ARMY_OF.get(unit_id)
            if hint is not None:
                try:  # the army's own view (read access checked) confirms the hint
                    view = self.army(hint)
                    found = view.unit(unit_id)
                    self._army_of[unit_id] = hint
                    return view, found
                except NotFound:
                    pass  # gone, or the id now names another army's unit: ask the database
            army_id = self.session.scalar(select(Unit.army_id).where(Unit.id == unit_id))
            if army_id is None:
                raise NotFound("unit")
            self._army_of[unit_id] = army_id
            view = self.army(army_id)
            # The whole army's units at once: a server meets an army's units one calculation
            # at a time, and each unit's first calculation asked the database (29% of make
            # load's calculator fragments on a worker 6 s after its start, not one an army).
            for unit in view.units:
                _ARMY_OF.put(unit.row.id, army_id)
            return view, view.unit(unit_id)
        view = self.army(army_id)
        return view, view.unit(unit_id)

    def ruleset(self, unit_ids: tuple[int | None, ...]) -> Ruleset:
        """The ruleset a calculation is read under: the army's of its first named unit (the
        attacker's, else the target's); the default when it names none. The army is loaded
        here once for the whole calculation (read access checked: NotFound)."""
        if self.pickers:  # first: it loads the armies that army_view then finds in the session
            self.offered()
        for unit_id in unit_ids:
            if unit_id is not None:
                army, _ = self.unit(unit_id)
                return get_ruleset(army.army.ruleset_id)
        return get_ruleset(DEFAULT_RULESET)


def _army(ruleset: Ruleset) -> Army:
    """A typed-in unit's army: never stored, the ruleset's default house rules."""
    return Army(id=0, name="Typed in", ruleset_id=ruleset.id, budget=0, notes="", house_rules={})


def unit_view(ruleset: Ruleset, spec: Any, unit_id: int, count: int = 1) -> builder.UnitView:
    """A typed-in unit as the calculator's templates read a saved one (a squad of
    ``count``); its weapons' ids are their numbers (1 for the first)."""
    data = ruleset.encode_unit(spec)
    weapons = data.pop("weapons")
    name, kind = data.pop("name"), data.pop("kind")
    row = UnitRow(
        id=unit_id,
        position=0,
        version=0,
        name=name,
        kind=kind,
        spec_json=json.dumps(data),
        weapons=tuple(
            WeaponRow(
                id=i + 1,
                position=i,
                version=0,
                type=w["type"],
                spec_json=json.dumps({k: v for k, v in w.items() if k != "type"}),
            )
            for i, w in enumerate(weapons)
        ),
        count=count,
    )
    view = builder.build_view(_army(ruleset), [row])
    return view.units[0]


class TypedUnits:
    """The open calculator's typed-in units (by id: the attacker 1, the target 2, further
    targets 3...), each in an army of its own that is never stored, under ``ruleset``'s
    default house rules; ``counts``: a squad's figurines by id (default 1)."""

    def __init__(
        self, ruleset: Ruleset, units: Mapping[int, Any], counts: Mapping[int, int] | None = None
    ) -> None:
        self.rules = ruleset
        army = _army(ruleset)
        self.views = {
            unit_id: builder.ArmyView(
                army=army,
                options=ruleset.decode_options({}),
                units=[unit_view(ruleset, spec, unit_id, (counts or {}).get(unit_id, 1))],
                total_cost=0,
                army_findings=[],
            )
            for unit_id, spec in units.items()
        }

    def offered(self) -> list[Army]:
        return []

    def unit(self, unit_id: int) -> tuple[builder.ArmyView, builder.UnitView]:
        if unit_id not in self.views:
            raise NotFound("unit")
        view = self.views[unit_id]
        return view, view.units[0]

    def ruleset(self, unit_ids: tuple[int | None, ...]) -> Ruleset:
        return self.rules
