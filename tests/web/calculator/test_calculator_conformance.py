"""The calculator page and its fragment render for every rule system, through the interface
alone: each ruleset's sample attacks between saved units, with the odds it computes.

Parametrised over the registry and the fake ruleset of tests/rules/conformance (registered
for the test): a new rule system passes it unchanged. A ruleset without templates of its own
(``templates/rulesets/<id>/calculator_*.html``) gets the generic ones in calculator/default/.
"""

from __future__ import annotations

import html
import json
from typing import Any

import pytest
from sqlalchemy import select

from app.db.models import Unit, User, Weapon
from app.rules import registry
from app.rules.fields import json_value
from app.rules.ruleset import Ruleset, read_situation, situation_inputs
from app.services import transfer
from app.services.army_document import FORMAT, VERSION
from app.web.calculator_query import bonus_die_choices
from tests.rules.conformance.fake_ruleset import RULESET as FAKE
from tests.web.conftest import Member


@pytest.fixture(
    params=[
        *registry.RULESETS.values(),
        FAKE,
    ],
    ids=lambda r: r.id,
)
def ruleset(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Ruleset:
    rules: Ruleset = request.param
    monkeypatch.setitem(registry.RULESETS, rules.id, rules)
    return rules


def _army(app: Any, member: Member, rules: Ruleset) -> list[tuple[int, list[int]]]:
    """The sample attacks' units saved in one army: (unit id, weapon ids) in document order."""
    units = [
        rules.encode_unit(rules.decode_unit(data))
        for sample in rules.sample_attacks
        for data in (sample.attacker, *sample.targets)
    ]
    document = {
        "format": FORMAT,
        "version": VERSION,
        "ruleset": rules.id,
        "rules_version": rules.rules_version,
        "name": f"{rules.name} samples",
        "budget": 1000,
        "notes": "",
        "house_rules": rules.encode_options(rules.decode_options(None)),
        "units": units,
    }
    with app.state.sessionmaker() as session:
        user = session.scalars(select(User).where(User.email == member.email)).one()
        army = transfer.import_army(session, user=user, raw=json.dumps(document).encode())
        ids = session.scalars(
            select(Unit.id).where(Unit.army_id == army.id).order_by(Unit.position)
        ).all()
        weapons: dict[int, list[int]] = {i: [] for i in ids}
        for unit_id, weapon_id in session.execute(
            select(Weapon.unit_id, Weapon.id)
            .where(Weapon.unit_id.in_(ids))
            .order_by(Weapon.unit_id, Weapon.position)
        ):
            weapons[unit_id].append(weapon_id)
        session.commit()
    return [(i, weapons[i]) for i in ids]


def test_the_calculator_renders_each_sample_attack(
    app: Any, member: Member, ruleset: Ruleset
) -> None:
    units = iter(_army(app, member, ruleset))
    for sample in ruleset.sample_attacks:
        attacker, weapons = next(units)
        target, _ = next(units)
        followers = [next(units)[0] for _ in sample.targets[1:]]
        situation = read_situation(ruleset, sample.situation)[0]
        query = {
            "attacker": attacker,
            "target": target,
            **situation_inputs(ruleset, situation),
        }
        url = "/calculator?" + "&".join(f"{k}={v}" for k, v in query.items())
        url += "".join(f"&weapons={weapons[i]}" for i in sample.weapons)
        url += "".join(f"&follower={f}" for f in followers)
        page = member.client.get(url)
        error = page.text[page.text.find("error-page") :][:600]
        assert page.status_code == 200, (page.status_code, error)
        assert 'class="card loadout"' in page.text
        text = html.unescape(page.text)
        assert ruleset.outcome_columns[0].label in text  # (a column may not apply to a target)
        assert text.count('class="num p"') >= 2
        fragment = member.client.get(url, headers={"HX-Request": "true"})
        assert fragment.status_code == 200
        assert fragment.text.lstrip().startswith('<section id="results"')
        assert 'data-name="' in fragment.text and "How it is computed" in fragment.text


def test_roll_it_starts_a_battle_for_each_sample_attack(
    app: Any, member: Member, ruleset: Ruleset
) -> None:
    """The calculator's "Roll it!" makes a battle of the units and rolls the same attack
    there: the situation the battle decides itself (from its state) is not passed on."""
    units = iter(_army(app, member, ruleset))
    for sample in ruleset.sample_attacks:
        attacker, weapons = next(units)
        target, _ = next(units)
        followers = [next(units)[0] for _ in sample.targets[1:]]
        situation = read_situation(ruleset, sample.situation)[0]
        query = "&".join(
            f"{k}={v}"
            for k, v in {
                "attacker": attacker,
                "target": target,
                **situation_inputs(ruleset, situation),
            }.items()
        )
        query += "".join(f"&weapons={weapons[i]}" for i in sample.weapons)
        query += "".join(f"&follower={f}" for f in followers)
        r = member.client.post(
            "/calculator/roll",
            data={"query": query, "csrf_token": member.csrf},
            follow_redirects=False,
        )
        assert r.status_code == 303, (sample.name, html.unescape(r.text)[-2000:])
        battle = int(r.headers["location"].split("/")[2].split("?")[0])
        log = member.client.get(f"/api/v1/battles/{battle}").json()["log"]
        assert [e["kind"] for e in log] == ["attack"], sample.name


def test_the_calculator_api_takes_each_rulesets_own_situation(
    app: Any, member: Member, ruleset: Ruleset
) -> None:
    """``POST /api/v1/calculator/odds`` and ``/roll`` read the body's situation and further
    targets by the attacker's army's ruleset: its own fields are taken, an unknown one is a
    422 naming it."""
    headers = {"X-CSRF-Token": member.csrf}
    units = iter(_army(app, member, ruleset))
    for sample in ruleset.sample_attacks:
        attacker, weapons = next(units)
        target, _ = next(units)
        followers = [{"unit_id": next(units)[0]} for _ in sample.targets[1:]]
        values = ruleset.encode_situation(read_situation(ruleset, sample.situation)[0])
        situation = {
            f.name: json_value(f, values[f.name])
            for f in ruleset.situation_fields
            if values[f.name] != f.default
        }
        body: dict[str, Any] = {
            "attacker": {"unit_id": attacker, "weapon_ids": [weapons[i] for i in sample.weapons]},
            "target": {"unit_id": target},
            "situation": situation,
            "followers": followers,
        }
        odds = member.client.post("/api/v1/calculator/odds", json=body, headers=headers)
        assert odds.status_code == 200, (sample.name, odds.text[:600])
        assert odds.json()["lines"]
        rolled = member.client.post(
            "/api/v1/calculator/roll", json={**body, "seed": 7}, headers=headers
        )
        assert rolled.status_code == 200, (sample.name, rolled.text[:600])
        assert rolled.json()["seed"] == 7
        again = member.client.post(
            "/api/v1/calculator/roll", json={**body, "seed": 7}, headers=headers
        )
        assert again.json() == rolled.json()
        for url in ("/api/v1/calculator/odds", "/api/v1/calculator/roll"):
            bad = {**body, "situation": {**body["situation"], "no_such_field": 1}}
            refused = member.client.post(url, json=bad, headers=headers)
            assert refused.status_code == 422, refused.text[:600]
            fields = [e["field"] for e in refused.json()["detail"]]
            assert fields == ["situation.no_such_field"]
        # The bonus die is the attacker's ruleset's house rule, if it has one.
        choices = bonus_die_choices(ruleset)
        for die in {*choices, "d6"}:
            answer = member.client.post(
                "/api/v1/calculator/odds", json={**body, "bonus_die": die}, headers=headers
            )
            if die in choices:
                assert answer.status_code == 200, answer.text[:600]
            else:
                assert answer.status_code == 422, answer.text[:600]
                assert [e["field"] for e in answer.json()["detail"]] == ["bonus_die"]
