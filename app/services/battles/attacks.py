"""Attacks in a battle: checked against the units and their state, their odds previewed, and
rolled with the engine's seeded roll, logged with their odds and applied."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from sqlalchemy.orm import Session

from app.db.models import Battle, BattleEntry, User
from app.rules.brikwars import battle_state as bs
from app.rules.brikwars.serialize import number_to_json
from app.rules.brikwars.turn import ArcFollower, PowerCheck, Turn, TurnSituation
from app.rules.errors import InvalidInput
from app.services import compute
from app.services.battles import codec, text
from app.services.battles.log import append, changes_json, lock, new_seed
from app.services.battles.views import UnitInBattle, load_units, store_state
from app.services.permissions import battle_for

Follower = tuple[int, Fraction | None, int]  # (battle unit id, distance, spans)


@dataclass(frozen=True)
class PreparedAttack:
    """A checked attack: the engine's turn and who is who in it."""

    turn: Turn
    attacker: UnitInBattle
    targets: list[UnitInBattle]  # the main target first, then the Arc followers in order
    homing_in: int

    @property
    def names(self) -> list[tuple[int, str]]:
        return [(t.row.id, t.row.name) for t in self.targets]


def _member(units: dict[int, UnitInBattle], unit_id: int, field: str) -> UnitInBattle:
    unit = units.get(unit_id)
    if unit is None:
        raise InvalidInput(field, "is not a unit of this battle")
    return unit


def prepare_attack(
    units: dict[int, UnitInBattle],
    *,
    attacker_id: int,
    weapons: tuple[int, ...],
    target_id: int,
    situation: TurnSituation,
    followers: Sequence[Follower] = (),
    moved: bool = False,
) -> PreparedAttack:
    """Check an attack against the battle's units and state; InvalidInput names the field."""
    attacker = _member(units, attacker_id, "attacker_id")
    target = _member(units, target_id, "target_id")
    if target is attacker:
        raise InvalidInput("target_id", "a unit does not attack itself")
    bs.require_fighting(attacker.state, attacker.row.name, "attacker_id")
    bs.require_fighting(target.state, target.row.name, "target_id")
    arc: list[ArcFollower] = []
    targets = [target]
    for unit_id, distance, spans in followers:
        follower = _member(units, unit_id, "followers")
        if follower in targets or follower is attacker:
            raise InvalidInput("followers", f"{follower.row.name} is already in the attack")
        bs.require_fighting(follower.state, follower.row.name, "followers")
        if distance is not None and distance < 0:
            raise InvalidInput("followers", "a distance must be at least 0")
        if spans < 0:
            raise InvalidInput("followers", "spans must be at least 0")
        targets.append(follower)
        arc.append(ArcFollower(follower.spec, distance, spans))
    saved = attacker.state.diverted_turns
    if situation.divert_turns > saved:
        raise InvalidInput(
            "divert_turns",
            f"{attacker.row.name} has saved {saved} turn{'s' * (saved != 1)} of Power: "
            "Divert All Power first",
        )
    homing = bs.homing_bonus(attacker.state, target=target.row.id, weapons=weapons, moved=moved)
    situation = replace(situation, homing_in=homing)
    turn = Turn(
        attacker.spec,
        tuple(weapons),
        target.spec,
        situation,
        tuple(arc),
        attacker.options,
        attacker.state.inoperative,
    )
    check: PowerCheck = turn.power()
    if not check.ok:
        raise InvalidInput("weapons", " ".join(check.problems))
    return PreparedAttack(turn, attacker, targets, homing)


@dataclass(frozen=True)
class OddsPreview:
    """The odds of an attack before rolling it (as stored with the roll)."""

    odds: dict[str, Any]
    homing_in: int
    attacker: UnitInBattle
    targets: list[UnitInBattle]


def attack_odds(
    session: Session,
    *,
    user: User,
    battle_id: int,
    attacker_id: int,
    weapons: tuple[int, ...],
    target_id: int,
    situation: TurnSituation,
    followers: Sequence[Follower] = (),
    moved: bool = False,
) -> OddsPreview:
    """Exact odds of an attack in this battle as things stand (nothing is logged)."""
    battle = battle_for(session, user=user, battle_id=battle_id)
    prepared = prepare_attack(
        load_units(session, battle.id),
        attacker_id=attacker_id,
        weapons=weapons,
        target_id=target_id,
        situation=situation,
        followers=followers,
        moved=moved,
    )
    odds = codec.odds_to_dict(compute.run(prepared.turn.odds), prepared.names)
    return OddsPreview(odds, prepared.homing_in, prepared.attacker, prepared.targets)


def roll_attack(
    session: Session,
    *,
    user: User,
    battle_id: int,
    attacker_id: int,
    weapons: tuple[int, ...],
    target_id: int,
    situation: TurnSituation,
    followers: Sequence[Follower] = (),
    seed: int | None = None,
    moved: bool = False,
) -> BattleEntry:
    """Roll an attack with the engine's seeded roll, log it with its odds, apply its effects.

    The units are built from their copies with their current Size Damage. ``moved``: the
    weapon or the target moved since the last attack (Homing In starts over).
    """

    def prepare(battle: Battle) -> PreparedAttack:
        return prepare_attack(
            load_units(session, battle.id),
            attacker_id=attacker_id,
            weapons=weapons,
            target_id=target_id,
            situation=situation,
            followers=followers,
            moved=moved,
        )

    # The odds are computed before the battle is locked: on SQLite its lock is the database's
    # write lock, and a heavy turn's odds take up to the calculation deadline. Under the lock
    # the attack is prepared again from what is committed; another roll that changed a unit
    # meanwhile changes the turn, and only then are the odds computed again.
    ahead = prepare(battle_for(session, user=user, battle_id=battle_id))
    turn_odds = compute.run(ahead.turn.odds)
    battle = lock(session, user=user, battle_id=battle_id)
    prepared = prepare(battle)
    if prepared.turn != ahead.turn:
        turn_odds = compute.run(prepared.turn.odds)
    odds = codec.odds_to_dict(turn_odds, prepared.names)
    seed = new_seed(seed)
    roll = prepared.turn.roll(random.Random(seed))  # noqa: S311  (a replayable game roll)
    attacker, targets = prepared.attacker, prepared.targets
    before = {u.row.id: u.state for u in (attacker, *targets)}
    after = dict(before)
    after[attacker.row.id] = bs.attacker_after(
        attacker.state,
        attacker.spec,
        weapons=tuple(weapons),
        target=targets[0].row.id,
        homing_in=prepared.homing_in,
        gunnery_support=situation.gunnery_support,
        roll=roll,
    )
    for index, unit in enumerate(targets):
        effects = [e for line in roll.lines for e in line.effects if e.target == index]
        after[unit.row.id] = bs.target_after(unit.state, roll.targets_after[index], effects)
    for unit in (attacker, *targets):
        store_state(unit.row, after[unit.row.id])
    lines = codec.roll_to_dict(roll, prepared.names)
    request = {
        "attacker_id": attacker_id,
        "weapons": list(weapons),
        "target_id": target_id,
        "situation": codec.situation_to_dict(prepared.turn.situation),
        "followers": [[u, None if d is None else number_to_json(d), s] for u, d, s in followers],
        "moved": moved,
    }
    entry = BattleEntry(
        battle_id=battle.id,
        actor_id=user.id,
        kind="attack",
        seed=seed,
        summary=text.attack_summary(attacker.row.name, targets[0].row.name, lines),
        request_json=json.dumps(request),
        odds_json=json.dumps(odds),
        dice_json=json.dumps(lines),
        changes_json=changes_json(before, after),
    )
    return append(session, battle, entry)
