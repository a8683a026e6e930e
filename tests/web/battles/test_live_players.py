"""Live streams with sides and players, and with the growing log (issue 31): a player's
stream is rendered for their side (its secrets and forms, nobody else's), removing a player
ends their streams, an Undo's event strikes the entry it took back on every page, and every
event moves the page's ``seen`` so an action after it is not a false 409.

As in test_live.py, the suite's streams end once they have sent what they owe.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db.models import BattleUnit, User, UserSession
from app.rules.registry import get_ruleset
from app.services import battles, transfer
from app.services.battles.views import unit_in_battle
from app.web.live import Grant, Hub, Loaded, granted
from tests.db.test_d20_battles import Game, _chrono, _document, game  # noqa: F401  (fixture)
from tests.web.battles.own_loop import run_apart
from tests.web.battles.test_battle_players import _battle
from tests.web.battles.test_battles import _form, api
from tests.web.battles.test_live import events
from tests.web.conftest import Member, sign_up

SEEN = re.compile(r'<input type="hidden" name="seen" id="seen" value="(\d+)" hx-swap-oob="true">')


def _user(app: FastAPI, email: str) -> User:
    with app.state.sessionmaker() as session:
        user = session.scalars(select(User).where(User.email == email)).one()
        session.expunge(user)
        return user


def _join(host: Member | Game, player: Member, battle_id: int, army_id: int) -> int:
    """The player joins the host's battle through an invitation link: their side's id."""
    headers = {
        "X-CSRF-Token": host.csrf if isinstance(host, Member) else host.headers["X-CSRF-Token"]
    }
    made = host.client.post(f"/api/v1/battles/{battle_id}/invites", headers=headers)
    assert made.status_code == 201, made.text
    body = {"token": made.json()["token"], "army_id": army_id}
    joined = api(player, "POST", "/api/v1/battles/join", json=body)
    assert joined.status_code == 201, joined.text
    side: int = next(s["id"] for s in joined.json()["sides"] if s["yours"])
    return side


def test_a_players_stream_gets_the_hosts_roll_and_never_the_hosts_secret_countdown(
    app: FastAPI,
    game: Game,  # noqa: F811
) -> None:
    r = game.act(
        "Sapper", "place_charge", charge_weapons="2", charge_timer="countdown", charge_turns=2,
        charge_secret=True,
    )  # fmt: skip
    assert r.status_code == 201, r.text
    with TestClient(app) as client:
        player = sign_up(client, name="Bea")
        with app.state.sessionmaker() as session:
            raw = _document("Kairos", [_chrono("Kairos")])
            army = transfer.import_army(session, user=_user(app, player.email), raw=raw).id
            session.commit()
        side = _join(game, player, game.battle, army)
        kairos = next(u["id"] for u in game.detail()["units"] if u["name"] == "Kairos")
        game.ids["Kairos"] = kairos
        rolled = game.roll("Sapper", ["Kairos"], [0], 1, distance=10)
        assert rolled.status_code == 201, rolled.text
        roll = rolled.json()["seq"]
        assert roll == 3  # the charge, the join, the roll

        host = events(game.client.get(f"/battles/{game.battle}/events").text)
        assert any("2 turns left" in data for _, _, data in host)  # the secret is there
        got = events(player.client.get(f"/battles/{game.battle}/events").text)
        assert [seq for seq, _, _ in got] == [1, 2, 3]
        assert f'id="entry-{roll}"' in got[-1][2]  # the host's roll reaches the player
        for _, _, data in got:
            assert "turns left" not in data  # never the host's side's secret countdown
        assert "secret countdown (0 turns counted)" in got[0][2]
        # the join's event brings the sides as the page shows them: the new side's units,
        # with the player's forms for their own units only (their CSRF token), not the host's
        assert f'id="side-{side}"' in got[1][2] and f'id="unit-{kairos}"' in got[1][2]
        assert f"/units/{kairos}/" in got[1][2] and f'value="{player.csrf}"' in got[1][2]
        assert f"/units/{game.ids['Sapper']}/" not in "".join(d for _, _, d in got)
        # ... and who plays it, in the Players panel (the host's page too)
        assert re.search(r'id="players-list" hx-swap-oob="true">.*Bea', got[1][2], re.S)
        assert re.search(r'id="players-list" hx-swap-oob="true">.*Bea', host[1][2], re.S)
        # every event says what the attack form's pickers may offer now: the player attacks
        # with their own units only, and targets any unit still fighting
        pickers = {
            name: json.loads(html.unescape(value))
            for name, value in re.findall(r"data-(attackers|targets)='([^']*)'", got[-1][2])
        }
        assert [label for _, label in pickers["attackers"]] == ["Kairos (Kairos)"]
        assert {label for _, label in pickers["targets"]} >= {"Kairos (Kairos)", "Sapper (FCA)"}
        assert re.search(r"data-attackers='[^']*Sapper", host[-1][2])
        # Undo is the host's roll's author's or the host's: not offered to the player
        assert f">Undo #{roll}</button>" in host[-1][2] and ">Undo #" not in got[-1][2]
        # the JSON twin as the player sees it: the charge's countdown stays hidden
        twin = events(api(player, "GET", f"/api/v1/battles/{game.battle}/events").text)
        (sapper,) = (u for u in json.loads(twin[0][2])["units"] if u["name"] == "Sapper")
        assert [c["countdown"] for c in sapper["state"]["charges"]] == [None]
        assert "Sapper" in json.dumps(json.loads(twin[-1][2])["entry"])
        # a stranger to the battle: still a 404
        with TestClient(app) as other:
            stranger = sign_up(other, name="Cy")
            assert stranger.client.get(f"/battles/{game.battle}/events").status_code == 404


def test_removing_a_player_ends_their_stream(
    app: FastAPI, member: Member, stranger: Member
) -> None:
    battle = _battle(member)
    mine = api(stranger, "POST", "/api/v1/armies", json={"name": "Green", "budget": 100}).json()
    from tests.web.battles.test_battles import TANK

    api(stranger, "POST", f"/api/v1/armies/{mine['id']}/units", json=TANK)
    side = _join(member, stranger, battle["id"], mine["id"])
    host, player = _user(app, member.email), _user(app, stranger.email)
    with app.state.sessionmaker() as session:
        login = session.scalars(
            select(UserSession.id).where(UserSession.user_id == player.id)
        ).one()
    grant = Grant(battle["id"], f"side:{side}", user_id=player.id, login_id=login)
    with app.state.sessionmaker() as session:
        assert granted(session, [grant]) == {grant}
        # not the host's role, nor another side's
        for role in ("host", f"side:{side + 1}", "spectator"):
            assert (
                granted(session, [Grant(battle["id"], role, user_id=player.id, login_id=login)])
                == set()
            )

    def remove() -> None:
        with app.state.sessionmaker() as session:
            battles.remove_player(session, user=host, battle_id=battle["id"], side_id=side)
            session.commit()

    async def scenario() -> tuple[Any, Any]:
        hub = Hub(app.state.settings, app.state.read_sessionmaker)
        try:
            loop = asyncio.get_running_loop()
            stream = await hub.open(grant, after=1, key="test", csrf="", as_json=True)
            host_grant = Grant(battle["id"], "host", user_id=host.id, login_id=_login(app, host))
            hosting = await hub.open(host_grant, after=1, key="test2", csrf="", as_json=True)
            assert stream.queue.empty() and not stream.ended
            await loop.run_in_executor(None, remove)  # committed in another thread, as a request
            ended = await asyncio.wait_for(stream.queue.get(), 30)
            while ended is not None:  # (the removal's own entry may reach it before its end)
                assert "event: presence" in ended or "removes Mallory" in ended, ended
                ended = await asyncio.wait_for(stream.queue.get(), 30)
            told = await asyncio.wait_for(hosting.queue.get(), 30)
            while told is not None and "event: presence" in told:
                told = await asyncio.wait_for(hosting.queue.get(), 30)
            return ended, hosting.ended, told
        finally:
            hub.stop()

    ended, host_ended, told = run_apart(scenario())
    assert ended is None and not host_ended  # theirs ended; the host's goes on
    # the removal is logged, and the host's page is told at once (as every page is)
    assert told is not None and told.startswith("id: 2\nevent: entry\n"), told
    entry = json.loads(told.split("data: ", 1)[1])["entry"]
    assert entry["kind"] == "remove" and "removes Mallory" in entry["summary"], entry
    # ... and, like a join, it is never undone
    refused = api(member, "POST", f"/api/v1/battles/{battle['id']}/undo", json={"seq": 2})
    assert refused.status_code == 422, refused.text
    with app.state.sessionmaker() as session:
        assert granted(session, [grant]) == set()
    assert stranger.client.get(f"/battles/{battle['id']}/events").status_code == 404


def _login(app: FastAPI, user: User) -> int:
    with app.state.sessionmaker() as session:
        login: int = session.scalars(
            select(UserSession.id).where(UserSession.user_id == user.id)
        ).first()
        return login


def test_an_undo_event_strikes_the_entry_it_took_back_on_every_page(member: Member) -> None:
    battle = _battle(member)
    for seed in ("1", "2"):
        r = member.form(f"/battles/{battle['id']}/rolls", _form(battle, seed=seed))
        assert r.status_code in (200, 303), r.text
    token = api(member, "POST", f"/api/v1/battles/{battle['id']}/share-link").json()["token"]
    undone = member.form(f"/battles/{battle['id']}/undo", {"seq": "2"}, follow_redirects=False)
    assert undone.status_code == 303, undone.text
    host = events(member.client.get(f"/battles/{battle['id']}/events?after=2").text)
    spectator = events(member.client.get(f"/battles/shared/{token}/events?after=2").text)
    for got in (host, spectator):
        assert [seq for seq, _, _ in got] == [3]
        data = got[0][2]
        assert 'id="entry-3"' in data  # the undo entry itself, on top of the log
        struck = re.search(r'<article class="entry undone" id="entry-2"[^>]*>', data)
        assert struck is not None and 'hx-swap-oob="true"' in struck.group(0)
        assert 'data-undone-by="3"' in struck.group(0) and "(undone by <a" in data
        assert f'id="unit-{battle["walker"]}"' in data  # the unit it restored
    # the next Undo (#1) is the host's to take: the button moves on
    assert ">Undo #1</button>" in host[0][2] and "</button>" not in spectator[0][2]
    twin = events(api(member, "GET", f"/api/v1/battles/{battle['id']}/events?after=2").text)
    body = json.loads(twin[0][2])
    assert body["undone"]["seq"] == 2 and body["undone"]["undone_by"] == 3


def test_a_live_event_moves_the_pages_seen_so_an_action_after_it_is_not_behind(
    member: Member,
) -> None:
    battle = _battle(member)
    page = member.client.get(f"/battles/{battle['id']}").text
    assert 'name="seen" id="seen" value="0"' in page
    r = member.form(f"/battles/{battle['id']}/rolls", _form(battle, seed="1"))  # (another page)
    assert r.status_code in (200, 303)
    got = events(member.client.get(f"/battles/{battle['id']}/events?after=0").text)
    seen = SEEN.search(got[0][2])
    assert seen is not None and seen.group(1) == "1"
    # the page's old number would be behind (#1 changed the Walker) ...
    behind = member.htmx(f"/battles/{battle['id']}/rolls", _form(battle, seed="2", seen="0"))
    assert behind.status_code == 409, behind.text
    # ... the number the event set is not
    ahead = member.htmx(
        f"/battles/{battle['id']}/rolls", _form(battle, seed="2", seen=seen.group(1))
    )
    assert ahead.status_code == 200, ahead.text
    # a read-only page has no form: no seen in its events
    token = api(member, "POST", f"/api/v1/battles/{battle['id']}/share-link").json()["token"]
    assert SEEN.search(member.client.get(f"/battles/shared/{token}/events?after=0").text) is None


def test_a_units_standing_is_worked_out_once_per_state_and_view(
    app: FastAPI,
    game: Game,  # noqa: F811
) -> None:
    """Each role's view of a battle holds every unit, and a live event is rendered once per
    role: a unit's standing is shared between views of the same state (the ruleset's
    ``standing`` is pure), and the secret's public view is a state of its own."""
    r = game.act(
        "Sapper", "place_charge", charge_weapons="2", charge_timer="countdown", charge_turns=2,
        charge_secret=True,
    )  # fmt: skip
    assert r.status_code == 201, r.text
    rules = get_ruleset("d20")
    with app.state.sessionmaker() as session:
        rows = session.scalars(select(BattleUnit).where(BattleUnit.battle_id == game.battle))
        for row in rows:
            for public in (False, True):
                one = unit_in_battle(row, rules, public=public)
                two = unit_in_battle(row, rules, public=public)
                assert one.standing is two.standing  # worked out once
                assert one.standing == rules.standing(one.fighter)  # as worked out alone
            if row.name == "Sapper":  # its countdown is the host's secret
                seen = unit_in_battle(row, rules).standing
                assert seen != unit_in_battle(row, rules, public=True).standing
                assert row.state  # (the charge is in its state)


def test_who_is_connected_reaches_every_page_without_an_entry(
    app: FastAPI, member: Member, stranger: Member
) -> None:
    """Someone opening or leaving the battle makes no entry: the survey (SQLite: every poll;
    PostgreSQL: every heartbeat) reads who has it open, and when that changed every stream is
    sent a "presence" event with the page's "Connected" line (its id repeats the stream's
    last: the entries' numbers run on without a gap). Nothing is sent while it stays."""
    from app.services import presence
    from tests.web.battles.test_battles import TANK

    battle = _battle(member)
    mine = api(stranger, "POST", "/api/v1/armies", json={"name": "Green", "budget": 100}).json()
    api(stranger, "POST", f"/api/v1/armies/{mine['id']}/units", json=TANK)
    _join(member, stranger, battle["id"], mine["id"])  # entry #1
    host, player = _user(app, member.email), _user(app, stranger.email)
    host_grant = Grant(battle["id"], "host", user_id=host.id, login_id=_login(app, host))
    slow_timer = app.state.settings.model_copy(
        update={"live_poll_seconds": 10.0, "live_heartbeat_seconds": 300.0}
    )

    def arrives() -> None:  # the player's page opens its stream: their heartbeat
        presence.heartbeat(app.state.sessionmaker, battle["id"], player.id)

    async def scenario() -> list[str]:
        hub = Hub(slow_timer, app.state.read_sessionmaker)
        try:
            loop = asyncio.get_running_loop()
            page = await hub.open(host_grant, after=0, key="t", csrf="", as_json=False)
            api_stream = await hub.open(host_grant, after=0, key="t2", csrf="", as_json=True)
            got = [await asyncio.wait_for(page.queue.get(), 5)]  # the join, #1
            await api_stream.queue.get()
            await hub.survey_once()  # who is here: as the pages were shown
            assert page.queue.empty()
            await loop.run_in_executor(None, arrives)
            await hub.survey_once()
            got.append(await asyncio.wait_for(page.queue.get(), 5))
            got.append(await asyncio.wait_for(api_stream.queue.get(), 5))
            await hub.survey_once()  # nothing changed since: nothing sent
            assert page.queue.empty() and api_stream.queue.empty()
            # An entry's events loaded before that arrival (their battle state without her)
            # and delivered after the presence event: the pages are behind, so who is
            # connected is read again and told again.
            watch = hub.watches[battle["id"]]
            stale = Loaded(newest=watch.newest or 0, version=watch.version or 0, connected=())
            hub._deliver(watch, stale, watch.newest or 0, {"host"})
            got.append(await asyncio.wait_for(page.queue.get(), 5))
            return [g or "" for g in got]
        finally:
            hub.stop()

    joined, told, twin, again = run_apart(scenario())
    assert again.startswith("id: 1\nevent: presence\n") and 'data-user="Mallory"' in again
    assert joined.startswith("id: 1\nevent: entry\n")
    assert told.startswith("id: 1\nevent: presence\n")  # (the last entry's number, again)
    assert 'id="connected" hx-swap-oob="true"' in told and 'data-user="Mallory"' in told
    assert twin.startswith("id: 1\nevent: presence\n") and '"Mallory"' in twin


def test_one_arriving_tells_every_server_and_a_heartbeat_after_does_not(
    app: FastAPI, member: Member
) -> None:
    """A heartbeat of someone who was not connected commits a "p:<battle>" message (every
    server's hub then reads who is connected at once: PostgreSQL's NOTIFY); the heartbeats
    that follow, within the window, send nothing."""
    from app.services import live, presence

    battle = _battle(member)
    host = _user(app, member.email)
    heard: list[str] = []
    live.listen(heard.extend)
    try:
        presence.heartbeat(app.state.sessionmaker, battle["id"], host.id)
        presence.heartbeat(app.state.sessionmaker, battle["id"], host.id)
    finally:
        live.unlisten(heard.extend)
    assert heard == [f"p:{battle['id']}"]
    assert live.parse(heard[0]) == ("p", battle["id"], 0)
