"""Turns and the score (issue 31 deliverable 4; rulings P30-P34): free or by turns, End turn
in order (wrapping into a new round, skipping a side wiped out), the rulesets' resets at their
own boundary and their exact undo, out-of-turn refusals naming the field, the score, and who
is connected."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from fractions import Fraction
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.base import utcnow
from app.db.models import BattlePresence, BattleSide, BattleUnit, User
from app.rules.brikwars.turn import TurnSituation
from app.rules.errors import InvalidInput
from app.rules.registry import get_ruleset
from app.services import armies, battles, builder, presence
from app.services.errors import Conflict, Forbidden

_ids = itertools.count(1)
NEAR = TurnSituation(distance=Fraction(2))
TANK = {"name": "Tank", "size": 4, "structure_level": 2, "weapons": [{"type": "gun", "size": 3}]}
SCOUT = {"name": "Scout", "kind": "minifig", "weapons": [{"type": "short_ranged_weapon"}]}
CHRONO = {
    "name": "Chrono",
    "shot": 7,
    "pd": 14,
    "evasion": 6,
    "dexterity": 4,
    "cp": 2,
    "weapons": [{"type": "gun", "name": "Psy pistol", "reach": 30, "power": 5}],
}
SIMO = {"name": "Simo", "kind": "personnel", "degree": 3, "weapons": [{"type": "rifle"}]}


def _user(session: Session, name: str) -> User:
    user = User(
        email=f"{name.lower()}{next(_ids)}@example.com", display_name=name, password_hash="x"
    )
    session.add(user)
    session.flush()
    return user


def _army(session: Session, user: User, name: str, ruleset: str, *units: dict[str, Any]) -> int:
    army = armies.create_army(session, user=user, name=name, ruleset_id=ruleset, budget=900)
    for unit in units:
        builder.add_unit(session, user=user, army_id=army.id, data=unit)
    return army.id


@dataclass
class Game:
    session: Session
    host: User
    player: User
    battle_id: int
    sides: dict[str, int]  # side id by name
    units: dict[str, int]  # battle unit id by "Side/Name"

    def state(self, name: str) -> dict[str, Any]:
        row = self.session.get(BattleUnit, self.units[name])
        assert row is not None
        self.session.refresh(row)
        return dict(row.state)

    def set_state(self, name: str, **values: Any) -> None:
        row = self.session.get(BattleUnit, self.units[name])
        assert row is not None
        row.state = {**row.state, **values}
        self.session.flush()

    def view(self, user: User | None = None) -> battles.BattleView:
        return battles.battle_view(self.session, user=user or self.host, battle_id=self.battle_id)

    def end_turn(self, user: User | None = None, **kw: Any) -> Any:
        return battles.end_turn(
            self.session, user=user or self.host, battle_id=self.battle_id, **kw
        )

    def mode(self, mode: str, user: User | None = None) -> Any:
        return battles.set_mode(
            self.session, user=user or self.host, battle_id=self.battle_id, mode=mode
        )

    def undo(self, user: User | None = None, seq: int | None = None) -> Any:
        return battles.undo_last(
            self.session, user=user or self.host, battle_id=self.battle_id, seq=seq
        )


def _game(app: FastAPI, ruleset: str, red: list[dict[str, Any]], blue: list[dict[str, Any]],
          green: list[dict[str, Any]] | None = None) -> Iterator[Game]:  # fmt: skip
    """Red and Blue the host's, Green (if any) a player's who joined by link."""
    with app.state.sessionmaker() as session:
        host, player = _user(session, "Host"), _user(session, "Player")
        ids = [
            _army(session, host, "Red", ruleset, *red),
            _army(session, host, "Blue", ruleset, *blue),
        ]
        battle = battles.create_battle(session, user=host, name="Ford", army_ids=ids)
        if green:
            _, token = battles.create_invite(session, user=host, battle_id=battle.id)
            army = _army(session, player, "Green", ruleset, *green)
            battles.join_by_link(session, user=player, token=token, army_id=army)
        sides = {
            s.name: s.id
            for s in session.scalars(select(BattleSide).where(BattleSide.battle_id == battle.id))
        }
        names = {v: k for k, v in sides.items()}
        units = {
            f"{names[r.side_id]}/{r.name}": r.id
            for r in session.scalars(select(BattleUnit).where(BattleUnit.battle_id == battle.id))
        }
        yield Game(session, host, player, battle.id, sides, units)
        session.rollback()


@pytest.fixture
def brik(app: FastAPI) -> Iterator[Game]:
    yield from _game(
        app,
        "brikwars",
        [TANK],
        [{**SCOUT, "name": "Scout 1"}, {**SCOUT, "name": "Scout 2"}],
        [TANK],
    )


def _turn(g: Game) -> tuple[str, int, str | None]:
    view = g.view()
    side = view.turn_side
    return view.battle.mode, view.battle.round, side.name if side else None


def test_a_battle_is_free_by_default_and_anyone_acts_for_their_side(brik: Game) -> None:
    """P30: free is the default; End turn is refused there; a player acts whenever."""
    assert _turn(brik) == ("free", 0, None)
    with pytest.raises(InvalidInput) as err:
        brik.end_turn()
    assert err.value.field == "battle" and "played free" in err.value.reason
    entry = battles.unit_action(
        brik.session, user=brik.player, battle_id=brik.battle_id,
        unit_id=brik.units["Green/Tank"], action="divert",
    )  # fmt: skip
    assert entry.kind == "divert"


def test_turns_go_in_order_and_wrap_into_a_new_round(brik: Game) -> None:
    entry = brik.mode("turns")
    assert entry.kind == "mode" and _turn(brik) == ("turns", 1, "Red")
    assert entry.summary == "Played by turns from now: round 1, Red's turn"
    seen = []
    for _ in range(4):
        e = brik.end_turn()
        seen.append((_turn(brik)[1:], e.summary))
    assert seen == [
        ((1, "Blue"), "Red ends its turn: Blue's turn"),
        ((1, "Green"), "Blue ends its turn: Green's turn"),
        ((2, "Red"), "Green ends its turn: Red's turn, round 2"),
        ((2, "Blue"), "Red ends its turn: Blue's turn"),
    ]
    assert e.request["turn"] == {
        "before": {"mode": "turns", "round": 2, "side_id": brik.sides["Red"]},
        "after": {"mode": "turns", "round": 2, "side_id": brik.sides["Blue"]},
    }


def test_a_side_with_no_unit_standing_is_skipped(brik: Game) -> None:
    brik.mode("turns")
    for name in ("Blue/Scout 1", "Blue/Scout 2"):
        brik.set_state(name, destroyed=True)
    assert brik.end_turn().summary == "Red ends its turn: Green's turn"
    assert brik.end_turn().summary == "Green ends its turn: Red's turn, round 2"


def test_a_player_out_of_turn_is_refused_naming_the_field(brik: Game) -> None:
    """P31: in turns a player acts in their own side's turn; the 422 names the field."""
    brik.mode("turns")
    s, player, bid, tank = brik.session, brik.player, brik.battle_id, brik.units["Green/Tank"]
    with pytest.raises(InvalidInput) as err:
        battles.roll_attack(
            s, user=player, battle_id=bid, attacker_id=tank, weapons=(0,),
            target_id=brik.units["Red/Tank"], situation=NEAR,
        )  # fmt: skip
    assert err.value.field == "attacker_id"
    assert err.value.reason == "It is Red's turn: Tank acts in Green's turn"
    with pytest.raises(InvalidInput) as err:
        battles.unit_action(s, user=player, battle_id=bid, unit_id=tank, action="divert")
    assert err.value.field == "unit_id" and err.value.reason.startswith("It is Red's turn")
    with pytest.raises(InvalidInput) as err:
        brik.end_turn(player)
    assert err.value.field == "battle"
    assert err.value.reason == "It is Red's turn: only its player or the host ends it"
    # the odds of the attack to come are shown out of turn (nothing is logged)
    preview = battles.attack_odds(
        s, user=player, battle_id=bid, attacker_id=tank, weapons=(0,),
        target_id=brik.units["Red/Tank"], situation=NEAR,
    )  # fmt: skip
    assert preview.odds
    brik.end_turn()
    brik.end_turn()  # Green's turn: the player rolls and ends it
    entry = battles.roll_attack(
        s, user=player, battle_id=bid, attacker_id=tank, weapons=(0,),
        target_id=brik.units["Red/Tank"], situation=NEAR, seed=3,
    )  # fmt: skip
    assert entry.kind == "attack"
    assert brik.end_turn(player).summary == "Green ends its turn: Red's turn, round 2"


def test_the_host_acts_out_of_turn_and_alone_switches_the_mode(brik: Game) -> None:
    """P31/P32: the host referees (a reaction in another side's turn); the mode is theirs."""
    brik.mode("turns")
    entry = battles.unit_action(
        brik.session, user=brik.host, battle_id=brik.battle_id,
        unit_id=brik.units["Blue/Scout 1"], action="divert",
    )  # fmt: skip
    assert entry.kind == "divert"
    with pytest.raises(Forbidden):
        brik.mode("free", brik.player)
    with pytest.raises(InvalidInput) as err:
        brik.mode("turns")
    assert err.value.field == "mode"
    with pytest.raises(InvalidInput) as err:
        brik.mode("chess")
    assert err.value.field == "mode"
    brik.mode("free")
    assert _turn(brik) == ("free", 0, None)


def test_undoing_end_turn_restores_the_turn_and_only_the_newest_turn_first(brik: Game) -> None:
    brik.mode("turns")
    first = brik.end_turn()
    second = brik.end_turn()
    assert _turn(brik)[1:] == (1, "Green")
    with pytest.raises(InvalidInput) as err:
        brik.undo(seq=first.seq)
    assert (
        err.value.reason
        == f"#{second.seq} changed the turn since #{first.seq}: undo #{second.seq} first"
    )
    undo = brik.undo(seq=second.seq)
    assert _turn(brik)[1:] == (1, "Blue")
    assert undo.request["turn"]["after"] == second.request["turn"]["before"]
    # its author or the host (P22): the player may not undo the host's End turn
    with pytest.raises(InvalidInput):
        brik.undo(brik.player, seq=first.seq)
    brik.undo(seq=first.seq)
    assert _turn(brik) == ("turns", 1, "Red")


def test_a_stale_end_turn_is_a_conflict(brik: Game) -> None:
    brik.mode("turns")
    seen = brik.view().last_seq
    brik.end_turn()
    with pytest.raises(Conflict) as err:
        brik.end_turn(seen=seen)
    assert err.value.by == "Host" and "changed the turn" in str(err.value)


@pytest.fixture
def d20(app: FastAPI) -> Iterator[Game]:
    yield from _game(app, "d20", [CHRONO], [CHRONO])


def test_d20_shaken_ends_at_its_sides_turn_and_undo_restores_it(d20: Game) -> None:
    """D20: Shaken "until the figurine's next turn" ends as its side's turn begins."""
    d20.mode("turns")
    d20.set_state("Red/Chrono", shaken=True)
    d20.set_state("Blue/Chrono", shaken=True)
    entry = d20.end_turn()  # Blue's turn: only Blue's figurine recovers
    assert entry.summary == "Red ends its turn: Blue's turn; Chrono: new turn, no longer Shaken"
    assert d20.state("Blue/Chrono").get("shaken") is False or "shaken" not in d20.state(
        "Blue/Chrono"
    )
    assert d20.state("Red/Chrono")["shaken"] is True
    blue = str(d20.units["Blue/Chrono"])
    assert set(entry.changes) == {blue} and entry.changes[blue]["before"]["shaken"] is True
    d20.undo()
    assert d20.state("Blue/Chrono")["shaken"] is True and _turn(d20)[2] == "Red"
    assert d20.end_turn().changes[blue]["after"] == entry.changes[blue]["after"]


@pytest.fixture
def degrees(app: FastAPI) -> Iterator[Game]:
    yield from _game(app, "degrees", [SIMO], [SIMO])


def test_degrees_ap_come_back_as_a_round_begins_for_every_side_and_undo(degrees: Game) -> None:
    """Degrees: AP per round, every unit's, at the round (not at each side's turn)."""
    degrees.mode("turns")
    degrees.set_state("Red/Simo", ap_spent=2)
    degrees.set_state("Blue/Simo", ap_spent=3)
    passing = degrees.end_turn()  # Blue's turn, same round: nothing comes back
    assert passing.changes == {} and degrees.state("Blue/Simo")["ap_spent"] == 3
    before = {n: degrees.state(n) for n in ("Red/Simo", "Blue/Simo")}
    wrap = degrees.end_turn()  # round 2
    assert _turn(degrees)[1:] == (2, "Red")
    assert {degrees.state(n).get("ap_spent", 0) for n in before} == {0}
    assert set(wrap.changes) == {str(degrees.units[n]) for n in before}
    assert wrap.summary.startswith("Blue ends its turn: Red's turn, round 2; Simo: new round")
    degrees.undo()
    assert {n: degrees.state(n) for n in before} == before
    assert _turn(degrees)[1:] == (1, "Blue")


def test_the_score_counts_units_left_figures_out_and_the_cost_destroyed(brik: Game) -> None:
    """P33, against a hand count: Green's Tank destroys both Blue Scouts (credited to Green);
    a Red Tank destroyed by its own side's fire is lost, credited to nobody."""
    s, bid = brik.session, brik.battle_id
    ruleset = get_ruleset("brikwars")
    scout = ruleset.unit_cost(ruleset.decode_unit(SCOUT), ruleset.decode_options(None))
    killed = 0
    for seed in range(1, 400):
        for name in ("Blue/Scout 1", "Blue/Scout 2"):
            unit = brik.view().unit(brik.units[name])
            if unit.out:
                continue
            battles.roll_attack(
                s, user=brik.player, battle_id=bid, attacker_id=brik.units["Green/Tank"],
                weapons=(0,), target_id=brik.units[name], situation=NEAR, seed=seed,
            )  # fmt: skip
        killed = sum(brik.view().unit(brik.units[n]).out for n in ("Blue/Scout 1", "Blue/Scout 2"))
        if killed == 2:
            break
    assert killed == 2
    sides = {side.name: side for side in brik.view().sides}
    assert (sides["Blue"].units_left, sides["Blue"].figures_out) == (0, 2)
    assert sides["Green"].destroyed == 2 * scout
    assert sides["Green"].destroyed_text == ruleset.format_cost(2 * scout)
    assert sides["Red"].destroyed == 0 and sides["Blue"].destroyed == 0
    # undoing the roll that put the second Scout out takes its cost back off the score
    brik.undo()
    sides = {side.name: side for side in brik.view().sides}
    assert sides["Green"].destroyed == scout and sides["Blue"].figures_out == 1


def test_presence_is_written_by_a_heartbeat_and_read_by_another_session(app: FastAPI) -> None:
    """Connected: seen within two heartbeats, whichever server's session reads it."""
    with app.state.sessionmaker() as session:
        host = _user(session, "Host")
        pair = [_army(session, host, n, "brikwars", TANK) for n in ("Red", "Blue")]
        battle = battles.create_battle(session, user=host, name="Ford", army_ids=pair)
        session.commit()
        ids = (battle.id, host.id)
    presence.heartbeat(app.state.bookkeeping, *ids)  # a stream's heartbeat, its own session
    with app.state.read_sessionmaker() as other:
        assert presence.connected(other, [ids[0]]) == {ids[0]: [(ids[1], "Host")]}
        row = other.get(BattlePresence, ids)
        assert row is not None
        late = row.seen_at + presence.window() + timedelta(seconds=1)
        assert presence.connected(other, [ids[0]], now=late) == {}
        assert presence.connected(other, [ids[0]], now=utcnow()) != {}
    with app.state.sessionmaker() as session:
        battles.delete_battle(session, user=session.get(User, ids[1]), battle_id=ids[0])  # type: ignore[arg-type]
        session.commit()


def test_end_turn_is_in_the_text_export(brik: Game) -> None:
    brik.mode("turns")
    brik.end_turn()
    text = battles.export_text(
        battles.battle_view(brik.session, user=brik.host, battle_id=brik.battle_id, limit=None)
    )
    assert "turn (Host)\nRed ends its turn: Blue's turn" in text
    assert "Round 1, Blue's turn" in text
    assert "Blue: 2 left, 0 out, 0CP destroyed" in text
