"""A ruleset with no templates of its own (the conformance fake, Coin War) is built in the
browser through the generic forms drawn from its declared fields: a refused value is marked
by its input, a weapon is previewed then added."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from app.rules import registry
from tests.browser.helpers import settled, sign_up
from tests.rules.conformance.fake_ruleset import RULESET as FAKE


def test_build_a_coin_war_army_with_the_generic_forms(  # type: ignore[no-untyped-def]
    page: Page, base_url: str, monkeypatch: pytest.MonkeyPatch, shot
) -> None:
    monkeypatch.setitem(registry.RULESETS, FAKE.id, FAKE)  # the live server runs in-process
    sign_up(page, "Coiner")
    form = page.locator("#new-army")
    form.get_by_label("Name").fill("Coins")
    form.get_by_label("Budget", exact=True).fill("50")
    form.get_by_label("Rules").select_option(FAKE.id)
    form.get_by_role("button", name="Create army").click()
    expect(page.get_by_role("heading", name="Coins")).to_be_visible()
    page.wait_for_load_state()

    add_unit = page.locator("#add-unit-form")
    add_unit.get_by_label("Name").fill("Rook")
    hits = add_unit.get_by_label("Hits (1–5)")
    hits.fill("9")
    add_unit.get_by_role("button", name="Add unit").click()
    hits = page.locator("#add-unit-form").get_by_label("Hits (1–5)")
    expect(hits).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#add-unit-form-hits-err")).to_have_text("Hits must be from 1 to 5")
    hits.fill("2")
    page.locator("#add-unit-form").get_by_role("button", name="Add unit").click()
    rook = page.locator("tbody.unit", has_text="Rook")
    expect(rook.locator(".unit-cost")).to_have_text("4 pts")  # 2 per Hit

    rook.get_by_text("Edit Rook").first.click()  # the editor, fetched on opening
    weapon = rook.locator("form.weapon-form").first
    expect(weapon.get_by_label("Type")).to_have_value("blaster")
    weapon.get_by_label("Dice (1–3)").fill("3")
    expect(weapon.locator("output.preview")).to_contain_text("Blaster 3d6 · Dice 3d6 · 3 pts")
    settled(page)
    weapon.get_by_role("button", name="Add weapon").click()
    expect(rook.locator(".unit-cost")).to_have_text("7 pts")
    shot(page, "coin-war-army")
