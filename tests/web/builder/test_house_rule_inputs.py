"""The army page's house-rules form draws every option field of every ruleset by its kind: a
number or text house rule is an input, not an empty drop-down (Degrees' weapon costs, D20's
cover bonus were empty selects until issue 29)."""

from __future__ import annotations

import re

import pytest

from app.rules.registry import RULESETS
from tests.web.conftest import Member


@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_every_house_rule_has_a_control_of_its_kind(member: Member, ruleset_id: str) -> None:
    r = member.client.post(
        "/api/v1/armies",
        headers={"X-CSRF-Token": member.csrf},
        json={"name": "House", "ruleset_id": ruleset_id, "budget": 100},
    )
    assert r.status_code == 201, r.text
    page = member.client.get(f"/armies/{r.json()['id']}").text
    for f in RULESETS[ruleset_id].option_fields:
        tag = re.search(rf'<(select|input)\b[^>]*\bname="{f.name}"[^>]*>', page)
        assert tag is not None, f.name
        if f.kind == "choice":
            assert tag.group(1) == "select", f.name
        elif f.kind == "whole":  # a numeric keypad; "abc" reaches the server, which names it
            assert 'type="text" inputmode="numeric"' in tag.group(0), f.name
        elif f.kind != "flag":
            assert tag.group(1) == "input" and 'type="text"' in tag.group(0), f.name


def test_d20_cover_bonus_is_typed_and_kept(member: Member) -> None:
    r = member.client.post(
        "/api/v1/armies",
        headers={"X-CSRF-Token": member.csrf},
        json={"name": "Cover", "ruleset_id": "d20", "budget": 100},
    )
    army_id = r.json()["id"]
    sent = member.form(f"/armies/{army_id}/house-rules", {"cover_bonus": "3"})
    assert sent.status_code in (200, 303), sent.text
    page = member.client.get(f"/armies/{army_id}").text
    assert re.search(r'<input\b[^>]*name="cover_bonus"[^>]*value="3"', page)
    bad = member.form(f"/armies/{army_id}/house-rules", {"cover_bonus": "lots"})
    assert bad.status_code == 422
    assert 'name="cover_bonus"' in bad.text and 'aria-invalid="true"' in bad.text
