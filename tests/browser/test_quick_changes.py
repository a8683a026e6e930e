"""A change made the moment a picker's fields are swapped in is not lost.

htmx wires up swapped-in content when the swap settles, 20 ms later by default; a change in
between (a keyboard user arrowing through the Kind picker, a quick second pick) reached a
select with nothing listening, and the form kept the previous kind's fields. Our settle delay
is 0, so the new fields are live in the task that swaps them in.
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.helpers import new_army, sign_up

# On the first swap of the add-unit fields, pick "minifig" on the new Kind picker in the next
# task (setTimeout 0): before a 20 ms settle would have wired it up, after a 0 ms one has.
PICK_AGAIN_AT_ONCE = """
document.addEventListener("htmx:afterSwap", (event) => {
  if (window.__pickedAgain || !event.detail.elt.matches("#add-unit-form-fields")) return;
  window.__pickedAgain = true;
  setTimeout(() => {
    const kind = document.querySelector("#add-unit-form-fields select[name=kind]");
    kind.value = "minifig";
    kind.dispatchEvent(new Event("change", { bubbles: true }));
  }, 0);
});
"""


def test_a_pick_right_after_a_swap_fetches_its_fields(page: Page, base_url: str) -> None:
    sign_up(page, "Quick")
    new_army(page, "Snap Squad", 100)
    form = page.locator("#add-unit-form")
    expect(form.get_by_label("Size (inches)")).to_have_count(0)  # a minifig has no Size
    page.evaluate(PICK_AGAIN_AT_ONCE)

    form.get_by_label("Kind").select_option("creation")
    # A function, not an expression: Playwright evals an expression again on each poll, and
    # our CSP (no 'unsafe-eval') refuses that once the first check comes back false.
    page.wait_for_function("() => window.__pickedAgain === true")
    # The second pick (minifig) was fetched and swapped in: no Creation fields are left.
    expect(form.get_by_label("Kind")).to_have_value("minifig")
    expect(form.get_by_label("Size (inches)")).to_have_count(0)
    expect(form.get_by_label("Propulsion")).to_have_count(0)
