"""Issue 14 items 1 and 19: shown-once links copy with one click; an invitation survives
signing up first."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from tests.browser.helpers import new_army, sign_up


def _page(browser: Browser, base_url: str, *, clipboard: bool = False) -> Page:
    context = browser.new_context(base_url=base_url)
    if clipboard:
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page = context.new_page()
    page.set_default_timeout(10_000)
    return page


def _copy_and_check(page: Page, value_id: str) -> str:
    value = page.locator(f"#{value_id}").inner_text().strip()
    page.locator(f'[data-copy="{value_id}"]').click()
    expect(page.locator(f'[data-copy-status="{value_id}"]')).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == value
    return value


def test_copy_buttons_put_shown_once_links_on_the_clipboard(  # type: ignore[no-untyped-def]
    browser: Browser, base_url: str, shot
) -> None:
    page = _page(browser, base_url, clipboard=True)
    sign_up(page, "Copier")

    page.get_by_role("link", name="Clubs").click()
    page.locator("#new-club").get_by_label("Club name").fill("Copy Club")
    page.get_by_role("button", name="Found club").click()
    page.get_by_role("button", name="Make an invitation link").click()
    link = _copy_and_check(page, "new-invite-link")
    assert re.search(r"/clubs/join/[\w-]{32,}$", link)
    shot(page, "invite-copied")

    new_army(page, "Copied Legion", 50)
    page.goto(page.url.rstrip("/") + "/sharing")
    page.get_by_role("button", name="Make a read-only link").click()
    assert re.search(r"/shared/[\w-]+$", _copy_and_check(page, "new-link"))
    shot(page, "share-link-copied")

    page.goto("/account")
    page.locator("#tokens").get_by_label("Token name").fill("bot")
    page.get_by_role("button", name="Create token").click()
    assert _copy_and_check(page, "new-token").startswith("bf_")
    shot(page, "token-copied")


def test_an_invitee_signs_up_from_the_invitation_and_joins(  # type: ignore[no-untyped-def]
    browser: Browser, base_url: str, shot
) -> None:
    owner = _page(browser, base_url)
    sign_up(owner, "Owner")
    owner.get_by_role("link", name="Clubs").click()
    owner.locator("#new-club").get_by_label("Club name").fill("Invite Club")
    owner.get_by_role("button", name="Found club").click()
    owner.get_by_role("button", name="Make an invitation link").click()
    invite = owner.locator("#new-invite code").inner_text()

    newcomer = _page(browser, base_url)
    newcomer.goto(invite)
    expect(newcomer).to_have_url(re.compile(r"/login\?next="))
    newcomer.get_by_role("link", name="Create an account").click()
    newcomer.get_by_label("Display name").fill("Newcomer")
    newcomer.get_by_label("Email").fill("newcomer-invite@example.com")
    newcomer.get_by_label("Password").fill("a long enough password")
    newcomer.get_by_role("button", name="Sign up").click()
    expect(newcomer.get_by_role("heading", name="Join “Invite Club”?")).to_be_visible()
    shot(newcomer, "join-after-sign-up")
    newcomer.get_by_role("button", name="Join the club").click()
    expect(newcomer.get_by_text("Welcome to Invite Club!")).to_be_visible()
