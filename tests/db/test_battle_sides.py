"""Sides and players (issue 31 deliverable 1): a battle's sides, invitations by link and to
club members, joining with one's own army, acting only for one's side, removing a player."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from fractions import Fraction

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import BattleEntry, BattleInvite, BattleSide, BattleUnit, User
from app.rules.brikwars.turn import TurnSituation
from app.rules.errors import InvalidInput
from app.services import armies, battles, builder, clubs
from app.services.errors import Forbidden, NotFound
from app.services.tokens import digest

_ids = itertools.count(1)
NEAR = TurnSituation(distance=Fraction(2))
TANK = {"name": "Tank", "size": 4, "structure_level": 2, "weapons": [{"type": "gun", "size": 3}]}
SCOUT = {"name": "Scout", "kind": "minifig", "weapons": [{"type": "short_ranged_weapon"}]}


def _user(session: Session, name: str) -> User:
    user = User(
        email=f"{name.lower()}{next(_ids)}@example.com", display_name=name, password_hash="x"
    )
    session.add(user)
    session.flush()
    return user


def _army(session: Session, user: User, name: str, *units: dict, ruleset: str = "brikwars") -> int:  # type: ignore[type-arg]
    army = armies.create_army(session, user=user, name=name, ruleset_id=ruleset, budget=900)
    for unit in units:
        builder.add_unit(session, user=user, army_id=army.id, data=unit)
    return army.id


@dataclass
class Table:
    session: Session
    host: User
    player: User
    stranger: User
    battle_id: int
    token: str
    tank: int  # the host's Red unit
    scout: int  # the host's Blue unit
    army: int  # the player's army (Green: a Tank and a Scout)


@pytest.fixture
def table(app) -> Iterator[Table]:  # type: ignore[no-untyped-def]
    with app.state.sessionmaker() as session:
        host, player, stranger = (_user(session, n) for n in ("Host", "Player", "Stranger"))
        red = _army(session, host, "Red", TANK)
        blue = _army(session, host, "Blue", SCOUT)
        battle = battles.create_battle(session, user=host, name="Ford", army_ids=[red, blue])
        tank, scout = session.scalars(
            select(BattleUnit.id)
            .where(BattleUnit.battle_id == battle.id)
            .order_by(BattleUnit.position)
        ).all()
        _, token = battles.create_invite(session, user=host, battle_id=battle.id)
        green = _army(session, player, "Green", TANK, SCOUT)
        yield Table(session, host, player, stranger, battle.id, token, tank, scout, green)
        session.rollback()


def _join(t: Table) -> dict[str, int]:
    """The player joins with Green; their units' ids by name."""
    side = battles.join_by_link(t.session, user=t.player, token=t.token, army_id=t.army)
    return {
        row.name: row.id
        for row in t.session.scalars(select(BattleUnit).where(BattleUnit.side_id == side.id))
    }


def test_a_new_battle_has_one_side_per_army_played_by_the_host(table: Table) -> None:
    view = battles.battle_view(table.session, user=table.host, battle_id=table.battle_id)
    assert [(s.name, s.player, [u.row.name for u in s.units]) for s in view.sides] == [
        ("Red", None, ["Tank"]),
        ("Blue", None, ["Scout"]),
    ]
    assert view.viewer.role == "host" and all(s.mine for s in view.sides)


def test_a_battle_of_chosen_units_of_one_army_has_named_sides(app) -> None:  # type: ignore[no-untyped-def]
    """Ruling P6: two units of one army (the calculator's duel) fight as Attacker and Target."""
    with app.state.sessionmaker() as session:
        user = _user(session, "Solo")
        army = armies.create_army(session, user=user, name="Mine", ruleset_id="brikwars", budget=9)
        first = builder.add_unit(session, user=user, army_id=army.id, data=TANK)
        second = builder.add_unit(session, user=user, army_id=army.id, data=SCOUT)
        battle = battles.create_battle(
            session, user=user, name="Duel", army_ids=[army.id], unit_ids=[first.id, second.id]
        )
        view = battles.battle_view(session, user=user, battle_id=battle.id)
        assert [(s.name, [u.row.name for u in s.units]) for s in view.sides] == [
            ("Attacker", ["Tank"]),
            ("Target", ["Scout"]),
        ]
        session.rollback()


def test_the_link_is_shown_once_and_kept_hashed(table: Table) -> None:
    invite = table.session.scalar(
        select(BattleInvite).where(BattleInvite.battle_id == table.battle_id)
    )
    assert invite is not None and invite.token_hash == digest(table.token)
    assert table.token not in invite.token_hash
    found = battles.invitation(table.session, token=table.token)
    assert found.battle.id == table.battle_id and found.inviter == "Host"


@pytest.mark.parametrize("how", ["unknown", "expired", "revoked"])
def test_a_dead_link_is_not_found_alike(table: Table, how: str) -> None:
    token = table.token
    invite = table.session.scalars(select(BattleInvite)).all()[-1]
    if how == "unknown":
        token = "x" + token[1:]
    elif how == "expired":
        invite.expires_at = invite.created_at - timedelta(seconds=1)
    else:
        battles.revoke_invite(
            table.session, user=table.host, battle_id=table.battle_id, invite_id=invite.id
        )
    table.session.flush()
    with pytest.raises(NotFound):
        battles.invitation(table.session, token=token)
    with pytest.raises(NotFound):
        battles.join_by_link(table.session, user=table.player, token=token, army_id=table.army)


def test_joining_adds_a_side_played_by_the_player_and_logs_it(table: Table) -> None:
    mine = _join(table)
    assert set(mine) == {"Tank", "Scout"}
    view = battles.battle_view(table.session, user=table.player, battle_id=table.battle_id)
    assert [(s.name, s.player, s.mine) for s in view.sides] == [
        ("Red", None, False),
        ("Blue", None, False),
        ("Green", "Player", True),
    ]
    assert view.viewer.role == "player"
    assert [u.row.id for u in view.my_units] == [mine["Tank"], mine["Scout"]]
    assert view.entries[-1].row.kind == "join"
    assert view.entries[-1].row.summary == "Player joins with Green (2 units) as “Green”"
    assert [b.id for b in battles.list_battles(table.session, user=table.player)] == [
        table.battle_id
    ]


def test_join_takes_only_own_armies_of_the_ruleset(table: Table) -> None:
    host_army = table.session.scalar(
        select(BattleSide.army_id).where(BattleSide.battle_id == table.battle_id)
    )
    d20 = _army(table.session, table.player, "Other rules", ruleset="d20")
    empty = _army(table.session, table.player, "Empty")
    for army_id, reason in (
        (host_army, "choose one of your own BrikWars armies"),
        (d20, "choose one of your own BrikWars armies"),
        (None, "choose one of your own BrikWars armies"),
        (987654, "choose one of your own BrikWars armies"),
        (empty, "“Empty” has no units yet"),
    ):
        with pytest.raises(InvalidInput) as err:
            battles.join_by_link(
                table.session, user=table.player, token=table.token, army_id=army_id
            )
        assert (err.value.field, err.value.reason) == ("army_id", reason)
    assert [a.name for a in battles.armies_to_join(
        table.session, user=table.player, ruleset_id="brikwars"
    )] == ["Empty", "Green"]  # fmt: skip
    _join(table)
    with pytest.raises(InvalidInput, match="you play a side in this battle already"):
        battles.join_by_link(table.session, user=table.player, token=table.token, army_id=empty)
    with pytest.raises(InvalidInput, match="you host this battle"):
        battles.join_by_link(table.session, user=table.host, token=table.token, army_id=None)


def test_a_player_acts_only_for_their_own_side(table: Table) -> None:
    mine = _join(table)
    s, player, battle_id = table.session, table.player, table.battle_id
    for call in (battles.attack_odds, battles.roll_attack):
        with pytest.raises(InvalidInput) as err:
            call(
                s, user=player, battle_id=battle_id, attacker_id=table.tank, weapons=(0,),
                target_id=mine["Scout"], situation=NEAR,
            )  # fmt: skip
        assert err.value.field == "attacker_id"
        assert err.value.reason == "Tank is on Red's side: you act only for your own units"
    with pytest.raises(InvalidInput) as err:
        battles.unit_action(
            s, user=player, battle_id=battle_id, unit_id=table.tank, action="divert"
        )
    assert err.value.field == "unit_id" and "Tank is on Red's side" in err.value.reason
    assert s.scalars(select(BattleEntry.kind).where(BattleEntry.battle_id == battle_id)).all() == [
        "join"
    ]
    # their own units: yes; the host: every side's
    entry = battles.roll_attack(
        s, user=player, battle_id=battle_id, attacker_id=mine["Tank"], weapons=(0,),
        target_id=table.tank, situation=NEAR, seed=3,
    )  # fmt: skip
    assert entry.actor_id == player.id
    battles.unit_action(s, user=player, battle_id=battle_id, unit_id=mine["Tank"], action="divert")
    battles.unit_action(
        s, user=table.host, battle_id=battle_id, unit_id=mine["Scout"], action="divert"
    )


def test_undo_is_the_authors_or_the_hosts_and_a_join_is_never_undone(table: Table) -> None:
    """Rulings P4 and P21-P22: Undo takes back the newest standing entry, passing joins by
    (a join named by its number is refused); a player undoes only their own entries."""
    mine = _join(table)
    s, battle_id = table.session, table.battle_id
    with pytest.raises(InvalidInput, match="nothing to undo"):
        battles.undo_last(s, user=table.host, battle_id=battle_id)
    with pytest.raises(InvalidInput, match="a join is not undone"):
        battles.undo_last(s, user=table.host, battle_id=battle_id, seq=1)
    hosts = battles.unit_action(
        s, user=table.host, battle_id=battle_id, unit_id=table.tank, action="divert"
    )
    with pytest.raises(InvalidInput, match="only they or the host may undo it"):
        battles.undo_last(s, user=table.player, battle_id=battle_id)
    players = battles.unit_action(
        s, user=table.player, battle_id=battle_id, unit_id=mine["Tank"], action="divert"
    )
    undo = battles.undo_last(s, user=table.player, battle_id=battle_id)
    assert (undo.actor_id, undo.request["undoes"]) == (table.player.id, players.seq)
    undo = battles.undo_last(s, user=table.host, battle_id=battle_id)
    assert (undo.actor_id, undo.request["undoes"]) == (table.host.id, hosts.seq)
    with pytest.raises(InvalidInput, match="nothing to undo"):
        battles.undo_last(s, user=table.player, battle_id=battle_id)


def test_host_only_actions_are_forbidden_to_a_player(table: Table) -> None:
    """Ruling P3: End battle (and inviting, sharing, deleting) is the host's."""
    _join(table)
    s, player, battle_id = table.session, table.player, table.battle_id
    for call in (
        battles.end_battle,
        battles.create_invite,
        battles.share_link,
        battles.delete_battle,
        battles.invitable_members,
    ):
        with pytest.raises(Forbidden):
            call(s, user=player, battle_id=battle_id)


def test_a_stranger_finds_no_battle(table: Table) -> None:
    s, stranger, battle_id = table.session, table.stranger, table.battle_id
    for call in (
        battles.battle_view,
        battles.battle_viewer,
        battles.end_battle,
        battles.undo_last,
        battles.create_invite,
        battles.open_invites,
    ):
        with pytest.raises(NotFound):
            call(s, user=stranger, battle_id=battle_id)
    with pytest.raises(NotFound):
        battles.unit_action(
            s, user=stranger, battle_id=battle_id, unit_id=table.tank, action="divert"
        )
    assert battles.list_battles(s, user=stranger) == []


def test_a_removed_player_finds_the_battle_no_more_and_the_host_plays_their_side(
    table: Table,
) -> None:
    mine = _join(table)
    s, battle_id = table.session, table.battle_id
    green = s.scalar(select(BattleSide).where(BattleSide.player_id == table.player.id))
    assert green is not None
    with pytest.raises(Forbidden):
        battles.remove_player(s, user=table.player, battle_id=battle_id, side_id=green.id)
    battles.remove_player(s, user=table.host, battle_id=battle_id, side_id=green.id)
    with pytest.raises(NotFound):
        battles.battle_view(s, user=table.player, battle_id=battle_id)
    view = battles.battle_view(s, user=table.host, battle_id=battle_id)
    assert [(side.name, side.player, len(side.units)) for side in view.sides][-1] == (
        "Green", None, 2,
    )  # fmt: skip
    battles.unit_action(
        s, user=table.host, battle_id=battle_id, unit_id=mine["Tank"], action="divert"
    )
    with pytest.raises(InvalidInput, match="the host plays “Green” already"):
        battles.remove_player(s, user=table.host, battle_id=battle_id, side_id=green.id)


def test_a_club_member_is_invited_and_accepts_or_declines(table: Table) -> None:
    s, host, player, battle_id = table.session, table.host, table.player, table.battle_id
    club = clubs.create_club(s, user=host, name="Brick Club")
    _, token = clubs.create_invite(s, user=host, club_id=club.id)
    clubs.join(s, user=player, token=token)
    with pytest.raises(InvalidInput) as err:
        battles.invite_member(s, user=host, battle_id=battle_id, member_id=table.stranger.id)
    assert (err.value.field, err.value.reason) == ("user_id", "is not a member of a club of yours")
    assert battles.invitable_members(s, user=host, battle_id=battle_id) == [(player.id, "Player")]
    invite = battles.invite_member(s, user=host, battle_id=battle_id, member_id=player.id)
    assert invite.token_hash is None
    assert battles.invitable_members(s, user=host, battle_id=battle_id) == []
    with pytest.raises(InvalidInput, match="invited already"):
        battles.invite_member(s, user=host, battle_id=battle_id, member_id=player.id)
    # the invited member sees it (nobody else), not yet the battle
    assert [i.battle.name for i in battles.my_invitations(s, user=player)] == ["Ford"]
    assert battles.my_invitations(s, user=table.stranger) == []
    with pytest.raises(NotFound):
        battles.accept_invite(s, user=table.stranger, invite_id=invite.id, army_id=None)
    with pytest.raises(NotFound):
        battles.battle_view(s, user=player, battle_id=battle_id)
    side = battles.accept_invite(s, user=player, invite_id=invite.id, army_id=table.army)
    assert side.player_id == player.id and battles.my_invitations(s, user=player) == []
    assert battles.battle_viewer(s, user=player, battle_id=battle_id).side_ids == {side.id}
    # declined: gone
    battles.remove_player(s, user=host, battle_id=battle_id, side_id=side.id)
    again = battles.invite_member(s, user=host, battle_id=battle_id, member_id=player.id)
    battles.decline_invite(s, user=player, invite_id=again.id)
    assert battles.my_invitations(s, user=player) == []
    with pytest.raises(NotFound):
        battles.battle_view(s, user=player, battle_id=battle_id)


def test_a_player_sees_other_sides_units_as_spectators_do(app) -> None:  # type: ignore[no-untyped-def]
    """Ruling P5: a D20 secret countdown on the host's figurine is the host's to see (and its
    side's player's), not another player's."""
    from tests.db.test_d20_battles import SAPPER, _chrono

    with app.state.sessionmaker() as s:
        host, player = _user(s, "Host"), _user(s, "Player")
        red = _army(s, host, "Red", SAPPER, ruleset="d20")
        blue = _army(s, host, "Blue", _chrono("Chronos"), ruleset="d20")
        battle = battles.create_battle(s, user=host, name="Vault", army_ids=[red, blue])
        sapper = s.scalar(select(BattleUnit.id).where(BattleUnit.name == "Sapper"))
        assert sapper is not None
        battles.unit_action(
            s, user=host, battle_id=battle.id, unit_id=sapper, action="place_charge",
            values={"charge_weapons": "2", "charge_timer": "countdown", "charge_turns": 2,
                    "charge_secret": True},
        )  # fmt: skip
        _, token = battles.create_invite(s, user=host, battle_id=battle.id)
        green = _army(s, player, "Green", _chrono("Kairos"), ruleset="d20")
        battles.join_by_link(s, user=player, token=token, army_id=green)

        def badges(user: User) -> str:
            view = battles.battle_view(s, user=user, battle_id=battle.id)
            return " ".join(view.unit(sapper).badges)

        assert "2 turns left" in badges(host)
        assert "secret countdown (0 turns counted)" in badges(player)
        assert "turns left" not in badges(player)
        s.rollback()
