"""Issue 27's acceptance in the browser, for each ruleset: an attack on several saved units
(one a squad of 3) is computed on the calculator page, each target's odds shown, and rolled
into a battle with "Roll it!". Screenshots of each result go to /tmp/shots/ for a look."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import settled, sign_up
from tests.web.calculator.test_further_targets import _d20, _degrees

SHOTS = Path("/tmp/shots")  # noqa: S108  (the lead looks at them there, outside the repo)


# The attacker, the target and a squad of 3 (the further target); the situation as a query;
# the further target's own field as the page labels it and the value to give it.
CASES: dict[str, dict[str, Any]] = {
    "brikwars": {
        "units": [
            {
                "name": "Gunner",
                "kind": "creation",
                "size": 3,
                "structure_level": 1,
                "weapons": [{"type": "machinegun", "size": 2}],
            },
            {"name": "Trooper", "kind": "minifig"},
            {"name": "Squad", "kind": "minifig", "count": 3},
        ],
        "situation": "arc=2&distance=3",
        "field": ("Target 2 its distance", "4"),
    },
    "d20": {
        "units": [
            _d20(
                "Gunner",
                [{"type": "gun", "name": "Rifle", "reach": 60, "power": 6, "automatic": True}],
            ),
            _d20("Chronos", []),
            _d20("Squad", [], count=3),
        ],
        "situation": "mode=automatic&distance=30",
        "field": None,
    },
    "degrees": {
        "units": [
            _degrees("Grenadier", [{"type": "grenade", "degree": 4}], degree=4),
            _degrees("Alpha", []),
            _degrees("Squad", [], count=3),
        ],
        "situation": "",
        "field": ("Target 2 location", "close"),
    },
}


def _army(page: Page, ruleset: str) -> list[dict[str, Any]]:
    csrf = page.locator("body").get_attribute("hx-headers") or ""
    token = re.search(r'"X-CSRF-Token": "([^"]+)"', csrf).group(1)  # type: ignore[union-attr]
    headers = {"X-CSRF-Token": token}
    army = page.request.post(
        "/api/v1/armies",
        data={"name": f"{ruleset} squads", "ruleset_id": ruleset, "budget": 1000},
        headers=headers,
    ).json()
    out = []
    for unit in CASES[ruleset]["units"]:
        r = page.request.post(f"/api/v1/armies/{army['id']}/units", data=unit, headers=headers)
        assert r.ok, r.text()
        out.append(r.json())
    return out


@pytest.mark.parametrize("ruleset", list(CASES))
def test_a_multi_target_attack_between_saved_units_rolled_into_a_battle(
    page: Page, base_url: str, ruleset: str
) -> None:
    page.set_default_timeout(15_000)
    sign_up(page, f"{ruleset} gunner")
    attacker, target, squad = _army(page, ruleset)
    case = CASES[ruleset]
    weapon = attacker["weapons"][0]["id"]
    situation = f"&{case['situation']}" if case["situation"] else ""
    page.goto(
        f"/calculator?attacker={attacker['id']}&weapons={weapon}&target={target['id']}{situation}"
    )
    page.wait_for_load_state()
    page.locator("#further-targets > summary").click()
    page.get_by_label("Add a target").select_option(label=f"Squad ({squad['kind']})")
    settled(page)
    row = page.locator('.follower[data-follower="0"]')
    expect(row.get_by_label("Target 2", exact=True)).to_have_value(str(squad["id"]))
    # the squad's figurines: all 3 unless told (the input's placeholder says so)
    figures = row.get_by_label(re.compile(r"figurines reached \(of 3\)"))
    expect(figures).to_have_attribute("placeholder", "all 3")
    if case["field"]:
        label, value = case["field"]
        control = row.get_by_label(label)
        if control.evaluate("e => e.tagName") == "SELECT":
            control.select_option(value)
        else:
            control.fill(value)
        expect(page).to_have_url(re.compile(r"follower_\w+=" + re.escape(value)))
    results = page.locator("#results")
    table = results.locator("table.arc-targets").first
    expect(table).to_contain_text("Squad")
    expect(table).to_contain_text(target["name"])
    settled(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{ruleset}-calculator.png"), full_page=True, caret="initial")
    # fewer of the squad reached: the link to share says so
    figures.fill("2")
    expect(page).to_have_url(re.compile(r"follower_figures=2"))
    figures.fill("")
    expect(page).not_to_have_url(re.compile(r"follower_figures=2"))
    settled(page)
    page.get_by_role("button", name=re.compile("Roll it!")).click()
    expect(page).to_have_url(re.compile(r"/battles/\d+\?.*roll=1.*follower\.0\.unit_id=\d+"))
    expect(page.locator("#result")).to_be_visible()
    page.screenshot(path=str(SHOTS / f"{ruleset}-battle.png"), full_page=True, caret="initial")
