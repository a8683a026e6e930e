"""Several targets between saved units and squads, through HTTP, for every ruleset (issue 27):
the calculator page, its fragment and ``/api/v1/calculator/*`` take further targets with
their own fields and a squad's ``figures`` (default: the unit's count), refuse more figures
than a unit has (a 422 naming the field; inline on the page), refuse another ruleset's army,
show the tallies, and "Roll it!" strikes a squad's figurines as distinct battle units.

These hold whether or not the engines count a squad's figurines yet (they read the
``TargetInput.figures`` the calculator passes, and the odds' own figure counts); what depends
on the engines counting them is in ``test_squad_engines.py``."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from sqlalchemy import select

from app.db.models import BattleEntry, BattleUnit, Unit, User, Weapon
from app.rules.registry import get_ruleset
from app.rules.ruleset import TargetInput
from app.services import calculator, transfer
from app.services.army_document import FORMAT, VERSION
from tests.web.conftest import Member

ODDS, ROLL, BATTLE = (
    "/api/v1/calculator/odds",
    "/api/v1/calculator/roll",
    "/api/v1/calculator/battle",
)


def _d20(name: str, weapons: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    stats = {"shot": 10, "hth": 6, "pd": 18, "evasion": 1, "dexterity": 5, "cp": 2}
    return {"name": name, "kind": "figurine", **stats, **more, "weapons": weapons}


def _degrees(name: str, weapons: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    stats = {"degree": 2, "armour": 1, "back_armour": 0, "hp": 2, "ap": 3, "op": 0}
    return {"name": name, "kind": "personnel", **stats, **more, "weapons": weapons}


# Each ruleset: its units (the attacker first, then a single unit and a squad of 3), the
# situation of an attack on several, and a further target's own fields.
CASES: dict[str, dict[str, Any]] = {
    "brikwars": {
        "units": [
            {"name": "Gunner", "kind": "minifig", "weapons": [{"type": "autogun"}]},
            {"name": "Trooper", "kind": "minifig"},
            {"name": "Squad", "kind": "minifig", "count": 3},
        ],
        "situation": {"arc": 2, "distance": 3},
        "follower": {"distance": 4},
    },
    "d20": {
        "units": [
            _d20(
                "Gunner",
                [{"type": "gun", "name": "Rifle", "reach": 60, "power": 6, "automatic": True}],
            ),
            _d20("Chronos", []),
            _d20("Squad", [], count=3),
        ],
        "situation": {"mode": "automatic", "distance": 30},
        "follower": {},
    },
    "degrees": {
        "units": [
            _degrees("Grenadier", [{"type": "grenade", "degree": 4}], degree=4),
            _degrees("Alpha", []),
            _degrees("Squad", [], count=3),
        ],
        "situation": {},
        "follower": {"location": "close"},
    },
}
RULESETS = tuple(CASES)


def _import(app: Any, member: Member, ruleset_id: str, units: list[dict[str, Any]]) -> dict:
    """The units saved in a new army of ``ruleset_id``: name -> (unit id, weapon ids)."""
    document = {
        "format": FORMAT,
        "version": VERSION,
        "ruleset": ruleset_id,
        "rules_version": get_ruleset(ruleset_id).rules_version,
        "name": f"{ruleset_id} squads",
        "budget": 1000,
        "notes": "",
        "house_rules": {"allow_over_budget": True},
        "units": units,
    }
    with app.state.sessionmaker() as session:
        user = session.scalars(select(User).where(User.email == member.email)).one()
        army = transfer.import_army(session, user=user, raw=json.dumps(document).encode())
        out = {}
        for unit_id, name in session.execute(
            select(Unit.id, Unit.name).where(Unit.army_id == army.id).order_by(Unit.position)
        ):
            weapons = session.scalars(
                select(Weapon.id).where(Weapon.unit_id == unit_id).order_by(Weapon.position)
            ).all()
            out[name] = (unit_id, list(weapons))
        session.commit()
    return out


def _ids(units: dict) -> tuple[int, int, int, list[int]]:
    (attacker, weapons), (single, _), (squad, _) = units.values()
    return attacker, single, squad, weapons


def _body(ruleset_id: str, units: dict, **follower: Any) -> dict[str, Any]:
    attacker, single, squad, weapons = _ids(units)
    case = CASES[ruleset_id]
    return {
        "attacker": {"unit_id": attacker, "weapon_ids": weapons[:1]},
        "target": {"unit_id": single},
        "situation": case["situation"],
        "followers": [{"unit_id": squad, **case["follower"], **follower}],
    }


def _query(ruleset_id: str, units: dict, **more: str) -> str:
    attacker, single, squad, weapons = _ids(units)
    case = CASES[ruleset_id]
    pairs = [("attacker", attacker), ("weapons", weapons[0]), ("target", single)]
    pairs += [*case["situation"].items(), ("follower", squad)]
    pairs += [(f"follower_{k}", v) for k, v in case["follower"].items()]
    pairs += list(more.items())
    return "/calculator?" + "&".join(f"{k}={v}" for k, v in pairs)


def _post(member: Member, url: str, body: dict[str, Any]) -> Any:
    return member.client.post(url, json=body, headers={"X-CSRF-Token": member.csrf})


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[list[TargetInput]]:
    """The targets every ruleset's ``attack`` is given (the rulesets answer as ever)."""
    calls: list[list[TargetInput]] = []
    for ruleset_id in RULESETS:
        ruleset = get_ruleset(ruleset_id)
        attack = ruleset.attack

        def recorded(*args: Any, _attack: Any = attack, **kw: Any) -> Any:
            calls.append(list(args[2]))
            return _attack(*args, **kw)

        monkeypatch.setattr(ruleset, "attack", recorded)
    return calls


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_further_targets_and_squads_go_through_the_api(
    app: Any, member: Member, ruleset_id: str, seen: list[list[TargetInput]]
) -> None:
    units = _import(app, member, ruleset_id, CASES[ruleset_id]["units"])
    r = _post(member, ODDS, _body(ruleset_id, units))
    assert r.status_code == 200, r.text
    answer = r.json()
    # the squad's figurines default to the unit's count; the single unit is one figurine
    assert [t.figures for t in seen[-1]] == [1, 3]
    fields = seen[-1][1].fields
    assert set(fields) == {f.name for f in get_ruleset(ruleset_id).target_fields}
    for name, value in CASES[ruleset_id]["follower"].items():
        assert fields[name] == value
    assert {t["index"] for line in answer["lines"] for t in line["targets"]} >= {0, 1}
    for line in answer["lines"]:
        for t in line["targets"]:
            assert t["figure"] >= 0 and t["figures"] >= 1
    assert isinstance(answer["tallies"], list)
    for tally in answer["tallies"]:
        assert set(tally) == {"key", "label", "distribution", "expected"}
        assert sum(tally["distribution"]) == pytest.approx(1.0)
        assert tally["expected"] == pytest.approx(
            sum(n * p for n, p in enumerate(tally["distribution"]))
        )
    # given, the figures are passed as given
    assert _post(member, ODDS, _body(ruleset_id, units, figures=2)).status_code == 200
    assert seen[-1][1].figures == 2
    body = _body(ruleset_id, units)
    body["target"]["figures"] = 1
    assert _post(member, ODDS, body).status_code == 200
    assert [t.figures for t in seen[-1]] == [1, 3]
    rolled = _post(member, ROLL, body | {"seed": 4})
    assert rolled.status_code == 200, rolled.text


@pytest.mark.parametrize("ruleset_id", RULESETS)
@pytest.mark.parametrize(
    ("where", "figures", "field", "reason"),
    [
        ("follower", 4, "followers.0.figures", "must be from 1 to 3 (Squad has 3 figurines)"),
        ("follower", 0, "followers.0.figures", "must be at least 1"),
        ("follower", "x", "followers.0.figures", "must be a whole number"),
        ("target", 2, "target.figures", "must be from 1 to 1"),
        ("target", 0, "target.figures", "must be at least 1"),
        ("target", 2.5, "target.figures", "whole number"),
    ],
)
def test_bad_figures_are_422s_naming_the_field(
    app: Any, member: Member, ruleset_id: str, where: str, figures: Any, field: str, reason: str
) -> None:
    units = _import(app, member, ruleset_id, CASES[ruleset_id]["units"])
    body = _body(ruleset_id, units)
    (body["followers"][0] if where == "follower" else body["target"])["figures"] = figures
    for url, extra in ((ODDS, {}), (ROLL, {"seed": 1}), (BATTLE, {"seed": 1})):
        r = _post(member, url, body | extra)
        assert r.status_code == 422, r.text
        (detail,) = r.json()["detail"]
        assert detail["field"] == field and reason in detail["reason"], detail


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_the_page_offers_further_targets_and_a_squads_figurines(
    app: Any, member: Member, ruleset_id: str
) -> None:
    units = _import(app, member, ruleset_id, CASES[ruleset_id]["units"])
    _, _, squad, _ = _ids(units)
    page = member.client.get(_query(ruleset_id, units))
    assert page.status_code == 200, page.text
    text = html.unescape(page.text)
    assert 'id="further-targets" open' in text
    assert re.search(rf'<option value="{squad}" selected>Squad', text)
    # the squad's figurines are asked, up to its count, empty for all of them
    figures = re.search(r'<input id="calc-f0-figures" name="follower_figures"[^>]*>', text)
    assert figures and 'max="3"' in figures[0] and 'value=""' in figures[0]
    assert 'placeholder="all 3"' in figures[0]
    # the single target has one figurine: no figures asked
    assert 'id="calc-target-figures"' not in text
    # every ruleset's row asks its own target fields, and "add a target" is offered
    for f in get_ruleset(ruleset_id).target_fields:
        assert f'name="follower_{f.name}"' in text
    assert 'id="calc-follower-new"' in text
    # the results: each target named in the per-target table (the fragment as the page)
    fragment = member.client.get(_query(ruleset_id, units), headers={"HX-Request": "true"})
    assert fragment.status_code == 200
    assert '<th scope="row">Squad' in html.unescape(fragment.text)


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_too_many_figures_on_the_page_is_an_inline_error(
    app: Any, member: Member, ruleset_id: str
) -> None:
    units = _import(app, member, ruleset_id, CASES[ruleset_id]["units"])
    page = member.client.get(_query(ruleset_id, units, follower_figures="4"))
    assert page.status_code == 422
    text = html.unescape(page.text)
    error = re.search(r'<p class="error" id="calc-f0-figures-err">([^<]*)</p>', text)
    assert error and "must be from 1 to 3" in error[1]
    page = member.client.get(_query(ruleset_id, units, target_figures="x"))
    assert page.status_code == 422
    error = re.search(
        r'<p class="error" id="calc-target-figures-err">([^<]*)</p>', html.unescape(page.text)
    )
    assert error and "whole number" in error[1]
    # the figures given come back in the link to share
    page = member.client.get(_query(ruleset_id, units, follower_figures="2"))
    assert page.status_code == 200 and "follower_figures=2" in page.text


def test_another_rulesets_army_is_refused_as_a_further_target(app: Any, member: Member) -> None:
    d20 = _import(app, member, "d20", CASES["d20"]["units"])
    degrees = _import(app, member, "degrees", CASES["degrees"]["units"])
    body = _body("d20", d20)
    body["followers"] = [{"unit_id": degrees["Squad"][0]}]
    for url, extra in ((ODDS, {}), (ROLL, {"seed": 1}), (BATTLE, {"seed": 1})):
        r = _post(member, url, body | extra)
        assert r.status_code == 422, r.text
        (detail,) = r.json()["detail"]
        assert detail["field"] == "followers.0.unit_id"
        assert "another rule system than D20" in detail["reason"]
    attacker, single, _, weapons = _ids(d20)
    page = member.client.get(
        f"/calculator?attacker={attacker}&weapons={weapons[0]}&target={single}"
        f"&mode=automatic&follower={degrees['Squad'][0]}"
    )
    assert page.status_code == 422
    assert re.search(
        r'id="calc-follower-0-err">Target 2: Squad is in an army of another', page.text
    )


def test_the_attackers_own_army_may_be_targeted_but_not_the_attacker_itself(
    app: Any, member: Member
) -> None:
    """docs/rulings.md: further targets from the attacker's own army are taken (an
    explosion catches friends; a battle does not refuse them either); the attacking unit
    is not a target of its own attack unless it is a squad with other figurines."""
    units = _import(app, member, "d20", CASES["d20"]["units"])
    body = _body("d20", units)  # every unit here is of the attacker's army
    assert _post(member, ODDS, body).status_code == 200
    attacker, _, _, _ = _ids(units)
    body["followers"] = [{"unit_id": attacker}]
    r = _post(member, ODDS, body)
    assert r.status_code == 422
    (detail,) = r.json()["detail"]
    assert detail == detail | {
        "field": "followers.0.unit_id",
        "reason": "Gunner is the attacking unit",
    }


def _entry(app: Any, battle_id: int) -> tuple[dict, list[dict], dict[int, int | None]]:
    """The battle's one logged roll (its request and dice) and its units' saved units."""
    with app.state.sessionmaker() as session:
        (entry,) = session.scalars(select(BattleEntry).where(BattleEntry.battle_id == battle_id))
        units = dict(
            session.execute(
                select(BattleUnit.id, BattleUnit.unit_id).where(BattleUnit.battle_id == battle_id)
            ).all()
        )
        return json.loads(entry.request_json), json.loads(entry.dice_json), units


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_roll_it_strikes_a_squads_figurines_as_distinct_battle_units(
    app: Any, member: Member, ruleset_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the attack strikes every figurine of the squad (as the odds count them: here
    made so, whatever the engine counts yet), the battle's attack names the squad's battle
    units one each, in order after the first target, and the roll's effects land on them."""
    monkeypatch.setattr(calculator, "struck_figures", lambda odds, figures: list(figures))
    units = _import(app, member, ruleset_id, CASES[ruleset_id]["units"])
    attacker, single, squad, _ = _ids(units)
    r = _post(member, BATTLE, _body(ruleset_id, units) | {"seed": 7})
    assert r.status_code == 201, r.text
    rolled = r.json()
    request, lines, copied = _entry(app, rolled["battle_id"])
    assert copied[rolled["attacker_id"]] == attacker and copied[rolled["target_id"]] == single
    further = [row[0] for row in request["followers"]]
    assert len(further) == 3 == len(set(further))  # the squad's three figurines, one each
    assert all(copied[b] == squad for b in further)
    assert sorted(b for b, u in copied.items() if u == squad) == sorted(further)
    targets = {request["target_id"], *further}
    for line in lines:
        hit = [e["unit_id"] for e in line["effects"] if e.get("unit_id") is not None]
        assert len(hit) == len(set(hit)) and set(hit) <= targets, line
    # "Roll it!" on the page: the battle page shows the roll, the same targets ready again
    url = _page_url(member, ruleset_id, units)
    battle_id = int(url.split("/")[2].split("?")[0])
    request, _, copied = _entry(app, battle_id)
    further = [row[0] for row in request["followers"]]
    assert [copied[b] for b in further] == [squad] * 3 and len(set(further)) == 3
    for k, b in enumerate(further):
        assert f"follower.{k}.unit_id={b}&" in url


def _page_url(member: Member, ruleset_id: str, units: dict) -> str:
    """Where "Roll it!" on the page sends the browser."""
    query = _query(ruleset_id, units).split("?", 1)[1]
    r = member.form("/calculator/roll", {"query": query}, follow_redirects=False)
    assert r.status_code == 303, r.text
    return str(r.headers["location"])


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_roll_it_as_the_engine_counts_the_figurines(
    app: Any, member: Member, ruleset_id: str
) -> None:
    """Without forcing: the battle gets as many of the squad's battle units as the odds'
    entries count figurines (one for an engine that does not count them), all distinct."""
    units = _import(app, member, ruleset_id, CASES[ruleset_id]["units"])
    _, _, squad, _ = _ids(units)
    odds = _post(member, ODDS, _body(ruleset_id, units)).json()
    struck = max(
        (
            t["figure"] + t["figures"]
            for ln in odds["lines"]
            for t in ln["targets"]
            if t["index"] == 1
        ),
        default=1,
    )
    r = _post(member, BATTLE, _body(ruleset_id, units) | {"seed": 3})
    assert r.status_code == 201, r.text
    request, _, copied = _entry(app, r.json()["battle_id"])
    further = [row[0] for row in request["followers"]]
    assert len(further) == len(set(further)) == min(struck, 3)
    assert all(copied[b] == squad for b in further)


@pytest.mark.parametrize("ruleset_id", ["d20", "degrees"])
def test_the_battle_log_keeps_the_tallies_and_each_entrys_figures(
    app: Any, member: Member, ruleset_id: str
) -> None:
    """The rulesets on the shared log shape (``battle_log.odds_json``) keep the tallies."""
    units = _import(app, member, ruleset_id, CASES[ruleset_id]["units"])
    r = _post(member, BATTLE, _body(ruleset_id, units) | {"seed": 2})
    assert r.status_code == 201, r.text
    with app.state.sessionmaker() as session:
        (entry,) = session.scalars(
            select(BattleEntry).where(BattleEntry.battle_id == r.json()["battle_id"])
        )
        odds = json.loads(entry.odds_json)
    assert isinstance(odds["tallies"], list)
    for tally in odds["tallies"]:
        assert set(tally) == {"key", "label", "distribution", "expected"}
    for line in odds["lines"]:
        for target in line["targets"]:
            assert (target["figure"], target["figures"]) == (0, 1)  # a battle unit: one


def test_the_open_calculators_answer_has_tallies(client: Any) -> None:
    r = client.get("/api/v1/calculator/open?rules=d20")
    assert r.status_code == 200, r.text
    answer = r.json()
    assert isinstance(answer["tallies"], list)
    assert all({"index", "figure", "figures"} <= set(t) for t in answer["lines"][0]["targets"])


def test_brikwars_battle_log_keeps_the_tallies(app: Any, member: Member) -> None:
    """BrikWars writes its own log odds (``brikwars.battles.odds_to_dict``): they keep the
    tallies too (additive), each one's expected count the sum of its targets' chances
    (linearity of expectation, over the logged per-target odds)."""
    units = _import(app, member, "brikwars", CASES["brikwars"]["units"])
    r = _post(member, BATTLE, _body("brikwars", units) | {"seed": 2})
    assert r.status_code == 201, r.text
    with app.state.sessionmaker() as session:
        (entry,) = session.scalars(
            select(BattleEntry).where(BattleEntry.battle_id == r.json()["battle_id"])
        )
        odds = json.loads(entry.odds_json)
    assert odds["tallies"], odds
    (line,) = [x for x in odds["lines"] if len(x["targets"]) > 1]
    keys = {t["key"] for t in odds["tallies"]}
    assert "destroyed" in keys and "destroyed" in line["targets"][0]
    for tally in odds["tallies"]:
        assert set(tally) == {"key", "label", "distribution", "expected"}
        assert len(tally["distribution"]) == len(line["targets"]) + 1
        assert sum(tally["distribution"]) == pytest.approx(1.0)
        assert tally["expected"] == pytest.approx(
            sum(n * p for n, p in enumerate(tally["distribution"]))
        )
        if tally["key"] in line["targets"][0]:
            assert tally["expected"] == pytest.approx(sum(t[tally["key"]] for t in line["targets"]))


def _row(text: str, i: int) -> str:
    """The further-target row typed in row ``i`` (``data-follower``), as the page shows it."""
    found = re.search(
        rf'<div class="row follower[^"]*" data-follower="{i}">'
        r'(.*?)(?=<div class="row follower|</details>)',
        text,
        re.S,
    )
    assert found, text[text.find('id="further-targets"') :][:3000]
    return found[1]


@pytest.mark.parametrize("ruleset_id", RULESETS)
@pytest.mark.parametrize("first", ["abc", ""])
def test_each_further_targets_error_sits_on_the_row_it_was_typed_in(
    app: Any, member: Member, ruleset_id: str, first: str
) -> None:
    """A refused (or blank) row before a computed one with a bad field: each error on its own
    row, by the row typed, not by the place among the targets computed."""
    units = _import(app, member, ruleset_id, CASES[ruleset_id]["units"])
    attacker, single, squad, weapons = _ids(units)
    case = CASES[ruleset_id]
    pairs: list[tuple[str, Any]] = [("attacker", attacker), ("weapons", weapons[0])]
    pairs += [("target", single), *case["situation"].items()]
    for unit, figures in ((first, ""), (squad, "4")):
        pairs.append(("follower", unit))
        pairs += [(f"follower_{f.name}", "") for f in get_ruleset(ruleset_id).target_fields]
        pairs.append(("follower_figures", figures))
    page = member.client.get("/calculator?" + "&".join(f"{k}={v}" for k, v in pairs))
    assert page.status_code == 422
    text = html.unescape(page.text)
    squad_row = _row(text, 1)
    assert re.search(rf'<option value="{squad}" selected>Squad', squad_row)
    error = re.search(r'<p class="error" id="calc-f1-figures-err">([^<]*)</p>', squad_row)
    assert error and "must be from 1 to 3" in error[1]
    if first:
        refused = _row(text, 0)
        assert 'id="calc-follower-0-err"' in refused and "needs a unit" in refused
        assert "calc-f1-figures-err" not in refused
    else:
        assert 'data-follower="0"' not in text  # a blank row is no row
