"""A battle as the pages and the API show it: its units by side, each with its copied unit,
its state and how it now stands (the ruleset's ``standing``), and the log; also how a unit's
state is read from and written to its row (the ruleset's JSON in ``BattleUnit.state``)."""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db.models import Battle, BattleEntry, BattleSide, BattleUnit, User
from app.rules.memo import BoundedMemo, bounded_cache
from app.rules.registry import get_ruleset
from app.rules.ruleset import Fighter, Ruleset, Standing, UnitAction
from app.services import presence
from app.services.errors import NotFound
from app.services.permissions import SPECTATOR, Viewer

# Entries Undo never takes back (P21): an undo (no redo), and a player joining.
FIXED_KINDS = frozenset({"undo", "join", "remove"})
FREE, TURNS = "free", "turns"  # how a battle is played (``Battle.mode``)


@dataclass(frozen=True)
class WeaponInBattle:
    """A weapon as pages show it: its cells by the ruleset's keys (``w.cells.use``);
    ``inoperative``: it cannot fire until an action readies it; ``fires``: it attacks at all
    (armour does not: the attack form leaves it out)."""

    index: int
    name: str
    cells: Mapping[str, str]
    inoperative: bool
    fires: bool = True


@dataclass(frozen=True)
class UnitInBattle:
    """A battle unit as it now stands: its row, its ruleset, the unit as copied, its state
    and its army's options (the ruleset's own types)."""

    row: BattleUnit
    ruleset: Ruleset
    copied: Any
    state: Any
    options: Any
    memo_key: Hashable | None = None  # what its standing is a function of (None: not shared)

    @property
    def fighter(self) -> Fighter:
        return Fighter(
            self.row.id, self.row.name, self.copied, self.state, self.options, self.row.side
        )

    @cached_property
    def standing(self) -> Standing:
        if self.memo_key is None:
            return self.ruleset.standing(self.fighter)
        return _STANDINGS.keyed(self.memo_key, self.ruleset, self.fighter)

    @property
    def cost(self) -> Any:
        """What the figure cost when copied in (the ruleset's ``unit_cost``, one figure)."""
        return _cost(self.ruleset.id, self.row.spec_json, self.row.options_json)

    @property
    def spec(self) -> Any:
        """The unit with its state applied (what its attacks use)."""
        return self.standing.unit

    @property
    def cells(self) -> Mapping[str, str]:
        return self.standing.cells

    @property
    def out(self) -> bool:
        """Out of the fight (destroyed): it takes no action and is no target."""
        return self.standing.out

    @cached_property
    def weapons(self) -> list[WeaponInBattle]:
        return [
            WeaponInBattle(w.index, w.name, w.cells, not w.ready, w.fires)
            for w in self.standing.weapons
        ]

    @property
    def badges(self) -> list[str]:
        return list(self.standing.badges)

    @property
    def fate(self) -> str:
        """What the end of the battle made of it, in words (Degrees: "in Thinny custody")."""
        return self.standing.fate

    @property
    def status_text(self) -> str:
        """The unit's figures and state in words (the export's unit line)."""
        return self.standing.status

    @property
    def actions(self) -> list[UnitAction]:
        """The named actions it may take now."""
        now = set(self.standing.actions)
        return [a for a in self.ruleset.unit_actions if a.name in now]


@dataclass(frozen=True)
class Side:
    """A side as shown: its units, and who plays it (``player`` None: the host)."""

    name: str
    units: list[UnitInBattle]
    id: int = 0
    player_id: int | None = None
    player: str | None = None  # the player's name (None: the host plays it)
    mine: bool = False  # the viewer may act for its units
    # the cost of the other sides' units this side put out (the score, P33), in the ruleset's
    # points, and those words ("12CP")
    destroyed: Any = 0
    destroyed_text: str = ""

    @property
    def units_left(self) -> int:
        """Its units still standing (each figure of a roster unit is a battle unit)."""
        return sum(1 for u in self.units if not u.out)

    @property
    def figures_out(self) -> int:
        """Its units out of the fight."""
        return sum(1 for u in self.units if u.out)

    @property
    def tally(self) -> list[tuple[str, int]]:
        """Its units counted as they ended (the final summary): standing, out, then each
        fate the ruleset gave (in Thinny custody), each count with its words; a count of 0
        of standing or out is kept, so every side reads alike."""
        fates: dict[str, int] = {}
        standing = out = 0
        for unit in self.units:
            if unit.fate:
                fates[unit.fate] = fates.get(unit.fate, 0) + 1
            elif unit.out:
                out += 1
            else:
                standing += 1
        return [("standing", standing), ("out", out), *fates.items()]


@dataclass(frozen=True)
class LogEntry:
    row: BattleEntry
    actor_name: str | None

    @cached_property
    def dice(self) -> list[dict[str, Any]]:
        return self.row.dice

    @cached_property
    def odds(self) -> Any:
        return self.row.odds

    @property
    def undone_by(self) -> int | None:
        """The number of the undo entry that took it back (None: it stands; P20)."""
        return self.row.undone_by_seq


# The log is shown a window at a time, newest first: a battle of 5,000 rolls stays one quick
# page. ``before`` asks for the window of older entries (the JSON API's ``limit`` too).
LOG_WINDOW = 25
MAX_LOG_WINDOW = 200


@dataclass(frozen=True)
class BattleView:
    battle: Battle
    units: list[UnitInBattle]
    entries: list[LogEntry]  # the window of the log shown, oldest first (all of it: export)
    entry_count: int = 0  # entries in the whole log
    last_seq: int | None = None  # the newest entry's number (a page's ``seen``: P24)
    undo_seq: int | None = None  # the entry Undo takes back: the newest standing one (P21)
    # The oldest shown entry's number when older ones exist: ``before`` of the next window.
    older_than: int | None = None
    # Seen through the read-only link: the units' state as the ruleset's ``public_state``
    # has it (what it keeps secret from all but the battle's owner left out).
    public: bool = False
    # Who looks: the host, a player (the sides they act for) or a spectator.
    viewer: Viewer = SPECTATOR
    side_rows: tuple[BattleSide, ...] = ()  # the sides in order
    names: Mapping[int, str] = field(default_factory=dict)  # players' names by user id
    user_id: int | None = None  # who looks (None: a spectator)
    undo_actor: int | None = None  # who made the entry ``undo_seq`` names
    # who has the battle open now (their stream's heartbeat or an action): (user id, name)
    connected: tuple[tuple[int, str], ...] = ()

    @property
    def turns(self) -> bool:
        """Played by turns (else free: each side acts whenever)."""
        return self.battle.mode == TURNS

    @property
    def turn_side(self) -> Side | None:
        """The side whose turn it is (None: played free)."""
        if not self.turns:
            return None
        return next((s for s in self.sides if s.id == self.battle.turn_side_id), None)

    @property
    def my_turn(self) -> bool:
        """The viewer may act now: played free, their side's turn, or the host (P31)."""
        if self.viewer.role == "spectator":
            return False
        if not self.turns or self.viewer.host:
            return True
        side = self.battle.turn_side_id
        return side is not None and self.viewer.plays(side)

    @property
    def can_end_turn(self) -> bool:
        """Whether the viewer may End turn: the turn's side's player, or the host."""
        if not self.turns or self.ended or self.viewer.role == "spectator":
            return False
        side = self.battle.turn_side_id
        return self.viewer.host or (side is not None and self.viewer.plays(side))

    def is_connected(self, user_id: int | None) -> bool:
        return user_id is not None and any(uid == user_id for uid, _ in self.connected)

    @property
    def can_undo(self) -> bool:
        """Whether the viewer may undo ``undo_seq`` (P22: its author, or the host; as
        ``log.may_undo`` asks): the Undo button is shown only then."""
        if self.undo_seq is None or self.viewer.role == "spectator":
            return False
        return self.viewer.host or (self.undo_actor is not None and self.undo_actor == self.user_id)

    @property
    def host_name(self) -> str:
        return self.names.get(self.battle.owner_id, "")

    def mine(self, unit: UnitInBattle) -> bool:
        """Whether the viewer may act for the unit (the host: every unit)."""
        return self.viewer.plays(unit.row.side_id)

    @property
    def my_units(self) -> list[UnitInBattle]:
        return [u for u in self.units if self.mine(u)]

    @property
    def ruleset(self) -> Ruleset:
        return get_ruleset(self.battle.ruleset_id)

    @property
    def ended(self) -> bool:
        """Closed by End battle: it takes no attack or action until Undo reopens it."""
        return self.battle.status == "ended"

    @cached_property
    def sides(self) -> list[Side]:
        """Every side in order with its units and its player."""
        units: dict[int, list[UnitInBattle]] = {}
        destroyed: dict[int, Any] = {}
        for unit in self.units:
            units.setdefault(unit.row.side_id, []).append(unit)
            by = unit.row.out_by_side_id
            if by is not None and by != unit.row.side_id and unit.out:
                destroyed[by] = destroyed.get(by, 0) + unit.cost
        ruleset = self.ruleset
        return [
            Side(
                row.name,
                units.get(row.id, []),
                row.id,
                row.player_id,
                self.names.get(row.player_id) if row.player_id is not None else None,
                self.viewer.plays(row.id),
                destroyed.get(row.id, 0),
                ruleset.format_cost(destroyed.get(row.id, 0)),
            )
            for row in self.side_rows
        ]

    def unit(self, unit_id: int) -> UnitInBattle:
        for unit in self.units:
            if unit.row.id == unit_id:
                return unit
        raise NotFound("unit")

    def name_of(self, unit_id: int | None) -> str:
        return next((u.row.name for u in self.units if u.row.id == unit_id), "")


def store_state(unit: UnitInBattle, state: Any) -> None:
    """Keep the unit's new state on its row (a new dict, so the JSON column sees the change)."""
    unit.row.state = unit.ruleset.encode_state(state)


@bounded_cache(2048, max_bytes=16 << 20, size=lambda _unit: 8192)
def _copied(ruleset_id: str, spec_json: str) -> Any:
    """A battle unit's copy as its ruleset reads it, memoised on its JSON: copies never change
    and a battle holds many alike (a unit of N figures is N copies), so a page of 60 units
    does not decode 60 times on every request."""
    return get_ruleset(ruleset_id).decode_unit(json.loads(spec_json))


@bounded_cache(2048, max_bytes=4 << 20, size=lambda _cost: 256)
def _cost(ruleset_id: str, spec_json: str, options_json: str) -> Any:
    """A figure's cost, memoised on its copy and options as ``_copied`` is (the score adds
    those of every unit out on each page and live event)."""
    ruleset = get_ruleset(ruleset_id)
    return ruleset.unit_cost(
        _copied(ruleset_id, spec_json), ruleset.decode_options(json.loads(options_json))
    )


def is_out(row: BattleUnit, ruleset: Ruleset, state: Mapping[str, Any]) -> bool:
    """Whether the unit of ``row`` is out of the fight in the state (its ruleset's JSON)."""
    fighter = Fighter(
        row.id,
        row.name,
        _copied(ruleset.id, row.spec_json),
        ruleset.decode_state(state),
        ruleset.decode_options(row.options),
        row.side,
    )
    return ruleset.standing(fighter).out


_STANDINGS: BoundedMemo[[Ruleset, Fighter], Standing] = BoundedMemo(
    lambda rules, fighter: rules.standing(fighter),
    maxsize=8192,
    max_bytes=32 << 20,
    size=lambda _standing: 4096,
)
"""Units' standings by what they are a function of (the ruleset's ``standing`` is pure): a
live event is rendered once per viewer role, each role's view of a battle holds every unit,
and a battle's units change a few at a time. Before, each unit's standing was worked out
again for every role of every event (a tenth of a server's CPU under `make load`'s live
phase)."""


def unit_in_battle(row: BattleUnit, ruleset: Ruleset, *, public: bool = False) -> UnitInBattle:
    """``public``: its state as others see it (``public_state``: a read-only link's view;
    never a state to change)."""
    state = ruleset.public_state(row.state or {}) if public else (row.state or {})
    key = (
        ruleset.id,
        row.id,
        row.name,
        row.side_id,  # (its name comes with it: a side keeps its name)
        row.spec_json,
        row.options_json,
        json.dumps(state, sort_keys=True, separators=(",", ":")),
    )
    return UnitInBattle(
        row,
        ruleset,
        _copied(ruleset.id, row.spec_json),
        ruleset.decode_state(state),
        ruleset.decode_options(row.options),
        key,
    )


def load_units(
    session: Session, battle: Battle, *, public: bool = False
) -> dict[int, UnitInBattle]:
    """The battle's units by id, read afresh (after the lock: what is committed);
    ``public``: their state as others see it (the read-only link)."""
    ruleset = get_ruleset(battle.ruleset_id)
    rows = session.scalars(
        select(BattleUnit)
        .where(BattleUnit.battle_id == battle.id)
        .order_by(BattleUnit.position, BattleUnit.id)
        .execution_options(populate_existing=True)  # fresh after the lock
    )
    return {row.id: unit_in_battle(row, ruleset, public=public) for row in rows}


def undo_seq_of(session: Session, battle_id: int) -> int | None:
    """The entry Undo takes back: the newest standing one that may be undone (P21)."""
    return undo_target(session, battle_id)[0]


def undo_target(session: Session, battle_id: int) -> tuple[int | None, int | None]:
    """The entry Undo takes back (``undo_seq_of``) and who made it: (None, None) if none."""
    row = session.execute(
        select(BattleEntry.seq, BattleEntry.actor_id)
        .where(
            BattleEntry.battle_id == battle_id,
            BattleEntry.undone_by_seq.is_(None),
            BattleEntry.kind.not_in(FIXED_KINDS),
        )
        .order_by(BattleEntry.seq.desc())
        .limit(1)
    ).first()
    return (None, None) if row is None else (row[0], row[1])


def view_of(
    session: Session,
    battle: Battle,
    *,
    before: int | None = None,
    limit: int | None = LOG_WINDOW,
    public: bool = False,
    viewer: Viewer = SPECTATOR,
    user_id: int | None = None,
) -> BattleView:
    """The battle with its sides, units and a window of its log: the ``limit`` newest entries
    numbered below ``before`` (None: the whole log), shown oldest first; ``public``: as the
    read-only link shows it (``BattleView.public``); ``viewer``: who looks (``user_id``)."""
    units = list(load_units(session, battle, public=public).values())
    if viewer.role == "player" and not public:  # other sides' secrets stay theirs (ruling P5)
        ruleset = get_ruleset(battle.ruleset_id)
        units = [
            u if viewer.plays(u.row.side_id) else unit_in_battle(u.row, ruleset, public=True)
            for u in units
        ]
    side_rows = tuple(
        session.scalars(
            select(BattleSide)
            .where(BattleSide.battle_id == battle.id)
            .order_by(BattleSide.position)
        )
    )
    people = {battle.owner_id, *(r.player_id for r in side_rows if r.player_id is not None)}
    named = session.execute(select(User.id, User.display_name).where(User.id.in_(people)))
    names = {user_id: name for user_id, name in named}
    count, last = session.execute(
        select(func.count(), func.max(BattleEntry.seq)).where(BattleEntry.battle_id == battle.id)
    ).one()
    undo_seq, undo_actor = undo_target(session, battle.id)
    here = presence.connected_to(session, battle.id)
    query = (
        select(BattleEntry, User.display_name)
        .outerjoin(User, User.id == BattleEntry.actor_id)
        .where(BattleEntry.battle_id == battle.id)
        .order_by(BattleEntry.seq.desc())
    )
    if before is not None:
        query = query.where(BattleEntry.seq < before)
    if limit is not None:
        query = query.limit(min(max(limit, 1), MAX_LOG_WINDOW) + 1)
    rows = session.execute(query).all()
    older = limit is not None and len(rows) > min(max(limit, 1), MAX_LOG_WINDOW)
    shown = [LogEntry(entry, name) for entry, name in reversed(rows[: len(rows) - older])]
    return BattleView(
        battle,
        units,
        shown,
        entry_count=count,
        last_seq=last,
        undo_seq=undo_seq,
        older_than=shown[0].row.seq if older else None,
        public=public,
        viewer=viewer,
        side_rows=side_rows,
        names=names,
        user_id=user_id,
        undo_actor=undo_actor,
        connected=here,
    )


def log_entry(session: Session, battle: Battle, seq: int) -> LogEntry | None:
    """One entry of the battle's log by its number (None if there is none)."""
    row = session.execute(
        select(BattleEntry, User.display_name)
        .outerjoin(User, User.id == BattleEntry.actor_id)
        .where(BattleEntry.battle_id == battle.id, BattleEntry.seq == seq)
    ).first()
    return None if row is None else LogEntry(row[0], row[1])
