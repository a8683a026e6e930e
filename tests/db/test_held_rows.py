"""The rows an account holds (issue 30 F5): its counters of units, weapons and battle log
entries match a COUNT after every kind of write and delete, and past a limit the write is
refused naming the quota, before anything is written."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from fractions import Fraction

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db.models import Army, ArmyRevision, Battle, BattleEntry, Unit, User, Weapon
from app.rules.brikwars.turn import TurnSituation
from app.services import armies, battles, builder, examples, history, sharing, transfer
from app.services.army_document import export_json
from app.services.army_rows import load_rows
from app.services.errors import QuotaExceeded
from app.settings import get_settings

_ids = itertools.count(1)
TANK = {
    "name": "Tank",
    "size": 4,
    "structure_level": 2,
    "weapons": [
        {"type": "gun", "size": 3},
        {"type": "machinegun", "size": 2},
        {"type": "cannon", "size": 4, "ammo": {"xsize": 2}},
    ],
}
TROOPER = {"name": "Trooper", "kind": "minifig", "weapons": [{"type": "hand_weapon"}]}


@pytest.fixture
def session(app) -> Iterator[Session]:  # type: ignore[no-untyped-def]
    with app.state.sessionmaker() as s:
        yield s
        s.rollback()


def _user(session: Session, name: str = "Holder") -> User:
    user = User(
        email=f"{name.lower()}{next(_ids)}@example.com", display_name=name, password_hash="x"
    )
    session.add(user)
    session.flush()
    return user


def _held(session: Session, user: User) -> tuple[int, int, int]:
    row = session.execute(
        select(User.held_units, User.held_weapons, User.held_entries).where(User.id == user.id)
    ).one()
    return row[0], row[1], row[2]


def _counted(session: Session, user: User) -> tuple[int, int, int]:
    """What the account holds, counted the slow way."""
    units = session.scalar(select(func.count(Unit.id)).join(Army).where(Army.owner_id == user.id))
    weapons = session.scalar(
        select(func.count(Weapon.id)).join(Unit).join(Army).where(Army.owner_id == user.id)
    )
    entries = session.scalar(
        select(func.count(BattleEntry.id)).join(Battle).where(Battle.owner_id == user.id)
    )
    return units or 0, weapons or 0, entries or 0


def _agree(session: Session, user: User) -> tuple[int, int, int]:
    session.flush()
    counted = _counted(session, user)
    assert _held(session, user) == counted
    return counted


def _limit(monkeypatch: pytest.MonkeyPatch, **values: int) -> None:
    for name, value in values.items():
        monkeypatch.setattr(get_settings(), name, value)


def test_the_counters_match_a_count_after_every_write(session: Session) -> None:
    s = session
    user, other = _user(s), _user(s, "Other")
    army = armies.create_army(s, user=user, name="Red", ruleset_id="brikwars", budget=900)
    assert _agree(s, user) == (0, 0, 0)
    tank = builder.add_unit(s, user=user, army_id=army.id, data=TANK)
    trooper = builder.add_unit(s, user=user, army_id=army.id, data=TROOPER)
    assert _agree(s, user) == (2, 4, 0)
    newest = select(func.max(ArmyRevision.id)).where(ArmyRevision.army_id == army.id)
    two_units = s.scalar(newest)
    builder.duplicate_unit(s, user=user, army_id=army.id, unit_id=tank.id)
    assert _agree(s, user) == (3, 7, 0)
    weapon = builder.add_weapon(
        s, user=user, army_id=army.id, unit_id=trooper.id, data={"type": "hand_weapon"}
    )
    assert _agree(s, user) == (3, 8, 0)
    builder.delete_weapon(s, user=user, army_id=army.id, unit_id=trooper.id, weapon_id=weapon.id)
    assert _agree(s, user) == (3, 7, 0)
    # An import, a fork (of the other account's army too), an example.
    doc = export_json(army, load_rows(s, army.id)).encode()
    copy = transfer.import_army(s, user=user, raw=doc)
    assert _agree(s, user) == (6, 14, 0)
    theirs = transfer.import_army(s, user=other, raw=doc)
    assert _agree(s, other) == (3, 7, 0)
    sharing.fork(s, user=user, source=theirs)
    assert _agree(s, user) == (9, 21, 0)
    examples.create_example(s, user=user, ruleset_id="brikwars")
    held = _agree(s, user)
    assert held[0] > 9
    # A restore rewrites the units that differ: back to the tank and the trooper, and forth.
    three_units = s.scalar(newest)
    history.restore(s, user=user, army_id=army.id, revision_id=two_units)
    assert _agree(s, user) == (held[0] - 1, held[1] - 3, 0)
    history.restore(s, user=user, army_id=army.id, revision_id=three_units)
    assert _agree(s, user) == held
    history.restore(s, user=user, army_id=army.id, revision_id=two_units)
    builder.delete_unit(s, user=user, army_id=army.id, unit_id=load_rows(s, army.id)[0].id)
    _agree(s, user)
    armies.delete_army(s, user=user, army_id=copy.id)
    assert _agree(s, user) == (held[0] - 5, held[1] - 13, 0)
    assert _agree(s, other) == (3, 7, 0)  # the fork took nothing of theirs
    # Battles: every entry counts against the battle's owner (an undo too); deleting gives back.
    blue = armies.create_army(s, user=user, name="Blue", ruleset_id="brikwars", budget=900)
    walker = builder.add_unit(s, user=user, army_id=blue.id, data=TROOPER)
    red = armies.create_army(s, user=user, name="Red 2", ruleset_id="brikwars", budget=900)
    builder.add_unit(s, user=user, army_id=red.id, data=TANK)
    battle = battles.create_battle(s, user=user, name="Ford", army_ids=[red.id, blue.id])
    view = battles.battle_view(s, user=user, battle_id=battle.id)
    attacker, target = view.sides[0].units[0].row.id, view.sides[1].units[0].row.id
    assert walker.id  # (the battle's own copies are the ones attacked)
    for seed in (1, 2, 3):
        battles.roll_attack(
            s,
            user=user,
            battle_id=battle.id,
            attacker_id=attacker,
            weapons=(0,),
            target_id=target,
            situation=TurnSituation(distance=Fraction(2)),
            seed=seed,
        )
    assert _agree(s, user)[2] == 3
    battles.undo_last(s, user=user, battle_id=battle.id)
    assert _agree(s, user)[2] == 4  # the log only grows: the undo is an entry of its own
    battles.delete_battle(s, user=user, battle_id=battle.id)
    assert _agree(s, user)[2] == 0


def test_units_past_the_limit_are_refused_naming_the_quota_before_anything_is_written(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = session
    _limit(monkeypatch, max_units_per_user=3)
    user = _user(s)
    army = armies.create_army(s, user=user, name="Red", ruleset_id="brikwars", budget=900)
    for _ in range(2):
        builder.add_unit(s, user=user, army_id=army.id, data=TROOPER)
    doc = export_json(army, load_rows(s, army.id)).encode()  # two units
    armies_before = s.scalar(select(func.count(Army.id)).where(Army.owner_id == user.id))
    with pytest.raises(QuotaExceeded) as refused:
        transfer.import_army(s, user=user, raw=doc)
    assert refused.value.field == "units"
    assert "an account may hold at most 3 units; it holds 2 and this would add 2" in str(
        refused.value
    )
    # Nothing of the import written: no army, no unit.
    assert s.scalar(select(func.count(Army.id)).where(Army.owner_id == user.id)) == armies_before
    assert _agree(s, user) == (2, 2, 0)
    builder.add_unit(s, user=user, army_id=army.id, data=TROOPER)
    for refuse in (
        lambda: builder.add_unit(s, user=user, army_id=army.id, data=TROOPER),
        lambda: builder.duplicate_unit(
            s, user=user, army_id=army.id, unit_id=load_rows(s, army.id)[0].id
        ),
        lambda: sharing.fork(s, user=user, source=army),
    ):
        with pytest.raises(QuotaExceeded, match="at most 3 units"):
            refuse()
        assert _agree(s, user) == (3, 3, 0)
    # Deleting a unit gives its place back.
    builder.delete_unit(s, user=user, army_id=army.id, unit_id=load_rows(s, army.id)[0].id)
    builder.add_unit(s, user=user, army_id=army.id, data=TROOPER)
    assert _agree(s, user) == (3, 3, 0)


def test_weapons_and_log_entries_past_their_limits_are_refused(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = session
    _limit(monkeypatch, max_weapons_per_user=4, max_log_entries_per_user=1)
    user = _user(s)
    red = armies.create_army(s, user=user, name="Red", ruleset_id="brikwars", budget=900)
    tank = builder.add_unit(s, user=user, army_id=red.id, data=TANK)
    blue = armies.create_army(s, user=user, name="Blue", ruleset_id="brikwars", budget=900)
    builder.add_unit(s, user=user, army_id=blue.id, data=TROOPER)
    with pytest.raises(QuotaExceeded) as refused:
        builder.add_weapon(
            s, user=user, army_id=red.id, unit_id=tank.id, data={"type": "hand_weapon"}
        )
    assert refused.value.field == "weapons" and "at most 4 weapons" in refused.value.reason
    with pytest.raises(QuotaExceeded, match="at most 4 weapons"):
        builder.add_unit(s, user=user, army_id=blue.id, data=TROOPER)
    assert _agree(s, user) == (2, 4, 0)

    battle = battles.create_battle(s, user=user, name="Ford", army_ids=[red.id, blue.id])
    view = battles.battle_view(s, user=user, battle_id=battle.id)
    attacker, target = view.sides[0].units[0].row.id, view.sides[1].units[0].row.id

    def attack() -> None:
        battles.roll_attack(
            s,
            user=user,
            battle_id=battle.id,
            attacker_id=attacker,
            weapons=(0,),
            target_id=target,
            situation=TurnSituation(distance=Fraction(2)),
            seed=1,
        )

    attack()
    with pytest.raises(QuotaExceeded) as refused:
        attack()
    assert refused.value.field == "entries"
    assert "at most 1 battle log entries" in refused.value.reason
    assert _agree(s, user) == (2, 4, 1)


def test_racing_adds_queue_on_the_account_and_none_passes_the_limit(  # type: ignore[no-untyped-def]
    app, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four units added at once to four armies of one account (no army lock in common), each
    in its own session and thread, with room for one: exactly one lands, the others are
    refused, and the counters still match."""
    _limit(monkeypatch, max_units_per_user=3)
    make = app.state.sessionmaker
    workers = 4
    with make() as s:
        user = _user(s)
        army_ids = [
            armies.create_army(s, user=user, name=f"A{n}", ruleset_id="brikwars", budget=900).id
            for n in range(workers)
        ]
        for _ in range(2):
            builder.add_unit(s, user=user, army_id=army_ids[0], data=TROOPER)
        s.commit()
        user_id = user.id
    barrier = threading.Barrier(workers)
    outcomes: list[str] = []

    def add_one(army_id: int) -> None:
        try:
            with make() as s:
                user = s.get(User, user_id)
                assert user is not None
                barrier.wait()
                builder.add_unit(s, user=user, army_id=army_id, data=TROOPER)
                s.commit()
            outcomes.append("landed")
        except QuotaExceeded as exc:
            outcomes.append(exc.field)
        except BaseException as exc:
            outcomes.append(repr(exc))

    threads = [threading.Thread(target=add_one, args=(army_id,)) for army_id in army_ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert sorted(outcomes) == ["landed", "units", "units", "units"]
    with make() as s:
        user = s.get(User, user_id)
        assert user is not None
        assert _agree(s, user) == (3, 3, 0)
