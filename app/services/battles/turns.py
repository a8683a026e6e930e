"""Turns: a battle is played "free" (anyone acts for their own side, whenever: the default) or
by "turns" (the sides in order, each until its player or the host ends its turn).

End turn passes to the next side in order that has a unit standing, counts a new round when
the order wraps, and has the ruleset's ``turn_reset`` action taken by the units it concerns
(D20's new turn for the side's figurines, Degrees' new round for every unit as a round
begins). It is one log entry (``TURN_KIND``) keeping the battle's turn before and after and
every unit state the resets changed, so Undo restores them exactly (P20, P31). The host
switches the mode (``MODE_KIND``, an entry too). In turns a player acts only in their own
side's turn; the host acts for any side at any time (P31: reactions on another's turn).
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import Battle, BattleEntry, BattleSide, User
from app.rules.errors import InvalidInput
from app.services.battles.log import (
    MODE_KIND,
    TURN_KIND,
    actor_name,
    append,
    changes_json,
    lock,
    locked,
    new_seed,
    require_open,
    side_name,
    turn_state,
)
from app.services.battles.views import FREE, TURNS, UnitInBattle, load_units, store_state
from app.services.errors import Conflict
from app.services.permissions import Viewer

MODES = (FREE, TURNS)


def _sides(session: Session, battle: Battle) -> list[BattleSide]:
    return list(
        session.scalars(
            select(BattleSide)
            .where(BattleSide.battle_id == battle.id)
            .order_by(BattleSide.position)
        )
    )


def _standing_sides(units: Mapping[int, UnitInBattle]) -> set[int]:
    return {u.row.side_id for u in units.values() if not u.out}


def next_side(
    sides: list[BattleSide], units: Mapping[int, UnitInBattle], current: int | None
) -> tuple[BattleSide, bool] | None:
    """The side whose turn comes after ``current``'s (None: the first), skipping sides with no
    unit standing, and whether the order wrapped (a new round); None if no side has one."""
    standing = _standing_sides(units)
    order = [s for s in sides if s.id in standing]
    if not order:
        return None
    at = next((i for i, s in enumerate(sides) if s.id == current), None)
    if at is None:
        return order[0], True
    for side in sides[at + 1 :]:
        if side.id in standing:
            return side, False
    return order[0], True


def _resets(
    units: dict[int, UnitInBattle], side_id: int, new_round: bool, seed: int
) -> tuple[dict[int, Any], list[str], list[Mapping[str, Any]]]:
    """The ruleset's ``turn_reset`` taken by the units it concerns, in the battle's order: the
    states after by unit id, the summaries and the dice lines (one seeded roll for them all)."""
    if not units:
        return {}, [], []
    ruleset = next(iter(units.values())).ruleset
    reset = ruleset.turn_reset
    if reset is None or (reset.at == "round" and not new_round):
        return {}, [], []
    rng = random.Random(seed)  # noqa: S311  (a replayable game roll)
    now = {uid: u.state for uid, u in units.items()}
    after: dict[int, Any] = {}
    words: list[str] = []
    dice: list[Mapping[str, Any]] = []
    for uid, unit in units.items():
        if reset.at == "turn" and unit.row.side_id != side_id:
            continue
        fighter = replace(unit.fighter, state=now[uid])
        if reset.action not in ruleset.standing(fighter).actions:
            continue
        others = tuple(replace(u.fighter, state=now[k]) for k, u in units.items() if k != uid)
        result = ruleset.apply_action(reset.action, replace(fighter, others=others), {}, rng)
        for key, state in {uid: result.after, **result.others}.items():
            if key in units:
                now[key] = after[key] = state
        words.append(result.summary)
        dice.extend(result.dice)
    return after, words, dice


def _newer_turn(session: Session, battle: Battle, seen: int | None) -> None:
    """Refuse (Conflict, 409) End turn from a page that did not see a newer turn or mode entry
    (someone ended the turn meanwhile: P24)."""
    if seen is None:
        return
    newer = session.scalar(
        select(BattleEntry)
        .where(
            BattleEntry.battle_id == battle.id,
            BattleEntry.seq > seen,
            BattleEntry.kind.in_((TURN_KIND, MODE_KIND)),
        )
        .order_by(BattleEntry.seq)
        .limit(1)
    )
    if newer is not None:
        by = actor_name(session, newer)
        raise Conflict(
            f"{by or 'Someone'} changed the turn with #{newer.seq} since you loaded this page: "
            "check whose turn it is",
            entry=newer.seq,
            by=by,
        )


def _may_end(viewer: Viewer, battle: Battle, name: str) -> None:
    if viewer.host or (battle.turn_side_id is not None and viewer.plays(battle.turn_side_id)):
        return
    raise InvalidInput("battle", f"It is {name}'s turn: only its player or the host ends it")


def end_turn(
    session: Session,
    *,
    user: User,
    battle_id: int,
    seen: int | None = None,
    seed: int | None = None,
) -> BattleEntry:
    """End the side's turn (its player's or the host's): the next side in order with a unit
    standing has its turn, a new round when the order wraps, and the ruleset's ``turn_reset``
    is taken by the units it concerns; logged as one entry Undo takes back (P31).

    Refused (InvalidInput, field ``battle``): an ended battle, a battle played free, another
    side's turn for a player, no side with a unit standing. ``seen``: a newer turn or mode
    entry refuses it (Conflict)."""
    battle, viewer = locked(session, user=user, battle_id=battle_id)
    require_open(battle)
    if battle.mode != TURNS:
        raise InvalidInput("battle", "the battle is played free: the host may switch to turns")
    _newer_turn(session, battle, seen)
    current = side_name(session, battle.turn_side_id)
    _may_end(viewer, battle, current)
    units = load_units(session, battle)
    sides = _sides(session, battle)
    found = next_side(sides, units, battle.turn_side_id)
    if found is None:
        raise InvalidInput("battle", "no side has a unit standing: End battle instead")
    side, wrapped = found
    before = turn_state(battle)
    seed = new_seed(seed)
    after, words, dice = _resets(units, side.id, wrapped, seed)
    changes = changes_json(units, after)
    for uid, state in after.items():
        store_state(units[uid], state)
    battle.round = battle.round + 1 if wrapped else battle.round
    battle.turn_side_id = side.id
    summary = f"{current} ends its turn: {side.name}'s turn"
    summary += f", round {battle.round}" if wrapped else ""
    if words:
        summary += "; " + "; ".join(words)
    entry = BattleEntry(
        battle_id=battle.id,
        actor_id=user.id,
        kind=TURN_KIND,
        seed=seed if dice else None,
        summary=summary[:500],
        request_json=json.dumps({"turn": {"before": before, "after": turn_state(battle)}}),
        odds_json="null",
        dice_json=json.dumps(list(dice)),
        changes_json=changes,
    )
    return append(session, battle, entry)


def set_mode(session: Session, *, user: User, battle_id: int, mode: str) -> BattleEntry:
    """The host plays the battle ``free`` or by ``turns`` from now on, at any point (P32):
    turns begin at round 1 with the first side in order that has a unit standing, the units
    as they stand (nothing is reset); free ends the turns (round 0). Logged as an entry Undo
    takes back. Refused: not a mode (field ``mode``), the mode it has, an ended battle."""
    if mode not in MODES:
        raise InvalidInput("mode", f"must be one of {', '.join(MODES)}")
    battle = lock(session, user=user, battle_id=battle_id, host=True)
    require_open(battle)
    if battle.mode == mode:
        raise InvalidInput("mode", f"the battle is already played {_words(mode)}")
    before = turn_state(battle)
    if mode == TURNS:
        found = next_side(_sides(session, battle), load_units(session, battle), None)
        if found is None:
            raise InvalidInput("mode", "no side has a unit standing")
        battle.mode, battle.round, battle.turn_side_id = TURNS, 1, found[0].id
        summary = f"Played by turns from now: round 1, {found[0].name}'s turn"
    else:
        battle.mode, battle.round, battle.turn_side_id = FREE, 0, None
        summary = "Played free from now: each side acts whenever"
    entry = BattleEntry(
        battle_id=battle.id,
        actor_id=user.id,
        kind=MODE_KIND,
        seed=None,
        summary=summary[:500],
        request_json=json.dumps({"turn": {"before": before, "after": turn_state(battle)}}),
        odds_json="null",
        dice_json="[]",
        changes_json="{}",
    )
    return append(session, battle, entry)


def _words(mode: str) -> str:
    return "by turns" if mode == TURNS else "free"
