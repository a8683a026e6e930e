"""Issue 14 item 15: after each roll, unit action and Undo the attack form (its attacker and
target pickers, its weapons, its odds and Roll it!) is sent again as the units now stand;
Roll it! is disabled, with the reason beside it, while the turn is refused."""

from __future__ import annotations

import re

from tests.web.battles.test_battles import _form, api, battle  # noqa: F401  (the fixture)
from tests.web.conftest import Member

MAX_ROLLS = 60


def _destroyed(html: str, unit_id: int) -> bool:
    return f'class="battle-unit destroyed" id="unit-{unit_id}"' in html


def _picker(html: str, name: str) -> str:
    match = re.search(rf'<select id="f-{name}" name="{name}_id".*?</select>', html, re.S)
    assert match, html
    return match.group(0)


def _roll_button(html: str) -> str:
    match = re.search(r'<button type="submit" class="roll"[^>]*>', html)
    assert match, html
    return match.group(0)


def _roll_until_destroyed(member: Member, battle: dict[str, int]) -> str:  # noqa: F811
    for seed in range(MAX_ROLLS):
        r = member.htmx(
            f"/battles/{battle['id']}/rolls", _form(battle, distance="1", seed=str(seed))
        )
        assert r.status_code == 200, r.text
        if _destroyed(r.text, battle["walker"]):
            return r.text
    raise AssertionError("the Walker outlasted every roll")


def test_a_destroying_roll_takes_the_unit_out_of_the_pickers(member: Member, battle) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    html = _roll_until_destroyed(member, battle)
    # The attack form comes with the roll (out of band), offering only the units still fighting.
    assert '<form id="attack-form"' in html and 'hx-swap-oob="true"' in html
    walker = f'<option value="{battle["walker"]}"'
    assert walker not in _picker(html, "target") and walker not in _picker(html, "attacker")
    # With its target gone the turn is refused: Roll it! is disabled, the reason beside it.
    button = _roll_button(html)
    assert " disabled" in button and 'aria-describedby="roll-refused"' in button
    assert re.search(r'id="roll-refused">Cannot roll this: choose the target<', html)
    # The odds are part of the form now, not a second swap of #odds.
    assert html.count('id="odds"') == 1
    # The server still refuses it if it is posted anyway.
    refused = member.htmx(f"/battles/{battle['id']}/rolls", _form(battle, distance="1"))
    assert refused.status_code == 422 and "destroyed" in refused.text


def test_undo_brings_the_unit_back_into_the_pickers(member: Member, battle) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    html = _roll_until_destroyed(member, battle)
    last = max(int(n) for n in re.findall(r'data-seq="(\d+)"', html))
    undone = member.htmx(f"/battles/{battle['id']}/undo", _form(battle, target_id=""))
    assert undone.status_code == 200 and f"Undone: #{last} (logged as #{last + 1})." in undone.text
    assert not _destroyed(undone.text, battle["walker"])
    assert f'<option value="{battle["walker"]}"' in _picker(undone.text, "target")
    # Chosen again, the Walker can be rolled at: the live odds enable Roll it!.
    odds = member.client.get(
        f"/battles/{battle['id']}/odds", params=_form(battle), headers={"HX-Request": "true"}
    )
    assert odds.status_code == 200 and " disabled" not in _roll_button(odds.text)


def test_a_refused_turn_disables_roll_it_on_the_page(member: Member, battle) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    fine = member.client.get(f"/battles/{battle['id']}?attacker={battle['tank']}")
    assert " disabled" not in _roll_button(fine.text)
    # No weapon chosen: refused, and said so beside the button.
    odds = member.client.get(
        f"/battles/{battle['id']}/odds",
        params={k: v for k, v in _form(battle).items() if k != "weapon.0"},
        headers={"HX-Request": "true"},
    )
    assert odds.status_code == 200  # a preview: the refusal is its answer (the roll's a 422)
    button = _roll_button(odds.text)
    assert " disabled" in button and 'aria-describedby="roll-refused"' in button
    assert 'id="roll-refused">Cannot roll this: weapons' in odds.text


def test_armour_is_not_offered_as_a_weapon_to_fire_in_a_battle(member: Member) -> None:
    """Issue 14 item 9, on the battle page as in the calculator: Armor Plating is worn, not
    fired, so the attack form offers only the Gun."""
    armies = []
    for name, unit in (
        (
            "Plated",
            {
                "name": "Hauler",
                "size": 3,
                "structure_level": 2,
                "weapons": [{"type": "gun", "size": 2}, {"type": "armor_plating", "size": 1}],
            },
        ),
        ("Other", {"name": "Walker", "size": 2, "structure_level": 2}),
    ):
        army = api(member, "POST", "/api/v1/armies", json={"name": name, "budget": 200}).json()
        r = api(member, "POST", f"/api/v1/armies/{army['id']}/units", json=unit)
        assert r.status_code == 201, r.text
        armies.append(army["id"])
    r = api(member, "POST", "/api/v1/battles", json={"name": "Plates", "army_ids": armies})
    body = r.json()
    hauler = next(u["id"] for u in body["units"] if u["name"] == "Hauler")
    page = member.client.get(f"/battles/{body['id']}", params={"attacker_id": hauler}).text
    picks = re.search(r'<fieldset class="weapons-pick.*?</fieldset>', page, re.S)
    assert picks and 'name="weapon.0"' in picks.group(0), page
    assert "Armor Plating" not in picks.group(0) and 'name="weapon.1"' not in picks.group(0)
