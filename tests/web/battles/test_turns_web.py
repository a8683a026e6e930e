"""Turns and the score on the web (issue 31 deliverable 4): the API's End turn, mode and the
battle JSON's turn, score and who is connected; the page's battle state and its End turn;
a live event carrying the state; a stream's heartbeat keeping its user connected."""

from __future__ import annotations

import re

from fastapi import FastAPI
from sqlalchemy import select

from app.db.models import BattlePresence
from app.services import presence
from app.web.live import Grant, Hub, events
from tests.web.battles.own_loop import run_apart
from tests.web.battles.test_battle_players import _battle
from tests.web.battles.test_battles import _form, api
from tests.web.battles.test_live import events as parse_events
from tests.web.battles.test_live_players import _login, _user
from tests.web.conftest import Member


def test_the_api_plays_by_turns_and_shows_the_turn_and_the_score(member: Member) -> None:
    battle = _battle(member)
    url = f"/api/v1/battles/{battle['id']}"
    body = api(member, "GET", url).json()
    assert (body["mode"], body["round"], body["turn_side_id"]) == ("free", 0, None)
    refused = api(member, "POST", url + "/turns")
    assert refused.status_code == 422 and refused.json()["detail"][0]["field"] == "battle"
    assert api(member, "PUT", url + "/mode", json={"mode": "chess"}).status_code == 422
    made = api(member, "PUT", url + "/mode", json={"mode": "turns"})
    assert made.status_code == 201 and made.json()["kind"] == "mode"
    red, blue = (s["id"] for s in api(member, "GET", url).json()["sides"])
    ended = api(member, "POST", url + "/turns", json={"seed": 5})
    assert ended.status_code == 201, ended.text
    assert ended.json()["kind"] == "turn"
    assert ended.json()["request"]["turn"]["after"] == {
        "mode": "turns",
        "round": 1,
        "side_id": blue,
    }
    body = api(member, "GET", url).json()
    assert (body["mode"], body["round"], body["turn_side_id"]) == ("turns", 1, blue)
    assert [s["score"]["units_left"] for s in body["sides"]] == [1, 1]
    assert {s["score"]["cost_destroyed_text"] for s in body["sides"]} == {"0CP"}
    me = _user(member.client.app, member.email)  # type: ignore[attr-defined]
    assert [c["user_id"] for c in body["connected"]] == [me.id]  # (their actions)
    undone = api(member, "POST", url + "/undo", json={})
    assert undone.status_code == 201 and undone.json()["request"]["turn"]["after"]["side_id"] == red
    assert api(member, "GET", url).json()["turn_side_id"] == red


def test_the_page_shows_the_round_the_turn_and_end_turn_with_the_score(member: Member) -> None:
    battle = _battle(member)
    page = member.client.get(f"/battles/{battle['id']}").text
    assert "Played free: each side acts whenever" in page and 'id="end-turn"' not in page
    r = member.form(f"/battles/{battle['id']}/mode", {"mode": "turns"}, follow_redirects=False)
    assert r.status_code == 303, r.text
    page = member.client.get(f"/battles/{battle['id']}").text
    assert re.search(r"<strong>Round 1</strong> · <span id=\"turn-side\" data-side=\"Red\">", page)
    assert 'id="end-turn"' in page and 'id="score"' in page
    assert re.search(r'<tr data-side="Red" class="turn-now"', page)
    # End turn with htmx: the units, and the state out of band (Blue's turn now)
    r = member.client.post(
        f"/battles/{battle['id']}/turns",
        data={"csrf_token": member.csrf, **_form(battle)},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 200, r.text
    assert 'id="battle-state" hx-swap-oob="true"' in r.text and 'data-side="Blue">Blue' in r.text
    # its live event carries the battle state too
    got = parse_events(member.client.get(f"/battles/{battle['id']}/events?after=1").text)
    assert [seq for seq, _, _ in got] == [2]
    assert 'id="battle-state" hx-swap-oob="true"' in got[0][2]
    assert "Blue's turn" in got[0][2] and 'data-kind="turn"' in got[0][2]
    text = member.client.get(f"/battles/{battle['id']}/export.txt").text
    assert "#2 turn (" in text and "Red ends its turn: Blue's turn" in text


def test_a_streams_heartbeat_keeps_its_user_connected_across_sessions(
    app: FastAPI, member: Member
) -> None:
    battle = _battle(member)
    host = _user(app, member.email)
    with app.state.sessionmaker() as session:  # (no action of theirs is recent)
        for row in session.scalars(select(BattlePresence)):
            session.delete(row)
        session.commit()
    settings = app.state.settings.model_copy(
        update={"live_heartbeat_seconds": 0.05, "live_stream_seconds": 0.5}
    )
    grant = Grant(battle["id"], "host", user_id=host.id, login_id=_login(app, host))

    async def scenario() -> list[str]:
        hub = Hub(settings, app.state.read_sessionmaker, app.state.bookkeeping)
        try:
            stream = await hub.open(grant, after=0, key="test", csrf="", as_json=True)
            out = []
            async for item in events(hub, stream):
                out.append(item)
                if item.startswith(": heartbeat"):
                    break
            return out
        finally:
            hub.stop()

    sent = run_apart(scenario())
    assert sent[-1] == ": heartbeat\n\n"
    with app.state.read_sessionmaker() as other:  # another session, as another server's
        here = presence.connected(other, [battle["id"]])
        assert here == {battle["id"]: [(host.id, host.display_name)]}
