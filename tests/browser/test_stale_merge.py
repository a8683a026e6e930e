"""Two tabs edit one army: the stale tab's notes are merged, a shared field is a choice."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.helpers import new_army, sign_up


def test_two_tabs_merge_and_choose(page: Page, shot) -> None:  # type: ignore[no-untyped-def]
    page.set_default_timeout(10_000)
    sign_up(page, "Two Tabs")
    new_army(page, "Bridge Guard", 170)
    tab2 = page.context.new_page()
    tab2.set_default_timeout(10_000)
    tab2.goto(page.url)

    # Tab 1 raises the budget; tab 2, still showing 170, edits only the notes.
    page.get_by_text("Edit name, budget and notes").click()
    page.locator("#army-form").get_by_label("Budget (CP)").fill("180")
    page.locator("#army-form").get_by_role("button", name="Save").click()
    expect(page.locator("#army-budget")).to_have_text("180")
    tab2.get_by_text("Edit name, budget and notes").click()
    tab2.locator("#army-form").get_by_label("Notes").fill("Hold the bridge")
    tab2.locator("#army-form").get_by_role("button", name="Save").click()
    expect(tab2.get_by_text("Saved (merged with a change made elsewhere).")).to_be_visible()
    expect(tab2.locator("#army-budget")).to_have_text("180")
    expect(tab2.locator("#army .notes")).to_have_text("Hold the bridge")
    shot(tab2, "merged")

    # Both change the budget: tab 2 sees both values and keeps tab 1's.
    page.reload()
    page.get_by_text("Edit name, budget and notes").click()
    page.locator("#army-form").get_by_label("Budget (CP)").fill("200")
    page.locator("#army-form").get_by_role("button", name="Save").click()
    expect(page.locator("#army-budget")).to_have_text("200")
    tab2.get_by_text("Edit name, budget and notes").click()
    tab2.locator("#army-form").get_by_label("Budget (CP)").fill("190")
    tab2.locator("#army-form").get_by_role("button", name="Save").click()
    conflict = tab2.locator('fieldset.conflict[data-field="budget"]')
    expect(conflict).to_contain_text("Yours: 190")
    expect(conflict).to_contain_text("Elsewhere: 200")
    shot(tab2, "conflict")
    conflict.get_by_label("Elsewhere: 200").check()
    tab2.locator("#army-form").get_by_role("button", name="Save").click()
    expect(tab2.locator("#army-budget")).to_have_text("200")
    tab2.close()
