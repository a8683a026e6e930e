"""Issue 29 items 7 and 8 in the browser: the saved calculator's situation asks what the
weapons ticked apply to (a gas gunner first, then a rifle ticked beside it), keeping what was
typed; a visitor's /calculator lands on the open calculator; the home page shows every rule
system."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from app.rules.registry import RULESETS
from tests.browser.helpers import settled, sign_up

SHOTS = Path("/tmp/shots")  # noqa: S108  (the screenshots the issue's reviewer looks at)
MIXED = {
    "name": "Gunner",
    "kind": "personnel",
    "degree": 2,
    "ap": 3,
    "weapons": [{"type": "gas_gun", "degree": 2}, {"type": "rifle", "degree": 3}],
}
TROOPER = {"name": "Trooper", "kind": "personnel", "degree": 3, "weapons": []}


def _degrees_army(page: Page) -> list[int]:
    csrf = page.locator("body").get_attribute("hx-headers") or ""
    token = re.search(r'"X-CSRF-Token": "([^"]+)"', csrf).group(1)  # type: ignore[union-attr]
    headers = {"X-CSRF-Token": token}
    army = page.request.post(
        "/api/v1/armies",
        data={"name": "Gas works", "budget": 500, "ruleset_id": "degrees"},
        headers=headers,
    ).json()
    ids = []
    for unit in (MIXED, TROOPER):
        r = page.request.post(f"/api/v1/armies/{army['id']}/units", data=unit, headers=headers)
        assert r.ok, r.text()
        ids.append(int(r.json()["id"]))
    return ids


def test_the_situation_follows_the_weapons_ticked(page: Page) -> None:
    page.set_default_timeout(10_000)
    sign_up(page, "Pumper")
    gunner, trooper = _degrees_army(page)
    page.goto(f"/calculator?attacker={gunner}&target={trooper}")
    boxes = page.locator("#weapons-set input[type=checkbox]")
    expect(boxes).to_have_count(2)
    gas_id, rifle_id = boxes.nth(0).get_attribute("value"), boxes.nth(1).get_attribute("value")
    page.goto(f"/calculator?attacker={gunner}&target={trooper}&weapons={gas_id}")
    page.wait_for_load_state()
    fields = page.locator("#situation-fields")
    pump = fields.get_by_label("AP pumped into a gas gun")
    expect(pump).to_be_visible()
    expect(fields.get_by_label("Set to degree")).to_have_count(0)
    expect(fields.get_by_label("Stay hidden (+1 AP)")).to_have_count(0)
    results = page.locator("#results")
    expect(results.get_by_text("cannot reach")).to_have_count(0)
    expect(results.locator('[data-name="gas_pump"]')).to_have_text(
        "Gas gun 2-max: pumped 2 AP to reach Close (needs 2°) within 3 AP."
    )
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "i29-degrees-gas.png"), full_page=True, caret="initial")

    op = fields.get_by_label("OP spent on each shot")
    op.fill("1")
    expect(page).to_have_url(re.compile(r"op=1"))
    settled(page)
    # tick the rifle, and type on at once while the fields are on their way
    page.locator(f"#weapons-{rifle_id}").check()
    page.locator("#calc-extend").fill("1")
    settled(page)
    expect(fields.get_by_label("Set to degree")).to_be_visible()
    expect(fields.get_by_label("Stay hidden (+1 AP)")).to_be_visible()
    expect(fields.get_by_label("AP pumped into a gas gun")).to_be_visible()  # still fired
    expect(page.locator("#calc-op")).to_have_value("1")
    expect(page.locator("#calc-extend")).to_have_value("1")
    expect(page.locator(f"#weapons-{rifle_id}")).to_be_checked()
    # untick the gas gun: its fields go, the rifle's stay, what was typed stays
    page.locator(f"#weapons-{gas_id}").uncheck()
    settled(page)
    expect(fields.get_by_label("AP pumped into a gas gun")).to_have_count(0)
    expect(fields.get_by_label("Set to degree")).to_be_visible()
    expect(page.locator("#calc-op")).to_have_value("1")
    expect(page.locator("#calc-extend")).to_have_value("1")
    expect(page).to_have_url(re.compile(rf"weapons={rifle_id}(&|$)"))
    page.screenshot(path=str(SHOTS / "i29-degrees-rifle.png"), full_page=True, caret="initial")


def test_a_visitors_calculator_and_the_home_page(page: Page) -> None:
    page.set_default_timeout(10_000)
    page.goto("/calculator?rules=degrees&attacker=1")
    expect(page).to_have_url(re.compile(r"/calculator/open\?rules=degrees"))
    expect(page.get_by_label("Rule system")).to_have_value("degrees")
    expect(page.locator("#results [data-p]").first).to_be_attached()
    page.goto("/")
    cards = page.locator(".ruleset-card")
    expect(cards).to_have_count(len(RULESETS))
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "i29-home.png"), full_page=True, caret="initial")
    d20 = next(r for r in RULESETS.values() if r.id == "d20")
    page.get_by_role("link", name=f"Try the {d20.name} calculator").click()
    expect(page.get_by_label("Rule system")).to_have_value("d20")
    page.goto("/")
    page.get_by_role("link", name=f"{d20.name} glossary").click()
    expect(page.locator("section.glossary")).to_have_count(1)
    expect(page.locator("section.glossary h2")).to_have_text(d20.name)
