"""Turns on the battle page (issue 31 deliverable 4): the host switches a battle to turns,
the Battle state shows the round, whose turn it is, the score and who is connected, and End
turn passes to the next side without a reload of the page (Undo takes it back)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.helpers import sign_up
from tests.browser.test_end_battle import _api

SHOTS = Path("/tmp/shots")  # noqa: S108  (where the brief asks for the screenshot)
TANK = {"name": "Tank", "size": 4, "structure_level": 2, "weapons": [{"type": "gun", "size": 3}]}
SCOUT = {"name": "Scout", "kind": "minifig", "weapons": [{"type": "short_ranged_weapon"}]}


def test_play_by_turns_end_turn_and_the_score(page: Page, base_url: str) -> None:
    page.set_default_timeout(10_000)
    sign_up(page, "Host")
    call = _api(page)
    red = call("POST", "/api/v1/armies", {"name": "Red", "budget": 100})
    blue = call("POST", "/api/v1/armies", {"name": "Blue", "budget": 100})
    call("POST", f"/api/v1/armies/{red['id']}/units", TANK)
    for name in ("Scout 1", "Scout 2"):
        call("POST", f"/api/v1/armies/{blue['id']}/units", {**SCOUT, "name": name})
    battle = call("POST", "/api/v1/battles", {"name": "Ford", "army_ids": [red["id"], blue["id"]]})
    ids = {u["name"]: u["id"] for u in battle["units"]}
    url = f"/api/v1/battles/{battle['id']}"
    for seed in range(1, 200):  # the Tank's gun until Scout 1 is out (the score moves)
        call("POST", url + "/rolls", {
            "attacker_id": ids["Tank"], "target_id": ids["Scout 1"], "weapons": [0],
            "situation": {"distance": "2"}, "seed": seed,
        })  # fmt: skip
        body = call("GET", url)
        if body["sides"][1]["score"]["figures_out"] == 1:
            break
    else:
        raise AssertionError("no seed put Scout 1 out")

    page.goto(f"/battles/{battle['id']}")
    state = page.locator("#state")
    expect(state).to_contain_text("Played free")
    state.get_by_role("button", name="Play by turns").click()
    expect(page.locator("#turn")).to_contain_text("Round 1 · Red's turn")
    red_row = page.locator("#score tr[data-side='Red']")
    expect(red_row).to_have_class("turn-now")
    expect(page.locator("#score tr[data-side='Blue'] td").nth(1)).to_have_text("1")  # out
    expect(red_row.locator("td").nth(2)).not_to_have_text("0CP")  # a Scout's cost
    expect(page.locator("#connected")).to_contain_text("Host")
    page.get_by_role("button", name="End turn").click()
    expect(page.locator("#turn")).to_contain_text("Round 1 · Blue's turn")
    expect(page.locator("#log-list article").first).to_contain_text(
        "Red ends its turn: Blue's turn"
    )
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "turns-battle-page.png"), full_page=True, caret="initial")
    page.get_by_role("button", name="End turn").click()
    expect(page.locator("#turn")).to_contain_text("Round 2 · Red's turn")
    page.locator("#log").get_by_role("button", name="Undo #8").click()
    expect(page.locator("#turn")).to_contain_text("Round 1 · Blue's turn")
    page.screenshot(path=str(SHOTS / "turns-after-undo.png"), full_page=True, caret="initial")
