"""Issue 29 item 9 in Chromium: a D20 club searches its rosters in pts and pins D20's own
house rules (a wrong value named beside its field), with no console error."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.helpers import settled, sign_up
from tests.web.builder.test_d20_builder import TROOPER


def _api(page: Page) -> tuple[Any, dict[str, str]]:
    hx = page.locator("body").get_attribute("hx-headers") or ""
    token = re.search(r'"X-CSRF-Token": "([^"]+)"', hx).group(1)  # type: ignore[union-attr]
    return page.request, {"X-CSRF-Token": token}


def test_a_d20_club_searches_in_pts_and_pins_d20_house_rules(page: Page, shot) -> None:  # type: ignore[no-untyped-def]
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(10_000)
    sign_up(page, "Olga")
    page.get_by_role("link", name="Clubs").click()
    page.locator("#new-club").get_by_label("Club name").fill("Tuesday D20 Club")
    page.get_by_role("button", name="Found club").click()
    expect(page.get_by_role("heading", name="Tuesday D20 Club")).to_be_visible()
    club_id = int(page.url.rstrip("/").split("/")[-1])
    request, headers = _api(page)
    costs = {}
    for name, units in (("Genetics", 1), ("Genetics Elite", 2)):
        body = {"name": name, "ruleset_id": "d20", "budget": 200, "club_id": club_id}
        army = request.post("/api/v1/armies", data=body, headers=headers).json()
        for _ in range(units):
            r = request.post(f"/api/v1/armies/{army['id']}/units", data=TROOPER, headers=headers)
            assert r.ok, r.text()
        costs[name] = request.get(f"/api/v1/armies/{army['id']}").json()["total_cost"]
    page.reload()

    search = page.locator("#club-rosters form")
    expect(search.get_by_label("Ruleset")).to_have_value("d20")  # the one ruleset played
    expect(search.locator("legend")).to_have_text("Cost in pts")
    expect(search.get_by_label("from")).to_have_attribute("inputmode", "decimal")
    search.get_by_label("from").fill(str(costs["Genetics Elite"]))
    expect(page.locator("#rosters tbody tr")).to_have_count(1)
    expect(page.locator("#rosters")).to_contain_text("Genetics Elite")
    search.get_by_label("from").fill("lots")
    expect(page.locator("#q-search-errors")).to_contain_text("Cost from")
    search.get_by_label("from").fill("")
    expect(page.locator("#rosters tbody tr")).to_have_count(2)
    expect(page.locator("#q-search-errors")).to_be_empty()
    # All rulesets: the unit says a ruleset is needed for a cost
    search.get_by_label("Ruleset").select_option("")
    expect(search.locator("legend")).to_have_text("Cost (choose a ruleset)")
    search.get_by_label("Ruleset").select_option("d20")
    expect(search.locator("legend")).to_have_text("Cost in pts")
    settled(page)

    rules = page.locator("#club-hr-d20")
    expect(page.locator("#club-hr-brikwars")).to_be_hidden()  # BrikWars': under "another"
    cover = rules.get_by_label(re.compile("Cover against explosions"))
    expect(cover).to_have_attribute("type", "text")  # a whole number: a numeric keypad
    expect(cover).to_have_attribute("inputmode", "numeric")
    cover.fill("40")
    rules.get_by_role("button", name="Pin D20 Power/Reach house rules").click()
    expect(page.locator("#club-hr-d20-cover_bonus-err")).to_contain_text("Cover against explosions")
    page.locator("#club-hr-d20").get_by_label(re.compile("Cover against explosions")).fill("7")
    page.locator("#club-hr-d20").get_by_label("Wounds by margin").check()
    page.locator("#club-hr-d20").get_by_role(
        "button", name="Pin D20 Power/Reach house rules"
    ).click()
    expect(page.locator("#club-hr-d20")).to_contain_text("D20 Power/Reach house rules pinned")
    settled(page)
    shot(page, "d20-club")
    page.reload()
    expect(page.locator("#club-hr-d20-cover_bonus")).to_have_value("7")
    expect(page.locator("#club-hr-d20-margin_wounds")).to_be_checked()
    # the 422 of the refused value was expected; nothing else went wrong
    assert all("422" in e for e in errors), errors
