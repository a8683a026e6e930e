"""Issue 26 in the browser: a unit's notes are typed in its form and shown under it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import new_army, sign_up


@pytest.mark.parametrize("viewport", [(1280, 800), (390, 844)], ids=["desktop", "phone"])
def test_notes_are_typed_shown_and_cleared(  # type: ignore[no-untyped-def]
    page: Page, base_url: str, shot, viewport: tuple[int, int]
) -> None:
    page.set_default_timeout(10_000)
    page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    sign_up(page, "Scribe")
    new_army(page, "Scribes", 50)

    add_unit = page.locator("#add-unit-form")
    add_unit.get_by_label("Name").fill("Trooper")
    add_unit.get_by_label("Kind").select_option("minifig")
    add_unit.get_by_label("Notes").fill("Holds the <bridge>\nuntil the flare")
    add_unit.get_by_role("button", name="Add unit").click()
    trooper = page.locator("tbody.unit", has_text="Trooper")
    notes = trooper.locator(".unit-notes")
    expect(notes).to_have_text("Holds the <bridge>\nuntil the flare")
    expect(add_unit.get_by_label("Notes")).to_have_value("")  # a fresh form for the next
    shot(page, "unit-notes")

    trooper.get_by_text("Edit Trooper: weapons and details").click()
    trooper.get_by_text("Edit Trooper (").click()
    box = trooper.locator(".edit-unit").get_by_label("Notes")
    expect(box).to_have_value("Holds the <bridge>\nuntil the flare")
    box.fill("")
    trooper.get_by_role("button", name="Save Trooper").click()
    expect(page.locator("tbody.unit .unit-notes")).to_have_count(0)
