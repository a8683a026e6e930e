"""The open calculator in the browser (issue 14 item 2): from the top navigation, without an
account, type in an attacker and a target and see the odds and the chart, on a phone too."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

SHOTS = Path("/tmp/shots")  # noqa: S108  (the lead looks at them there, outside the repo)


def test_type_units_and_see_odds_without_an_account(page: Page, base_url: str, shot) -> None:  # type: ignore[no-untyped-def]
    page.goto("/")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Calculator").click()
    expect(page).to_have_url(re.compile(r"/calculator/open"))
    attacker, target = page.locator("#unit-a"), page.locator("#unit-t")
    # the attacker: a minifig with a 2" gun
    attacker.get_by_label("Kind").select_option("minifig")
    expect(page).to_have_url(re.compile(r"a\.kind=minifig"))
    attacker.get_by_label("Weapon 3").select_option("")
    expect(attacker.get_by_label("Weapon 3")).to_have_count(0)
    attacker.get_by_label("Weapon 2").select_option("")
    expect(attacker.get_by_label("Weapon 2")).to_have_count(0)
    size = attacker.locator('input[name="a.weapons.0.size"]')
    size.fill("2")
    size.press("Enter")
    expect(page).to_have_url(re.compile(r"a\.weapons\.0\.size=2"))
    # the target: a Hero
    target.get_by_label("Kind").select_option("hero")
    expect(page).to_have_url(re.compile(r"t\.kind=hero"))
    distance = page.get_by_label('Distance (")', exact=True)
    distance.fill("4")
    distance.press("Enter")
    expect(page).to_have_url(re.compile(r"distance=4"))
    results = page.locator("#results")
    expect(results.locator('[data-name="any_destroying"]')).to_be_visible()
    expect(results.locator("svg.chart").first).to_be_visible()
    exact = results.locator("svg.chart rect.bar").first.get_attribute("data-p")
    # the chart's toggle, from the keyboard
    page.locator("#chart-exact").focus()
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(r"chart=at_most|chart=at_least"))
    expect(results.locator("svg.chart[data-mode]").first).to_be_visible()
    assert results.locator("svg.chart rect.bar").first.get_attribute("data-p") != exact
    shot(page, "desktop")
    # the same link on a phone: the whole calculation comes back
    url = page.url
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(url)
    expect(page.locator('#results [data-name="any_destroying"]')).to_be_visible()
    expect(page.locator("#unit-a").get_by_label("Kind")).to_have_value("minifig")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, width
    shot(page, "phone")


def test_add_a_further_target_on_the_open_calculator(page: Page, base_url: str) -> None:
    """D20 automatic fire: "Add a target" swaps in a further target's form (htmx), the odds
    get a row per target and the tallies; a squad of 3 is typed in as its figurines."""
    page.goto("/calculator/open?rules=d20&mode=automatic&distance=30")
    results = page.locator("#results")
    expect(results.locator("table.arc-targets")).to_have_count(0)
    page.locator("#further-targets summary").click()
    page.get_by_role("button", name="Add a target").click()
    further = page.locator("#unit-f-0")
    expect(further).to_be_visible()
    expect(page).to_have_url(re.compile(r"f\.0\.name=Target\+2"))
    expect(results.locator("table.arc-targets tbody tr")).to_have_count(2)
    expect(results.locator('[data-name="tally"]').first).to_be_visible()
    # a second target, a squad of 3 typed in
    page.get_by_role("button", name="Add a target").click()
    expect(page.locator("#unit-f-1")).to_be_visible()
    figures = page.locator('input[name="f.1.figures"]')
    figures.fill("3")
    figures.press("Enter")
    expect(page).to_have_url(re.compile(r"f\.1\.figures=3"))
    # (Enter submitted the form's default button, not the first target's "Remove")
    expect(page).to_have_url(re.compile(r"f\.0\.name=Target\+2&"))
    expect(results.locator("table.arc-targets tbody tr[data-target='2']").first).to_be_visible()
    expect(results.locator("table.arc-targets tbody tr")).not_to_have_count(2)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "open-further.png"), full_page=True, caret="initial")
