"""End battle, for every ruleset: the battle closes with a "Battle ended" entry, what the rules
do at the end is applied (Degrees: "Units that are restrained when the scenario ends are in
Thinny custody"; a damaged gas gun repaired), attacks and actions are refused (422) until Undo
reopens it, the page shows the final state by army, and another user's battle is a 404."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db.models import Battle, BattleUnit
from app.rules.errors import InvalidInput
from app.rules.registry import RULESETS
from app.rules.ruleset import Fighter
from app.services import battles
from app.services.errors import NotFound
from tests.db.test_battles import World, _attack, _battle, _entries, _user, _view
from tests.db.test_degrees_battles import SIMO, THINNY, Game, _seed
from tests.db.test_degrees_battles import _battle as _dg_battle
from tests.web.conftest import page_csrf, sign_up

# ------------------------------------------------------------------ generic (BrikWars)


@pytest.fixture
def world(app: FastAPI) -> Iterator[World]:
    with app.state.sessionmaker() as session:
        yield _battle(session, _user(session))
        session.rollback()


def test_ending_closes_the_battle_and_undo_reopens_it(world: World) -> None:
    w = world
    _attack(w, seed=3)
    states = {u.row.id: dict(u.row.state) for u in _view(w).units}
    entry = battles.end_battle(w.session, user=w.user, battle_id=w.battle_id)
    assert entry.kind == "end" and entry.summary == "Battle ended"  # BrikWars: no change
    assert entry.changes == {} and entry.request["status"] == {"before": "open", "after": "ended"}
    view = _view(w)
    assert view.ended and {u.row.id: dict(u.row.state) for u in view.units} == states
    assert view.last_seq == entry.seq
    tallies = {side.name: dict(side.tally) for side in view.sides}
    assert sum(n for t in tallies.values() for n in t.values()) == len(view.units)
    count = _entries(w)
    for refused in (
        lambda: _attack(w, seed=4),
        lambda: battles.unit_action(
            w.session, user=w.user, battle_id=w.battle_id, unit_id=w.tank, action="reload"
        ),
        lambda: battles.end_battle(w.session, user=w.user, battle_id=w.battle_id),
    ):
        with pytest.raises(InvalidInput) as err:
            refused()
        assert err.value.field == "battle" and "ended" in err.value.reason
    assert _entries(w) == count
    undo = battles.undo_last(w.session, user=w.user, battle_id=w.battle_id)
    assert undo.kind == "undo" and undo.request["undoes"] == entry.seq and not _view(w).ended
    assert undo.request["status"] == {"before": "ended", "after": "open"}
    assert _view(w).entries[-2].undone_by == undo.seq  # the End battle entry stays, undone
    assert w.session.get(Battle, w.battle_id).status == "open"  # type: ignore[union-attr]
    _attack(w, seed=4)  # open again


def test_only_the_battles_owner_may_end_it(world: World) -> None:
    other = _user(world.session, "Mallory")
    with pytest.raises(NotFound):
        battles.end_battle(world.session, user=other, battle_id=world.battle_id)
    assert not _view(world).ended


def test_every_ruleset_ends_a_battle_of_fresh_units_without_a_change() -> None:
    """The hook's default changes nothing; Degrees changes only restrained units and damaged
    gas guns, which fresh units have not."""
    for ruleset in RULESETS.values():
        fighters = []
        for key, sample in enumerate(ruleset.sample_attacks, 1):
            unit = ruleset.decode_unit(sample.attacker)
            options = ruleset.decode_options(None)
            fighters.append(Fighter(key, "u", unit, ruleset.initial_state(unit), options))
        done = ruleset.end_battle(tuple(fighters))
        assert fighters and done.others == {} and done.summary == "", ruleset.id


# ------------------------------------------------------------------ Degrees, through the API


@pytest.fixture
def game(app: FastAPI) -> Iterator[Game]:
    with _dg_battle(app, THINNY, SIMO) as game:
        yield game


def _set_state(app: FastAPI, unit_id: int, **state: Any) -> None:
    with app.state.sessionmaker() as session:
        row = session.get(BattleUnit, unit_id)
        assert row is not None
        row.state = {**(row.state or {}), **state}
        session.commit()


def test_restrained_units_are_in_thinny_custody_when_the_battle_ends(
    app: FastAPI, game: Game
) -> None:
    """ "Units that are restrained when the scenario ends are in Thinny custody." Simo, hit
    by the Thinny's stun gun and restrained, ends in custody (on its row and in the final
    tally); the Thinny, free, does not. Undo takes it back."""
    _set_state(app, game.simo, restrained=True, ap_spent=3)
    before = game.states()
    r = game.client.post(f"{game.url}/end", headers=game.headers)
    assert r.status_code == 201, r.text
    entry = r.json()
    assert entry["kind"] == "end"
    assert entry["summary"] == "Battle ended: Simo in Thinny custody"
    assert entry["changes"][str(game.simo)]["before"]["custody"] is False
    assert entry["changes"][str(game.simo)]["after"]["custody"] is True
    assert str(game.thinny) not in entry["changes"]
    detail = game.detail()
    assert detail["status"] == "ended"
    simo = game.unit(game.simo)
    assert simo["state"]["custody"] is True and "in Thinny custody" in simo["badges"]
    assert game.state(game.thinny)["custody"] is False
    # refused, each naming the battle, until Undo
    r = game.roll(game.thinny, game.simo, [0], seed=1)
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "battle"
    r = game.act(game.thinny, "new_round")
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "battle"
    r = game.client.post(f"{game.url}/end", headers=game.headers)
    assert r.status_code == 422 and "ended" in r.json()["detail"][0]["reason"]
    assert game.undo().status_code == 200
    assert game.detail()["status"] == "open" and game.states() == before
    assert game.act(game.thinny, "new_round").status_code == 201


def test_a_damaged_gas_gun_is_repaired_when_the_scenario_ends(game: Game) -> None:
    """ "Damaged gas guns have their new, reduced level as their max for the rest of the
    scenario (assuming spare parts & tools are available)." The text's over-compression
    leaves the 2-max gun 1-max; it stays so through a new round, and the battle's end
    repairs it to 2-max (its pumped AP kept); Undo brings the 1-max back."""
    assert game.act(game.thinny, "pump", pump_ap=2, pump_weapon=1).status_code == 201
    assert game.act(game.thinny, "new_round").status_code == 201
    r = game.act(game.thinny, "pump", seed=_seed(3, 1), pump_ap=2, pump_op=1)
    assert game.state(game.thinny)["gas"] == {"1": {"pumped": 4, "max": 1}}, r.text
    assert game.act(game.thinny, "new_round").status_code == 201
    assert game.state(game.thinny)["gas"] == {"1": {"pumped": 4, "max": 1}}
    r = game.client.post(f"{game.url}/end", headers=game.headers)
    assert r.status_code == 201, r.text
    assert "Thinny's Gas gun 2-max repaired (it was 1-max" in r.json()["summary"]
    assert game.state(game.thinny)["gas"] == {"1": {"pumped": 4, "max": 2}}
    assert any(w["degree"] == "2-max" for w in game.unit(game.thinny)["weapons"])
    game.undo()
    assert game.state(game.thinny)["gas"] == {"1": {"pumped": 4, "max": 1}}


def test_another_users_battle_is_a_404_to_end(app: FastAPI, game: Game) -> None:
    with TestClient(app) as other:
        member = sign_up(other, email="mallory-end@example.com")
        r = other.post(f"{game.url}/end", headers={"X-CSRF-Token": member.csrf})
        assert r.status_code == 404
        page = other.post(
            f"/battles/{game.battle}/end",
            data={"csrf_token": member.csrf},
            follow_redirects=False,
        )
        assert page.status_code == 404
    assert game.detail()["status"] == "open"


def test_the_page_ends_the_battle_and_shows_the_final_state(app: FastAPI, game: Game) -> None:
    _set_state(app, game.simo, restrained=True)
    page = f"/battles/{game.battle}"
    assert "End battle</button>" in game.client.get(page).text
    csrf = page_csrf(game.client, page)
    r = game.client.post(f"{page}/end", data={"csrf_token": csrf}, follow_redirects=False)
    assert r.status_code == 303, r.text
    html = game.client.get(page).text
    assert "Battle ended: the final state" in html
    assert 'id="attack"' not in html and "End battle</button>" not in html
    rows = dict(re.findall(r'<tr data-side="(\w+)"><th scope="row">\w+</th><td>(.*?)</td>', html))
    assert "1 in Thinny custody" in rows["Blue"] and "0 standing" in rows["Blue"]
    assert "1 standing" in rows["Red"]
    assert "Undo #1" in html
    r = game.client.post(f"{page}/undo", data={"csrf_token": csrf}, follow_redirects=False)
    assert r.status_code == 303
    html = game.client.get(page).text
    assert "Battle ended: the final state" not in html and 'id="attack"' in html


def test_battles_list_their_status(game: Game) -> None:
    listed = game.client.get("/api/v1/battles").json()
    assert [b["status"] for b in listed if b["id"] == game.battle] == ["open"]
    game.client.post(f"{game.url}/end", headers=game.headers)
    listed = game.client.get("/api/v1/battles").json()
    assert [b["status"] for b in listed if b["id"] == game.battle] == ["ended"]


def test_the_status_is_stored_through_the_migration(app: FastAPI, game: Game) -> None:
    game.client.post(f"{game.url}/end", headers=game.headers)
    with app.state.sessionmaker() as session:
        status = session.scalar(select(Battle.status).where(Battle.id == game.battle))
    assert status == "ended"
