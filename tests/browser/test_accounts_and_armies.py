"""A new user's first minutes: sign up, log in, create, rename inline, delete."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect


def test_sign_up_create_rename_delete(page: Page, base_url: str, shot) -> None:  # type: ignore[no-untyped-def]
    page.set_default_timeout(10_000)
    page.goto("/")
    expect(page.get_by_role("heading", name="Build brick armies. Know the odds.")).to_be_visible()
    shot(page, "home")

    page.get_by_role("link", name="Sign up").click()
    page.get_by_label("Display name").fill("Brick Baron")
    page.get_by_label("Email").fill("baron@example.com")
    page.get_by_label("Password").fill("short")
    page.get_by_role("button", name="Sign up").click()
    # Inline error, no reload: the heading stays, the form shows the reason.
    expect(page.get_by_text("Password must be at least 8 characters")).to_be_visible()
    shot(page, "signup-error")
    page.get_by_label("Password").fill("a much better password")
    page.get_by_role("button", name="Sign up").click()
    expect(page).to_have_url(re.compile(r"/armies$"))
    expect(page.get_by_text("Welcome to BrikForge, Brick Baron!")).to_be_visible()
    shot(page, "signed-up")

    page.get_by_role("button", name="Log out").click()
    expect(page).to_have_url(re.compile(r"/login$"))
    page.get_by_label("Email").fill("baron@example.com")
    page.get_by_label("Password").fill("a much better password")
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(re.compile(r"/armies$"))
    shot(page, "logged-in")

    page.get_by_label("Name").fill("Iron Bricks")
    page.get_by_label("Budget", exact=True).fill("0")
    page.get_by_role("button", name="Create army").click()
    expect(page.get_by_text("Budget must be greater than 0")).to_be_visible()
    page.get_by_label("Budget", exact=True).fill("250")
    page.get_by_role("button", name="Create army").click()
    expect(page).to_have_url(re.compile(r"/armies/\d+$"))
    expect(page.get_by_role("heading", name="Iron Bricks")).to_be_visible()
    shot(page, "army-created")

    url_before = page.url
    page.get_by_text("Edit name, budget and notes").click()
    settings = page.locator("#army-form")
    settings.get_by_label("Name").fill("Iron Bricks Reforged")
    settings.get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", name="Iron Bricks Reforged")).to_be_visible()
    expect(page.get_by_text("Saved.")).to_be_visible()
    assert page.url == url_before
    shot(page, "renamed-inline")

    page.get_by_role("link", name="Delete army…").click()
    expect(page.get_by_role("heading", name="Delete “Iron Bricks Reforged”?")).to_be_visible()
    shot(page, "confirm-delete")
    page.get_by_role("button", name="Yes, delete it").click()
    expect(page).to_have_url(re.compile(r"/armies$"))
    expect(page.get_by_text("Army “Iron Bricks Reforged” deleted.")).to_be_visible()
    expect(page.get_by_text("No armies yet:")).to_be_visible()
    shot(page, "deleted")

    # The same pages on a phone: nothing overflows sideways.
    page.set_viewport_size({"width": 390, "height": 844})
    new = page.locator("#new-army")
    new.get_by_label("Name").fill("Pocket Army")
    new.get_by_label("Budget", exact=True).fill("50")
    new.get_by_label("Budget", exact=True).press("Enter")  # keyboard submit
    expect(page.get_by_role("heading", name="Pocket Army")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "phone-army")
