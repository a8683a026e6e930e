"""Battles: state carried between attacks, undo, refusals, seeds, the stored odds, races."""

from __future__ import annotations

import itertools
import random
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from fractions import Fraction

import pytest
from sqlalchemy import delete, func, select, text, update
from sqlalchemy.orm import Session

from app.db.models import Army, Battle, BattleEntry, BattleUnit, User
from app.rules.brikwars import battles as codec
from app.rules.brikwars import unit_from_dict
from app.rules.brikwars.battle_state import UnitState
from app.rules.brikwars.turn import Turn, TurnSituation
from app.rules.errors import InvalidInput
from app.services import armies, battles, builder
from app.services.errors import InvalidField, NotFound

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
WALKER = {
    "name": "Walker",
    "size": 3,
    "structure_level": 3,
    "weapons": [{"type": "gun", "size": 2}],
}
TROOPER = {"name": "Trooper", "kind": "minifig"}
NEAR = TurnSituation(distance=Fraction(2))


@dataclass
class World:
    session: Session
    user: User
    battle_id: int
    tank: int
    walker: int
    trooper: int


def _user(session: Session, name: str = "Host") -> User:
    user = User(
        email=f"{name.lower()}{next(_ids)}@example.com", display_name=name, password_hash="x"
    )
    session.add(user)
    session.flush()
    return user


def _battle(session: Session, user: User, walker: dict = WALKER) -> World:  # type: ignore[type-arg]
    red = armies.create_army(session, user=user, name="Red", ruleset_id="brikwars", budget=900)
    blue = armies.create_army(session, user=user, name="Blue", ruleset_id="brikwars", budget=900)
    builder.add_unit(session, user=user, army_id=red.id, data=TANK)
    builder.add_unit(session, user=user, army_id=blue.id, data=walker)
    builder.add_unit(session, user=user, army_id=blue.id, data=TROOPER)
    battle = battles.create_battle(session, user=user, name="Ford", army_ids=[red.id, blue.id])
    ids = {
        u.name: u.id
        for u in session.scalars(select(BattleUnit).where(BattleUnit.battle_id == battle.id))
    }
    return World(session, user, battle.id, ids["Tank"], ids["Walker"], ids["Trooper"])


@pytest.fixture
def world(app) -> Iterator[World]:  # type: ignore[no-untyped-def]
    with app.state.sessionmaker() as session:
        yield _battle(session, _user(session))
        session.rollback()


def _view(w: World) -> battles.BattleView:
    return battles.battle_view(w.session, user=w.user, battle_id=w.battle_id)


def _attack(w: World, weapons=(0,), seed: int = 1, target=None, situation=NEAR, **kw):  # type: ignore[no-untyped-def]
    return battles.roll_attack(
        w.session,
        user=w.user,
        battle_id=w.battle_id,
        attacker_id=w.tank,
        weapons=tuple(weapons),
        target_id=target or w.walker,
        situation=situation,
        seed=seed,
        **kw,
    )


def _seed_where(w: World, predicate, weapons=(0,), situation=NEAR) -> int:  # type: ignore[no-untyped-def]
    """A seed whose roll against the walker as it stands does what we want."""
    view = _view(w)
    turn = Turn(view.unit(w.tank).spec, tuple(weapons), view.unit(w.walker).spec, situation)
    for seed in range(2000):
        if predicate(turn.roll(random.Random(seed))):
            return seed
    raise AssertionError("no such seed")


def _entries(w: World) -> int:
    return w.session.scalar(
        select(func.count()).select_from(BattleEntry).where(BattleEntry.battle_id == w.battle_id)
    )


def test_units_are_copies_with_their_armies_as_sides(world: World) -> None:
    view = _view(world)
    assert [s.name for s in view.sides] == ["Red", "Blue"]
    assert [u.row.name for u in view.sides[1].units] == ["Walker", "Trooper"]
    walker = view.unit(world.walker)
    assert tuple(walker.cells[k] for k in ("size", "armour", "power")) == ('3"', "3d10", '6"')


def test_a_creation_that_lost_size_has_less_power_and_weaker_armour_next_time(world: World) -> None:
    seed = _seed_where(world, lambda r: r.lines[0].effects[0].outcome == "size_damage")
    before = battles.attack_odds(
        world.session,
        user=world.user,
        battle_id=world.battle_id,
        attacker_id=world.tank,
        weapons=(0,),
        target_id=world.walker,
        situation=NEAR,
    ).odds["lines"][0]["targets"][0]
    entry = _attack(world, seed=seed)
    assert "Walker attacks" not in entry.summary and "Size Damage" in entry.summary
    walker = _view(world).unit(world.walker)
    assert walker.state.size_damage == 1 and walker.cells["effective_size"] == '2"'
    assert walker.cells["armour"] == "2d10" and walker.cells["power"] == '4"'
    after = battles.attack_odds(
        world.session,
        user=world.user,
        battle_id=world.battle_id,
        attacker_id=world.tank,
        weapons=(0,),
        target_id=world.walker,
        situation=NEAR,
    ).odds["lines"][0]["targets"][0]
    assert after["miss"] == pytest.approx(before["miss"])  # same Action roll...
    assert after["size_damage"] > before["size_damage"]  # ...against fewer Armour dice
    # and the Walker's own 2" Gun still fits its 4" of Power
    odds = battles.attack_odds(
        world.session,
        user=world.user,
        battle_id=world.battle_id,
        attacker_id=world.walker,
        weapons=(0,),
        target_id=world.tank,
        situation=NEAR,
    )
    assert odds.attacker.cells["power"] == '4"'


def test_the_stored_odds_are_the_engines_and_the_same_seed_gives_the_same_dice(
    world: World,
) -> None:
    view = _view(world)
    entry = _attack(world, weapons=(0, 1), seed=42)
    turn = Turn(view.unit(world.tank).spec, (0, 1), view.unit(world.walker).spec, NEAR)
    expected = codec.odds_to_dict(turn.odds(), [(world.walker, "Walker")])
    assert entry.odds == expected
    rolled = codec.roll_to_dict(turn.roll(random.Random(42)), [(world.walker, "Walker")])
    assert entry.dice == rolled
    assert entry.seed == 42 and entry.seq == 1 and entry.kind == "attack"
    assert all(d["purpose"] and d["sides"] for line in entry.dice for d in line["dice"])


def test_undo_restores_the_state_before_the_last_entry(world: World) -> None:
    seed = _seed_where(world, lambda r: r.lines[0].effects[0].outcome == "size_damage")
    _attack(world, seed=seed)
    _attack(world, seed=seed)  # the Walker at 2": Size Damage again, or not
    second = _view(world).unit(world.walker).state
    undo = battles.undo_last(world.session, user=world.user, battle_id=world.battle_id)
    walker = _view(world).unit(world.walker)
    # the log only grows: the undo is entry #3, the second roll stays, marked undone by it
    assert walker.state.size_damage == 1 and _entries(world) == 3
    assert undo.kind == "undo" and undo.seq == 3 and undo.request == {"undoes": 2}
    assert [e.undone_by for e in _view(world).entries] == [None, 3, None]
    assert second != walker.state or second.size_damage == 1
    battles.undo_last(world.session, user=world.user, battle_id=world.battle_id)
    assert _view(world).unit(world.walker).state.size_damage == 0
    assert _view(world).unit(world.tank).state.inoperative == frozenset()
    assert [e.undone_by for e in _view(world).entries] == [4, 3, None, None]
    with pytest.raises(InvalidInput, match="nothing to undo"):
        battles.undo_last(world.session, user=world.user, battle_id=world.battle_id)


@pytest.mark.parametrize(
    ("kw", "field", "words"),
    [
        ({"weapons": (7,)}, "weapons", "no weapon 8"),
        ({"target": 10**9}, "target_id", "not a unit of this battle"),
        ({"situation": TurnSituation(divert_turns=1)}, "divert_turns", "Divert All Power first"),
        ({"weapons": (0, 1, 2), "situation": TurnSituation(combined=True)}, "weapons", "Power"),
        ({"followers": [(10**9, Fraction(1), 0)], "weapons": (1,)}, "followers", "not a unit"),
        ({"followers": [("trooper", Fraction(-1), 0)], "weapons": (1,)}, "followers", "at least 0"),
    ],
)
def test_refusals_log_nothing(world: World, kw: dict, field: str, words: str) -> None:  # type: ignore[type-arg]
    if kw.get("followers") and kw["followers"][0][0] == "trooper":
        kw["followers"] = [(world.trooper, *kw["followers"][0][1:])]
    with pytest.raises(InvalidInput) as refused:
        _attack(world, **kw)
    assert refused.value.field == field and words in refused.value.reason
    assert _entries(world) == 0


def test_a_destroyed_unit_neither_attacks_nor_is_attacked(world: World) -> None:
    trooper = world.session.get(BattleUnit, world.trooper)
    trooper.state = {**trooper.state, "destroyed": True}
    world.session.flush()
    with pytest.raises(InvalidInput, match="Trooper is destroyed"):
        _attack(world, target=world.trooper)
    with pytest.raises(InvalidInput, match="Trooper is destroyed"):
        battles.roll_attack(
            world.session,
            user=world.user,
            battle_id=world.battle_id,
            attacker_id=world.trooper,
            weapons=(),
            target_id=world.tank,
            situation=NEAR,
        )
    assert _entries(world) == 0


def test_a_jammed_gun_refuses_until_reloaded(world: World) -> None:
    burst = TurnSituation(distance=Fraction(2), burst=4)
    seed = _seed_where(world, lambda r: r.jammed == (1,), weapons=(1,), situation=burst)
    entry = _attack(world, weapons=(1,), seed=seed, situation=burst)
    assert "jammed" in entry.summary
    assert _view(world).unit(world.tank).badges == ['2" MachineGun Inoperative']
    with pytest.raises(InvalidInput, match="Inoperative until Reloaded"):
        _attack(world, weapons=(1,))
    reload = battles.unit_action(
        world.session,
        user=world.user,
        battle_id=world.battle_id,
        unit_id=world.tank,
        action="reload",
    )
    assert reload.kind == "reload" and "Reloads" in reload.summary
    _attack(world, weapons=(1,), seed=3)  # fires again
    assert _entries(world) == 3


def test_a_fired_cannon_needs_a_reload(world: World) -> None:
    _attack(world, weapons=(2,), seed=5, situation=TurnSituation(distance=Fraction(6)))
    with pytest.raises(InvalidInput, match="Inoperative until Reloaded"):
        _attack(world, weapons=(2,))


def test_diverted_power_lets_a_too_big_weapon_fire_once(world: World) -> None:
    # the Walker loses 2" of Size: Power 2", its 2" Gun still fits; the Tank is whole.
    for _ in range(2):
        battles.unit_action(
            world.session,
            user=world.user,
            battle_id=world.battle_id,
            unit_id=world.tank,
            action="divert",
        )
    tank = _view(world).unit(world.tank)
    assert tank.state.diverted_turns == 2 and "2 turns of Power saved" in tank.badges
    _attack(world, situation=TurnSituation(distance=Fraction(2), divert_turns=2))
    assert _view(world).unit(world.tank).state.diverted_turns == 0


def test_homing_in_builds_up_on_the_same_target(world: World) -> None:
    support = TurnSituation(distance=Fraction(2), gunnery_support=1)
    seed = _seed_where(world, lambda r: not r.critical_failure, situation=support)
    _attack(world, seed=seed, situation=support)
    tank = _view(world).unit(world.tank)
    assert (tank.state.homing_in, tank.state.homed_on) == (1, world.walker)
    preview = battles.attack_odds(
        world.session,
        user=world.user,
        battle_id=world.battle_id,
        attacker_id=world.tank,
        weapons=(0,),
        target_id=world.walker,
        situation=support,
    )
    assert preview.homing_in == 1
    entry = _attack(world, seed=seed, situation=support)
    assert entry.request["situation"]["homing_in"] == 1
    moved = battles.attack_odds(
        world.session,
        user=world.user,
        battle_id=world.battle_id,
        attacker_id=world.tank,
        weapons=(0,),
        target_id=world.walker,
        situation=support,
        moved=True,
    )
    assert moved.homing_in == 0


def test_burning_roll_is_seeded_and_logged(world: World) -> None:
    trooper = world.session.get(BattleUnit, world.trooper)
    trooper.state = {**trooper.state, "on_fire": True}
    world.session.flush()
    first = battles.unit_action(
        world.session,
        user=world.user,
        battle_id=world.battle_id,
        unit_id=world.trooper,
        action="burning",
        seed=9,
    )
    natural = first.dice[0]["dice"][0]["natural"]
    assert first.kind == "burning" and f"d4 {natural}" in first.summary
    battles.undo_last(world.session, user=world.user, battle_id=world.battle_id)
    again = battles.unit_action(
        world.session,
        user=world.user,
        battle_id=world.battle_id,
        unit_id=world.trooper,
        action="burning",
        seed=9,
    )
    assert again.dice == first.dice and again.seq == 3  # (#2: the undo of #1)


def test_another_users_battle_is_not_found(world: World) -> None:
    other = _user(world.session, "Mallory")
    with pytest.raises(NotFound):
        battles.battle_view(world.session, user=other, battle_id=world.battle_id)
    with pytest.raises(NotFound):
        _attack(
            World(world.session, other, world.battle_id, world.tank, world.walker, world.trooper)
        )


def test_creating_a_battle_needs_readable_armies_and_two_units(world: World) -> None:
    other = _user(world.session, "Mallory")
    mine = armies.create_army(
        world.session, user=other, name="Mine", ruleset_id="brikwars", budget=9
    )
    red = _view(world).unit(world.tank).row.army_id
    with pytest.raises(NotFound):
        battles.create_battle(world.session, user=other, name="x", army_ids=[mine.id, red])
    with pytest.raises(InvalidInput, match="two or more armies"):
        battles.create_battle(world.session, user=world.user, name="x", army_ids=[red])
    tank_unit = _view(world).unit(world.tank).row.unit_id
    with pytest.raises(InvalidInput, match="at least two units"):
        battles.create_battle(
            world.session, user=world.user, name="x", army_ids=[red], unit_ids=[tank_unit]
        )


def test_later_roster_edits_do_not_rewrite_the_battle(world: World) -> None:
    row = _view(world).unit(world.walker).row
    unit = builder.army_view(world.session, user=world.user, army_id=row.army_id).unit(row.unit_id)
    builder.update_unit(
        world.session,
        user=world.user,
        army_id=row.army_id,
        unit_id=row.unit_id,
        data={"size": 9},
        expected_version=unit.row.version,
    )
    assert _view(world).unit(world.walker).cells["size"] == '3"'
    assert unit_from_dict(row.spec).built_size == 3


def test_export_text_has_every_die(world: World) -> None:
    entry = _attack(world, seed=11)
    text = battles.export_text(_view(world))
    assert "Battle: Ford" in text and entry.summary in text
    for die in entry.dice[0]["dice"]:
        assert f"{die['purpose']}: d{die['sides']} {die['natural']}" in text


def test_share_link_and_revoke(world: World) -> None:
    token = battles.share_link(world.session, user=world.user, battle_id=world.battle_id)
    assert battles.linked_view(world.session, token=token).battle.id == world.battle_id
    battles.revoke_link(world.session, user=world.user, battle_id=world.battle_id)
    with pytest.raises(NotFound):
        battles.linked_view(world.session, token=token)


def test_concurrent_rolls_are_all_logged_in_order(app) -> None:  # type: ignore[no-untyped-def]
    """Several players roll in one battle at once, each in their own session and thread:
    every roll is logged with its own number, none lost (on whichever database runs)."""
    make = app.state.sessionmaker
    with make() as session:
        host = _user(session)
        # a Walker too big to be destroyed by a dozen shots (1" of Size Damage a hit)
        w = _battle(session, host, walker=WALKER | {"size": 30, "structure_level": 5})
        session.commit()
        ids = (host.id, w.battle_id, w.tank, w.walker, w.trooper)
    workers, rolls_each = 4, 3
    barrier = threading.Barrier(workers)
    errors: list[BaseException] = []

    def play(n: int) -> None:
        try:
            barrier.wait()
            for k in range(rolls_each):
                with make() as s:
                    user = s.get(User, ids[0])
                    battles.roll_attack(
                        s,
                        user=user,
                        battle_id=ids[1],
                        attacker_id=ids[2],
                        weapons=(0,),
                        target_id=ids[3],
                        situation=NEAR,
                        seed=n * 100 + k,
                    )
                    s.commit()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(n,)) for n in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    with make() as s:
        seqs = list(
            s.scalars(
                select(BattleEntry.seq)
                .where(BattleEntry.battle_id == ids[1])
                .order_by(BattleEntry.seq)
            )
        )
        seeds = set(s.scalars(select(BattleEntry.seed).where(BattleEntry.battle_id == ids[1])))
        chain = [
            e.changes[str(ids[3])]
            for e in s.scalars(
                select(BattleEntry).where(BattleEntry.battle_id == ids[1]).order_by(BattleEntry.seq)
            )
        ]
        walker = s.get(BattleUnit, ids[3])
    # each roll saw the state the previous one left: no update was lost
    for earlier, later in itertools.pairwise(chain):
        assert later["before"] == earlier["after"]
    assert chain[-1]["after"] == walker.state
    assert seqs == list(range(1, workers * rolls_each + 1))
    assert seeds == {n * 100 + k for n in range(workers) for k in range(rolls_each)}


def test_a_battle_of_two_saved_units_then_a_roll(world: World) -> None:
    """What the calculator's "Roll it!" calls: a battle of two saved units, then roll_attack."""
    red = _view(world).unit(world.tank).row
    blue = _view(world).unit(world.walker).row
    assert red.army_id and red.unit_id and blue.army_id and blue.unit_id
    duel = battles.create_battle(
        world.session,
        user=world.user,
        name="Calculator duel",
        army_ids=[red.army_id, blue.army_id],
        unit_ids=[red.unit_id, blue.unit_id],
    )
    ids = battles.battle_unit_ids(world.session, duel.id)
    entry = battles.roll_attack(
        world.session,
        user=world.user,
        battle_id=duel.id,
        attacker_id=ids[red.unit_id],
        weapons=(0,),
        target_id=ids[blue.unit_id],
        situation=NEAR,
        seed=1,
    )
    assert entry.seq == 1 and entry.summary.startswith("Tank attacks Walker")
    trooper = _view(world).unit(world.trooper).row
    assert trooper.army_id and trooper.unit_id
    same_army = battles.create_battle(
        world.session,
        user=world.user,
        name="Sparring",
        army_ids=[blue.army_id],
        unit_ids=[blue.unit_id, trooper.unit_id],
    )
    view = battles.battle_view(world.session, user=world.user, battle_id=same_army.id)
    assert [u.row.name for u in view.units] == ["Walker", "Trooper"]


def test_a_battle_takes_its_armies_ruleset_and_refuses_a_mix(world: World) -> None:
    """All armies of a battle share one ruleset, the battle's; a mix is a 422 on army_ids."""
    battle = world.session.get(Battle, world.battle_id)
    assert battle is not None and battle.ruleset_id == "brikwars"
    red = _view(world).unit(world.tank).row
    other = Army(owner_id=world.user.id, name="Legion", ruleset_id="degrees", budget=10)
    world.session.add(other)
    world.session.flush()
    before = world.session.scalar(select(func.count()).select_from(Battle))
    with pytest.raises(InvalidField) as refused:
        battles.create_battle(
            world.session, user=world.user, name="Mixed", army_ids=[red.army_id, other.id]
        )
    assert refused.value.field == "army_ids" and "one ruleset" in refused.value.reason
    assert "“Legion” degrees" in refused.value.reason
    assert world.session.scalar(select(func.count()).select_from(Battle)) == before


def test_a_new_battle_unit_starts_with_a_fresh_state(world: World) -> None:
    row = world.session.get(BattleUnit, world.walker)
    assert row is not None and row.state == UnitState().to_dict()


def test_a_deleted_battle_takes_its_units_and_log_with_it(world: World) -> None:
    """Units' state names other units by plain id (no foreign key): deleting still cascades."""
    _attack(world, situation=replace(NEAR, gunnery_support=1))
    tank = world.session.get(BattleUnit, world.tank)
    assert tank is not None and tank.state["homed_on"] == world.walker
    world.session.execute(delete(Battle).where(Battle.id == world.battle_id))
    world.session.expire_all()
    left = [
        world.session.scalar(
            select(func.count()).select_from(t).where(t.battle_id == world.battle_id)
        )
        for t in (BattleUnit, BattleEntry)
    ]
    assert left == [0, 0]


def test_armies_of_the_same_name_are_separate_sides(world: World) -> None:
    one = armies.create_army(
        world.session, user=world.user, name="Orcs", ruleset_id="brikwars", budget=50
    )
    two = armies.create_army(
        world.session, user=world.user, name="Orcs", ruleset_id="brikwars", budget=50
    )
    for army in (one, two):
        builder.add_unit(world.session, user=world.user, army_id=army.id, data=TROOPER)
    battle = battles.create_battle(
        world.session, user=world.user, name="Mirror", army_ids=[one.id, two.id]
    )
    view = battles.battle_view(world.session, user=world.user, battle_id=battle.id)
    assert [s.name for s in view.sides] == ["Orcs", "Orcs (2)"]


def test_a_target_in_another_battle_is_refused(world: World) -> None:
    """A real unit of the user's other battle is not a target here; nothing is logged."""
    other = _battle(world.session, world.user)
    with pytest.raises(InvalidInput) as refused:
        _attack(world, target=other.walker)
    assert refused.value.field == "target_id"
    assert "not a unit of this battle" in refused.value.reason
    assert _entries(world) == 0 and _entries(other) == 0


def _committed_world(app) -> tuple[World, int]:  # type: ignore[no-untyped-def]
    with app.state.sessionmaker() as session:
        host = _user(session)
        w = _battle(session, host)
        session.commit()
        return w, host.id


def _bump_elsewhere(app, battle_id: int) -> None:  # type: ignore[no-untyped-def]
    """Another player's action on the battle: its row (and on SQLite the database) locked
    for writing, given 0.3 s to get the lock."""
    with app.state.sessionmaker() as other:
        if other.bind.dialect.name == "sqlite":
            other.execute(text("PRAGMA busy_timeout = 300"))
        else:
            other.execute(text("SET LOCAL lock_timeout = '300ms'"))
        try:
            other.execute(
                update(Battle).where(Battle.id == battle_id).values(version=Battle.version + 1)
            )
            other.commit()
        finally:
            if other.bind.dialect.name == "sqlite":
                other.execute(text("PRAGMA busy_timeout = 15000"))


def test_the_odds_are_computed_with_the_battle_unlocked(app, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A heavy turn's odds take up to the calculation deadline: meanwhile other actions on
    the battle (on SQLite, any write at all) go ahead. Before, they waited for the lock."""
    w, host_id = _committed_world(app)
    from app.services.battles import attacks as battle_attacks

    real = battle_attacks._odds
    calls: list[str] = []

    # The odds step, in the request (a small attack) or in the workers (a heavy one).
    def odds(made):  # type: ignore[no-untyped-def]
        calls.append("odds")
        _bump_elsewhere(app, w.battle_id)  # raised "database is locked" / lock timeout
        return real(made)

    monkeypatch.setattr(battle_attacks, "_odds", odds)
    with app.state.sessionmaker() as s:
        entry = battles.roll_attack(
            s,
            user=s.get(User, host_id),
            battle_id=w.battle_id,
            attacker_id=w.tank,
            weapons=(0,),
            target_id=w.walker,
            situation=NEAR,
            seed=3,
        )
        s.commit()
    assert calls == ["odds"]  # nothing changed the turn: computed once
    assert entry.seq == 1


@pytest.mark.parametrize("elsewhere", [False, True])
def test_under_the_lock_the_units_are_read_again_only_if_the_battle_changed(  # type: ignore[no-untyped-def]
    app, monkeypatch, elsewhere: bool
) -> None:
    """The locked part of a roll is short: when nothing changed the battle since its units
    were read (its version moved by our lock alone), the attack prepared before the lock is
    rolled as it is; a change elsewhere has it prepared again from what is committed."""
    w, host_id = _committed_world(app)
    from app.services.battles import attacks as battle_attacks

    real_prepare, real_odds = battle_attacks._prepare, battle_attacks._odds
    prepared: list[int] = []

    def prepare(*args, **kwargs):  # type: ignore[no-untyped-def]
        prepared.append(1)
        return real_prepare(*args, **kwargs)

    def odds(made):  # type: ignore[no-untyped-def]
        if elsewhere:
            _bump_elsewhere(app, w.battle_id)
        return real_odds(made)

    monkeypatch.setattr(battle_attacks, "_prepare", prepare)
    monkeypatch.setattr(battle_attacks, "_odds", odds)
    with app.state.sessionmaker() as s:
        entry = _attack(replace(w, session=s, user=s.get(User, host_id)), seed=3)
        s.commit()
    assert len(prepared) == (2 if elsewhere else 1)
    assert entry.seq == 1
    # the roll's effects were written on the rows it read, and are what it logged
    with app.state.sessionmaker() as s:
        view = battles.battle_view(s, user=s.get(User, host_id), battle_id=w.battle_id)
        assert [e.row.seq for e in view.entries] == [1]
        for unit_id, change in entry.changes.items():
            stored = view.unit(int(unit_id)).row.state
            assert stored == change["after"], unit_id


def test_a_turn_changed_while_its_odds_were_computed_is_computed_again(app, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Another roll damages the target while this roll's odds are computed: the roll sees
    the damaged target, and its stored odds are the damaged target's."""
    w, host_id = _committed_world(app)
    with app.state.sessionmaker() as s:
        seed = _seed_where(
            replace(w, session=s, user=s.get(User, host_id)),
            lambda r: r.lines[0].effects[0].outcome == "size_damage",
        )
    from app.services.battles import attacks as battle_attacks

    real = battle_attacks._odds
    results: list[object] = []

    def odds(made):  # type: ignore[no-untyped-def]
        if not results:  # the other player's roll lands first
            results.append(real(made))
            with app.state.sessionmaker() as other:
                user = other.get(User, host_id)
                _attack(replace(w, session=other, user=user), seed=seed)
                other.commit()
            return results[0]
        results.append(real(made))
        return results[-1]

    monkeypatch.setattr(battle_attacks, "_odds", odds)
    with app.state.sessionmaker() as s:
        user = s.get(User, host_id)
        entry = _attack(replace(w, session=s, user=user), seed=5)
        s.commit()
    # ours computed ahead, the other roll's, then ours again against the damaged Walker
    assert len(results) == 3
    assert entry.seq == 2
    assert entry.changes[str(w.walker)]["before"]["size_damage"] == 1
    names = [(w.walker, "Walker")]
    assert entry.odds == codec.odds_to_dict(results[2], names)  # type: ignore[arg-type]
    assert entry.odds != codec.odds_to_dict(results[0], names)  # type: ignore[arg-type]


def test_the_battles_package_modules_import_one_another_without_a_cycle() -> None:
    """Views, codec, text, log, attacks... each imports only modules below it."""
    import ast
    from pathlib import Path

    import app.services.battles as package

    folder = Path(package.__file__).parent
    modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    prefix = "app.services.battles"
    graph: dict[str, set[str]] = {}
    for name in modules:
        found: set[str] = set()
        for node in ast.walk(ast.parse((folder / f"{name}.py").read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == prefix:
                found |= {alias.name for alias in node.names} & modules
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(prefix + "."):
                found.add(node.module.removeprefix(prefix + "."))  # type: ignore[union-attr]
        graph[name] = found
    assert graph["views"] == set() and graph["codec"] == set() and graph["text"] == {"views"}

    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"import cycle: {' -> '.join((*path, name))}"
        if name not in done:
            for other in graph[name]:
                visit(other, (*path, name))
            done.add(name)

    for name in sorted(graph):
        visit(name, ())
