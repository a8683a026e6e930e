"""Build an army in the browser: a minifig squad and a flying Creation with a Cannon."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.helpers import new_army, settled, sign_up


def test_build_squad_and_flying_gunship(page: Page, base_url: str, shot) -> None:  # type: ignore[no-untyped-def]
    page.set_default_timeout(10_000)
    sign_up(page, "Builder")
    new_army(page, "Strike Force", 60)
    # Marks this page load: it survives every htmx swap and would vanish on a reload.
    page.evaluate("window.__noReload = true")
    totals = page.locator("#army-totals")
    expect(totals).to_contain_text("0CP of 60CP")

    add_unit = page.locator("#add-unit-form")
    add_unit.get_by_label("Name").fill("Trooper")
    add_unit.get_by_label("Kind").select_option("minifig")
    add_unit.get_by_role("button", name="Add unit").click()
    expect(totals).to_contain_text("4CP of 60CP")
    trooper = page.locator("tbody.unit", has_text="Trooper").first
    expect(trooper.locator(".unit-cost")).to_have_text("4CP")

    # A squad: two copies of the trooper.
    trooper.get_by_role("button", name="Duplicate Trooper").click()
    expect(totals).to_contain_text("8CP of 60CP")
    page.locator("tbody.unit").first.get_by_role("button", name="Duplicate Trooper").click()
    expect(page.locator("tbody.unit")).to_have_count(3)
    expect(totals).to_contain_text("12CP of 60CP")
    shot(page, "squad")

    add_unit = page.locator("#add-unit-form")
    add_unit.get_by_label("Name").fill("Skyhammer")
    add_unit.get_by_label("Kind").select_option("creation")
    add_unit.get_by_label("Size (inches)").fill("4")
    add_unit.get_by_label("Structure Level (0, ½ = 0.5, 1–5)").fill("2")
    add_unit.get_by_label("Propulsion").select_option("flying")
    add_unit.get_by_label("Move (inches)").fill("8")
    add_unit.get_by_label("Mind").select_option("6")
    add_unit.get_by_role("button", name="Add unit").click()
    gunship = page.locator("tbody.unit", has_text="Skyhammer")
    expect(gunship.locator(".unit-cost")).to_have_text("25CP")  # 4×2 + (2+2)×4 + 1
    expect(totals).to_contain_text("37CP of 60CP")
    expect(gunship).to_contain_text("2d10")
    expect(gunship).to_contain_text('0/4"')  # Power used/available: flying = 1 × Size

    # The weapon picker previews a Cannon before it is added.
    gunship.get_by_text("Edit Skyhammer: weapons and details").click()  # fetched on opening
    form = gunship.locator("form.weapon-form").first
    form.get_by_label("Weapon").select_option("cannon")
    settled(page)  # the Cannon's fields fetched again
    form.get_by_label("Size (inches)").fill("3")
    expect(form.locator("output.preview")).to_contain_text("Use 6")
    expect(form.locator("output.preview")).to_contain_text('Range 12"')
    expect(form.locator("output.preview")).to_contain_text("9CP")
    shot(page, "cannon-preview")

    # A Gun takes no Ammo: its form has no Ammo fields (fetched again for the type chosen,
    # the Size typed kept); a Cannon's has.
    form.get_by_label("Weapon").select_option("gun")
    expect(form.get_by_label("Ammo X")).to_have_count(0)
    expect(form.get_by_label("Size (inches)")).to_have_value("3")
    settled(page)
    form.get_by_label("Weapon").select_option("cannon")
    expect(form.get_by_label("Ammo X")).to_have_count(1)
    settled(page)
    form.get_by_text("Label, Ammo").click()
    shot(page, "cannon-fields")

    # X4 Ammo in a 3" Cannon is a build error, shown next to the weapon...
    form.get_by_label("Ammo X").fill("4")
    form.get_by_label("Ammo rounds").fill("2")
    # let the live preview settle first: a preview swapped in as the button is clicked can move
    # it (two loaded CI runs failed here and at the 5" Gun below with the form unchanged 15 s
    # after the click; never reproduced locally)
    expect(form.locator("output.preview")).to_contain_text("X4 does not fit")
    form.get_by_role("button", name="Add weapon").click()
    weapons = gunship.locator("table.weapons")
    expect(weapons.locator('[data-code="ammo_too_big"]')).to_be_visible()
    expect(totals).to_contain_text("1 error")
    shot(page, "ammo-too-big")

    # ...and fixed by editing the weapon in place.
    gunship.get_by_text('Edit 3" Cannon').click()
    edit = gunship.locator("form[id^=weapon-form-]")
    edit.get_by_text("Label, Ammo").click()
    edit.get_by_label("Ammo X").fill("2")
    edit.get_by_role("button", name='Save 3" Cannon').click()
    expect(gunship.locator('[data-code="ammo_too_big"]')).to_have_count(0)
    expect(gunship.locator("table.weapons")).to_contain_text('3" Cannon')
    expect(gunship.locator("table.weapons")).to_contain_text("2d10 Explosion")
    expect(gunship.locator(".unit-cost")).to_have_text("38CP")  # 25 + 9 + 2 rounds of X2
    expect(totals).to_contain_text("50CP of 60CP")
    expect(totals).to_contain_text("0 errors")

    # A 5" Gun is Too Big for 4" of flying Power: a warning, and the army goes over budget.
    form = gunship.locator("form.weapon-form").first
    form.get_by_label("Weapon").select_option("gun")
    settled(page)
    form.get_by_label("Size (inches)").fill("5")
    expect(form.locator("output.preview")).to_contain_text("15CP")  # settled (see above)
    form.get_by_role("button", name="Add weapon").click()
    expect(totals).to_contain_text("65CP of 60CP")
    findings = page.locator("#findings")
    expect(findings.locator('[data-code="over_budget"]')).to_be_visible()
    expect(findings.locator('[data-code="too_big"]')).to_contain_text("Divert All Power")
    expect(gunship.locator('.weapon-findings [data-code="too_big"]')).to_be_visible()
    shot(page, "findings")

    assert page.evaluate("window.__noReload === true"), "the page reloaded"
    page.reload()
    expect(page.locator("#army-totals")).to_contain_text("65CP of 60CP")
    shot(page, "after-reload")
