"""Issue 14 item 10 in the browser: a squad of identical minifigs is one line of the builder."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import new_army, sign_up


@pytest.mark.parametrize("viewport", [(1280, 800), (390, 844)], ids=["desktop", "phone"])
def test_a_squad_is_one_line_with_its_count(  # type: ignore[no-untyped-def]
    page: Page, base_url: str, shot, viewport: tuple[int, int]
) -> None:
    page.set_default_timeout(10_000)
    page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    sign_up(page, "Sergeant")
    new_army(page, "Squad", 20)
    totals = page.locator("#army-totals")

    add_unit = page.locator("#add-unit-form")
    add_unit.get_by_label("Name").fill("Trooper")
    add_unit.get_by_label("Kind").select_option("minifig")
    add_unit.get_by_label("Figures (identical, 1–50)").fill("3")
    add_unit.get_by_role("button", name="Add unit").click()
    trooper = page.locator("tbody.unit", has_text="Trooper")
    expect(trooper).to_have_count(1)
    expect(trooper.locator(".unit-count")).to_have_text("×3")
    expect(trooper.locator(".unit-cost")).to_have_text("3 × 4CP = 12CP")
    expect(totals).to_contain_text("12CP of 20CP")
    expect(totals).to_contain_text("1 unit (3 figures)")
    shot(page, "squad-of-three")

    # Six troopers cost 24CP: over the 20CP budget, and the findings say so.
    trooper.get_by_text("Edit Trooper: weapons and details").click()
    trooper.get_by_text("Edit Trooper (").click()
    trooper.get_by_label("Figures (identical, 1–50)").fill("6")
    trooper.get_by_role("button", name="Save Trooper").click()
    expect(page.locator("tbody.unit .unit-cost")).to_have_text("6 × 4CP = 24CP")
    expect(totals).to_contain_text("24CP of 20CP")
    expect(page.locator("#findings")).to_contain_text("budget")
    shot(page, "over-budget")
