"""Two players and a stranger: a club, an invitation, a shared roster, a fork, a restore."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from tests.browser.helpers import sign_up


def _page(browser: Browser, base_url: str) -> Page:
    page = browser.new_context(base_url=base_url).new_page()
    page.set_default_timeout(10_000)
    return page


def test_club_invite_share_fork_restore(browser: Browser, base_url: str, shot) -> None:  # type: ignore[no-untyped-def]
    alice = _page(browser, base_url)
    sign_up(alice, "Alice")
    alice.get_by_role("link", name="Clubs").click()
    alice.locator("#new-club").get_by_label("Club name").fill("Brick Club")
    alice.get_by_role("button", name="Found club").click()
    expect(alice.get_by_role("heading", name="Brick Club")).to_be_visible()
    alice.get_by_role("button", name="Make an invitation link").click()
    invite = alice.locator("#new-invite code").inner_text()
    assert re.search(r"/clubs/join/[\w-]{32,}$", invite)
    shot(alice, "alice-invite")

    # Alice builds a roster shared with the club.
    alice.goto("/armies")
    form = alice.locator("#new-army")
    form.get_by_label("Name").fill("Alpha Legion")
    form.get_by_label("Budget", exact=True).fill("50")
    form.get_by_label("Share with club").select_option(label="Brick Club")
    form.get_by_role("button", name="Create army").click()
    expect(alice.get_by_role("heading", name="Alpha Legion")).to_be_visible()
    army_url = alice.url
    for name in ("Trooper", "Sergeant"):
        add = alice.locator("#add-unit-form")
        add.get_by_label("Name").fill(name)
        add.get_by_role("button", name="Add unit").click()
        expect(alice.locator("tbody.unit", has_text=name)).to_be_visible()
    expect(alice.locator("#army-totals")).to_contain_text("8CP of 50CP")
    shot(alice, "alice-roster")

    # Bob joins by the link, reads the roster, forks it and edits his fork.
    bob = _page(browser, base_url)
    sign_up(bob, "Bob")
    bob.goto(invite)
    expect(bob.get_by_role("heading", name=re.compile("invites you to Brick Club"))).to_be_visible()
    bob.get_by_role("button", name="Join the club").click()
    expect(bob.get_by_text("Welcome to Brick Club!")).to_be_visible()
    bob.get_by_role("link", name="Alpha Legion").click()
    expect(bob.get_by_text("Read only: a club roster shared with you.")).to_be_visible()
    expect(bob.locator("#add-unit-form")).to_have_count(0)
    shot(bob, "bob-reads")
    bob.get_by_role("button", name="Fork into my armies").click()
    expect(bob.get_by_role("heading", name="Alpha Legion (fork)")).to_be_visible()
    add = bob.locator("#add-unit-form")
    add.get_by_label("Name").fill("Scout")
    add.get_by_role("button", name="Add unit").click()
    expect(bob.locator("#army-totals")).to_contain_text("12CP of 50CP")
    shot(bob, "bob-fork-edited")

    # Alice's original is unchanged; she restores the revision with only the Trooper.
    alice.goto(army_url)
    expect(alice.locator("tbody.unit")).to_have_count(2)
    expect(alice.locator("tbody.unit", has_text="Scout")).to_have_count(0)
    alice.get_by_role("link", name="History").click()
    expect(alice.locator("#revisions")).to_contain_text("added Sergeant, +4 CP")
    shot(alice, "alice-history")
    alice.locator("#revisions tr", has_text="added Trooper").get_by_role(
        "link", name="View"
    ).click()
    alice.get_by_role("button", name="Restore this revision").click()
    expect(alice.get_by_text("Revision restored.")).to_be_visible()
    expect(alice.locator("tbody.unit")).to_have_count(1)
    expect(alice.locator("#army-totals")).to_contain_text("4CP of 50CP")
    shot(alice, "alice-restored")

    # A stranger gets nothing: not the army, not its print page.
    mallory = _page(browser, base_url)
    sign_up(mallory, "Mallory")
    for url in (army_url, army_url + "/print"):
        response = mallory.goto(url)
        assert response is not None and response.status == 404
        expect(mallory.get_by_role("heading", name="Not found")).to_be_visible()
        assert "Alpha Legion" not in mallory.content()
    shot(mallory, "stranger-404")
