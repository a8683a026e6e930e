"""A new player's path (issue 14): an invitation link opened without an account, sign-up,
"Join <club>?", the club's roster read and forked, then an attack worked out in the open
calculator from the club's read-only army link, and its units saved to an army. On a desktop
and on a 390 x 844 phone; screenshots under tests/artifacts/."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.helpers import settled, sign_up

VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


def _page(browser: Browser, base_url: str, viewport: dict[str, int]) -> Page:
    page = browser.new_context(base_url=base_url, viewport=viewport).new_page()  # type: ignore[arg-type]
    page.set_default_timeout(15_000)
    return page


def _alices_club(page: Page, club: str, army: str) -> tuple[str, str]:
    """Alice founds a club, shares a roster of one armed Trooper with it and makes a
    read-only link; returns the invitation link and the army's read-only link."""
    sign_up(page, "Alice")
    page.get_by_role("link", name="Clubs").click()
    page.locator("#new-club").get_by_label("Club name").fill(club)
    page.get_by_role("button", name="Found club").click()
    page.get_by_role("button", name="Make an invitation link").click()
    invite = page.locator("#new-invite code").inner_text()
    page.goto("/armies")
    form = page.locator("#new-army")
    form.get_by_label("Name").fill(army)
    form.get_by_label("Budget", exact=True).fill("60")
    form.get_by_label("Share with club").select_option(label=club)
    form.get_by_role("button", name="Create army").click()
    expect(page.get_by_role("heading", name=army)).to_be_visible()
    army_url = page.url
    add = page.locator("#add-unit-form")
    add.get_by_label("Name").fill("Trooper")
    add.get_by_role("button", name="Add unit").click()
    trooper = page.locator("tbody.unit", has_text="Trooper")
    trooper.get_by_text("Edit Trooper: weapons and details").click()
    weapon = trooper.locator("form.weapon-form").first
    weapon.get_by_label("Weapon").select_option("gun")
    settled(page)  # the Gun's fields fetched again
    weapon.get_by_label("Size (inches)").fill("1")
    expect(weapon.locator("output.preview")).to_contain_text("Use")
    weapon.get_by_role("button", name="Add weapon").click()
    expect(trooper.locator("table.weapons")).to_contain_text('1" Gun')
    page.goto(army_url + "/sharing")
    page.get_by_role("button", name="Make a read-only link").click()
    link = page.locator("#new-link").inner_text().strip()
    assert re.search(r"/shared/[\w-]{20,}$", link), link
    return invite, link


@pytest.mark.parametrize("device", list(VIEWPORTS))
def test_invited_newcomer_signs_up_joins_forks_and_attacks(  # type: ignore[no-untyped-def]
    browser: Browser, base_url: str, shot, device: str
) -> None:
    viewport = VIEWPORTS[device]
    club, army = f"Brick Club {device}", f"Alpha Legion {device}"
    invite, link = _alices_club(_page(browser, base_url, viewport), club, army)

    # Bob has no account: the invitation names the club and waits through sign-up.
    bob = _page(browser, base_url, viewport)
    bob.goto(invite)
    expect(bob.get_by_role("heading", name=f"invites you to {club}")).to_be_visible()
    shot(bob, f"{device}-1-invited")
    bob.get_by_role("link", name="Sign up and join").click()
    bob.get_by_label("Display name").fill("Bob")
    bob.get_by_label("Email").fill(f"bob-journey-{device}@example.com")
    bob.get_by_label("Password").fill("a long enough password")
    bob.get_by_role("button", name="Sign up and join").click()
    expect(bob.get_by_text(f"You joined {club}. Welcome!")).to_be_visible()
    expect(bob.get_by_role("heading", name=club)).to_be_visible()
    shot(bob, f"{device}-2-joined")

    # The club's roster, read only, forked into his own armies.
    bob.get_by_role("link", name=army).click()
    expect(bob.get_by_text("Read only: a club roster shared with you.")).to_be_visible()
    shot(bob, f"{device}-3-club-roster")
    bob.get_by_role("button", name="Fork into my armies").click()
    expect(bob.get_by_role("heading", name=f"{army} (fork)")).to_be_visible()
    expect(bob.locator("tbody.unit", has_text="Trooper")).to_be_visible()
    shot(bob, f"{device}-4-forked")

    # Alice's read-only link: no dead ends, and its Trooper opens in the open calculator.
    bob.goto(link)
    expect(bob.get_by_text("A read-only army shared by link")).to_be_visible()
    bob.get_by_role("link", name="Attack with Trooper in the open calculator").click()
    expect(bob).to_have_url(re.compile(r"/calculator/open\?.*a\.name=Trooper"))
    expect(bob.locator("#unit-a").get_by_label("Kind")).to_have_value("minifig")
    distance = bob.get_by_label('Distance (")', exact=True)
    distance.fill("3")
    distance.press("Enter")
    expect(bob).to_have_url(re.compile(r"distance=3"))
    headline = bob.locator('#results [data-name="any_destroying"]')
    expect(headline).to_contain_text("%")
    expect(bob.locator("#results svg.chart").first).to_be_visible()
    width = bob.evaluate("document.documentElement.scrollWidth")
    assert width <= viewport["width"], f"the page scrolls sideways: {width}px"
    shot(bob, f"{device}-5-open-calculator")

    # Logged in, he keeps both units in a new army of his own.
    save = bob.locator("#save-units")
    save.get_by_label("New army's name").fill(f"Sparring {device}")
    save.get_by_role("button", name="Save both units").click()
    expect(bob.get_by_role("heading", name=f"Sparring {device}")).to_be_visible()
    expect(bob.locator("tbody.unit", has_text="Trooper")).to_be_visible()
    expect(bob.locator("tbody.unit")).to_have_count(2)
    shot(bob, f"{device}-6-saved")
