"""Issue 14 item 15: the attack form's pickers follow the battle as it stands, without a
reload; Roll it! is disabled, with the reason beside it, while the turn is refused."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.helpers import new_army, sign_up
from tests.browser.test_battles import _add_creation, _add_weapon

MAX_ROLLS = 40


def test_pickers_follow_destruction_and_undo(page: Page, base_url: str, shot) -> None:  # type: ignore[no-untyped-def]
    page.set_default_timeout(10_000)
    sign_up(page, "Host")
    new_army(page, "Red Legion", 100)
    _add_creation(page, "Tank", 4, 2)
    _add_weapon(page, "Tank", "gun", 3)
    new_army(page, "Blue Horde", 100)
    _add_creation(page, "Walker", 1, 1)

    page.get_by_role("link", name="Battles").click()
    form = page.locator("#new-battle")
    form.get_by_label("Name").fill("Last Stand")
    form.get_by_label("Red Legion").check()
    form.get_by_label("Blue Horde").check()
    form.get_by_role("button", name="Begin battle").click()
    expect(page.get_by_role("heading", name="Last Stand")).to_be_visible()
    page.evaluate("window.__noReload = true")  # gone if a swap turned into a page load

    attack = page.locator("#attack-form")
    roll = attack.get_by_role("button", name="Roll it!")
    # The Walker (first side) has no weapons: refused, and the button says so.
    expect(roll).to_be_disabled()
    expect(roll).to_have_attribute("aria-describedby", "roll-refused")
    expect(page.locator("#roll-refused")).to_contain_text("weapons")
    attack.get_by_label("Attacker").select_option(label="Tank (Red Legion)")
    expect(attack.get_by_label('3" Gun')).to_be_checked()
    attack.get_by_label('Distance (")', exact=True).fill("1")
    expect(page.locator("#odds")).to_contain_text("Size Damage")
    expect(roll).to_be_enabled()

    walker = page.locator("#units li", has_text="Walker")
    target = attack.get_by_label("Target", exact=True)
    gun = attack.get_by_label('3" Gun')
    refused = page.locator("#roll-refused")
    entries = rolls = 0
    # (Read what a swap brings, its text and new elements: htmx settles a kept element's
    # attributes, the unit's class or the button's disabled, a moment later.)
    while "destroyed" not in walker.inner_text():
        assert rolls < MAX_ROLLS, "the Walker outlasted every roll"
        if refused.count():  # the Gun jammed: refused, said why, until it is Reloaded
            expect(roll).to_be_disabled()
            page.get_by_role("button", name="Reload Tank").click()
            entries += 1
            expect(page.locator("#log .entry")).to_have_count(entries)
            expect(gun).to_be_enabled()
            gun.check()
            expect(roll).to_be_enabled()
        rolls += 1
        entries += 1
        roll.click()
        expect(page.locator("#log .entry")).to_have_count(entries)
        if not refused.count():  # the form came again: the keyboard stays on Roll it!
            expect(roll).to_be_focused()
    # Destroyed: no longer offered, and with no target the turn is refused.
    expect(target.locator("option", has_text="Walker")).to_have_count(0)
    expect(attack.get_by_label("Attacker").locator("option", has_text="Walker")).to_have_count(0)
    expect(roll).to_be_disabled()
    expect(page.locator("#roll-refused")).to_have_text("Cannot roll this: choose the target")
    shot(page, "destroyed")

    page.get_by_role("button", name=f"Undo #{entries}").click()
    expect(page.locator("#flash")).to_contain_text(f"Undone: #{entries} (logged as")
    expect(walker).not_to_have_class(re.compile(r"\bdestroyed\b"))
    expect(target.locator("option", has_text="Walker")).to_have_count(1)
    target.select_option(label="Walker (Blue Horde)")
    expect(roll).to_be_enabled()
    expect(page.locator("#roll-refused")).to_have_count(0)
    assert page.evaluate("window.__noReload") is True
    shot(page, "undone")
