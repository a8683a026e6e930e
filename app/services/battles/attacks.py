"""Attacks in a battle: checked against the units and their state by the battle's ruleset
(``Ruleset.battle_attack``, made through ``Ruleset.attack``), their odds previewed, rolled
with the attack's seeded roll, logged with their odds (the ruleset's JSON) and applied."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from app.db.models import Battle, BattleEntry, User
from app.rules.errors import InvalidInput
from app.rules.registry import get_ruleset
from app.rules.ruleset import BattleAttack, Ruleset
from app.services import compute
from app.services.battles import codec, text
from app.services.battles.log import (
    append,
    changes_json,
    locked,
    new_seed,
    require_fresh,
    require_open,
    require_side,
    require_turn,
    unit_names,
)
from app.services.battles.views import UnitInBattle, load_units, store_state
from app.services.permissions import Viewer, battle_access

Follower = tuple[Any, ...]
"""A further target: ``(battle unit id, {field: value})`` with the ruleset's
``target_fields``, or ``(battle unit id, value, ...)`` with their values in that order."""


@dataclass(frozen=True)
class PreparedAttack:
    """A checked attack: the ruleset's battle attack and who is who in it."""

    made: BattleAttack
    attacker: UnitInBattle
    targets: list[UnitInBattle]  # the main target first, then the further ones in order
    followers: list[list[Any]]  # as the log's request keeps them

    @property
    def shown(self) -> Mapping[str, Any]:
        return self.made.shown


def _member(units: dict[int, UnitInBattle], unit_id: int, field: str) -> UnitInBattle:
    unit = units.get(unit_id)
    if unit is None:
        raise InvalidInput(field, "is not a unit of this battle")
    return unit


def _fighting(unit: UnitInBattle, field: str) -> None:
    if unit.out:
        raise InvalidInput(field, f"{unit.row.name} is destroyed")


def prepare_attack(
    units: dict[int, UnitInBattle],
    ruleset: Ruleset,
    *,
    attacker_id: int,
    weapons: tuple[int, ...],
    target_id: int,
    situation: object,
    followers: Sequence[Follower] = (),
    moved: bool = False,
) -> PreparedAttack:
    """Check an attack against the battle's units and state; InvalidInput names the field
    (``followers`` for a further target)."""
    attacker = _member(units, attacker_id, "attacker_id")
    target = _member(units, target_id, "target_id")
    if target is attacker:
        raise InvalidInput("target_id", "a unit does not attack itself")
    _fighting(attacker, "attacker_id")
    _fighting(target, "target_id")
    targets = [target]
    further: list[Mapping[str, Any]] = []
    logged: list[list[Any]] = []
    for follower in followers:
        unit = _member(units, follower[0], "followers")
        if unit in targets or unit is attacker:
            raise InvalidInput("followers", f"{unit.row.name} is already in the attack")
        _fighting(unit, "followers")
        values = codec.target_values(ruleset.target_fields, follower, "followers")
        targets.append(unit)
        further.append(values)
        logged.append([unit.row.id, *codec.json_values(values)])
    made = ruleset.battle_attack(
        attacker.fighter,
        tuple(weapons),
        [
            (target.fighter, {}),
            *((u.fighter, v) for u, v in zip(targets[1:], further, strict=True)),
        ],
        codec.situation_values(situation),
        moved=moved,
    )
    return PreparedAttack(made, attacker, targets, logged)


def _prepare(
    session: Session,
    battle: Battle,
    viewer: Viewer,
    *,
    attacker_id: int,
    weapons: tuple[int, ...],
    target_id: int,
    situation: object,
    followers: Sequence[Follower],
    moved: bool,
    rolling: bool = True,
) -> PreparedAttack:
    units = load_units(session, battle)
    if (attacker := units.get(attacker_id)) is not None:  # (else: prepare_attack names it)
        require_side(viewer, attacker, "attacker_id")
        if rolling:  # (the odds of an attack to come are shown out of turn too)
            require_turn(session, battle, viewer, attacker, "attacker_id")
    return prepare_attack(
        units,
        get_ruleset(battle.ruleset_id),
        attacker_id=attacker_id,
        weapons=weapons,
        target_id=target_id,
        situation=situation,
        followers=followers,
        moved=moved,
    )


@dataclass(frozen=True)
class OddsPreview:
    """The odds of an attack before rolling it (as stored with the roll), and what the
    units' state added to it (``shown``: BrikWars's Homing In, say)."""

    odds: dict[str, Any]
    shown: Mapping[str, Any]
    attacker: UnitInBattle
    targets: list[UnitInBattle]

    @property
    def homing_in(self) -> Any:
        """Kept for callers that read it by name (``shown`` holds every such value)."""
        return self.shown.get("homing_in", 0)


def attack_odds(
    session: Session,
    *,
    user: User,
    battle_id: int,
    attacker_id: int,
    weapons: tuple[int, ...],
    target_id: int,
    situation: object,
    followers: Sequence[Follower] = (),
    moved: bool = False,
) -> OddsPreview:
    """Exact odds of an attack in this battle as things stand (nothing is logged); an ended
    battle's are refused as its rolls are (422 naming ``battle``).
    ``situation``: the ruleset's situation values (a mapping, or an object with them as
    its fields)."""
    battle, viewer = battle_access(session, user=user, battle_id=battle_id)
    # an ended battle shows no attack form: its odds would be of an attack it refuses
    require_open(battle)
    prepared = _prepare(
        session,
        battle,
        viewer,
        attacker_id=attacker_id,
        weapons=weapons,
        target_id=target_id,
        situation=situation,
        followers=followers,
        moved=moved,
        rolling=False,
    )
    made = prepared.made
    odds = prepared.attacker.ruleset.log_odds(made, _odds(made))
    return OddsPreview(odds, made.shown, prepared.attacker, prepared.targets)


def roll_attack(
    session: Session,
    *,
    user: User,
    battle_id: int,
    attacker_id: int,
    weapons: tuple[int, ...],
    target_id: int,
    situation: object,
    followers: Sequence[Follower] = (),
    seed: int | None = None,
    moved: bool = False,
    seen: int | None = None,
) -> BattleEntry:
    """Roll an attack with its seeded roll, log it with its odds, apply its effects.

    The attacker must be of a side the user plays (the host plays every side).
    The units stand as their state has them. ``moved``: the weapon or the target moved
    since the last attack (what the state kept for it, BrikWars's Homing In, starts over).
    ``seen``: the newest entry the caller's page showed; a newer entry that changed the
    attacker, a target or a further target refuses the roll (Conflict, a 409: P24).
    """
    ask: dict[str, Any] = {
        "attacker_id": attacker_id,
        "weapons": weapons,
        "target_id": target_id,
        "situation": situation,
        "followers": followers,
        "moved": moved,
    }
    # The odds are computed before the battle is locked: on SQLite its lock is the database's
    # write lock, and a heavy attack's odds take up to the calculation deadline. Under the
    # lock the attack is prepared again from what is committed; another roll that changed a
    # unit meanwhile changes the attack, and only then are the odds computed again.
    first, viewer = battle_access(session, user=user, battle_id=battle_id)
    require_open(first)  # (before the odds: an ended battle rolls nothing)
    acting = [attacker_id, target_id, *(f[0] for f in followers if f and isinstance(f[0], int))]
    again = "check the new odds and roll again"
    # (also before the odds: a page that is behind hears so, not that a target is destroyed;
    # the check that counts is the one under the lock)
    require_fresh(session, first, seen, unit_names(session, first, acting), again=again)
    version_read = first.version  # read before the units were
    ahead = _prepare(session, first, viewer, **ask)
    odds = _odds(ahead.made)
    battle, viewer = locked(session, user=user, battle_id=battle_id)
    require_open(battle)
    require_fresh(session, battle, seen, unit_names(session, battle, acting), again=again)
    if battle.version == version_read + 1:
        # Only our lock moved the version: nothing changed the battle since its units were
        # read (every change takes the lock first), so the attack prepared stands as it is.
        # (A player's sides change only under the lock too: a removal bumps the version.)
        prepared = ahead
    else:
        prepared = _prepare(session, battle, viewer, **ask)
        if prepared.made.attack != ahead.made.attack:
            odds = _odds(prepared.made)
    made = prepared.made
    ruleset = prepared.attacker.ruleset
    seed = new_seed(seed)
    roll = made.attack.roll(random.Random(seed))  # noqa: S311  (a replayable game roll)
    everyone = [prepared.attacker, *prepared.targets]
    after = dict(zip((u.row.id for u in everyone), ruleset.after_attack(made, roll), strict=True))
    units = {u.row.id: u for u in everyone}
    changes = changes_json(units, after)
    for uid, state in after.items():
        store_state(units[uid], state)
    lines = ruleset.log_roll(made, roll)
    request = {
        "attacker_id": attacker_id,
        "weapons": list(weapons),
        "target_id": target_id,
        "situation": dict(made.situation),
        "followers": prepared.followers,
        "moved": moved,
    }
    entry = BattleEntry(
        battle_id=battle.id,
        actor_id=user.id,
        kind="attack",
        seed=seed,
        summary=text.attack_summary(
            prepared.attacker.row.name, prepared.targets[0].row.name, lines, ruleset.effect_words
        ),
        request_json=json.dumps(request),
        odds_json=json.dumps(ruleset.log_odds(made, odds)),
        dice_json=json.dumps(lines),
        changes_json=changes,
    )
    return append(session, battle, entry)


def _odds(made: BattleAttack) -> Any:
    """The attack's odds: where the request is handled when it is small, else in the
    calculation workers."""
    return compute.odds(made.attack)
