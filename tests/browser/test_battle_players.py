"""Two players on two devices (issue 31): the host makes an invitation link on the battle's
Players panel (shown once, with a Copy button); a second browser opens it, signs up through
it, picks an army on the join page, and sees the battle with their own side."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.browser.helpers import sign_up
from tests.browser.test_end_battle import _api

SHOTS = Path("/tmp/shots")  # noqa: S108  (where the brief asks for the screenshots)
TANK = {"name": "Tank", "size": 4, "structure_level": 2, "weapons": [{"type": "gun", "size": 3}]}
WALKER = {"name": "Walker", "size": 3, "structure_level": 2}


def test_invite_a_player_who_signs_up_and_joins(  # type: ignore[no-untyped-def]
    page: Page, browser: Browser, base_url: str, shot
) -> None:
    page.set_default_timeout(10_000)
    sign_up(page, "Host")
    call = _api(page)
    ids = []
    for name, unit in (("Red", TANK), ("Blue", WALKER)):
        army: Any = call("POST", "/api/v1/armies", {"name": name, "budget": 100})
        call("POST", f"/api/v1/armies/{army['id']}/units", unit)
        ids.append(army["id"])
    battle = call("POST", "/api/v1/battles", {"name": "Ford", "army_ids": ids})
    page.goto(f"/battles/{battle['id']}#players")
    panel = page.locator("#players")
    panel.get_by_role("button", name="Make an invitation link").click()
    link = page.locator("#new-invite")
    expect(link).to_contain_text("/battles/join/")
    url = link.inner_text()
    SHOTS.mkdir(exist_ok=True)
    page.locator("#players").screenshot(path=str(SHOTS / "sides-invite-panel.png"), caret="initial")
    shot(page, "invite-panel")

    other = browser.new_context(base_url=base_url)
    guest = other.new_page()
    guest.set_default_timeout(10_000)
    guest.goto(url)
    expect(guest.get_by_role("heading", name="Host invites you to play in Ford")).to_be_visible()
    guest.get_by_role("link", name="Sign up and join").click()
    guest.get_by_label("Display name").fill("Guest")
    guest.get_by_label("Email").fill("guest-sides@example.com")
    guest.get_by_label("Password").fill("a long enough password")
    guest.get_by_role("button", name="Sign up").click()
    expect(guest).to_have_url(re.compile(r"/battles/join/"))
    expect(guest.locator("#no-army")).to_be_visible()
    guest_call = _api(guest)
    green = guest_call("POST", "/api/v1/armies", {"name": "Green", "budget": 100})
    guest_call("POST", f"/api/v1/armies/{green['id']}/units", TANK)
    guest.reload()
    expect(guest.get_by_label("Green")).to_be_checked()
    guest.screenshot(path=str(SHOTS / "sides-join-page.png"), full_page=True, caret="initial")
    guest.get_by_role("button", name="Join the battle").click()
    expect(guest).to_have_url(re.compile(rf"/battles/{battle['id']}$"))
    expect(guest.locator(".side-player", has_text="Played by Guest (you)")).to_be_visible()
    expect(guest.locator("#f-attacker option", has_text="Tank (Red)")).to_have_count(0)
    guest.screenshot(path=str(SHOTS / "sides-player-view.png"), full_page=True, caret="initial")
    other.close()

    page.reload()  # (the same address: a goto would not load it again)
    expect(page.locator("#players")).to_contain_text("Green: Guest")
    expect(page.locator("#new-invite")).to_have_count(0)  # the link was shown once
    page.locator("#players").screenshot(path=str(SHOTS / "sides-host-players.png"), caret="initial")
