"""Battles: units of several armies brought together, attacks rolled and logged, state kept.

A battle copies its units (and their armies' house rules) when it is created, so later roster
edits never rewrite it. Every action is one transaction that first takes the battle's lock
(``_lock``), reads the units' state, lets the engine decide (``app.rules.brikwars.turn`` and
``battle_state``), and appends one numbered log entry with the dice and the state of every
unit it changed before and after, so ``undo_last`` restores exactly. Refused actions raise
``InvalidInput`` (a 422) and log nothing. Battles are their owner's (``permissions.battle_for``).
"""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.db.models import Army, Battle, BattleEntry, BattleUnit, User
from app.rules import brikwars as bw
from app.rules.brikwars import battle_state as bs
from app.rules.brikwars.serialize import number_to_json, unit_from_dict, unit_to_dict
from app.rules.brikwars.turn import ArcFollower, PowerCheck, Turn, TurnSituation
from app.rules.brikwars.validation import weapon_name
from app.rules.errors import InvalidInput
from app.rules.text import plain_text
from app.services import battle_log, builder, compute, quotas
from app.services.errors import NotFound
from app.services.permissions import Access, army_for, battle_armies, battle_for
from app.services.tokens import digest, new_token

MAX_UNITS = 200
SEQ_ATTEMPTS = 3
Follower = tuple[int, Fraction | None, int]  # (battle unit id, distance, spans)


# ------------------------------------------------------------------------------ views


@dataclass(frozen=True)
class WeaponInBattle:
    index: int
    name: str
    use: str
    range: str
    damage: str
    inoperative: bool


@dataclass(frozen=True)
class UnitInBattle:
    """A battle unit as it now stands: its copied spec with its Size Damage, and its state."""

    row: BattleUnit
    spec: bw.UnitSpec
    state: bs.UnitState
    options: bw.BrikWarsOptions

    @cached_property
    def weapons(self) -> list[WeaponInBattle]:
        out = []
        for i, weapon in enumerate(self.spec.weapons):
            stats = self.spec.weapon_stats(i, self.options)
            out.append(
                WeaponInBattle(
                    index=i,
                    name=weapon_name(weapon),  # its label included
                    use="–" if stats.use is None else str(stats.use),
                    range="CC" if stats.range_inches is None else _inches(stats.range_inches),
                    damage="–" if stats.damage is None else str(stats.damage),
                    inoperative=i in self.state.inoperative,
                )
            )
        return out

    @property
    def size_text(self) -> str:
        return _inches(self.spec.built_size)

    @property
    def effective_size_text(self) -> str:
        return _inches(self.spec.effective_size)

    @property
    def armour_text(self) -> str:
        armour = self.spec.armour
        return str(armour) + (f" +{armour.deflection} Defl." if armour.deflection else "")

    @property
    def power(self) -> Fraction:
        return self.spec.standing_power_with(self.options)

    @property
    def power_text(self) -> str:
        return _inches(self.power)

    @property
    def status_text(self) -> str:
        """Size, Armour, Power and the state badges in words (the export's unit line)."""
        parts = [
            f"Size {self.effective_size_text}/{self.size_text}",
            f"Armour {self.armour_text}",
            f"Power {self.power_text}",
        ]
        return ", ".join(parts + self.badges)

    @property
    def badges(self) -> list[str]:
        s = self.state
        out = []
        if s.destroyed:
            out.append("destroyed")
        if s.on_fire:
            out.append("on Fire")
        for w in self.weapons:
            if w.inoperative:
                out.append(f"{w.name} Inoperative")
        if s.diverted_turns:
            out.append(f"{s.diverted_turns} turn{'s' * (s.diverted_turns != 1)} of Power saved")
        if s.homing_in:
            out.append(f"Homing In +{s.homing_in}")
        if s.limbs_lost:
            out.append(f"{s.limbs_lost} limb{'s' * (s.limbs_lost != 1)} useless")
        return out


@dataclass(frozen=True)
class Side:
    name: str
    units: list[UnitInBattle]


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


@dataclass(frozen=True)
class BattleView:
    battle: Battle
    units: list[UnitInBattle]
    entries: list[LogEntry]  # oldest first

    @cached_property
    def sides(self) -> list[Side]:
        sides: dict[str, list[UnitInBattle]] = {}
        for unit in self.units:
            sides.setdefault(unit.row.side, []).append(unit)
        return [Side(name, units) for name, units in sides.items()]

    def unit(self, unit_id: int) -> UnitInBattle:
        for unit in self.units:
            if unit.row.id == unit_id:
                return unit
        raise NotFound("unit")

    def name_of(self, unit_id: int | None) -> str:
        return next((u.row.name for u in self.units if u.row.id == unit_id), "")


def _inches(value: Fraction | int) -> str:
    return f'{bw.format_number(value)}"'


def state_of(row: BattleUnit) -> bs.UnitState:
    return bs.UnitState(
        size_damage=Fraction(row.size_damage),
        destroyed=row.destroyed,
        on_fire=row.on_fire,
        inoperative=frozenset(row.inoperative or ()),
        diverted_turns=row.diverted_turns,
        homing_in=row.homing_in,
        homed_on=row.homed_on_id,
        homed_weapons=tuple(row.homed_weapons or ()),
        limbs_lost=row.limbs_lost,
    )


def _store(row: BattleUnit, state: bs.UnitState) -> None:
    row.size_damage = str(number_to_json(state.size_damage))
    row.destroyed = state.destroyed
    row.on_fire = state.on_fire
    row.inoperative = sorted(state.inoperative)
    row.diverted_turns = state.diverted_turns
    row.homing_in = state.homing_in
    row.homed_on_id = state.homed_on
    row.homed_weapons = list(state.homed_weapons)
    row.limbs_lost = state.limbs_lost


def unit_in_battle(row: BattleUnit) -> UnitInBattle:
    state = state_of(row)
    spec = state.unit(unit_from_dict(row.spec))
    return UnitInBattle(row, spec, state, bw.BrikWarsOptions.from_dict(row.options))


def _units(session: Session, battle_id: int) -> dict[int, UnitInBattle]:
    rows = session.scalars(
        select(BattleUnit)
        .where(BattleUnit.battle_id == battle_id)
        .order_by(BattleUnit.position, BattleUnit.id)
        .execution_options(populate_existing=True)  # fresh after the lock
    )
    return {row.id: unit_in_battle(row) for row in rows}


def _view(session: Session, battle: Battle) -> BattleView:
    units = list(_units(session, battle.id).values())
    rows = session.execute(
        select(BattleEntry, User.display_name)
        .outerjoin(User, User.id == BattleEntry.actor_id)
        .where(BattleEntry.battle_id == battle.id)
        .order_by(BattleEntry.seq)
    ).all()
    return BattleView(battle, units, [LogEntry(entry, name) for entry, name in rows])


# ------------------------------------------------------------------------------ reading


def list_battles(session: Session, *, user: User) -> list[Battle]:
    """The user's battles, most recently active first."""
    query = (
        select(Battle)
        .where(Battle.owner_id == user.id)
        .order_by(Battle.updated_at.desc(), Battle.id.desc())
    )
    return list(session.scalars(query))


def armies_for_battle(session: Session, *, user: User) -> list[Army]:
    """The BrikWars armies the user may bring to a battle (their own and their clubs')."""
    query = battle_armies(user).where(Army.ruleset_id == "brikwars").order_by(Army.name, Army.id)
    return list(session.scalars(query))


def battle_view(session: Session, *, user: User, battle_id: int) -> BattleView:
    """A battle of the user's: units by side with their state, and the log."""
    return _view(session, battle_for(session, user=user, battle_id=battle_id))


def linked_view(session: Session, *, token: str) -> BattleView:
    """The battle behind a live read-only link (unknown or revoked: NotFound)."""
    battle = session.scalar(select(Battle).where(Battle.share_token_hash == digest(token)))
    if battle is None:
        raise NotFound("battle")
    return _view(session, battle)


# ------------------------------------------------------------------------------ creating


def create_battle(
    session: Session,
    *,
    user: User,
    name: str,
    army_ids: list[int],
    unit_ids: list[int] | None = None,
) -> Battle:
    """A battle with copies of the armies' units (all, or just ``unit_ids`` of them).

    Every army must be one the user may read; without ``unit_ids`` two or more armies are
    needed, and a battle always has at least two units. Each army is a side.
    """
    name = name.strip()
    if not 1 <= len(name) <= 120:
        raise InvalidInput("name", "must be 1 to 120 characters")
    plain_text(name, "name")
    army_ids = list(dict.fromkeys(army_ids))
    if not army_ids:
        raise InvalidInput("army_ids", "choose the armies that fight")
    if unit_ids is None and len(army_ids) < 2:
        raise InvalidInput("army_ids", "choose two or more armies")
    chosen_armies = [army_for(session, user=user, army_id=i, access=Access.READ) for i in army_ids]
    for army in chosen_armies:
        if army.ruleset_id != "brikwars":
            raise InvalidInput("army_ids", f"“{army.name}” is not a BrikWars army")
    rows = builder.load_rows_of(session, army_ids)
    picked = [(army, row) for army in chosen_armies for row in rows[army.id]]
    if unit_ids is not None:
        wanted = list(dict.fromkeys(unit_ids))
        by_id = {row.id: (army, row) for army, row in picked}
        missing = [i for i in wanted if i not in by_id]
        if missing:
            raise InvalidInput("unit_ids", f"unit {missing[0]} is not in the chosen armies")
        picked = [by_id[i] for i in wanted]
    if len(picked) < 2:
        raise InvalidInput("army_ids", "a battle needs at least two units")
    if len(picked) > MAX_UNITS:
        raise InvalidInput("army_ids", f"a battle takes at most {MAX_UNITS} units")
    quotas.battles(session, user=user)
    battle = Battle(owner_id=user.id, name=name)
    session.add(battle)
    session.flush()
    sides = _side_names(chosen_armies)
    for position, (army, row) in enumerate(picked):
        spec = unit_from_dict(row.as_dict())
        session.add(
            BattleUnit(
                battle_id=battle.id,
                position=position,
                side=sides[army.id],
                army_id=army.id,
                unit_id=row.id,
                name=row.name,
                spec_json=json.dumps(unit_to_dict(spec)),
                options_json=json.dumps(builder.options_of(army).to_dict()),
            )
        )
    session.flush()
    return battle


def _side_names(armies: list[Army]) -> dict[int, str]:
    """Each army's side name: its own, numbered when two armies share a name."""
    names: dict[int, str] = {}
    for army in armies:
        name, n = army.name, 1
        while name in names.values():
            n += 1
            name = f"{army.name} ({n})"
        names[army.id] = name
    return names


@dataclass(frozen=True)
class Duel:
    """A battle of two saved units, with the battle unit ids to attack with."""

    battle: Battle
    attacker_id: int
    target_id: int


def start_duel(
    session: Session,
    *,
    user: User,
    name: str,
    attacker: tuple[int, int],
    target: tuple[int, int],
) -> Duel:
    """A battle of two saved units, each an (army id, unit id) the user may read.

    For the calculator's "Roll it!": then ``roll_attack(..., attacker_id=duel.attacker_id,
    target_id=duel.target_id, weapons=...)``, where a weapon's index is its position on the
    unit (the order of ``builder.UnitView.weapons``).
    """
    battle = create_battle(
        session,
        user=user,
        name=name,
        army_ids=[attacker[0], target[0]],
        unit_ids=[attacker[1], target[1]],
    )
    ids = battle_unit_ids(session, battle.id)
    return Duel(battle, ids[attacker[1]], ids[target[1]])


def battle_unit_ids(session: Session, battle_id: int) -> dict[int, int]:
    """Each copied unit's battle unit id, by the saved unit it was copied from."""
    rows = session.execute(
        select(BattleUnit.unit_id, BattleUnit.id).where(BattleUnit.battle_id == battle_id)
    )
    return {unit_id: bu_id for unit_id, bu_id in rows if unit_id is not None}


def override_bonus_die(session: Session, battle_id: int, bonus_die: str) -> None:
    """Play a new battle with another Bonus die than its armies' (the calculator's choice)."""
    for row in session.scalars(select(BattleUnit).where(BattleUnit.battle_id == battle_id)):
        options = {**json.loads(row.options_json), "bonus_die": bonus_die}
        row.options_json = json.dumps(bw.BrikWarsOptions.from_dict(options).to_dict())
    session.flush()


# ------------------------------------------------------------------------------ the lock


def _lock(session: Session, *, user: User, battle_id: int) -> Battle:
    """The user's battle, locked for this transaction before any of its state is read.

    The version bump is the transaction's first write: on PostgreSQL it holds the battle's
    row lock (as SELECT ... FOR UPDATE would) until commit, and on SQLite it takes the
    database's write lock; either way a second action on the battle waits, then reads what
    the first one committed. Log numbers are allocated under it.
    """
    battle = battle_for(session, user=user, battle_id=battle_id)
    session.execute(
        update(Battle)
        .where(Battle.id == battle.id)
        .values(version=Battle.version + 1)
        .execution_options(synchronize_session=False)
    )
    session.refresh(battle)
    return battle


def _append(session: Session, battle: Battle, entry: BattleEntry) -> BattleEntry:
    """Add the entry with the next number; a clash on (battle, seq) is retried."""
    for attempt in range(SEQ_ATTEMPTS):
        last = session.scalar(
            select(func.max(BattleEntry.seq)).where(BattleEntry.battle_id == battle.id)
        )
        entry.seq = (last or 0) + 1
        try:
            with session.begin_nested():
                session.add(entry)
                session.flush()
        except IntegrityError:
            if attempt + 1 == SEQ_ATTEMPTS:
                raise
            continue
        return entry
    raise AssertionError("unreachable")


def _changes(before: dict[int, bs.UnitState], after: dict[int, bs.UnitState]) -> str:
    return json.dumps(
        {
            str(uid): {"before": before[uid].to_dict(), "after": after[uid].to_dict()}
            for uid in after
        }
    )


def _new_seed(seed: int | None) -> int:
    return seed if seed is not None else secrets.randbelow(2**31)


# ------------------------------------------------------------------------------ attacks


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
        _units(session, battle.id),
        attacker_id=attacker_id,
        weapons=weapons,
        target_id=target_id,
        situation=situation,
        followers=followers,
        moved=moved,
    )
    odds = battle_log.odds_to_dict(compute.run(prepared.turn.odds), prepared.names)
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
            _units(session, battle.id),
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
    battle = _lock(session, user=user, battle_id=battle_id)
    prepared = prepare(battle)
    if prepared.turn != ahead.turn:
        turn_odds = compute.run(prepared.turn.odds)
    odds = battle_log.odds_to_dict(turn_odds, prepared.names)
    seed = _new_seed(seed)
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
        _store(unit.row, after[unit.row.id])
    lines = battle_log.roll_to_dict(roll, prepared.names)
    request = {
        "attacker_id": attacker_id,
        "weapons": list(weapons),
        "target_id": target_id,
        "situation": battle_log.situation_to_dict(prepared.turn.situation),
        "followers": [[u, None if d is None else number_to_json(d), s] for u, d, s in followers],
        "moved": moved,
    }
    entry = BattleEntry(
        battle_id=battle.id,
        actor_id=user.id,
        kind="attack",
        seed=seed,
        summary=battle_log.attack_summary(attacker.row.name, targets[0].row.name, lines),
        request_json=json.dumps(request),
        odds_json=json.dumps(odds),
        dice_json=json.dumps(lines),
        changes_json=_changes(before, after),
    )
    return _append(session, battle, entry)


# ------------------------------------------------------------------------------ other actions


def _unit_action(session: Session, battle: Battle, unit_id: int) -> UnitInBattle:
    unit = _units(session, battle.id).get(unit_id)
    if unit is None:
        raise NotFound("unit")
    return unit


def _log_state_change(
    session: Session,
    battle: Battle,
    user: User,
    unit: UnitInBattle,
    after: bs.UnitState,
    *,
    kind: str,
    summary: str,
    dice: list[dict[str, Any]] | None = None,
    seed: int | None = None,
) -> BattleEntry:
    _store(unit.row, after)
    entry = BattleEntry(
        battle_id=battle.id,
        actor_id=user.id,
        kind=kind,
        seed=seed,
        summary=summary[:500],
        request_json=json.dumps({"unit_id": unit.row.id}),
        odds_json="null",
        dice_json=json.dumps(dice or []),
        changes_json=_changes({unit.row.id: unit.state}, {unit.row.id: after}),
    )
    return _append(session, battle, entry)


def reload(session: Session, *, user: User, battle_id: int, unit_id: int) -> BattleEntry:
    """Reload the unit's Inoperative weapons (its Action), logged."""
    battle = _lock(session, user=user, battle_id=battle_id)
    unit = _unit_action(session, battle, unit_id)
    after = bs.reload(unit.state, unit.row.name)
    names = ", ".join(w.name for w in unit.weapons if w.inoperative)
    return _log_state_change(
        session,
        battle,
        user,
        unit,
        after,
        kind="reload",
        summary=f"{unit.row.name} Reloads {names}",
    )


def divert_power(session: Session, *, user: User, battle_id: int, unit_id: int) -> BattleEntry:
    """The unit Diverts All Power this turn: a turn of Power saved, logged."""
    battle = _lock(session, user=user, battle_id=battle_id)
    unit = _unit_action(session, battle, unit_id)
    after = bs.divert(unit.state, unit.row.name)
    saved = unit.power * after.diverted_turns
    summary = (
        f"{unit.row.name} Diverts All Power: {after.diverted_turns} turn"
        f"{'s' * (after.diverted_turns != 1)} saved ({_inches(saved)} extra for one weapon)"
    )
    return _log_state_change(session, battle, user, unit, after, kind="divert", summary=summary)


def burning_roll(
    session: Session, *, user: User, battle_id: int, unit_id: int, seed: int | None = None
) -> BattleEntry:
    """The Burning Roll of a unit on Fire at the start of its turn (1d4, seeded), logged."""
    battle = _lock(session, user=user, battle_id=battle_id)
    unit = _unit_action(session, battle, unit_id)
    seed = _new_seed(seed)
    rolled = bs.burning_roll(unit.state, unit.spec, random.Random(seed))  # noqa: S311
    die = rolled.die
    dice = [
        {
            "label": "Burning Roll",
            "kind": "burning",
            "weapons": [],
            "skipped": "",
            "jammed": False,
            "dice": [
                {
                    "purpose": die.purpose,
                    "sides": die.sides,
                    "natural": die.natural,
                    "value": die.value,
                    "bonus": die.bonus,
                    "unit_id": unit.row.id,
                }
            ],
            "effects": [],
        }
    ]
    summary = f"{unit.row.name} Burning Roll d4 {die.natural}: {rolled.summary}"
    return _log_state_change(
        session,
        battle,
        user,
        unit,
        rolled.after,
        kind="burning",
        summary=summary,
        dice=dice,
        seed=seed,
    )


def undo_last(session: Session, *, user: User, battle_id: int) -> BattleEntry:
    """Remove the last entry and restore every unit it changed as it was before."""
    battle = _lock(session, user=user, battle_id=battle_id)
    last = session.scalar(
        select(BattleEntry)
        .where(BattleEntry.battle_id == battle.id)
        .order_by(BattleEntry.seq.desc())
        .limit(1)
    )
    if last is None:
        raise InvalidInput("battle", "there is nothing to undo")
    units = _units(session, battle.id)
    for key, change in last.changes.items():
        unit = units.get(int(key))
        if unit is not None:
            _store(unit.row, bs.UnitState.from_dict(change["before"]))
    session.delete(last)
    session.flush()
    return last


# ------------------------------------------------------------------------------ sharing


def share_link(session: Session, *, user: User, battle_id: int) -> str:
    """A fresh read-only link token (shown once; an earlier link stops working)."""
    battle = battle_for(session, user=user, battle_id=battle_id)
    token, hashed = new_token()
    battle.share_token_hash = hashed
    session.flush()
    return token


def revoke_link(session: Session, *, user: User, battle_id: int) -> None:
    """The read-only link stops working at once."""
    battle_for(session, user=user, battle_id=battle_id).share_token_hash = None
    session.flush()


def export_text(view: BattleView) -> str:
    """The battle as plain text for a forum post (see ``battle_log.export_text``)."""
    return battle_log.export_text(view)
