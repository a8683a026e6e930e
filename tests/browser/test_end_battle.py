"""End battle in the browser (issue 28): a Degrees battle where a stun gun has restrained a
unit is ended from its page, which then shows the final state by army (the restrained unit in
Thinny custody) and no attack form; Undo reopens it. On the way, a Least Weasel is added with
the unit form (its fixed figures not asked) and a Recon is rolled from its button."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.helpers import settled, sign_up

SHOTS = Path("/tmp/shots")  # noqa: S108  (where the brief asks for the screenshot)
THINNY = {"name": "Thinny", "kind": "personnel", "degree": 2, "weapons": [{"type": "stun_gun"}]}
SIMO = {"name": "Simo", "kind": "personnel", "degree": 3, "weapons": [{"type": "rifle"}]}
FERRET = {"name": "Ferret", "kind": "personnel", "degree": 4, "weapons": [{"type": "gamma_gun"}]}


def _api(page: Page) -> Any:
    csrf = page.locator("body").get_attribute("hx-headers") or ""
    token = re.search(r'"X-CSRF-Token": "([^"]+)"', csrf).group(1)  # type: ignore[union-attr]
    headers = {"X-CSRF-Token": token}

    def call(method: str, url: str, data: dict[str, Any] | None = None) -> Any:
        r = page.request.fetch(url, method=method, data=data, headers=headers)
        assert r.ok, r.text()
        return r.json() if r.status != 204 else None

    return call


def test_end_a_degrees_battle_then_undo(page: Page, base_url: str, shot) -> None:  # type: ignore[no-untyped-def]
    page.set_default_timeout(10_000)
    sign_up(page, "Host")
    call = _api(page)
    red = call(
        "POST", "/api/v1/armies", {"name": "Thin Blues", "ruleset_id": "degrees", "budget": 50}
    )
    blue = call(
        "POST", "/api/v1/armies", {"name": "Ferrets", "ruleset_id": "degrees", "budget": 50}
    )
    call("POST", f"/api/v1/armies/{red['id']}/units", THINNY)
    call("POST", f"/api/v1/armies/{blue['id']}/units", SIMO)
    call("POST", f"/api/v1/armies/{blue['id']}/units", FERRET)

    # a Least Weasel through the unit form: its figures are the text's, not asked
    page.goto(f"/armies/{blue['id']}")
    page.wait_for_load_state()
    form = page.locator("#add-unit-form")
    form.get_by_label("Name").fill("Weasel 1")
    expect(form.get_by_label("Degree (1–10)")).to_be_visible()
    form.get_by_label("Scale").select_option("least_weasel")
    settled(page)
    expect(form.get_by_label("Degree (1–10)")).to_have_count(0)
    expect(form.get_by_label("HP")).to_have_count(0)
    expect(form).to_contain_text("1° defences (Armour 1), 1 HP, 2 AP per round")
    form.get_by_role("button", name="Add unit").click()
    weasel = page.locator("tbody.unit", has_text="Weasel 1")
    expect(weasel).to_contain_text("Least Weasel (drone)")
    expect(weasel).to_contain_text("7 DP")
    shot(page, "weasel-in-the-builder")

    battle = call("POST", "/api/v1/battles", {"name": "Alley", "army_ids": [red["id"], blue["id"]]})
    ids = {u["name"]: u["id"] for u in battle["units"]}
    url = f"/api/v1/battles/{battle['id']}"
    # the Thinny's stun gun until Simo is restrained (each miss undone)
    for seed in range(60):
        call("POST", url + "/rolls", {
            "attacker_id": ids["Thinny"], "target_id": ids["Simo"], "weapons": [0],
            "situation": {}, "seed": seed,
        })  # fmt: skip
        simo = next(u for u in call("GET", url)["units"] if u["id"] == ids["Simo"])
        if simo["state"]["restrained"]:
            break
        call("DELETE", url + "/rolls/last")
    else:
        raise AssertionError("no seed restrained Simo")

    page.goto(f"/battles/{battle['id']}")
    page.wait_for_load_state()
    expect(page.locator(f"#unit-{ids['Simo']}")).to_contain_text("restrained")
    # a recon from the Ferret's button: the die and the chance are logged
    page.get_by_role("button", name="Recon: Ferret").click()
    settled(page)
    expect(page.locator("#log")).to_contain_text("Ferret recons: d10")
    expect(page.locator("#log")).to_contain_text("what a recon reveals is left to the players")

    page.get_by_role("button", name="End battle").click()
    final = page.locator("#final")
    expect(final).to_contain_text("Battle ended: the final state")
    expect(final.locator('tr[data-side="Ferrets"]')).to_contain_text("1 in Thinny custody")
    expect(final.locator('tr[data-side="Ferrets"]')).to_contain_text("2 standing")
    expect(final.locator('tr[data-side="Thin Blues"]')).to_contain_text("1 standing")
    expect(page.locator(f"#unit-{ids['Simo']}")).to_contain_text("in Thinny custody")
    expect(page.locator("#attack")).to_have_count(0)
    expect(page.get_by_role("button", name="End battle")).to_have_count(0)
    expect(page.locator("#log")).to_contain_text("Battle ended: Simo in Thinny custody")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "end-battle.png"), full_page=True, caret="initial")
    shot(page, "ended")

    page.get_by_role("button", name=re.compile(r"Undo #\d+")).click()
    expect(page.locator("#final")).to_have_count(0)
    expect(page.locator("#attack")).to_be_visible()
    expect(page.locator(f"#unit-{ids['Simo']}")).not_to_contain_text("custody")
    expect(page.get_by_role("button", name="End battle")).to_be_visible()
