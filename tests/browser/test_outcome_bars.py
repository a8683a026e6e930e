"""Issue 29 item 1 in a browser: each segment of the calculator's outcome bar has a fill of its
kind's own, never black nor transparent, no two kinds alike, and a legend entry naming it in
the bar's order, in every rule system. Screenshots: /tmp/shots/i29-bars-<ruleset>.png."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Page, expect

from app.rules import registry
from app.rules.ruleset import read_situation, situation_inputs
from tests.browser.helpers import sign_up

SHOTS = Path("/tmp/shots")  # noqa: S108  (the lead looks at them there, outside the repo)
# the sample attack whose bar shows the most kinds
SAMPLE = {"brikwars": 0, "degrees": 0, "d20": 0}


def _seed(page: Page, ruleset_id: str, sample: int) -> dict[str, Any]:
    rules = registry.get_ruleset(ruleset_id)
    csrf = page.locator("body").get_attribute("hx-headers") or ""
    token = re.search(r'"X-CSRF-Token": "([^"]+)"', csrf)
    assert token
    headers = {"X-CSRF-Token": token.group(1)}

    def post(url: str, data: dict[str, Any]) -> dict[str, Any]:
        r = page.request.post(url, data=data, headers=headers)
        assert r.ok, (url, r.status, r.text()[:500])
        return r.json()  # type: ignore[no-any-return]

    army = post("/api/v1/armies", {"name": "Bars", "ruleset_id": ruleset_id, "budget": 1000})
    s = rules.sample_attacks[sample]
    made = [
        post(f"/api/v1/armies/{army['id']}/units", rules.encode_unit(rules.decode_unit(d)))
        for d in (s.attacker, s.targets[0])
    ]
    situation = situation_inputs(rules, read_situation(rules, s.situation)[0])
    weapons = [made[0]["weapons"][i]["id"] for i in s.weapons]
    return {
        "attacker": made[0]["id"],
        "target": made[1]["id"],
        **situation,
        "weapons": weapons,
    }


@pytest.mark.parametrize("ruleset_id", sorted(SAMPLE))
def test_each_outcome_segment_has_a_colour_of_its_kind_and_a_label(
    page: Page, ruleset_id: str
) -> None:
    page.set_viewport_size({"width": 1366, "height": 900})
    sign_up(page, f"Bars {ruleset_id}")
    query = _seed(page, ruleset_id, SAMPLE[ruleset_id])
    page.goto("/calculator?" + urlencode(query, doseq=True))
    bars = page.locator("svg.outcome-bar")
    expect(bars.first).to_be_visible()
    segments = page.eval_on_selector_all(
        "svg.outcome-bar rect.seg",
        "rects => rects.map(r => [r.dataset.key, getComputedStyle(r).fill,"
        " r.closest('section').dataset.kind])",
    )
    assert len({key for key, _, _ in segments}) >= 2, segments  # the bar shows several kinds
    fills: dict[str, str] = {}
    for key, fill, _ in segments:
        assert fill not in ("none", "rgb(0, 0, 0)", "rgba(0, 0, 0, 0)", ""), (key, fill)
        assert fills.setdefault(key, fill) == fill, (key, fill, fills)
    assert len(set(fills.values())) == len(fills), fills  # no two kinds alike
    labels = {c.key: c.label for c in registry.get_ruleset(ruleset_id).outcome_columns}
    for line in page.locator("section.line").all():
        drawn = line.locator("svg.outcome-bar rect.seg").evaluate_all(
            "rs => rs.map(r => r.dataset.key)"
        )
        legend = line.locator("ul.outcome-legend li")
        assert legend.evaluate_all("ls => ls.map(l => l.dataset.key)") == drawn
        for n, key in enumerate(drawn):
            expect(legend.nth(n)).to_contain_text(labels[key])
            expect(legend.nth(n)).to_contain_text("%")
            swatch = legend.nth(n).locator("rect").evaluate("r => getComputedStyle(r).fill")
            assert swatch == fills[key]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#results").screenshot(
        path=str(SHOTS / f"i29-bars-{ruleset_id}.png"), caret="initial"
    )
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator("#results .loadout").first.screenshot(
        path=str(SHOTS / f"i29-bars-{ruleset_id}-phone.png"), caret="initial"
    )
