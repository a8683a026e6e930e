"""Number fields in the builder's unit and weapon forms, for every ruleset, read off the
declared fields (``InputField.kind``): a whole number is a text input with a numeric keypad
(``inputmode="numeric"``), a number that may be a fraction (``inches``: 2.5, 1/3) a text input
with a decimal keypad; none is ``type="number"`` (a browser would send its "abc" as "", the
default, silently). Every wrong field is named at once, inline and in the API."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import pytest

from app.rules.registry import RULESETS, get_ruleset
from tests.web.conftest import Member

IDS = sorted(RULESETS)


class Inputs(HTMLParser):
    """Every <input>'s attributes by name; a repeated attribute is recorded as a fault."""

    def __init__(self) -> None:
        super().__init__()
        self.inputs: dict[str, dict[str, str | None]] = {}
        self.repeated: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "input":
            return
        names = [k for k, _ in attrs]
        self.repeated += [f"{dict(attrs).get('id')}: {k}" for k in set(names) if names.count(k) > 1]
        found = dict(attrs)
        if found.get("name") and found.get("type") not in ("hidden", "checkbox", "radio"):
            self.inputs.setdefault(str(found["name"]), found)


def inputs(page: str) -> Inputs:
    parser = Inputs()
    parser.feed(page)
    return parser


def api(member: Member, method: str, url: str, **kw: Any) -> Any:
    return member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)


def check(found: Inputs, kinds: dict[str, str]) -> int:
    assert found.repeated == []
    checked = 0
    for name, attrs in found.inputs.items():
        assert attrs.get("type") != "number", name
        kind = kinds.get(name)
        if kind == "whole":
            assert (attrs.get("type"), attrs.get("inputmode")) == ("text", "numeric"), name
        elif kind == "inches":
            assert (attrs.get("type"), attrs.get("inputmode")) == ("text", "decimal"), name
        else:
            continue
        checked += 1
    return checked


@pytest.mark.parametrize("rid", IDS)
def test_every_unit_and_weapon_form_gives_numbers_their_keypad(member: Member, rid: str) -> None:
    rules = get_ruleset(rid)
    army = api(member, "POST", f"/api/v1/armies/examples/{rid}").json()
    detail = api(member, "GET", f"/api/v1/armies/{army['id']}").json()
    unit_id = detail["units"][0]["id"]
    unit_kinds = {f.name: f.kind for f in rules.unit_fields} | {"count": "whole"}
    checked = 0
    unit_choices = [v for f in rules.unit_fields if f.name == "kind" for v in f.choice_values]
    for kind in unit_choices or [""]:
        page = member.client.get(f"/armies/{army['id']}/units/new", params={"kind": kind}).text
        checked += check(inputs(page), unit_kinds)
    editor = member.client.get(f"/armies/{army['id']}/units/{unit_id}").text
    checked += check(inputs(editor), unit_kinds)
    for entry in rules.catalogue():
        weapon_kinds = {f.name: f.kind for f in entry.fields}
        if rid == "brikwars":  # the ammo and payload the Cannon and Launcher take
            weapon_kinds |= dict.fromkeys(
                ("ammo.xsize", "ammo.rounds", "payload.explosive.xsize"), "whole"
            )
            weapon_kinds |= {"payload.per_launch": "whole", "payload.object_size": "inches"}
            weapon_kinds |= {"payload.explosive.rounds": "whole"}
        fields = member.client.get(
            f"/armies/{army['id']}/units/{unit_id}/editor",
            params={"form": f"add-weapon-{unit_id}", "type": entry.id},
            headers={"HX-Request": "true"},
        ).text
        checked += check(inputs(fields), weapon_kinds)
    budget = inputs(member.client.get(f"/armies/{army['id']}").text).inputs["budget"]
    assert (budget.get("type"), budget.get("inputmode")) == ("text", "numeric")
    assert checked > 5


def test_a_degrees_unit_with_two_wrong_numbers_names_both_at_once(member: Member) -> None:
    army = api(member, "POST", "/api/v1/armies/examples/degrees").json()
    bad = {"name": "Bad", "kind": "personnel", "degree": "-5", "hp": "abc", "ap": "3"}
    r = member.htmx(f"/armies/{army['id']}/units", bad)
    assert r.status_code == 422
    errors = dict(re.findall(r'<p class="error" id="add-unit-form-(\w+)-err">([^<]*)</p>', r.text))
    assert errors == {
        "degree": "Degree (1–10) must be from 1 to 10",
        "hp": "HP needs a whole number",
    }
    for name in ("degree", "hp"):
        field = inputs(r.text).inputs[name]
        assert field.get("aria-invalid") == "true" and field.get("value") == bad[name]
    body = {**bad, "degree": -5}
    r = api(member, "POST", f"/api/v1/armies/{army['id']}/units", json=body)
    assert r.status_code == 422
    assert {(d["field"], d["reason"]) for d in r.json()["detail"]} == {
        ("degree", "must be from 1 to 10"),
        ("hp", "needs a whole number"),
    }
    detail = api(member, "GET", f"/api/v1/armies/{army['id']}").json()
    assert "Bad" not in [u["name"] for u in detail["units"]]  # nothing saved
