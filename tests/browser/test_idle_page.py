"""An idle page does no work: the busy bar animates only while a request is in flight (an
endless hidden animation repainted every open page, a phone's battery and CI's two cores)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.helpers import new_army, sign_up


def test_an_idle_page_runs_no_animation(page: Page, base_url: str) -> None:
    sign_up(page, "Idle")
    new_army(page, "Quiet", 60)
    page.wait_for_load_state("load")
    expect(page.locator("#busy")).not_to_have_class("busy htmx-indicator htmx-request")
    running = page.evaluate(
        "document.getAnimations().filter(a => a.playState === 'running').length"
    )
    assert running == 0, f"{running} animation(s) run on an idle page"
    # While a request is in flight the bar shows and moves.
    page.route("**/armies/*/units", lambda route: page.wait_for_timeout(800) or route.continue_())
    add = page.locator("#add-unit-form")
    add.get_by_label("Name").fill("Slow")
    add.get_by_role("button", name="Add unit").click()
    expect(page.locator("#busy.htmx-request")).to_have_count(1)
    assert page.evaluate("document.getAnimations().length") >= 1
    expect(page.locator("tbody.unit", has_text="Slow")).to_be_visible()
