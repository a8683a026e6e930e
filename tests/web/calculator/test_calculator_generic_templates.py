"""The calculator's generic templates (calculator/default/) render a rule system that has no
templates of its own, from the interface's shapes alone: the fake ruleset's attack, its
situation fields, a refusal and a problem.

The page test (test_calculator_conformance.py) will cover this through saved units once the
builder's views go through the interface; until then the calculator block is rendered here
from views made by hand.
"""

from __future__ import annotations

import html
import re
from types import SimpleNamespace
from typing import Any

import pytest

from app.rules import registry
from app.rules.fields import InputField
from app.rules.ruleset import TargetInput, read_situation
from app.services.calculator import CalcRequest, Calculation, LoadoutResult
from app.web.routes.calculator import calculator_parts
from app.web.templating import env
from tests.rules.conformance.fake_ruleset import RULESET as FAKE


@pytest.fixture(autouse=True)
def _registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake in the registry: the templates look a ruleset up by its id (its glossary)."""
    monkeypatch.setitem(registry.RULESETS, FAKE.id, FAKE)


def _unit(unit_id: int, data: dict[str, Any]) -> SimpleNamespace:
    spec = FAKE.decode_unit(data)
    row = SimpleNamespace(id=unit_id, name=spec.name, kind="trooper")
    figures = FAKE.unit_figures(spec, FAKE.decode_options(None))
    weapons = [
        SimpleNamespace(row=SimpleNamespace(id=unit_id * 10 + i, type="blaster"), figures=f)
        for i, f in enumerate(figures.weapons)
    ]
    cost = figures.cost
    return SimpleNamespace(row=row, spec=spec, weapons=weapons, cost=cost, count=1)


def _block(calc: Calculation, request: CalcRequest, errors: dict[str, str]) -> str:
    template = env.get_template("calculator/page.html")
    context = {
        "calc": calc,
        "req": request,
        "errors": errors,
        "query": "attacker=1&target=2",
        "choices": {},
        "parts": calculator_parts(FAKE.id),
        "situation_text": lambda: {"cover": "1" if request.situation.cover else ""},
        "csrf_input": "",
    }
    return html.unescape("".join(template.blocks["calculator"](template.new_context(context))))


def _calculation(situation: dict[str, Any]) -> tuple[Calculation, CalcRequest, LoadoutResult]:
    sample = FAKE.sample_attacks[2]
    attacker = _unit(1, sample.attacker)
    target = _unit(2, sample.targets[0])
    options = FAKE.decode_options(None)
    army = SimpleNamespace(army=SimpleNamespace(id=1, name="Coins", ruleset_id=FAKE.id))
    army.options = options
    request = CalcRequest(situation=read_situation(FAKE, situation)[0])
    result = LoadoutResult(FAKE, army, attacker, list(attacker.weapons))  # type: ignore[arg-type]
    attack = FAKE.attack(
        attacker.spec, result.positions, [TargetInput(target.spec)], situation, options
    )
    result.attack, result.odds = attack, attack.odds()
    calc = Calculation(request, list, FAKE, target=target, main=result)  # type: ignore[arg-type]
    return calc, request, result


def test_the_generic_templates_show_the_odds_and_the_situation_fields() -> None:
    calc, request, result = _calculation({"cover": True})
    page = _block(calc, request, {})
    assert 'name="cover" value="1" checked' in page
    for column in FAKE.outcome_columns:
        assert column.label in page
    assert result.odds is not None
    killed = result.odds.lines[0].main.probability("killed")
    assert f'data-name="killed" data-p="{killed:.9f}"' in page
    assert page.count('class="line"') == 2 and "weapon 2" in page
    assert "hit on" in page and "5+" in page  # the steps (cover: one more)
    assert "Decisive this turn" in page and "per 10 points" in page
    names = {w.figures.name for w in result.unit.weapons}
    assert names and all(name in page for name in names)  # the weapons to tick, by name


def test_the_generic_templates_show_a_problem_and_a_refusal() -> None:
    calc, request, result = _calculation({})
    result.problems, result.odds = ("The blaster is out of charge.",), None
    page = _block(calc, request, {"cover": "must be on or off"})
    assert "This attack cannot be made." in page and "out of charge" in page
    assert "Target in cover must be on or off" in page


class _Switched(type(FAKE)):  # type: ignore[misc]
    """The fake with situation fields that apply only to some attacks (``InputField.when``)."""

    situation_fields = (
        *FAKE.situation_fields,
        InputField(
            "mode", "Mode", "choice", "shot", choices=(("shot", "Shot"), ("blast", "Blast"))
        ),
        InputField("radius", "Blast radius", "whole", 0, when=(("mode", ("blast",)),)),
        InputField("hot", "Hot barrel", "flag", False, when=(("weapon_type", ("blaster",)),)),
        InputField("fuel", "Fuel left", "whole", 0, when=(("weapon_type", ("flamer",)),)),
    )


def _switched_block(mode: str, errors: dict[str, str] | None = None) -> str:
    rules = _Switched()
    calc, request, _ = _calculation({})
    calc.ruleset = rules
    template = env.get_template("calculator/page.html")
    context = {
        "calc": calc,
        "req": request,
        "errors": errors or {},
        "query": "",
        "choices": {},
        "parts": calculator_parts(FAKE.id),
        "situation_text": lambda: {"cover": "", "mode": mode, "radius": "", "hot": "", "fuel": ""},
        "csrf_input": "",
    }
    return "".join(template.blocks["calculator"](template.new_context(context)))


def test_the_situation_asks_only_the_fields_that_apply() -> None:
    shot = _switched_block("shot")
    assert 'name="cover"' in shot and 'name="mode"' in shot
    assert 'name="hot"' in shot  # the attacker fires blasters
    assert 'name="fuel"' not in shot  # no flamer is fired
    assert 'name="radius"' not in shot  # not a blast
    assert 'name="radius"' in _switched_block("blast")
    # a field that does not apply is still shown with its error
    assert 'name="fuel"' in _switched_block("shot", {"fuel": "needs a whole number"})


def test_what_the_situation_fields_apply_by_fetches_them_again() -> None:
    page = _switched_block("shot")
    # the situation's fields only (hx-select), swapped in their place; the form's own request
    # fetches the results meanwhile (no unit-pick: app.js leaves it be)
    swap = ('hx-select="#situation-fields"', 'hx-target="#situation-fields"', 'hx-sync="#situ')
    mode = re.search(r'<select id="calc-mode"[^>]*>', page)
    assert mode and all(a in mode.group(0) for a in swap), page
    assert "unit-pick" not in mode.group(0)
    boxes = re.findall(r'<input type="checkbox" id="weapons-[^>]*>', page)
    assert boxes and all(a in box for box in boxes for a in swap), boxes
    assert not any("unit-pick" in box for box in boxes)
    assert '<div id="situation-fields" class="form-fields">' in page
    cover = re.search(r'<input type="checkbox" id="calc-cover"[^>]*>', page)
    assert cover and "hx-get" not in cover.group(0)  # no field applies by cover
    # the fake as it is: nothing applies by anything, so nothing fetches the fields again
    calc, request, _ = _calculation({})
    plain = _block(calc, request, {})
    assert "hx-get" not in "".join(re.findall(r'<input type="checkbox" id="weapons-[^>]*>', plain))
