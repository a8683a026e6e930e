"""Issue 29's builder in Chromium: "Start from an example" for each ruleset opens a ready,
legal army in the builder and then in the calculator; the Degrees unit table at 1366 px keeps
its headings on two lines at most and the sticky totals bar off the first row's cost; a fork
renamed through its form shows the new name; a D20 weapon's preview counts its Points; a
Degrees unit with two wrong numbers has both named at once."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

from app.rules.registry import RULESETS
from tests.browser.helpers import settled, sign_up

SHOTS = Path("/tmp/shots")  # noqa: S108 (where the issue asks for them)
DESKTOP = {"width": 1366, "height": 900}


def start_example(page: Page, rid: str) -> None:
    page.goto("/armies")
    page.get_by_role("button", name=f"Start from an example: {RULESETS[rid].name}").click()
    expect(page.locator("#army-name")).to_have_text(RULESETS[rid].sample_army.name)
    page.wait_for_load_state()  # htmx wires the page up on DOMContentLoaded


def test_start_from_an_example_in_each_ruleset(page: Page, base_url: str) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size(DESKTOP)
    SHOTS.mkdir(parents=True, exist_ok=True)
    sign_up(page, "Starter")
    expect(page.get_by_text("No armies yet: start from an example")).to_be_visible()
    for rid in sorted(RULESETS):
        sample = RULESETS[rid].sample_army
        start_example(page, rid)
        expect(page.locator("#flash")).to_contain_text("example")
        units = page.locator("#units > tbody.unit")
        expect(units).to_have_count(len(sample.units))
        for i, unit in enumerate(sample.units):
            expect(units.nth(i).locator(".unit-name")).to_have_text(str(unit["name"]))
        totals = page.locator("#army-totals")
        expect(totals).to_contain_text("0 errors")
        page.screenshot(path=str(SHOTS / f"i29-example-{rid}.png"), full_page=True, caret="initial")
        armed = next(i for i, u in enumerate(sample.units) if u.get("weapons"))
        attacker, target = sample.units[armed], sample.units[armed + 1]
        totals.get_by_role("link", name="Try it in the calculator").click()
        expect(page).to_have_url(re.compile(r"/calculator\?attacker=\d+&target=\d+"))
        picked = page.locator("#calc-attacker option:checked")
        expect(picked).to_contain_text(str(attacker["name"]))
        expect(page.locator("#calc-target option:checked")).to_contain_text(str(target["name"]))
        page.screenshot(
            path=str(SHOTS / f"i29-example-{rid}-calculator.png"), full_page=True, caret="initial"
        )


def _lines(cell: Locator) -> int:
    """How many lines a cell's own words take (its text's boxes by their tops; a term's
    tooltip is not shown)."""
    return int(
        cell.evaluate(
            "el => { const w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT); const tops ="
            " new Set(); let n; while ((n = w.nextNode())) { const r = document.createRange();"
            " r.selectNodeContents(n); for (const b of r.getClientRects())"
            " if (b.width > 0 && b.height > 0) tops.add(Math.round(b.top)); } return tops.size; }"
        )
    )


def _box(page: Page, selector: str) -> dict[str, float]:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return box


def test_the_degrees_unit_table_at_1366_px(page: Page, base_url: str) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size(DESKTOP)
    SHOTS.mkdir(parents=True, exist_ok=True)
    sign_up(page, "Layout")
    start_example(page, "degrees")
    heading = page.locator("#units > thead th", has_text="Armour (front + back)")
    assert 1 <= _lines(heading) <= 2
    actions = _box(page, "#units > tbody td.actions")
    table = _box(page, "#units")
    assert actions["width"] < table["width"] * 0.3, (actions, table)
    cost = page.locator("#units > tbody .unit-cost").first
    expect(cost).to_have_text("11 DP")
    assert _lines(cost) == 1
    # a link to the first unit (as the findings' are) stops below the sticky totals bar
    first = page.locator("#units > tbody.unit").first.get_attribute("id")
    page.goto(f"{page.url.split('#')[0]}#{first}")
    page.wait_for_timeout(200)
    bar, row_cost = _box(page, "#army-totals"), _box(page, "#units > tbody .unit-cost")
    assert bar["y"] <= 1  # stuck at the top
    assert bar["y"] + bar["height"] <= row_cost["y"], (bar, row_cost)
    page.screenshot(path=str(SHOTS / "i29-degrees-table-1366.png"), caret="initial")


def test_a_fork_renamed_through_its_form_shows_the_new_name(page: Page, base_url: str) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size(DESKTOP)
    sign_up(page, "Forker")
    start_example(page, "d20")
    page.get_by_role("button", name="Make a copy").click()
    expect(page.locator("#army-name")).to_contain_text("(fork)")
    page.wait_for_load_state()
    page.get_by_text("Edit name, budget and notes").click()
    form = page.locator("#army-form")
    form.get_by_label("Name").fill("Hall raiders")
    form.get_by_role("button", name="Save").click()
    expect(page.locator("#army-name")).to_have_text("Hall raiders")
    expect(page).to_have_title(re.compile("Hall raiders"))
    expect(page.locator("#flash")).to_contain_text("Saved.")
    expect(page.locator("[aria-busy=true]")).to_have_count(0)
    page.get_by_text("Edit name, budget and notes").click()
    expect(form.get_by_role("button", name="Save")).to_be_enabled()
    expect(form.get_by_label("Name")).to_have_value("Hall raiders")


def test_a_d20_weapon_preview_counts_its_points(page: Page, base_url: str) -> None:  # type: ignore[no-untyped-def]
    sign_up(page, "Previewer")
    start_example(page, "d20")
    unit = page.locator("#units > tbody.unit").first
    unit.get_by_text("Edit Genetic SU: weapons and details").click()
    form = unit.locator("form.weapon-form")
    preview = form.locator("output.preview")
    for kind, points in (("defensive_grenade", "1"), ("gun", "7")):
        form.get_by_label("Weapon or equipment").select_option(kind)
        settled(page)
        if kind == "gun":
            form.get_by_label("Name").fill("Carbine")
            form.get_by_label("Reach (cm, guns)").fill("40")
            form.get_by_label("Power").fill("5")
        form.get_by_label("Points").press_sequentially(points)
        expect(preview).to_contain_text(f"· {points} pts")
        form.get_by_label("Points").fill("")
        settled(page)
    # Points typed while the type's fields are on their way: kept, and previewed
    form.get_by_label("Weapon or equipment").select_option("flaming_grenade")
    form.get_by_label("Points").press_sequentially("3")
    settled(page)
    expect(form.get_by_label("Points")).to_have_value("3")
    expect(preview).to_contain_text("Flaming Grenade")
    expect(preview).to_contain_text("· 3 pts")


def test_a_degrees_unit_with_two_wrong_numbers_names_both(page: Page, base_url: str) -> None:  # type: ignore[no-untyped-def]
    sign_up(page, "Typist")
    start_example(page, "degrees")
    form = page.locator("#add-unit-form")
    form.get_by_label("Name").fill("Typo")
    degree, hp = form.get_by_label("Degree (1–10)"), form.get_by_label("HP", exact=True)
    assert degree.get_attribute("inputmode") == hp.get_attribute("inputmode") == "numeric"
    degree.fill("-5")
    hp.fill("abc")
    form.get_by_role("button", name="Add unit").click()
    expect(page.locator("#add-unit-form-degree-err")).to_have_text(
        "Degree (1–10) must be from 1 to 10"
    )
    expect(page.locator("#add-unit-form-hp-err")).to_have_text("HP needs a whole number")
    expect(page.locator("#add-unit-form-hp")).to_have_value("abc")
    expect(page.locator("#units > tbody.unit")).to_have_count(5)  # nothing added
