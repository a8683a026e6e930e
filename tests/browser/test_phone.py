"""The builder and the calculator on a 390 × 844 phone (issue 14 item 7), and the busy sign of a
saving button (item 13)."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Browser, Page, Route, expect

from tests.browser.helpers import new_army, sign_up

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}

TROOPER = {
    "name": "Trooper",
    "kind": "minifig",
    "weapons": [{"type": "gun", "size": 1}, {"type": "melee_weapon", "size": 1}],
}
TANK = {
    "name": "Tank",
    "kind": "creation",
    "size": 4,
    "structure_level": 2,
    "weapons": [{"type": "gun", "size": 3}, {"type": "machinegun", "size": 2}],
}
SIMO = {
    "name": "Simo",
    "kind": "personnel",
    "degree": 3,
    "human": True,
    "weapons": [{"type": "inter_offer"}, {"type": "dousing_rod", "real_ammo": True}],
}
D20_TROOPER = {
    "name": "Rifleman",
    "kind": "su",
    "shot": 12,
    "hth": 8,
    "pd": 14,
    "evasion": 3,
    "dexterity": 5,
    "cp": 3,
    "points": 10,
    "weapons": [
        {"type": "gun", "name": "Assault rifle", "reach": 60, "power": 6, "automatic": True},
        {"type": "hth", "name": "Knife", "power": 3, "points": 1},
    ],
}


def _api(page: Page) -> Any:
    csrf = page.locator("body").get_attribute("hx-headers") or ""
    token = re.search(r'"X-CSRF-Token": "([^"]+)"', csrf).group(1)  # type: ignore[union-attr]
    headers = {"X-CSRF-Token": token}

    def post(url: str, data: dict[str, Any]) -> dict[str, Any]:
        r = page.request.post(url, data=data, headers=headers)
        assert r.ok, r.text()
        return r.json()  # type: ignore[no-any-return]

    return post


def make_army(page: Page, ruleset: str, name: str, units: list[dict[str, Any]]) -> int:
    post = _api(page)
    army = post("/api/v1/armies", {"name": name, "ruleset_id": ruleset, "budget": 200})
    for unit in units:
        post(f"/api/v1/armies/{army['id']}/units", unit)
    return int(army["id"])


def cell_labels(page: Page, selector: str) -> list[tuple[str, str]]:
    """(label shown before the value, value) of every figure cell matched by ``selector``."""
    return page.eval_on_selector_all(  # type: ignore[no-any-return]
        selector,
        """cells => cells.map(td => [
            getComputedStyle(td, '::before').content.replace(/^"|"$/g, '').replace(/^none$/, ''),
            td.innerText.trim()])""",
    )


def test_phone_unit_rows_label_every_figure_and_stay_short(browser: Browser, base_url: str, shot) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(base_url=base_url, viewport=PHONE)
    sign_up(page, "Phone")
    armies = {
        "brikwars": make_army(page, "brikwars", "Blue Squad", [TROOPER, TANK]),
        "degrees": make_army(page, "degrees", "Simos", [SIMO]),
        "d20": make_army(page, "d20", "Genetics", [D20_TROOPER]),
    }
    for ruleset, army in armies.items():
        page.goto(f"/armies/{army}")
        shot(page, f"phone-{ruleset}")
        # Every figure of a unit row and of a weapon row carries its label on a phone.
        figures = cell_labels(page, "tr.unit-row > td:not(.actions)")
        assert figures, ruleset
        for label, value in figures:
            assert label.strip(), f"{ruleset}: {value!r} is shown without its label"
        page.locator("details.weapons-box").first.locator("summary").click()
        shot(page, f"phone-{ruleset}-weapons")
        weapons = cell_labels(page, "tr.weapon > td:not(:first-child)")  # after the name
        assert weapons, ruleset
        for label, value in weapons:
            assert label.strip(), f"{ruleset}: weapon figure {value!r} has no label"
        page.locator("details.weapons-box").first.locator("summary").click()
        # One unit, with its two weapons folded, takes less than a third of the screen.
        box = page.locator("tbody.unit").first.bounding_box()
        assert box is not None
        assert box["height"] < PHONE["height"] / 3, (ruleset, box)
        if ruleset == "brikwars":
            labelled = [(label.strip(), value) for label, value in figures]
            for pair in [("Kind", "Minifig"), ("Move", '5"'), ("Cost", "9CP")]:
                assert pair in labelled, labelled
    # A desktop keeps the table: headings on top, bare figures under them.
    page.set_viewport_size(DESKTOP)
    page.goto(f"/armies/{armies['brikwars']}")
    expect(page.locator("#units > thead")).to_be_visible()
    assert all(not label for label, _ in cell_labels(page, "tr.unit-row > td"))
    shot(page, "desktop-brikwars")
    page.close()
