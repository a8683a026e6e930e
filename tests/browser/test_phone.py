"""The builder and the calculator on a 390 × 844 phone (issue 14 item 7), and the busy sign of a
saving button (item 13)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, Route, expect

from tests.browser.helpers import new_army, sign_up

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
Shot = Callable[[Page, str], Path]

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


def test_phone_unit_rows_label_every_figure_and_stay_short(
    page: Page, base_url: str, shot: Shot
) -> None:
    page.set_viewport_size(PHONE)
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


def screen(page: Page, full: Path) -> None:
    """Beside a full-page shot, what the screen shows (where the fixed bar is)."""
    page.screenshot(path=str(full.with_name(full.stem + "-screen.png")), caret="initial")


def in_view(page: Page, selector: str) -> bool:
    """Whether an element matching ``selector`` is shown wholly inside the viewport."""
    return page.eval_on_selector_all(  # type: ignore[no-any-return]
        selector,
        """els => els.some(el => {
            const r = el.getBoundingClientRect();
            const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return r.width > 0 && r.top >= 0 && r.bottom <= innerHeight && el.contains(hit);
        })""",
    )


def test_phone_calculator_keeps_the_headline_in_view(page: Page, base_url: str, shot: Shot) -> None:
    page.set_viewport_size(PHONE)
    sign_up(page, "Pocket")
    army = make_army(page, "brikwars", "Iron Column", [TANK, TROOPER])
    page.goto(f"/armies/{army}")
    page.get_by_role("link", name="Attack with Tank").click()
    page.get_by_label("Target unit").select_option(label="Trooper (minifig)")
    headline = '#results [data-name="any_destroying"]'
    expect(page.locator(headline)).to_have_count(1)
    distance = page.get_by_label('Distance (")', exact=True)
    distance.scroll_into_view_if_needed()
    before = page.locator(headline).get_attribute("data-p")
    distance.fill("20")
    expect(page).to_have_url(re.compile(r"distance=20"))
    expect(page.locator(headline)).not_to_have_attribute("data-p", before or "")
    assert in_view(page, "#calc-form [name=distance]")
    assert in_view(page, headline), "the headline odds are out of view while typing the distance"
    screen(page, shot(page, "phone-distance"))
    # Comparing two loadouts: both headlines, each named, stay in view.
    page.get_by_text("Compare with another loadout").click()
    page.get_by_label("Second attacker (or the same unit)").select_option(label="Trooper (minifig)")
    expect(page.locator(headline)).to_have_count(2)
    page.get_by_label('Distance (")', exact=True).fill("3")
    expect(page).to_have_url(re.compile(r"distance=3(&|$)"))
    for n in (1, 2):
        assert in_view(page, f"#results .loadout:nth-child({n}) [data-name=any_destroying]"), n
    screen(page, shot(page, "phone-compare"))
    # A desktop keeps the headline in its card.
    page.set_viewport_size(DESKTOP)
    expect(page.locator("#results p.summary").first).to_have_css("position", "static")
    shot(page, "desktop")


def test_a_saving_button_is_disabled_and_says_so_until_the_answer(
    page: Page, base_url: str, shot: Shot
) -> None:
    sign_up(page, "Patient")
    new_army(page, "Slow Going", 60)
    held: list[Route] = []

    def hold(route: Route) -> None:
        if route.request.method == "POST":
            held.append(route)
        else:
            route.continue_()

    def release() -> Route:
        """The held request, once the browser has sent it."""
        for _ in range(300):
            if held:
                return held.pop()
            page.wait_for_timeout(50)
        raise AssertionError("no request was sent")

    page.route(re.compile(r"/armies/\d+/units(/\d+/duplicate)?$"), hold)
    form = page.locator("#add-unit-form")
    form.get_by_label("Name").fill("Trooper")
    button = form.get_by_role("button", name=re.compile("Add"))
    button.click()
    # While the server has not answered: disabled, "Adding…", busy.
    expect(button).to_be_disabled()
    expect(button).to_have_text("Adding…")
    expect(button).to_have_attribute("aria-busy", "true")
    shot(page, "adding")
    release().continue_()
    expect(page.locator("tbody.unit", has_text="Trooper")).to_have_count(1)
    button = page.locator("#add-unit-form").get_by_role("button", name="Add unit")
    expect(button).to_be_enabled()
    expect(button).not_to_have_attribute("aria-busy", "true")

    # A button that posts itself (Duplicate), and a failed answer: restored as it was.
    duplicate = page.get_by_role("button", name="Duplicate Trooper")
    duplicate.click()
    expect(duplicate).to_be_disabled()
    expect(duplicate).to_have_text("Duplicating…")
    release().fulfill(status=500, body="boom")
    expect(page.locator("#flash")).to_contain_text("Something went wrong (500)")
    expect(duplicate).to_be_enabled()
    expect(duplicate).to_have_text("Duplicate")
    expect(duplicate).not_to_have_attribute("aria-busy", "true")
    expect(page.locator("tbody.unit")).to_have_count(1)
