"""A battle in the browser: two armies meet, the odds follow the form, roll, undo."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.helpers import new_army, settled, sign_up

SHOTS = Path("/tmp/shots")  # noqa: S108  (where the brief asks for the screenshot)


def _add_creation(page: Page, name: str, size: int, level: int) -> None:
    form = page.locator("#add-unit-form")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Kind").select_option("creation")
    form.get_by_label("Size (inches)").fill(str(size))
    form.get_by_label("Structure Level (0, ½ = 0.5, 1–5)").fill(str(level))
    form.get_by_role("button", name="Add unit").click()
    expect(page.locator("tbody.unit", has_text=name)).to_be_visible()


def _add_weapon(page: Page, unit: str, weapon: str, size: int) -> None:
    block = page.locator("tbody.unit", has_text=unit)
    block.get_by_text(f"Edit {unit}: weapons and details").click()
    form = block.locator("form.weapon-form").first
    form.get_by_label("Weapon").select_option(weapon)
    settled(page)  # the weapon type's fields fetched again
    form.get_by_label("Size (inches)").fill(str(size))
    settled(page)
    form.get_by_role("button", name="Add weapon").click()
    name = f'{size}" {weapon.replace("_", " ").title()}'
    expect(block.locator("table.weapons")).to_contain_text(name)


def test_a_battle_roll_and_undo(page: Page, base_url: str, shot) -> None:  # type: ignore[no-untyped-def]
    page.set_default_timeout(10_000)
    sign_up(page, "Host")
    new_army(page, "Red Legion", 100)
    _add_creation(page, "Tank", 4, 2)
    _add_weapon(page, "Tank", "gun", 3)
    new_army(page, "Blue Horde", 100)
    _add_creation(page, "Walker", 3, 3)

    page.get_by_role("link", name="Battles").click()
    form = page.locator("#new-battle")
    form.get_by_label("Name").fill("Battle of the Ford")
    form.get_by_label("Red Legion").check()
    form.get_by_label("Blue Horde").check()
    form.get_by_role("button", name="Begin battle").click()
    expect(page.get_by_role("heading", name="Battle of the Ford")).to_be_visible()
    page.evaluate("window.__noReload = true")  # gone if a swap turned into a page load

    walker = page.locator("#units li", has_text="Walker")
    expect(walker.locator(".armour")).to_have_text("3d10")
    attack = page.locator("#attack-form")
    expect(attack).to_contain_text("Walker has no weapons.")  # Blue Horde's side comes first
    # Choosing the attacker brings its weapons (the form is swapped) and a target across.
    attack.get_by_label("Attacker").select_option(label="Tank (Red Legion)")
    expect(attack.get_by_label('3" Gun')).to_be_checked()
    expect(attack.get_by_label("Target", exact=True)).to_have_value(re.compile(r"\d+"))
    expect(attack.get_by_label("Target", exact=True).locator("option:checked")).to_have_text(
        "Walker (Blue Horde)"
    )

    # The odds follow the distance: 40" is far Out of Range.
    miss = page.locator("#odds td").first  # P(miss) of the first line
    attack.get_by_label('Distance (")', exact=True).fill("2")
    expect(page.locator("#odds")).to_contain_text("Size Damage")
    expect(miss).to_have_text("50.0%")  # the engine's P(miss) at 2"
    attack.get_by_label('Distance (")', exact=True).fill("40")
    expect(miss).not_to_have_text("50.0%")
    attack.get_by_label('Distance (")', exact=True).fill("2")
    expect(miss).to_have_text("50.0%")
    shot(page, "odds")

    for n in (1, 2, 3):
        attack.get_by_role("button", name="Roll it!").click()
        expect(page.locator("#result .entry")).to_have_attribute("data-seq", str(n))
        expect(page.locator("#log .entry")).to_have_count(n)
    result = page.locator("#result")
    expect(result.locator("tr.die").first).to_contain_text("action")
    shot(page, "rolled")

    expect(page.get_by_role("button", name="Undo #3")).to_be_visible()
    page.get_by_role("button", name="Undo #3").click()
    expect(page.locator("#log .entry")).to_have_count(4)  # the log only grows (P20)
    expect(page.locator("#flash")).to_contain_text("Undone: #3 (logged as #4).")
    struck = page.locator("#entry-3")
    expect(struck).to_have_class(re.compile(r"\bundone\b"))
    expect(struck.locator("summary del").first).to_have_css("text-decoration-line", "line-through")
    expect(struck.locator(".undone-by")).to_have_text("(undone by #4)")
    expect(page.get_by_role("button", name="Undo #2")).to_be_visible()
    assert page.evaluate("window.__noReload") is True
    shot(page, "undone")
    page.set_viewport_size({"width": 390, "height": 844})  # a phone
    shot(page, "phone")

    # A plain text export for the forum.
    text = page.request.get(page.url.split("?")[0] + "/export.txt").text()
    assert "Battle: Battle of the Ford" in text and "#2 attack" in text
    assert "(undone by #4)\n[s]" in text

    # Another device rolls (a second tab) while this page is not live (its stream closed, as
    # on a dropped connection): this page is now behind. Its roll is refused with who rolled
    # what (P24), the battle as it now stands, and the distance typed kept.
    page.set_viewport_size({"width": 1280, "height": 900})
    page.evaluate("htmx.remove(document.getElementById('live'))")  # (closes its EventSource)
    other = page.context.new_page()
    other.goto(page.url.split("?")[0])
    theirs = other.locator("#attack-form")
    theirs.get_by_label("Attacker").select_option(label="Tank (Red Legion)")
    expect(theirs.get_by_label('3" Gun')).to_be_checked()
    theirs.get_by_label('Distance (")', exact=True).fill("2")
    settled(other)
    theirs.get_by_role("button", name="Roll it!").click()
    expect(other.locator("#result .entry")).to_have_attribute("data-seq", "5")
    other.close()
    attack.get_by_label('Distance (")', exact=True).fill("3")
    settled(page)
    attack.get_by_role("button", name="Roll it!").click()
    stale = page.locator("#stale")
    since = re.compile(r"Host rolled #5 on \w+, \w+ since you loaded this page")
    expect(stale).to_contain_text(since)
    expect(stale).to_contain_text("check the new odds and roll again")
    expect(attack.get_by_label('Distance (")', exact=True)).to_have_value("3")
    expect(page.locator("#log .entry")).to_have_count(5)  # the log as it now stands
    expect(page.locator("#seen")).to_have_value("5")
    shot(page, "stale")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "undo-stale-page.png"), full_page=True, caret="initial")
    attack.get_by_role("button", name="Roll it!").click()  # now up to date: it rolls
    expect(page.locator("#result .entry")).to_have_attribute("data-seq", "6")
    assert page.evaluate("window.__noReload") is True
