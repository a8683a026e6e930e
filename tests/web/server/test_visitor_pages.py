"""Issue 29 item 8: a visitor's /calculator is the open calculator; the home page, the
glossary and the open calculator present every rule system of the registry."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qsl, urlsplit

import pytest
from fastapi.testclient import TestClient

from app.rules.registry import RULESETS
from tests.web.conftest import Member


def test_a_visitors_calculator_is_the_open_calculator(client: TestClient) -> None:
    r = client.get("/calculator", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/calculator/open"
    page = client.get("/calculator")
    assert page.status_code == 200 and str(page.url).endswith("/calculator/open")
    assert 'id="calc-rules"' in page.text and "Log in</a> to save these units" in page.text


def test_a_visitors_calculator_keeps_the_query_but_the_saved_units(client: TestClient) -> None:
    url = (
        "/calculator?attacker=3&weapons=7&target=4&target_figures=2&follower=5"
        "&follower_figures=2&rules=degrees&range=far&chart=at_least"
    )
    r = client.get(url, follow_redirects=False)
    assert r.status_code == 303
    where = urlsplit(r.headers["location"])
    assert where.path == "/calculator/open"
    assert parse_qsl(where.query) == [
        ("rules", "degrees"),
        ("range", "far"),
        ("chart", "at_least"),
    ]
    page = client.get(r.headers["location"])
    assert page.status_code == 200, page.text[-2000:]
    assert re.search(r'<option value="degrees" selected>', page.text)
    assert re.search(r'<option value="far" selected>', page.text)


def test_htmx_asks_the_browser_to_go(client: TestClient) -> None:
    r = client.get("/calculator?rules=d20", headers={"HX-Request": "true"})
    assert r.status_code == 204 and r.headers["HX-Redirect"] == "/calculator/open?rules=d20"


def test_a_member_still_has_the_saved_calculator(member: Member) -> None:
    r = member.client.get("/calculator", follow_redirects=False)
    assert r.status_code == 200 and 'id="calc-attacker"' in r.text


def test_the_home_page_presents_every_rule_system(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    text = html.unescape(page.text)
    for rs in RULESETS.values():
        card = re.search(
            rf'<div class="card ruleset-card" id="ruleset-{rs.id}">(.*?)</div>', text, re.S
        )
        assert card is not None, rs.id
        assert rs.name in card[1] and rs.summary in card[1] and rs.cost_unit in card[1]
        assert f'href="/calculator/open?rules={rs.id}"' in card[1]
        assert f'href="/glossary?rules={rs.id}#{rs.id}"' in card[1]
    for only_brikwars in ("Something Bad", "Minifigs, vehicles and monsters", "Size; Power"):
        assert only_brikwars not in text


@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_the_home_pages_links_work(client: TestClient, ruleset_id: str) -> None:
    rs = RULESETS[ruleset_id]
    calc = client.get(f"/calculator/open?rules={ruleset_id}")
    assert calc.status_code == 200
    assert re.search(rf'<option value="{ruleset_id}" selected>', calc.text)
    assert rs.summary in html.unescape(calc.text)  # what the system is, by the picker
    glossary = client.get(f"/glossary?rules={ruleset_id}")
    assert glossary.status_code == 200
    sections = re.findall(r'<section class="card glossary" id="([a-z0-9]+)"', glossary.text)
    assert sections == [ruleset_id]
    terms = re.findall(rf'<dt id="{ruleset_id}-', glossary.text)
    assert len(terms) == len(rs.glossary) > 0
    assert f"<title>{rs.name} glossary" in html.unescape(glossary.text)


def test_the_glossary_has_every_rule_system_and_a_picker(client: TestClient) -> None:
    page = client.get("/glossary")
    assert page.status_code == 200
    sections = re.findall(r'<section class="card glossary" id="([a-z0-9]+)"', page.text)
    assert sections == list(RULESETS)
    for rs in RULESETS.values():
        assert f'href="/glossary?rules={rs.id}#{rs.id}"' in page.text
        assert len(re.findall(rf'<dt id="{rs.id}-', page.text)) == len(rs.glossary)
    unknown = client.get("/glossary?rules=chess")  # not a rule system: all of them
    assert re.findall(r'<section class="card glossary" id="([a-z0-9]+)"', unknown.text) == sections


def test_the_open_calculators_intro_names_every_rule_system(client: TestClient) -> None:
    page = client.get("/calculator/open")
    intro = re.search(r"<h1>Attack calculator</h1>\s*<p class=\"meta\">(.*?)</p>", page.text, re.S)
    assert intro is not None
    for rs in RULESETS.values():
        assert f'<a href="/calculator/open?rules={rs.id}">{html.escape(rs.name)}</a>' in intro[1]
