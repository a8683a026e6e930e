"""The builder's generic forms (templates/rulesets/default/) ask a ruleset's declared fields,
each by its kind, only those of the kind or type chosen, with every error shown: rendered
here for a variant of the fake ruleset that declares one field of each kind."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import pytest

from app.rules import registry
from app.rules.fields import FormSplit, InputField
from app.rules.ruleset import NAME_FIELD, CatalogueEntry
from app.web.templating import env
from tests.rules.conformance.fake_ruleset import RULESET as FAKE

KINDS = (("trooper", "Trooper"), ("officer", "Officer"))
GUN_FIELDS = (
    InputField("dice", "Dice", "whole", 1, low=1, high=3),
    InputField("label", "Label", "text", "", high=40),
    InputField("scoped", "Scoped", "flag", False),
)
KNIFE_FIELDS = (InputField("edge", "Edge", "choice", "dull", choices=(("dull", "Dull"),)),)


class _Forms(type(FAKE)):  # type: ignore[misc]
    """The fake, declaring a field of every kind; ``rank`` is an officer's only."""

    id = "coinwar_forms"
    unit_fields = (
        NAME_FIELD,
        InputField("kind", "Kind", "choice", "trooper", choices=KINDS),
        InputField("hits", "Hits", "whole", 1, low=1, high=5),
        InputField("reach", "Reach", "inches", 0, low=0, high=24, help="In inches, like 2.5"),
        InputField("veteran", "Veteran", "flag", False),
        InputField("rank", "Rank", "text", "", high=20),
    )
    unit_form = FormSplit("kind", {"rank": frozenset({"officer"})})

    def catalogue(self) -> tuple[CatalogueEntry, ...]:
        return (
            CatalogueEntry("blaster", "Blaster", "ranged", "Rolls its dice.", GUN_FIELDS),
            CatalogueEntry("knife", "Knife", "close_combat", "Cuts.", KNIFE_FIELDS),
        )


RULES = _Forms()


@pytest.fixture(autouse=True)
def _registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.RULESETS, RULES.id, RULES)


def _render(name: str, **context: Any) -> str:
    army = SimpleNamespace(ruleset_id=RULES.id)
    return env.get_template(f"rulesets/default/{name}.html").render(army=army, **context)


def _unit_form(uvals: dict[str, str], uerr: dict[str, str], stored: dict[str, Any] | None) -> str:
    u = None
    if stored is not None:
        spec = {k: v for k, v in stored.items() if k not in ("name", "kind")}
        u = SimpleNamespace(name=stored["name"], kind=stored["kind"], spec=spec)
    return _render("unit_fields", fid="uf", uvals=uvals, uerr=uerr, u=u, switch_attrs='hx-get="/x"')


def _tag(page: str, element_id: str) -> str:
    found = re.search(rf'<(input|select)[^>]* id="{element_id}"[^>]*>', page)
    assert found, page
    return found.group(0)


def test_each_field_is_an_input_of_its_kind_with_its_default() -> None:
    page = _unit_form({}, {}, None)
    assert 'maxlength="120" required' in _tag(page, "uf-name")
    kind = _tag(page, "uf-kind")
    assert kind.startswith("<select") and 'hx-get="/x"' in kind  # the kind picker switches
    assert '<option value="trooper" selected>Trooper</option>' in page
    hits = _tag(page, "uf-hits")
    assert all(a in hits for a in ('type="text"', 'inputmode="numeric"', 'value="1"'))
    assert "Hits (1–5)" in page
    reach = _tag(page, "uf-reach")
    assert 'type="text"' in reach and 'inputmode="decimal"' in reach
    assert 'aria-describedby="uf-reach-help"' in reach and "In inches, like 2.5" in page
    # a flag: a hidden "0" first, so an unticked box still says off
    assert re.search(r'name="veteran" value="0">\s*<label for="uf-veteran"><input', page)
    assert "checked" not in _tag(page, "uf-veteran")
    assert 'name="rank"' not in page  # an officer's field, and this is a trooper


def test_the_stored_values_then_the_typed_ones_are_shown() -> None:
    stored = {"name": "Ada", "kind": "officer", "hits": 3, "veteran": True, "rank": "Major"}
    page = _unit_form({}, {}, stored)
    assert 'value="Ada"' in _tag(page, "uf-name") and 'value="3"' in _tag(page, "uf-hits")
    assert "checked" in _tag(page, "uf-veteran")
    assert 'value="Major"' in _tag(page, "uf-rank") and 'maxlength="20"' in _tag(page, "uf-rank")
    typed = _unit_form({"hits": "4", "veteran": "0", "kind": "trooper"}, {}, stored)
    assert 'value="4"' in _tag(typed, "uf-hits") and "checked" not in _tag(typed, "uf-veteran")
    assert 'name="rank"' not in typed  # switched to a trooper


def test_every_error_is_shown_by_its_field_or_listed() -> None:
    errors = {"hits": "must be from 1 to 5", "rank": "is too long", "weapons.0.dice": "bad"}
    page = _unit_form({"hits": "9"}, errors, None)
    hits = _tag(page, "uf-hits")
    assert 'aria-invalid="true"' in hits and 'aria-describedby="uf-hits-err"' in hits
    assert '<p class="error" id="uf-hits-err">Hits must be from 1 to 5</p>' in page
    # a field of another kind keeps its input while it has an error to show
    assert 'id="uf-rank-err">Rank is too long</p>' in page
    assert '<p class="error">weapons.0.dice: bad</p>' in page


def test_the_weapon_form_asks_the_chosen_types_fields() -> None:
    page = _render("weapon_fields", wid="wf", wv_={}, we={}, switch_attrs='hx-get="/y"')
    assert 'hx-get="/y"' in _tag(page, "wf-type")
    assert '<optgroup label="Ranged"><option value="blaster" selected>Blaster</option>' in page
    assert '<optgroup label="Close combat"><option value="knife">Knife</option>' in page
    names = re.findall(r'<(?:input|select)[^>]* name="(\w+)"', page)
    assert names == ["type", "label", "dice", "scoped", "scoped"]  # a label first; a flag's "0"
    knife = _render("weapon_fields", wid="wf", wv_={"type": "knife"}, we={"power": "is unknown"})
    assert 'name="dice"' not in knife and '<option value="dull" selected>Dull</option>' in knife
    assert '<option value="knife" selected>Knife</option>' in knife
    assert '<p class="error">power: is unknown</p>' in knife
