"""Squads through HTTP where the answer depends on the engines counting a squad's figurines
(issue 27: ``TargetInput.figures``, ``TargetOdds.figure/figures``, ``AttackOdds.tallies``).

The web side's plumbing is in ``test_further_targets.py`` and holds with or without them.
These need the engines' squad work (BrikWars', Degrees' and D20's, all on main)."""

from __future__ import annotations

import html
import json
from typing import Any

import pytest

from tests.web.calculator.test_further_targets import (
    BATTLE,
    CASES,
    ODDS,
    RULESETS,
    _body,
    _entry,
    _ids,
    _import,
    _post,
    _query,
)
from tests.web.conftest import Member


def _tallies(member: Member, body: dict[str, Any]) -> list[dict[str, Any]]:
    r = _post(member, ODDS, body)
    assert r.status_code == 200, r.text
    return list(r.json()["tallies"])


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_squads_figures_count_in_the_tallies(app: Any, member: Member, ruleset_id: str) -> None:
    """One single target and a squad of 3: every tally counts 0 to 1 + figures figurines,
    and reaching fewer of the squad changes the answer."""
    units = _import(app, member, ruleset_id, CASES[ruleset_id]["units"])
    all_three = _tallies(member, _body(ruleset_id, units))
    assert all_three and all(len(t["distribution"]) == 1 + 3 + 1 for t in all_three)
    one = _tallies(member, _body(ruleset_id, units, figures=1))
    assert all(len(t["distribution"]) == 1 + 1 + 1 for t in one)
    assert [t["expected"] for t in one] != [t["expected"] for t in all_three]
    answer = _post(member, ODDS, _body(ruleset_id, units)).json()
    squad = [t for line in answer["lines"] for t in line["targets"] if t["index"] == 1]
    assert max(t["figure"] + t["figures"] for t in squad) == 3
    page = member.client.get(_query(ruleset_id, units))
    text = html.unescape(page.text)
    assert 'data-name="tally"' in text and "Squad (figurine" in text


def test_a_d20_explosions_tally_counts_every_figurine(app: Any, member: Member) -> None:
    """A grenade on a figurine and a squad of 3 (figures k): the wounded tally's length is
    the figurines caught + 1, and k = 1, 2, 3 give three answers."""
    units = _import(
        app,
        member,
        "d20",
        [
            {
                "name": "SU",
                "kind": "su",
                "shot": 8,
                "hth": 6,
                "pd": 20,
                "evasion": 2,
                "dexterity": 5,
                "cp": 2,
                "weapons": [{"type": "defensive_grenade"}],
            },
            *CASES["d20"]["units"][1:],
        ],
    )
    attacker, single, squad, weapons = _ids(units)
    seen = []
    for k in (1, 2, 3):
        body = {
            "attacker": {"unit_id": attacker, "weapon_ids": weapons},
            "target": {"unit_id": single},
            "situation": {"mode": "explosion", "distance": 10},
            "followers": [{"unit_id": squad, "figures": k}],
        }
        tallies = _tallies(member, body)
        assert tallies and all(len(t["distribution"]) == 1 + k + 1 for t in tallies)
        seen.append(json.dumps(tallies))
    assert len(set(seen)) == 3


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_roll_it_names_each_struck_figurine_of_the_squad(
    app: Any, member: Member, ruleset_id: str
) -> None:
    units = _import(app, member, ruleset_id, CASES[ruleset_id]["units"])
    _, _, squad, _ = _ids(units)
    r = _post(member, BATTLE, _body(ruleset_id, units) | {"seed": 5})
    assert r.status_code == 201, r.text
    request, _, copied = _entry(app, r.json()["battle_id"])
    further = [row[0] for row in request["followers"]]
    assert len(set(further)) == 3 and all(copied[b] == squad for b in further)
