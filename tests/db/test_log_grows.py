"""Issue 31: a battle's log only grows (Undo is an entry of its own; rulings P20-P23) and an
action from a page that is behind is refused when a newer entry changed its units (P24)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from app.db.models import Battle, BattleEntry
from app.rules.errors import InvalidInput
from app.services import battles
from app.services.battles import log
from app.services.errors import Conflict
from app.services.permissions import SPECTATOR, Viewer, battle_viewer
from tests.db.test_battles import World, _attack, _battle, _user, _view


@pytest.fixture
def world(app) -> Iterator[World]:  # type: ignore[no-untyped-def]
    """A battle of the Host's: Red's Tank against Blue's Walker and Trooper."""
    with app.state.sessionmaker() as session:
        yield _battle(session, _user(session))
        session.rollback()


def _log(w: World) -> list[tuple[int, str, int | None]]:
    view = battles.battle_view(w.session, user=w.user, battle_id=w.battle_id, limit=None)
    return [(e.row.seq, e.row.kind, e.undone_by) for e in view.entries]


def _burn(w: World, **kw: object) -> BattleEntry:
    """The Trooper's Burning Roll: an action that changes the Trooper alone."""
    return battles.unit_action(
        w.session,
        user=w.user,
        battle_id=w.battle_id,
        unit_id=w.trooper,
        action="burning",
        seed=9,
        **kw,  # type: ignore[arg-type]
    )


def _set_on_fire(w: World) -> None:
    trooper = _view(w).unit(w.trooper).row
    trooper.state = {**trooper.state, "on_fire": True}
    w.session.flush()


def _crafted(w: World, kind: str, actor_id: int | None) -> BattleEntry:
    """An entry another part of the app writes (a player joining), or another player's."""
    battle = w.session.get(Battle, w.battle_id)
    assert battle is not None
    entry = BattleEntry(
        battle_id=w.battle_id,
        actor_id=actor_id,
        kind=kind,
        summary=f"a {kind}",
        request_json="{}",
        odds_json="null",
        dice_json="[]",
        changes_json="{}",
    )
    return log.append(w.session, battle, entry)


def _undo(w: World, **kw: object) -> BattleEntry:
    return battles.undo_last(w.session, user=w.user, battle_id=w.battle_id, **kw)  # type: ignore[arg-type]


def test_numbers_only_go_up_through_roll_undo_roll(world: World) -> None:
    w = world
    before = {u.row.id: dict(u.row.state) for u in _view(w).units}
    first = _attack(w, seed=3)
    undo = _undo(w)
    assert undo.kind == "undo" and undo.request == {"undoes": first.seq}
    assert undo.summary == f"Undo #1: {first.summary}"
    assert {u.row.id: dict(u.row.state) for u in _view(w).units} == before
    # the undo's changes are a real change: the units as they stood, then as they are again
    assert {int(k) for k in undo.changes} == {int(k) for k in first.changes}
    again = _attack(w, seed=3)
    assert [first.seq, undo.seq, again.seq] == [1, 2, 3]
    assert _log(w) == [(1, "attack", 2), (2, "undo", None), (3, "attack", None)]
    assert again.dice == first.dice  # (the same seed, the same units: the same roll)


def test_an_undone_entry_is_struck_through_in_the_forum_text(world: World) -> None:
    w = world
    first = _attack(w, seed=3)
    _undo(w)
    view = battles.battle_view(w.session, user=w.user, battle_id=w.battle_id, limit=None)
    text = battles.export_text(view)
    assert f"#1 attack (Host), seed 3 (undone by #2)\n[s]{first.summary}" in text
    assert "[/s]" in text and f"#2 undo (Host)\nUndo #1: {first.summary}" in text


def test_undos_walk_back_and_an_undo_is_not_undone(world: World) -> None:
    w = world
    _attack(w, seed=3)
    _attack(w, seed=4)
    assert _undo(w).request["undoes"] == 2
    assert _undo(w).request["undoes"] == 1  # the next Undo takes the newest that stands
    with pytest.raises(InvalidInput, match="nothing to undo"):
        _undo(w)
    with pytest.raises(InvalidInput) as err:
        _undo(w, seq=3)  # an undo: no redo (P21)
    assert err.value.field == "seq" and "an undo is not undone" in err.value.reason
    with pytest.raises(InvalidInput) as err:
        _undo(w, seq=1)
    assert err.value.field == "seq" and "already undone by #4" in err.value.reason
    with pytest.raises(InvalidInput, match="no entry #99"):
        _undo(w, seq=99)
    assert _log(w) == [(1, "attack", 4), (2, "attack", 3), (3, "undo", None), (4, "undo", None)]


def test_a_join_is_not_undone(world: World) -> None:
    w = world
    _attack(w, seed=3)
    join = _crafted(w, "join", w.user.id)
    assert _view(w).undo_seq == 1  # the button passes the join by
    with pytest.raises(InvalidInput, match="a join"):
        _undo(w, seq=join.seq)
    assert _undo(w).request["undoes"] == 1
    assert _log(w) == [(1, "attack", 3), (2, "join", None), (3, "undo", None)]


def test_only_the_entrys_author_or_the_host_may_undo_it(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = world
    battle = w.session.get(Battle, w.battle_id)
    assert battle is not None
    olga = _user(w.session, "Olga")
    hers = _crafted(w, "attack", olga.id)
    mine = _crafted(w, "attack", w.user.id)
    host, player = Viewer("host"), Viewer("player", frozenset({1}))
    assert battle_viewer(w.session, user=w.user, battle_id=w.battle_id) == host
    assert log.is_host(host) and not log.is_host(player) and not log.is_host(SPECTATOR)
    assert log.may_undo(player, olga.id, hers) and not log.may_undo(player, olga.id, mine)
    assert log.may_undo(host, w.user.id, hers) and log.may_undo(host, w.user.id, mine)
    nobody = _crafted(w, "attack", None)  # (a deleted account's entry: the host's to undo)
    assert not log.may_undo(player, olga.id, nobody) and log.may_undo(host, w.user.id, nobody)
    assert not log.may_undo(SPECTATOR, None, nobody)
    # The service asks may_undo: were the owner a player and not the host, Olga's entry
    # would not be theirs to undo, and their own still would.
    monkeypatch.setattr(log, "is_host", lambda viewer: False)
    with pytest.raises(InvalidInput, match="another player's"):
        _undo(w, seq=hers.seq)
    assert _undo(w, seq=mine.seq).request["undoes"] == mine.seq
    assert hers.undone_by_seq is None


def test_a_later_entry_on_the_same_units_blocks_undoing_an_earlier_one(world: World) -> None:
    w = world
    _set_on_fire(w)
    first = _attack(w, seed=3)  # the Tank and the Walker
    walker_after = dict(_view(w).unit(w.walker).row.state)
    trooper_before = dict(_view(w).unit(w.trooper).row.state)
    burn = _burn(w)  # the Trooper alone
    trooper_after = dict(_view(w).unit(w.trooper).row.state)
    assert trooper_after != trooper_before
    second = _attack(w, seed=4)  # the Tank and the Walker again
    with pytest.raises(InvalidInput) as err:
        _undo(w, seq=first.seq)
    assert err.value.field == "seq"
    assert err.value.reason == "#3 changed the same units since #1: undo #3 first"
    # the Burning Roll shares no unit with the later attack: it is undone on its own
    undo = _undo(w, seq=burn.seq)
    assert undo.request["undoes"] == burn.seq and set(undo.changes) == {str(w.trooper)}
    assert dict(_view(w).unit(w.trooper).row.state) == trooper_before
    _undo(w, seq=second.seq)
    assert dict(_view(w).unit(w.walker).row.state) == walker_after
    assert _undo(w, seq=first.seq).request["undoes"] == first.seq


def test_in_an_ended_battle_only_the_end_is_undone_and_that_reopens_it(world: World) -> None:
    w = world
    _attack(w, seed=3)
    end = battles.end_battle(w.session, user=w.user, battle_id=w.battle_id)
    with pytest.raises(InvalidInput, match="undo its End battle entry first"):
        _undo(w, seq=1)
    undo = _undo(w)
    assert undo.request == {"undoes": end.seq, "status": {"before": "ended", "after": "open"}}
    assert not _view(w).ended and _log(w)[-2:] == [(2, "end", 3), (3, "undo", None)]


def test_a_stale_action_on_changed_units_is_a_conflict_naming_the_entry(world: World) -> None:
    w = world
    _set_on_fire(w)
    _attack(w, seed=3)  # #1: what the page showed
    olga = _user(w.session, "Olga")
    newer = _attack(w, seed=4)
    newer.actor_id = olga.id  # (another player's roll, as issue 31's sides will write it)
    w.session.flush()
    with pytest.raises(Conflict) as err:
        _attack(w, seed=5, seen=1)
    assert (err.value.entry, err.value.by, err.value.field) == (2, "Olga", "seen")
    assert str(err.value) == (
        "Olga rolled #2 on Tank, Walker since you loaded this page: "
        "check the new odds and roll again"
    )
    with pytest.raises(Conflict, match="Olga rolled #2 on Tank since"):
        battles.unit_action(
            w.session, user=w.user, battle_id=w.battle_id, unit_id=w.tank, action="divert", seen=1
        )
    # nothing was logged; the Trooper did not change since #1: its action applies
    assert _burn(w, seen=1).seq == 3
    assert _attack(w, seed=5, seen=3).seq == 4  # (up to date) and without seen as ever
    assert _attack(w, seed=6).seq == 5


def test_a_stale_action_after_an_undo_names_the_undo(world: World) -> None:
    w = world
    _attack(w, seed=3)
    _undo(w)
    with pytest.raises(Conflict, match=r"^Host undid #1 with #2 on Tank, Walker since") as err:
        _attack(w, seed=4, seen=1)
    assert err.value.entry == 2
    with pytest.raises(Conflict) as err:
        _undo(w, seq=1, seen=1)  # the page did not know it was undone: a 409, not a 422
    assert err.value.entry == 2 and "undid #1 with #2 since you loaded" in str(err.value)


def test_an_undo_entry_keeps_its_json(world: World) -> None:
    w = world
    _attack(w, seed=3)
    undo = _undo(w)
    row = w.session.scalar(select(BattleEntry).where(BattleEntry.id == undo.id))
    assert row is not None and json.loads(row.request_json) == {"undoes": 1}
    assert row.actor_id == w.user.id and row.seed is None and row.dice == []
