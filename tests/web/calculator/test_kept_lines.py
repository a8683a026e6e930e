"""An attack line's rendered section is kept for equal odds (``kept_line``) and keyed on all
else it shows: the same calculation draws it once; another chart mode, target or follower
draws its own."""

from __future__ import annotations

from fractions import Fraction

from app.rules.brikwars.turn import TurnSituation
from app.rules.registry import get_ruleset
from app.services.calculator import CalcRequest, Follower, Loadout
from app.web import templating
from app.web.calculator_query import to_query
from tests.web.calculator.test_calculator_page import TANK, api
from tests.web.conftest import Member

HTMX = {"HX-Request": "true"}


def _unit(member: Member, army_id: int, body: dict) -> dict:
    return api(member, "POST", f"/api/v1/armies/{army_id}/units", json=body).json()


def _arc_url(tank: dict, target: int, follower: int) -> str:
    machinegun = tank["weapons"][1]["id"]
    request = CalcRequest(
        attacker=Loadout(tank["id"], (machinegun,)),
        target_id=target,
        situation=TurnSituation(distance=Fraction(3), arc=2),
        followers=(Follower(follower, Fraction(4), 0),),
    )
    return "/calculator?" + to_query(request, get_ruleset("brikwars"))


def test_each_arc_shows_its_own_targets_though_their_odds_are_shared(member: Member) -> None:
    army = api(member, "POST", "/api/v1/armies", json={"name": "Arcs", "budget": 500}).json()
    tank = _unit(member, army["id"], TANK)
    pvt, cpl, sgt = (
        _unit(member, army["id"], {"name": n, "kind": "minifig"}) for n in ("Pvt", "Cpl", "Sgt")
    )
    first = member.client.get(_arc_url(tank, pvt["id"], cpl["id"]), headers=HTMX)
    second = member.client.get(_arc_url(tank, pvt["id"], sgt["id"]), headers=HTMX)
    assert first.status_code == second.status_code == 200
    arc_table = 'class="table odds arc-targets"'
    assert arc_table in first.text and arc_table in second.text
    assert '<th scope="row">Cpl</th>' in first.text and "Sgt" not in first.text
    assert '<th scope="row">Sgt</th>' in second.text and "Cpl" not in second.text


def test_the_same_calculation_draws_its_line_once(member: Member) -> None:
    army = api(member, "POST", "/api/v1/armies", json={"name": "Lines", "budget": 500}).json()
    tank = _unit(member, army["id"], TANK)
    pvt = _unit(member, army["id"], {"name": "Pvt", "kind": "minifig"})
    url = f"/calculator?attacker={tank['id']}&target={pvt['id']}&distance=7"
    kept = templating._LINE_SECTIONS
    kept.cache_clear()
    drawn = member.client.get(url, headers=HTMX).text
    assert kept.cache_info().currsize == 1
    assert member.client.get(url, headers=HTMX).text == drawn
    assert kept.cache_info().currsize == 1  # answered from the kept section
    at_least = member.client.get(url + "&chart=at_least", headers=HTMX).text
    assert kept.cache_info().currsize == 2 and at_least != drawn
    assert "P(Damage ≥ N)" in at_least


def test_a_line_that_cannot_be_hashed_is_drawn_each_time() -> None:
    calls = []

    def caller() -> str:
        calls.append(1)
        return "<section>drawn</section>"

    line = type("JsonLine", (), {"damage": [[1, 0.5]], "__hash__": None})()
    for _ in range(2):
        assert (
            str(templating.kept_line(line, "brikwars", caller=caller)) == "<section>drawn</section>"
        )
    assert len(calls) == 2
