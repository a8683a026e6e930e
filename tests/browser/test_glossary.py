"""Issue 14, item 11: a rules word in the builder explains itself on keyboard focus and on
hover, and leads to its glossary entry."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.helpers import new_army, sign_up


def test_focusing_a_rules_word_shows_its_explanation(page: Page, shot) -> None:  # type: ignore[no-untyped-def]
    sign_up(page, "Reader")
    new_army(page, "Glossed", 60)
    add_unit = page.locator("#add-unit-form")
    add_unit.get_by_label("Name").fill("Trooper")
    add_unit.get_by_label("Kind").select_option("minifig")
    add_unit.get_by_role("button", name="Add unit").click()
    expect(page.locator("tbody.unit", has_text="Trooper")).to_be_visible()

    armour = page.locator("#units thead .term", has_text="Armour")
    tip = armour.locator(".tip")
    expect(tip).to_be_hidden()
    armour.get_by_role("link", name="Armour").focus()  # as the Tab key reaches it
    expect(tip).to_be_visible()
    expect(tip).to_contain_text("What Damage must beat")
    # screen readers hear the same explanation, through aria-describedby
    link = armour.get_by_role("link", name="Armour")
    expect(link).to_have_attribute("aria-describedby", "gloss-brikwars-armour")
    shot(page, "armour-explained-on-focus")

    page.locator("h1").first.click()  # focus leaves: the explanation goes
    move = page.locator("#units thead .term", has_text="Move")
    move.hover()
    expect(move.locator(".tip")).to_be_visible()

    link.click()
    expect(page).to_have_url(re.compile(r"/glossary#brikwars-armour$"))
    expect(page.locator("#brikwars-armour")).to_contain_text("Armour")
    expect(page.locator("#brikwars-armour + dd")).to_contain_text("Rule: BrikWars 2010")
    shot(page, "glossary")
