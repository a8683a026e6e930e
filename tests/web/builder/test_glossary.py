"""Issue 14, item 11: rules words carry a short explanation on hover and focus, and a
glossary page (and its JSON twin) explains each and names its rule."""

from __future__ import annotations

import html
import re

import pytest
from fastapi.testclient import TestClient

from app.rules.registry import RULESETS
from app.rules.ruleset import glossary_term
from tests.web.builder.test_builder import TANK, add_unit, api
from tests.web.conftest import Member

# Column headings that are plain words, not rules words.
PLAIN = {"Notes"}


@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_every_rules_heading_of_the_builder_and_calculator_has_a_glossary_entry(
    ruleset_id: str,
) -> None:
    rules = RULESETS[ruleset_id]
    headings = [
        *(c.label for c in rules.unit_columns),
        *(c.label for c in rules.weapon_columns),
        *(c.label for c in rules.outcome_columns),
    ]
    missing = [h for h in headings if h not in PLAIN and glossary_term(rules.glossary, h) is None]
    assert not missing, f"{ruleset_id}: no glossary entry for {missing}"
    for entry in rules.glossary:
        assert entry.explanation.strip() and entry.rule.strip(), entry
    anchors = [g.anchor for g in rules.glossary]
    assert len(anchors) == len(set(anchors)), anchors


def _explained(page: str, ruleset_id: str, word: str) -> None:
    """The word is a link to its glossary entry, described by its explanation."""
    entry = glossary_term(RULESETS[ruleset_id].glossary, word)
    assert entry is not None
    anchor = f"{ruleset_id}-{entry.anchor}"
    link = re.search(
        rf'<a class="term-word" href="/glossary#{anchor}" aria-describedby="gloss-{anchor}">'
        rf"[^<]*</a><span class=\"tip\" aria-hidden=\"true\">([^<]*)</span>",
        page,
    )
    assert link, f"{word} is not explained"
    assert html.unescape(link.group(1)) == entry.explanation
    assert page.count(f'id="gloss-{anchor}"') == 1  # one description, however many headings


def test_the_builder_and_calculator_explain_their_headings(member: Member) -> None:
    army = api(member, "POST", "/api/v1/armies", json={"name": "Gloss", "budget": 200}).json()
    tank = add_unit(member, army["id"], TANK)
    add_unit(member, army["id"], {**TANK, "name": "Tank 2"})
    builder = member.client.get(f"/armies/{army['id']}").text
    for word in ("Size", "Armour", "Move", "Power", "Use", "Range", "Damage", "Mount"):
        _explained(builder, "brikwars", word)
    unit = member.client.get(f"/armies/{army['id']}/units/{tank['id']}").text
    _explained(unit, "brikwars", "Use")
    calc = member.client.get(
        f"/calculator?attacker={tank['id']}&target={tank['id']}&distance=4"
    ).text
    for word in ("Miss", "No effect", "Something Bad", "Size Damage", "Destroyed"):
        _explained(calc, "brikwars", word)


def test_the_glossary_page_and_its_twin_list_every_term_with_its_rule(app) -> None:  # type: ignore[no-untyped-def]
    client = TestClient(app)
    page = client.get("/glossary")
    assert page.status_code == 200
    text = html.unescape(page.text)
    for rules in RULESETS.values():
        body = client.get(f"/api/v1/rulesets/{rules.id}/glossary")
        assert body.status_code == 200
        terms = body.json()
        assert [t["term"] for t in terms] == [g.term for g in rules.glossary]
        for entry, item in zip(rules.glossary, terms, strict=True):
            assert f'id="{rules.id}-{entry.anchor}"' in page.text
            assert entry.explanation in text and f"Rule: {entry.rule}." in text
            assert item["url"] == f"/glossary#{rules.id}-{entry.anchor}"
    something_bad = glossary_term(RULESETS["brikwars"].glossary, "Something Bad")
    assert something_bad is not None and "5.1 Making Attacks" in something_bad.rule
    assert glossary_term(RULESETS["brikwars"].glossary, "Defl.") is not None  # its alias
    assert client.get("/api/v1/rulesets/nope/glossary").status_code in (404, 422)
