"""Start from an example: for each ruleset, one click (a CSRF-checked POST) makes a ready,
legal army of the texts' worked examples that opens in the builder, whose calculator link
preselects two of its units; its JSON twin; refusals."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from sqlalchemy import func, select

from app.db.models import Army, Unit
from app.rules.registry import RULESETS, get_ruleset
from tests.web.conftest import Member

IDS = sorted(RULESETS)


def api(member: Member, method: str, url: str, **kw: Any) -> Any:
    return member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)


def counts(app: Any) -> tuple[int, int]:
    with app.state.sessionmaker() as s:
        return s.scalar(select(func.count(Army.id))), s.scalar(select(func.count(Unit.id)))


def test_the_armies_list_offers_an_example_of_each_ruleset(member: Member) -> None:
    page = member.client.get("/armies").text
    assert "No armies yet: start from an example" in page
    for rid in IDS:
        form = re.search(rf'<form method="post" action="/armies/examples/{rid}".*?</form>', page)
        assert form, rid
        assert 'name="csrf_token"' in form.group(0)
        assert f"Start from an example: {html.escape(RULESETS[rid].name)}" in form.group(0)


@pytest.mark.parametrize("rid", IDS)
def test_one_click_makes_the_legal_sample_army_that_opens_in_builder_and_calculator(
    member: Member, rid: str
) -> None:
    rules = get_ruleset(rid)
    sample = rules.sample_army
    r = member.form(f"/armies/examples/{rid}", follow_redirects=False)
    assert r.status_code == 303, r.text[:300]
    army_id = int(r.headers["location"].rsplit("/", 1)[1])

    body = api(member, "GET", f"/api/v1/armies/{army_id}").json()
    assert body["ruleset_id"] == rid and body["budget"] == sample.budget
    assert [u["name"] for u in body["units"]] == [u["name"] for u in sample.units]
    assert [u["count"] for u in body["units"]] == [u.get("count", 1) for u in sample.units]
    findings = [f for u in body["units"] for f in u["findings"]]
    findings += [f for u in body["units"] for w in u["weapons"] for f in w["findings"]]
    assert [f for f in findings if f["severity"] == "error"] == []

    page = member.client.get(f"/armies/{army_id}").text
    assert f"created from the {html.escape(rules.name)} example" in page  # the flash
    assert '<span class="ok">0 errors</span>' in page
    for unit in sample.units:
        assert html.escape(str(unit["name"])) in page
    link = re.search(r'<a id="try-calculator" class="[^"]+" href="([^"]+)">', page)
    assert link, "no calculator link"
    href = html.unescape(link.group(1))
    armed = next(i for i, u in enumerate(body["units"]) if u["weapons"])
    attacker, target = body["units"][armed], body["units"][armed + 1]
    assert href == f"/calculator?attacker={attacker['id']}&target={target['id']}"
    calc = member.client.get(href)
    assert calc.status_code == 200, calc.text[:300]
    assert f'value="{attacker["id"]}" selected' in calc.text
    assert f'value="{target["id"]}" selected' in calc.text


def test_the_json_twin_and_its_refusals(member: Member, app: Any) -> None:
    r = api(member, "POST", "/api/v1/armies/examples/degrees")
    assert r.status_code == 201, r.text
    assert r.json()["name"] == get_ruleset("degrees").sample_army.name
    again = api(member, "POST", "/api/v1/armies/examples/degrees")
    assert again.json()["name"] == get_ruleset("degrees").sample_army.name + " (2)"
    before = counts(app)
    assert api(member, "POST", "/api/v1/armies/examples/chess").status_code == 404
    assert member.form("/armies/examples/chess").status_code == 404
    # a page POST without the CSRF token is refused and makes nothing
    assert member.client.post("/armies/examples/degrees").status_code == 403
    assert counts(app) == before
