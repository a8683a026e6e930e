"""The open calculator (issue 14 item 2): units typed in, no account, the URL as the state."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

import pytest
from fastapi.testclient import TestClient

from app.services.open_calculator import open_calculator_url
from app.web.charts import cumulative
from tests.web.conftest import Member

TANK = {
    "name": "Tank",
    "kind": "creation",
    "size": 4,
    "structure_level": 2,
    "weapons": [{"type": "gun", "size": 3}, {"type": "machinegun", "size": 2}],
}
HERO = {"name": "Hero", "kind": "hero", "weapons": [{"type": "melee_weapon", "size": 1}]}
QUERY = (
    "rules=brikwars&a.name=Tank&a.kind=creation&a.size=4&a.structure_level=2"
    "&a.weapons.0.type=gun&a.weapons.0.size=3&a.weapons.1.type=machinegun&a.weapons.1.size=2"
    "&t.name=Hero&t.kind=hero&t.weapons.0.type=melee_weapon&t.weapons.0.size=1"
    "&weapons=1&distance=6"
)


BAR = re.compile(r'data-value="(\d+)" data-p="([0-9.]+)"')


def _bars(html: str) -> list[tuple[int, float]]:
    return [(int(v), float(p)) for v, p in BAR.findall(html)]


def _p(html: str, name: str) -> float:
    return float(re.findall(rf'data-name="{name}" data-p="([0-9.e-]+)"', html)[0])


def test_anonymous_visitor_computes_typed_units(client: TestClient) -> None:
    page = client.get(f"/calculator/open?{QUERY}")
    assert page.status_code == 200, page.text
    assert "Tank" in page.text and 'class="damage-chart"' in page.text
    assert 0 < _p(page.text, "any_destroying") < 1
    assert 'href="/calculator/open"' in page.text  # the top navigation, for everyone
    assert "Log in</a> to save these units" in page.text


def test_blank_page_starts_with_sample_units(client: TestClient) -> None:
    for rules in ("brikwars", "degrees", "d20"):
        page = client.get(f"/calculator/open?rules={rules}")
        assert page.status_code == 200, (rules, page.text[-2000:])
        assert 'id="results"' in page.text and "data-p=" in page.text


def test_url_round_trip(client: TestClient) -> None:
    first = client.get(f"/calculator/open?{QUERY}", headers={"HX-Request": "true"})
    pushed = first.headers["HX-Push-Url"]
    assert urlsplit(pushed).path == "/calculator/open"
    params = dict(parse_qsl(urlsplit(pushed).query))
    assert params["a.size"] == "4" and params["weapons"] == "1" and params["distance"] == "6"
    again = client.get(pushed, headers={"HX-Request": "true"})
    assert again.headers["HX-Push-Url"] == pushed
    assert _p(again.text, "any_destroying") == _p(first.text, "any_destroying")


def test_same_odds_as_the_saved_unit_calculator(member: Member) -> None:
    headers = {"X-CSRF-Token": member.csrf}
    army = member.client.post(
        "/api/v1/armies", json={"name": "Both", "budget": 500}, headers=headers
    ).json()
    ids = [
        member.client.post(f"/api/v1/armies/{army['id']}/units", json=u, headers=headers).json()
        for u in (TANK, HERO)
    ]
    gun = ids[0]["weapons"][0]["id"]
    saved = member.client.get(
        f"/calculator?attacker={ids[0]['id']}&weapons={gun}&target={ids[1]['id']}&distance=6"
    )
    typed = member.client.get(f"/calculator/open?{QUERY}")
    assert saved.status_code == typed.status_code == 200
    for name in ("any_destroying", "on_fire", "jam"):
        if f'data-name="{name}"' in saved.text:
            assert _p(typed.text, name) == _p(saved.text, name)
    bars = re.findall(r'data-value="(\d+)" data-p="([0-9.]+)"', saved.text)
    assert bars and re.findall(r'data-value="(\d+)" data-p="([0-9.]+)"', typed.text) == bars


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("a.kind=minifig&a.weapons.0.type=gun&a.weapons.0.size=x&t.kind=hero", "a.weapons.0.size"),
        ("a.kind=dragon&t.kind=hero", "a.kind"),
        ("a.kind=minifig&a.weapons.99.type=gun&t.kind=hero", "a.weapons.99.type"),
        ("a.kind=minifig&t.kind=hero&distance=-3", "distance"),
        ("a.kind=minifig&t.kind=hero&weapons=40", "weapons"),
        (QUERY + "&weapons=3", "weapons"),
        ("rules=chess&a.kind=minifig", "rules"),
        ("a.kind=minifig&t.kind=hero&chart=sideways", "chart"),
        ("a.kind=minifig&a.name=" + "x" * 300 + "&t.kind=hero", "a.name"),
    ],
)
def test_bad_input_is_a_422_naming_the_field(client: TestClient, query: str, field: str) -> None:
    page = client.get(f"/calculator/open?{query}")
    assert page.status_code == 422, page.text[-2000:]
    assert f"<strong>{field.replace('_', ' ')}</strong>" in page.text
    # htmx's live answer while the form is filled in: the same errors inline, but a 200 (a
    # browser logs every 4xx to the console: issue 29 item 2)
    live = client.get(f"/calculator/open?{query}", headers={"HX-Request": "true"})
    assert live.status_code == 200 and f"<strong>{field.replace('_', ' ')}</strong>" in live.text


def test_open_calculator_url_fills_in_a_unit(client: TestClient) -> None:
    url = open_calculator_url("brikwars", TANK, "target")
    params = dict(parse_qsl(urlsplit(url).query))
    assert params["t.name"] == "Tank" and params["t.weapons.1.type"] == "machinegun"
    page = client.get(url)
    assert page.status_code == 200, page.text[-2000:]
    assert 'value="Tank"' in page.text


def test_save_these_units_to_a_new_army(member: Member) -> None:
    page = member.client.get(f"/calculator/open?{QUERY}")
    assert 'action="/calculator/open/save"' in page.text
    r = member.form(
        "/calculator/open/save",
        {"query": QUERY, "army_id": "", "army_name": "From the calculator"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text[-2000:]
    army = member.client.get(r.headers["location"])
    assert "From the calculator" in army.text and "Tank" in army.text and "Hero" in army.text


def test_save_needs_a_name_or_an_army_and_never_half_saves(member: Member) -> None:
    r = member.form("/calculator/open/save", {"query": QUERY, "army_name": ""})
    assert r.status_code == 422 and "Cannot save" in r.text
    bad = QUERY.replace("t.kind=hero", "t.kind=dragon")
    r = member.form("/calculator/open/save", {"query": bad, "army_name": "Half"})
    assert r.status_code == 422
    armies = member.client.get("/api/v1/armies", headers={"X-CSRF-Token": member.csrf}).json()
    assert not armies or all(a["name"] != "Half" for a in armies)


def test_save_to_another_users_army_is_not_found(member: Member, stranger: Member) -> None:
    headers = {"X-CSRF-Token": stranger.csrf}
    theirs = stranger.client.post(
        "/api/v1/armies", json={"name": "Theirs", "budget": 500}, headers=headers
    ).json()
    r = member.form("/calculator/open/save", {"query": QUERY, "army_id": str(theirs["id"])})
    assert r.status_code == 404


def test_chart_toggle_shows_cumulative_odds(client: TestClient) -> None:
    exact = client.get(f"/calculator/open?{QUERY}")
    bars = [
        (int(v), float(p))
        for v, p in re.findall(r'data-value="(\d+)" data-p="([0-9.]+)"', exact.text)
    ]
    assert 'id="chart-exact" name="chart" value="exact" checked' in exact.text
    for mode in ("at_least", "at_most"):
        page = client.get(f"/calculator/open?{QUERY}&chart={mode}")
        assert page.status_code == 200
        assert f'value="{mode}" checked' in page.text and f"chart={mode}" in page.text
        got = [
            (int(v), float(p))
            for v, p in re.findall(r'data-value="(\d+)" data-p="([0-9.]+)"', page.text)
        ]
        want = cumulative(bars, mode)
        assert [v for v, _ in got] == [v for v, _ in want]
        if mode == "at_most":  # the drawn bars are the whole mass up to N
            for (_, p), (_, q) in zip(got, want, strict=True):
                assert p == pytest.approx(q, abs=1e-5)
        else:  # P(>= N) = 1 - P(< N), exactly from the distribution
            total = 0.0
            for value, p in got:
                assert p == pytest.approx(1 - total, abs=1e-5), value
                total += dict(bars)[value]


def test_saved_calculator_chart_toggle(member: Member) -> None:
    headers = {"X-CSRF-Token": member.csrf}
    army = member.client.post(
        "/api/v1/armies", json={"name": "Both", "budget": 500}, headers=headers
    ).json()
    ids = [
        member.client.post(f"/api/v1/armies/{army['id']}/units", json=u, headers=headers).json()
        for u in (TANK, HERO)
    ]
    url = f"/calculator?attacker={ids[0]['id']}&target={ids[1]['id']}&chart=at_most"
    page = member.client.get(url, headers={"HX-Request": "true"})
    assert page.status_code == 200
    assert "chart=at_most" in page.headers["HX-Push-Url"]
    assert 'data-mode="at_most"' in page.text


def test_cumulative_against_exact() -> None:
    dist = [(0, 0.1), (1, 0.2), (2, 0.3), (3, 0.4)]
    at_least = cumulative(dist, "at_least")
    at_most = cumulative(dist, "at_most")
    assert [v for v, _ in at_least] == [v for v, _ in at_most] == [0, 1, 2, 3]
    assert [p for _, p in at_least] == pytest.approx([1.0, 0.9, 0.7, 0.4])
    assert [p for _, p in at_most] == pytest.approx([0.1, 0.3, 0.6, 1.0])
    assert cumulative(dist, "exact") == dist


def test_json_twin_gives_the_pages_odds(client: TestClient) -> None:
    page = client.get(f"/calculator/open?{QUERY}")
    r = client.get(f"/api/v1/calculator/open?{QUERY}")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["attacker"] == "Tank" and body["target"] == "Hero"
    assert body["decisive"] == pytest.approx(_p(page.text, "any_destroying"), abs=1e-9)
    assert body["lines"][0]["weapons"] == [1]
    assert client.get(body["url"]).status_code == 200
    bad = client.get("/api/v1/calculator/open?a.kind=dragon&t.kind=hero")
    assert bad.status_code == 422 and "a.kind" in bad.text


def test_json_twin_saves_units(member: Member) -> None:
    headers = {"X-CSRF-Token": member.csrf}
    r = member.client.post(
        "/api/v1/calculator/open/save",
        json={"query": QUERY, "army_name": "Typed"},
        headers=headers,
    )
    assert r.status_code == 201, r.text
    army_id = r.json()["army_id"]
    units = member.client.get(f"/api/v1/armies/{army_id}", headers=headers).json()
    assert [u["name"] for u in units["units"]] == ["Tank", "Hero"]
    again = member.client.post(
        "/api/v1/calculator/open/save",
        json={"query": QUERY, "army_id": army_id},
        headers=headers,
    )
    assert again.status_code == 201
    units = member.client.get(f"/api/v1/armies/{army_id}", headers=headers).json()
    assert len(units["units"]) == 4


def test_changing_the_kind_drops_the_old_kinds_figures(client: TestClient) -> None:
    query = QUERY.replace("a.kind=creation", "a.kind=minifig&a._kind=creation")
    page = client.get(f"/calculator/open?{query}", headers={"HX-Request": "true"})
    assert page.status_code == 200, page.text[-2000:]
    params = dict(parse_qsl(urlsplit(page.headers["HX-Push-Url"]).query))
    assert params["a.kind"] == "minifig" and "a.size" not in params
    stale = QUERY.replace("a.kind=creation", "a.kind=minifig")  # no _kind: the size is refused
    assert client.get(f"/calculator/open?{stale}").status_code == 422


def test_fields_without_an_input_ride_along_in_the_form(client: TestClient) -> None:
    query = (
        "a.name=Tank&a.size=4&a.structure_level=2&a.weapons.0.type=cannon&a.weapons.0.size=4"
        "&a.weapons.0.ammo.xsize=2&a.weapons.0.label=Big+Bertha&t.kind=hero"
    )
    page = client.get(f"/calculator/open?{query}")
    assert page.status_code == 200, page.text[-2000:]
    assert '<input type="hidden" name="a.weapons.0.ammo.xsize" value="2">' in page.text
    assert '<input type="hidden" name="a.weapons.0.label" value="Big Bertha">' in page.text


def test_open_calculator_url_takes_a_saved_unit(member: Member) -> None:
    from app.services.army_rows import load_rows

    headers = {"X-CSRF-Token": member.csrf}
    army = member.client.post(
        "/api/v1/armies", json={"name": "Rows", "budget": 500}, headers=headers
    ).json()
    member.client.post(f"/api/v1/armies/{army['id']}/units", json=TANK, headers=headers)
    app = member.client.app
    with app.state.sessionmaker() as session:  # type: ignore[attr-defined]
        (row,) = load_rows(session, army["id"])
    url = open_calculator_url("brikwars", row, "attacker")
    params = dict(parse_qsl(urlsplit(url).query))
    assert params["a.name"] == "Tank" and params["a.weapons.0.size"] == "3"
    assert member.client.get(url).status_code == 200


@pytest.mark.parametrize("size", ["1000000", "99999999999999999999", "1e9", "nan"])
def test_huge_or_odd_sizes_are_refused_next_to_their_input(client: TestClient, size: str) -> None:
    query = QUERY.replace("a.weapons.0.size=3", f"a.weapons.0.size={size}")
    page = client.get(f"/calculator/open?{query}")
    assert page.status_code == 422, page.text[-2000:]
    assert 'id="open-a-w0-size-err"' in page.text  # next to its input
    assert "<strong>weapons</strong>" not in page.text  # only the field at fault


@pytest.mark.parametrize("rules", ["degrees", "d20"])
def test_other_rulesets_give_the_saved_calculators_odds(member: Member, rules: str) -> None:
    from app.rules.registry import get_ruleset
    from app.services.open_calculator import unit_pairs

    sample = get_ruleset(rules).sample_attacks[0]
    headers = {"X-CSRF-Token": member.csrf}
    army = member.client.post(
        "/api/v1/armies", json={"name": "S", "budget": 500, "ruleset_id": rules}, headers=headers
    ).json()
    ids = [
        member.client.post(f"/api/v1/armies/{army['id']}/units", json=u, headers=headers).json()
        for u in (sample.attacker, sample.targets[0])
    ]
    saved = member.client.get(f"/calculator?attacker={ids[0]['id']}&target={ids[1]['id']}")
    pairs = [("rules", rules), *unit_pairs(get_ruleset(rules), sample.attacker, "a")]
    pairs += unit_pairs(get_ruleset(rules), sample.targets[0], "t")
    typed = member.client.get("/calculator/open", params=pairs)
    assert saved.status_code == typed.status_code == 200, typed.text[-2000:]
    want = re.findall(r'data-p="([0-9.e-]+)"', saved.text)
    assert want and re.findall(r'data-p="([0-9.e-]+)"', typed.text) == want


@pytest.mark.parametrize("query", ["a.0=x", "a.kind=minifig&t.5=1&t.6=2"])
def test_a_number_in_place_of_a_units_field_is_refused(client: TestClient, query: str) -> None:
    # (it made the unit's query tree a list: a 500)
    page = client.get(f"/calculator/open?{query}")
    assert page.status_code == 422, page.text[-2000:]
    assert "is not a field of a unit" in page.text


@pytest.mark.parametrize(
    "query",
    [
        "rules=d20&a.weapons.0.type.0=gun",
        "rules=d20&a.weapons.0.type.x=1",
        "a.weapons.0.type.0=gun",
        "rules=degrees&a.weapons.0.type.0=gun",
        "rules=d20&a.kind.0=x",
        "a.name.0=x",
        "rules=d20&t.weapons.0.type.0=gun",
        "rules=d20&a.weapons.0.0=gun",
        "a.weapons.x=1",
        "rules=degrees&a.senses.0=x",
    ],
)
def test_a_nested_key_in_place_of_a_units_field_is_no_500(client: TestClient, query: str) -> None:
    """A field given as a path deeper than the unit has (``a.weapons.0.type.0``) reaches the
    unit as a list or an object: it is refused or ignored, never a 500."""
    page = client.get(f"/calculator/open?{query}")
    assert page.status_code in (200, 422), (query, page.text[-1500:])
