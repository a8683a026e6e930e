"""The calculator in the browser: from a Creation in an army to live odds and a chart."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.helpers import sign_up

TANK = {
    "name": "Tank",
    "kind": "creation",
    "size": 4,
    "structure_level": 2,
    "weapons": [{"type": "gun", "size": 3}, {"type": "machinegun", "size": 2}],
}
REX = {
    "name": "Rex",
    "kind": "creation",
    "size": 3,
    "structure_level": 2,
    "weapons": [{"type": "melee_weapon", "size": 2}],
}


def make_army(page: Page) -> int:
    """An army with a Tank and a Rex, made through the JSON API with the page's session."""
    csrf = page.locator("body").get_attribute("hx-headers") or ""
    token = re.search(r'"X-CSRF-Token": "([^"]+)"', csrf).group(1)  # type: ignore[union-attr]
    headers = {"X-CSRF-Token": token}
    army = page.request.post(
        "/api/v1/armies", data={"name": "Iron Column", "budget": 200}, headers=headers
    ).json()
    for unit in (TANK, REX):
        r = page.request.post(f"/api/v1/armies/{army['id']}/units", data=unit, headers=headers)
        assert r.ok, r.text()
    return int(army["id"])


def test_attack_with_this_live_odds_and_chart(page: Page, base_url: str, shot) -> None:  # type: ignore[no-untyped-def]
    page.set_default_timeout(10_000)
    sign_up(page, "Gunner")
    army = make_army(page)
    page.goto(f"/armies/{army}")
    page.get_by_role("link", name="Attack with Tank").click()
    expect(page).to_have_url(re.compile(r"/calculator\?attacker=\d+"))
    page.evaluate("window.__noReload = true")
    page.get_by_label("Target unit").select_option(label="Rex (creation)")
    results = page.locator("#results")
    miss = results.locator('td[data-name="miss"]').first
    expect(miss).to_be_visible()
    expect(page.locator("svg.chart").first).to_be_visible()
    page.get_by_label('Distance (")', exact=True).fill("4")
    expect(page).to_have_url(re.compile(r"distance=4"))
    near = miss.get_attribute("data-p")
    bars_near = page.locator("svg.chart rect.bar").first.get_attribute("data-p")
    shot(page, "near")
    page.get_by_label('Distance (")', exact=True).fill("20")  # 6" beyond the 3" Gun's 14" Range
    expect(page).to_have_url(re.compile(r"distance=20"))
    expect(miss).not_to_have_attribute("data-p", near or "")
    assert float(miss.get_attribute("data-p") or 0) > float(near or 1)
    assert page.locator("svg.chart rect.bar").first.get_attribute("data-p") != bars_near
    expect(results).to_contain_text("Out of Range")
    # Power: both weapons fit (3" + 2" of 8"); the page is one live state, never reloaded
    page.get_by_role("checkbox", name=re.compile(r"MachineGun")).check()
    expect(results.locator("section.line")).to_have_count(2)
    assert page.evaluate("window.__noReload") is True
    shot(page, "far-two-weapons")
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, "phone")
    page.set_viewport_size({"width": 1280, "height": 900})

    # Roll it: close in with the Gun alone, roll in a new battle, then twice more there.
    page.get_by_role("checkbox", name=re.compile(r"MachineGun")).uncheck()
    # (the uncheck's answer first: a swap landing mid-fill moves the caret, "2" -> "220")
    expect(results.locator("section.line")).to_have_count(1)
    page.get_by_label('Distance (")', exact=True).fill("2")
    expect(page).to_have_url(re.compile(r"distance=2(&|$)"))
    page.get_by_role("button", name=re.compile("Roll it!")).click()
    expect(page).to_have_url(re.compile(r"/battles/\d+\?.*roll=1"))
    expect(page.locator("#result .entry")).to_have_attribute("data-seq", "1")
    attack = page.locator("#attack-form")
    expect(attack.get_by_label('Distance (")', exact=True)).to_have_value("2")
    for n in (2, 3):
        attack.get_by_role("button", name="Roll it!").click()
        expect(page.locator("#result .entry")).to_have_attribute("data-seq", str(n))
    log = page.locator("#log .entry")
    expect(log).to_have_count(3)
    expect(page.locator("#result tr.die").first).to_contain_text("action")
    rex = page.locator("#units li", has_text="Rex")

    def size_lost_in_log() -> int:
        # the entries that stand: an undone entry and the undo stay in the log (P20)
        standing = page.locator('#log .entry:not(.undone):not([data-kind="undo"])')
        summaries = [t for t in standing.locator("summary").all_inner_texts()]
        return sum("Size Damage" in t for t in summaries)

    def effective_size() -> int:
        return int((rex.locator(".es").inner_text()).rstrip('"'))

    # The target's Size Damage is what the log says (Rex is 3"; unless a roll destroyed him).
    if "destroyed" not in " ".join(log.all_inner_texts()):
        assert effective_size() == 3 - size_lost_in_log()
    shot(page, "battle-three-rolls")
    page.get_by_role("button", name="Undo #3").click()
    expect(log).to_have_count(4)  # the log only grows: #3 struck through, #4 the undo
    expect(page.locator("#entry-3")).to_have_class(re.compile(r"\bundone\b"))
    assert effective_size() == 3 - size_lost_in_log()  # two rolls cannot destroy a 3" Rex
    shot(page, "battle-undone")
