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
    """Issue 29 item 4: logged out, the invitation is a landing page naming the club and who
    invites; Sign up and join keeps it through the form and lands in the club. No console
    error on the way."""
    owner = _page(browser, base_url)
    sign_up(owner, "Olga")
    owner.get_by_role("link", name="Clubs").click()
    owner.locator("#new-club").get_by_label("Club name").fill("Tuesday Brick Club")
    owner.get_by_role("button", name="Found club").click()
    owner.get_by_role("button", name="Make an invitation link").click()
    invite = owner.locator("#new-invite code").inner_text()

    newcomer = _page(browser, base_url)
    errors: list[str] = []
    newcomer.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    newcomer.on("pageerror", lambda e: errors.append(str(e)))
    landing = newcomer.goto(invite)
    assert landing is not None
    assert landing.headers["cache-control"] == "no-store"
    assert landing.headers["referrer-policy"] == "no-referrer"
    expect(
        newcomer.get_by_role("heading", name="Olga invites you to Tuesday Brick Club")
    ).to_be_visible()
    shot(newcomer, "invitation-landing")
    newcomer.get_by_role("link", name="Sign up and join").click()
    expect(newcomer.locator("#invitation-note")).to_contain_text(
        "Olga invites you to Tuesday Brick Club"
    )
    newcomer.get_by_label("Display name").fill("Newcomer")
    newcomer.get_by_label("Email").fill("newcomer-invite@example.com")
    newcomer.get_by_label("Password").fill("a long enough password")
    newcomer.get_by_role("button", name="Sign up and join").click()
    expect(newcomer.get_by_text("You joined Tuesday Brick Club. Welcome!")).to_be_visible()
    expect(newcomer.get_by_role("heading", name="Tuesday Brick Club")).to_be_visible()
    expect(newcomer.locator("#members")).to_contain_text("Newcomer (you)")
    shot(newcomer, "joined-after-sign-up")
    # the link once more: no second Join, a way into the club
    newcomer.goto(invite)
    expect(newcomer.get_by_text("You are already a member of this club.")).to_be_visible()
    assert errors == []
    # a dead link: one page naming nothing (its 404 is the console's only error)
    newcomer.goto(invite.rsplit("/", 1)[0] + "/" + "x" * 32)
    expect(
        newcomer.get_by_role("heading", name="This invitation link does not work")
    ).to_be_visible()
    expect(newcomer.locator("main")).not_to_contain_text("Tuesday")
    assert errors and all("404" in e for e in errors), errors
