"""The open calculator's further targets (issue 27 item 1): typed-in units ``f.<i>.<field>``
with their ruleset's target fields (``f.<i>.location``) and figurines (``f.<i>.figures``,
``t.figures``: a squad), for every ruleset whose attacks strike several, on the page, its
"add a target" and "remove" (htmx and without JavaScript) and ``/api/v1/calculator/open``.

The odds are the saved-unit calculator's for the same units (a squad of 3 saved as a unit of
count 3): that calculator's further targets and squads are checked against enumerations in
``test_squad_engines.py``; here each door must give the same numbers, through HTTP."""

from __future__ import annotations

import html
import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
from fastapi.testclient import TestClient

from app.rules.registry import get_ruleset
from app.services.open_calculator import unit_pairs
from tests.web.calculator.test_further_targets import ODDS, _d20, _degrees, _import, _post
from tests.web.conftest import Member

OPEN, PAGE = "/api/v1/calculator/open", "/calculator/open"

# Each ruleset's attack: the attacker, the target, the further targets (each with its target
# fields and figurines), the situation.
CASES: dict[str, dict[str, Any]] = {
    "d20": {  # automatic fire at a target and 2 further targets, one a squad of 3
        "attacker": _d20(
            "Gunner", [{"type": "gun", "name": "Rifle", "reach": 60, "power": 6, "automatic": True}]
        ),
        "target": _d20("Chronos", []),
        "further": [
            (_d20("Alpha", [], pd=12), {}, 1),
            (_d20("Squad", []), {}, 3),
        ],
        "situation": {"mode": "automatic", "distance": "30"},
    },
    "degrees": {  # a grenade over Here (the target, and a squad of 3) and Close
        "attacker": _degrees("Grenadier", [{"type": "grenade", "degree": 4}], degree=4),
        "target": _degrees("Alpha", []),
        "further": [
            (_degrees("Squad", []), {"location": "here"}, 3),
            (_degrees("Beta", []), {"location": "close"}, 1),
        ],
        "situation": {},
    },
    "brikwars": {  # Arc Fire at 2: the target and one further target
        "attacker": {"name": "Gunner", "kind": "minifig", "weapons": [{"type": "autogun"}]},
        "target": {"name": "Trooper", "kind": "minifig"},
        "further": [({"name": "Second", "kind": "minifig"}, {"distance": "4"}, 1)],
        "situation": {"arc": "2", "distance": "3"},
    },
}
RULESETS = tuple(CASES)


def _pairs(ruleset_id: str, **more: str) -> list[tuple[str, str]]:
    case, ruleset = CASES[ruleset_id], get_ruleset(ruleset_id)
    pairs = [("rules", ruleset_id)]
    pairs += unit_pairs(ruleset, case["attacker"], "a") + unit_pairs(ruleset, case["target"], "t")
    for i, (unit, fields, figures) in enumerate(case["further"]):
        pairs += unit_pairs(ruleset, unit, f"f.{i}")
        pairs += [(f"f.{i}.{k}", v) for k, v in fields.items()]
        if figures != 1:
            pairs.append((f"f.{i}.figures", str(figures)))
    pairs += [*case["situation"].items(), ("weapons", "1"), *more.items()]
    return pairs


def _query(ruleset_id: str, **more: str) -> str:
    return urlencode(_pairs(ruleset_id, **more))


def _saved_odds(app: Any, member: Member, ruleset_id: str) -> dict[str, Any]:
    """The saved calculator's answer for the same units (a squad: a unit of its count)."""
    case = CASES[ruleset_id]
    further = [(u, f, n) for u, f, n in case["further"]]
    units = [case["attacker"], case["target"]]
    units += [{**u, "count": n} if n != 1 else u for u, _, n in further]
    ids = _import(app, member, ruleset_id, units)
    (attacker, weapons), (target, _), *rest = ids.values()
    body = {
        "attacker": {"unit_id": attacker, "weapon_ids": weapons[:1]},
        "target": {"unit_id": target},
        "situation": case["situation"],
        "followers": [
            {"unit_id": unit_id, **fields}
            for (unit_id, _), (_, fields, _) in zip(rest, further, strict=True)
        ],
    }
    r = _post(member, ODDS, body)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def _targets(answer: dict[str, Any]) -> list[list[tuple[Any, ...]]]:
    return [
        [tuple(sorted((k, v) for k, v in t.items())) for t in line["targets"]]
        for line in answer["lines"]
    ]


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_typed_further_targets_give_the_saved_calculators_odds(
    app: Any, client: TestClient, member: Member, ruleset_id: str
) -> None:
    r = client.get(f"{OPEN}?{_query(ruleset_id)}")
    assert r.status_code == 200, r.text
    answer = r.json()
    saved = _saved_odds(app, member, ruleset_id)
    assert answer["further_targets"] == [u["name"] for u, _, _ in CASES[ruleset_id]["further"]]
    assert answer["expected"] == pytest.approx(saved["expected_destroying"], abs=1e-12)
    assert _targets(answer) == _targets(saved)
    for mine, theirs in zip(answer["tallies"], saved["tallies"], strict=True):
        assert mine["key"] == theirs["key"]
        assert mine["distribution"] == pytest.approx(theirs["distribution"], abs=1e-12)
    # every target is struck or reached: the tallies count all figurines over all targets
    figurines = 1 + sum(n for _, _, n in CASES[ruleset_id]["further"])
    indexes = {t["index"] for line in answer["lines"] for t in line["targets"]}
    assert indexes == set(range(1 + len(CASES[ruleset_id]["further"])))
    assert answer["tallies"] and all(
        len(t["distribution"]) == figurines + 1 for t in answer["tallies"]
    )


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_the_page_shows_each_target_its_fields_and_the_tallies(
    client: TestClient, ruleset_id: str
) -> None:
    page = client.get(f"{PAGE}?{_query(ruleset_id)}")
    assert page.status_code == 200, page.text
    text = html.unescape(page.text)
    assert 'id="further-targets" open' in text
    further = CASES[ruleset_id]["further"]
    for i, (unit, _, figures) in enumerate(further):
        assert f'id="unit-f-{i}"' in text  # the target's own unit form, as the target's
        assert re.search(rf'name="f\.{i}\.name" type="text" value="{unit["name"]}"', text)
        for f in get_ruleset(ruleset_id).target_fields:
            assert f'name="f.{i}.{f.name}"' in text
        box = re.search(rf'<input id="open-f-{i}-figures" name="f\.{i}\.figures"[^>]*>', text)
        assert box and (f'value="{figures}"' if figures != 1 else 'value=""') in box[0]
        # a row of odds per target (a squad's figurines named)
        assert re.search(rf'<th scope="row">{unit["name"]}', text)
    assert 'data-name="tally"' in text
    assert 'id="t.figures"' not in text and 'id="open-t-figures"' in text
    # the link to share carries them all back
    link = re.search(r'id="calc-link"', text)
    assert link
    pushed = client.get(f"{PAGE}?{_query(ruleset_id)}", headers={"HX-Request": "true"})
    kept = dict(parse_qsl(urlsplit(pushed.headers["HX-Push-Url"]).query))
    for i, (unit, fields, figures) in enumerate(further):
        assert kept[f"f.{i}.name"] == unit["name"]
        for k, v in fields.items():
            default = next(f for f in get_ruleset(ruleset_id).target_fields if f.name == k)
            assert kept.get(f"f.{i}.{k}", str(default.default)) == v
        assert kept.get(f"f.{i}.figures", "1") == str(figures)
    again = client.get(pushed.headers["HX-Push-Url"], headers={"HX-Request": "true"})
    assert again.headers["HX-Push-Url"] == pushed.headers["HX-Push-Url"]


def test_a_squad_main_target_counts_its_figurines(client: TestClient) -> None:
    one = client.get(f"{OPEN}?{_query('d20')}").json()
    three = client.get(f"{OPEN}?{_query('d20', **{'t.figures': '3'})}").json()
    assert [len(t["distribution"]) for t in three["tallies"]] == [
        len(t["distribution"]) + 2 for t in one["tallies"]
    ]
    firsts = [t for t in three["lines"][0]["targets"] if t["index"] == 0]
    assert sum(t["figures"] for t in firsts) == 3


@pytest.mark.parametrize(
    ("more", "field"),
    [
        ({"f.1.pd": "many"}, "f.1.pd"),
        ({"f.0.figures": "0"}, "f.0.figures"),
        ({"f.1.figures": "51"}, "f.1.figures"),
        ({"f.1.figures": "x"}, "f.1.figures"),
        ({"t.figures": "-1"}, "t.figures"),
        ({"f.0.cover": "perhaps"}, "f.0.cover"),
        ({"f.0.kind": "dragon"}, "f.0.kind"),
        ({"f.x.pd": "3"}, "f.x.pd"),
        ({"f.2.name": "Too many"} | {f"f.{i}.name": f"T{i}" for i in range(3, 60)}, "f"),
    ],
)
def test_a_bad_further_target_is_a_422_naming_its_field(
    client: TestClient, more: dict[str, str], field: str
) -> None:
    r = client.get(f"{OPEN}?{_query('d20', **more)}")
    assert r.status_code == 422, r.text
    fields = [d["field"] for d in r.json()["detail"]]
    assert fields == [field], r.json()


def test_the_rulesets_bound_on_figurines_names_the_field(client: TestClient) -> None:
    """d20 bounds the figurines over all targets: 50 and 50 more are too many, named where
    they overflow (the further target as typed, ``f.1``)."""
    r = client.get(f"{OPEN}?{_query('d20', **{'t.figures': '50', 'f.1.figures': '50'})}")
    assert r.status_code == 422, r.text
    (detail,) = r.json()["detail"]
    assert detail["field"] == "f.1.figures", detail


def test_a_bad_field_sits_beside_its_input_on_the_page(client: TestClient) -> None:
    page = client.get(f"{PAGE}?{_query('d20', **{'f.1.pd': 'many', 'f.1.figures': '0'})}")
    assert page.status_code == 422
    text = html.unescape(page.text)
    error = re.search(r'<p class="error" id="open-f-1-pd-err">([^<]*)</p>', text)
    assert error, text[-3000:]
    error = re.search(r'<p class="error" id="open-f-1-figures-err">([^<]*)</p>', text)
    assert error and "from 1 to 50" in error[1]
    # the refused target stays in the form as typed; the others compute
    assert 'name="f.1.pd" type="text" value="many"' in text
    assert '<th scope="row">Alpha' in text and 'data-name="tally"' in text


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_add_and_remove_a_target_with_htmx_and_without(client: TestClient, ruleset_id: str) -> None:
    further = CASES[ruleset_id]["further"]
    n = len(further)
    hx = client.get(
        f"{PAGE}?{_query(ruleset_id, add='1', full='1')}", headers={"HX-Request": "true"}
    )
    assert hx.status_code == 200, hx.text
    assert f'id="unit-f-{n}"' in hx.text and hx.text.lstrip().startswith('<div id="calculator"')
    assert "add=" not in hx.headers["HX-Push-Url"]
    assert f"f.{n}.name=Target+{n + 2}" in hx.headers["HX-Push-Url"]
    plain = client.get(f"{PAGE}?{_query(ruleset_id, add='1')}", follow_redirects=False)
    assert plain.status_code == 303
    assert plain.headers["location"] == hx.headers["HX-Push-Url"]
    # remove the first: the second is numbered 0 now
    gone = client.get(f"{PAGE}?{_query(ruleset_id, drop='0')}", follow_redirects=False)
    assert gone.status_code == 303
    kept = dict(parse_qsl(urlsplit(gone.headers["location"]).query))
    names = [u["name"] for u, _, _ in further[1:]]
    assert [kept[f"f.{i}.name"] for i in range(len(names))] == names
    assert f"f.{len(names)}.name" not in kept


def test_save_these_units_saves_the_further_targets_too(member: Member) -> None:
    headers = {"X-CSRF-Token": member.csrf}
    r = member.client.post(
        f"{PAGE}/save",
        data={"query": _query("d20"), "army_name": "Typed"},
        headers=headers,
        follow_redirects=False,
    )
    assert r.status_code in (200, 303), r.text
    army_id = int((r.headers.get("HX-Redirect") or r.headers["location"]).rsplit("/", 1)[1])
    army = member.client.get(f"/api/v1/armies/{army_id}").json()
    units = [(u["name"], u.get("count", 1)) for u in army["units"]]
    assert units == [("Gunner", 1), ("Chronos", 1), ("Alpha", 1), ("Squad", 3)]


def test_a_bad_further_target_saves_nothing(member: Member) -> None:
    headers = {"X-CSRF-Token": member.csrf}
    before = member.client.get("/api/v1/armies").json()
    r = member.client.post(
        "/api/v1/calculator/open/save",
        json={"query": _query("d20", **{"f.1.figures": "0"}), "army_name": "Never"},
        headers=headers,
    )
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "f.1.figures"
    assert member.client.get("/api/v1/armies").json() == before


def test_switching_ruleset_drops_the_further_targets(client: TestClient) -> None:
    r = client.get(
        f"{PAGE}?{_query('d20', was='d20', rules='degrees')}".replace("rules=d20&", "", 1),
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 200, r.text
    kept = dict(parse_qsl(urlsplit(r.headers["HX-Push-Url"]).query))
    assert kept["rules"] == "degrees" and not any(k.startswith("f.") for k in kept)
