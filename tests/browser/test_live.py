"""A live battle in two browsers: the owner rolls, and the read-only link's page, open in
another browser context, shows the roll without a reload."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.helpers import new_army, sign_up
from tests.browser.test_battles import _add_creation, _add_weapon


@pytest.fixture
def long_streams(app) -> Iterator[None]:  # type: ignore[no-untyped-def]
    """Streams that stay open (the suite's end at once: tests/conftest.py)."""
    settings = app.state.settings
    kept = settings.live_stream_seconds
    settings.live_stream_seconds = 120.0
    yield
    settings.live_stream_seconds = kept


def test_the_spectator_page_shows_the_owners_roll_without_a_reload(  # type: ignore[no-untyped-def]
    page: Page, browser: Browser, base_url: str, long_streams: None, shot
) -> None:
    page.set_default_timeout(10_000)
    sign_up(page, "Host")
    new_army(page, "Red Legion", 100)
    _add_creation(page, "Tank", 4, 2)
    _add_weapon(page, "Tank", "gun", 3)
    new_army(page, "Blue Horde", 100)
    _add_creation(page, "Walker", 3, 3)
    page.get_by_role("link", name="Battles").click()
    form = page.locator("#new-battle")
    form.get_by_label("Name").fill("Live Ford")
    form.get_by_label("Red Legion").check()
    form.get_by_label("Blue Horde").check()
    form.get_by_role("button", name="Begin battle").click()
    expect(page.locator("#live")).to_have_text("Live")
    page.get_by_role("button", name="Make a read-only link").click()
    link = page.locator("#new-link").inner_text()

    spectator_context = browser.new_context(base_url=base_url)
    watcher = spectator_context.new_page()
    try:
        watcher.goto(link)
        expect(watcher.locator("#live")).to_have_text("Live")
        expect(watcher.locator("#log-empty")).to_be_visible()
        watcher.evaluate("window.__noReload = true")  # gone if the page were loaded again

        attack = page.locator("#attack-form")
        attack.get_by_label("Attacker").select_option(label="Tank (Red Legion)")
        expect(attack.get_by_label('3" Gun')).to_be_checked()
        for n in (1, 2):
            attack.get_by_role("button", name="Roll it!").click()
            expect(page.locator("#log .entry")).to_have_count(n)  # the owner's page: once each
            expect(watcher.locator("#log .entry")).to_have_count(n)
            expect(watcher.locator("#log .entry").first).to_have_attribute("data-seq", str(n))
        expect(watcher.locator("#log-empty")).to_be_hidden()
        # the entry the owner saw is the one the spectator sees, newest first
        summary = page.locator("#log .entry summary").first.inner_text()
        expect(watcher.locator("#log .entry summary").first).to_have_text(summary)
        # the owner's page got its own roll once, from its answer and from the stream
        expect(page.locator("#log .entry[data-seq='2']")).to_have_count(1)
        assert watcher.evaluate("window.__noReload") is True
        expect(watcher.locator("#units [id^=unit-]")).to_have_count(2)  # (ids: the database's)
        shot(page, "owner")
        shot(watcher, "spectator")

        # revoking the link ends the spectator's stream: its page says it is no longer live
        page.get_by_role("button", name="Revoke the link").click()
        expect(watcher.locator("#live")).to_contain_text("Not live")
    finally:
        spectator_context.close()
