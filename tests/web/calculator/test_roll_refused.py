"""Issue 29 item 3: "Roll it!" is disabled exactly when the attack's problems
(``Attack.problems()``, asked of the engine here, apart from the page) are not empty, with the
reasons beside it (aria-describedby); the server still refuses the roll with a 422. In each
rule system, on the calculator page and on the battle page."""

from __future__ import annotations

import html
import re
from typing import Any
from urllib.parse import urlencode

import pytest

from app.rules import registry
from app.rules.ruleset import Ruleset, TargetInput, read_situation, situation_inputs
from tests.web.calculator.test_calculator_conformance import _army
from tests.web.conftest import Member

# (sample attack, weapons fired (None: the sample's), situation changed from the sample's):
# some the engine refuses, some it takes.
CASES: dict[str, list[tuple[int, tuple[int, ...] | None, dict[str, Any]]]] = {
    "brikwars": [(0, None, {}), (0, (0, 1, 2), {})],  # all three: 9" of Power, has 8"
    "degrees": [
        (1, None, {}),
        (1, None, {"range": "far", "pump": 1, "carried": 0}),  # the gas gun cannot reach
        (1, None, {"shots": 5}),  # more AP than it has
    ],
    "d20": [
        (0, None, {}),
        (0, None, {"distance": 500}),  # beyond the rifle's Reach
        (0, None, {"mode": "automatic"}),  # automatic fire at one target
        (2, None, {"distance": 500}),  # a grenade beyond its Reach
    ],
}


def _problems(rules: Ruleset, sample: int, weapons: tuple[int, ...], change: dict[str, Any]):  # type: ignore[no-untyped-def]
    s = rules.sample_attacks[sample]
    situation = read_situation(rules, {**s.situation, **change})[0]
    targets = [TargetInput(rules.decode_unit(t)) for t in s.targets]
    made = rules.attack(
        rules.decode_unit(s.attacker),
        weapons,
        targets,
        rules.encode_situation(situation),
        rules.decode_options(None),
    )
    return made.problems(), situation


def _button(page: str, ident: str) -> str:
    found = re.search(rf'<button[^>]*id="{ident}"[^>]*>', page)
    assert found, page[-3000:]
    return found.group(0)


def _ids(units: list[tuple[int, list[int]]], rules: Ruleset, sample: int):  # type: ignore[no-untyped-def]
    """The sample's attacker (id, weapon ids), target and further targets' unit ids."""
    at = sum(1 + len(s.targets) for s in rules.sample_attacks[:sample])
    s = rules.sample_attacks[sample]
    attacker, weapons = units[at]
    return (
        attacker,
        weapons,
        units[at + 1][0],
        [u for u, _ in units[at + 2 : at + 1 + len(s.targets)]],
    )


@pytest.mark.parametrize("ruleset_id", sorted(CASES))
def test_roll_it_is_disabled_exactly_when_the_attack_has_problems(
    app: Any, member: Member, ruleset_id: str
) -> None:
    rules = registry.get_ruleset(ruleset_id)
    units = _army(app, member, rules)
    seen = set()
    for sample, fired, change in CASES[ruleset_id]:
        weapons = fired if fired is not None else rules.sample_attacks[sample].weapons
        problems, situation = _problems(rules, sample, weapons, change)
        seen.add(bool(problems))
        attacker, weapon_ids, target, followers = _ids(units, rules, sample)
        query = urlencode(
            [
                ("attacker", attacker),
                ("target", target),
                *situation_inputs(rules, situation).items(),
                *(("weapons", weapon_ids[i]) for i in weapons),
                *(("follower", f) for f in followers),
            ]
        )
        page = member.client.get(f"/calculator?{query}")
        assert page.status_code == 200, page.text[-2000:]
        button = _button(page.text, "calc-roll")
        assert (" disabled" in button) == bool(problems), (change, problems, button)
        text = html.unescape(page.text)
        if problems:
            assert 'aria-describedby="roll-refused roll-note"' in button
            reasons = text[text.index('id="roll-refused"') :]
            reasons = reasons[: reasons.index("</div>")]
            assert all(p in reasons for p in problems), (reasons, problems)
            refused = member.client.post(
                "/calculator/roll",
                data={"query": query, "csrf_token": member.csrf},
                follow_redirects=False,
            )
            assert refused.status_code == 422
            assert problems[0] in html.unescape(refused.text)
        else:
            assert 'id="roll-refused"' not in page.text
    assert seen == {True, False}


@pytest.mark.parametrize("ruleset_id", sorted(CASES))
def test_the_battle_page_s_roll_it_is_disabled_exactly_when_the_attack_has_problems(
    app: Any, member: Member, ruleset_id: str
) -> None:
    rules = registry.get_ruleset(ruleset_id)
    units = _army(app, member, rules)
    headers = {"X-CSRF-Token": member.csrf}
    seen = set()
    for sample, fired, change in CASES[ruleset_id]:
        weapons = fired if fired is not None else rules.sample_attacks[sample].weapons
        problems, situation = _problems(rules, sample, weapons, change)
        if rules.sample_attacks[sample].targets[1:]:
            continue  # one target: the battle's further targets are their own test's
        seen.add(bool(problems))
        attacker, _, target, _ = _ids(units, rules, sample)
        made = member.client.post(
            "/api/v1/battles",
            json={
                "name": "Refusals",
                "army_ids": [_army_id(member)],
                "unit_ids": [attacker, target],
            },
            headers=headers,
        )
        assert made.status_code == 201, made.text
        battle = made.json()
        copies = {u["unit_id"]: u["id"] for u in battle["units"]}
        ids = [copies[attacker], copies[target]]
        form = {
            "attacker_id": str(ids[0]),
            "target_id": str(ids[1]),
            **{f"weapon.{i}": "on" for i in weapons},
            **{
                k: v
                for k, v in situation_inputs(rules, situation).items()
                if k in {f.name for f in rules.battle_situation_fields}
            },
        }
        url = f"/battles/{battle['id']}"
        odds = member.client.get(f"{url}/odds", params=form, headers={"HX-Request": "true"})
        assert odds.status_code == 200  # a preview: the refusal is its answer
        button = _button(odds.text, "roll-it")
        assert (" disabled" in button) == bool(problems), (change, problems, odds.text[:800])
        if problems:
            assert 'aria-describedby="roll-refused"' in button
            # (the battle words the AP it has as "left this round": its own check comes first)
            reason = problems[0].split(";")[0]
            assert 'id="roll-refused">Cannot roll this: ' in odds.text
            assert reason in html.unescape(odds.text), re.findall(r"Cannot roll[^<]*", odds.text)
            rolled = member.htmx(f"{url}/rolls", form)
            assert rolled.status_code == 422 and reason in html.unescape(rolled.text)
    assert seen == {True, False}


def _army_id(member: Member) -> int:
    armies = member.client.get("/api/v1/armies").json()
    return int(armies[0]["id"])
