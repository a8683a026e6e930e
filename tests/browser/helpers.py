"""Steps shared by browser tests."""

from __future__ import annotations

import itertools
import re

from playwright.sync_api import Page, expect

_counter = itertools.count(1)


def sign_up(page: Page, name: str = "Player") -> str:
    """Register a fresh account through the sign-up page; returns its email."""
    email = f"browser{next(_counter)}-{name.lower().replace(' ', '')}@example.com"
    page.goto("/register")
    page.get_by_label("Display name").fill(name)
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill("a long enough password")
    page.get_by_role("button", name="Sign up").click()
    expect(page).to_have_url(re.compile(r"/armies$"))
    return email


def new_army(page: Page, name: str, budget: int) -> None:
    page.goto("/armies")
    form = page.locator("#new-army")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Budget", exact=True).fill(str(budget))
    form.get_by_role("button", name="Create army").click()
    expect(page.get_by_role("heading", name=name)).to_be_visible()
    # htmx wires up the page on DOMContentLoaded: a pick before then would fetch nothing.
    page.wait_for_load_state()


def settled(page: Page) -> None:
    """Wait until no htmx request is in flight (a picker's fields fetched again, a preview)
    and no swap is still settling: a click meanwhile may race the swap that answers it."""
    expect(page.locator(".htmx-request, .htmx-swapping, .htmx-settling")).to_have_count(0)
