"""The print sheet and the forum text say everything a unit is built with (issue 14 item
17): BrikWars' propulsion, Structure Level, Mind and specialties, a Cannon's Ammo and a
turret mount; Degrees' scale, Human and dampener order; D20's SU, labels and notes."""

from __future__ import annotations

import html
from typing import Any

import pytest

from tests.web.conftest import Member

HAWK = {
    "name": "Sky Hawk",
    "size": 3,
    "structure_level": 2,
    "propulsion": "flying",
    "move": 6,
    "mind_die": 8,
    "specialties": ["pilot", "gunnery"],
    "weapons": [
        {"type": "cannon", "size": 3, "ammo": {"xsize": 2, "rounds": 2}},
        {"type": "gun", "size": 1, "mount": "small_turret"},
    ],
}
TROOPER = {"name": "Trooper", "kind": "minifig", "specialties": ["medik"]}
SIMO = {
    "name": "Simo",
    "kind": "personnel",
    "degree": 3,
    "human": True,
    "senses": "audition, vision",
    "weapons": [{"type": "dousing_rod", "real_ammo": True, "label": "spare"}],
}
FIGURINE = {
    "name": "Chronos",
    "kind": "su",
    "shot": 12,
    "hth": 8,
    "pd": 14,
    "evasion": 3,
    "dexterity": 5,
    "cp": 3,
    "points": 10,
    "weapons": [
        {
            "type": "gun",
            "name": "Assault rifle",
            "reach": 60,
            "power": 6,
            "automatic": True,
            "points": 4,
            "label": "sling",
            "notes": "bayonet fixed",
        }
    ],
}

# (ruleset, units, what the sheet and the text must both say of them)
CASES = [
    (
        "brikwars",
        [HAWK, TROOPER],
        [
            "Propulsion: Flying",
            "Structure Level: 2",
            "Mind: d8",
            "Specialties: Pilot, Gunnery",
            "Ammo: 2 × X2",
            "small turret",
            "Structure Level: ½ (flesh)",
            "Mind: d6",
            "Specialties: Medik",
        ],
    ),
    (
        "degrees",
        [SIMO],
        ["(Personnel · Human)", "Senses (dampener order): Audition, Vision, ", "real ammo"],
    ),
    ("d20", [FIGURINE], ["(SU)", "(sling)", "automatic", "bayonet fixed"]),
]


def api(member: Member, method: str, url: str, **kw: Any) -> Any:
    return member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)


def army_of(member: Member, ruleset: str, units: list[dict[str, Any]]) -> int:
    army = api(
        member,
        "POST",
        "/api/v1/armies",
        json={"name": "Sheet", "ruleset_id": ruleset, "budget": 500},
    ).json()
    for unit in units:
        r = api(member, "POST", f"/api/v1/armies/{army['id']}/units", json=unit)
        assert r.status_code == 201, r.text
    return int(army["id"])


@pytest.mark.parametrize(("ruleset", "units", "said"), CASES, ids=[c[0] for c in CASES])
def test_sheet_cards_and_forum_text_say_how_units_are_built(
    member: Member, ruleset: str, units: list[dict[str, Any]], said: list[str]
) -> None:
    army_id = army_of(member, ruleset, units)
    sheet = html.unescape(member.client.get(f"/armies/{army_id}/print").text)
    text = member.client.get(f"/armies/{army_id}/export.txt").text
    for words in said:
        assert words in sheet, (words, "print sheet")
        assert words in text, (words, "forum text")
    cards = html.unescape(member.client.get(f"/armies/{army_id}/print?cards=true").text)
    card_part = cards[cards.index('class="cards"') :]
    for words in said:
        if words.startswith("("):  # the kind: a card begins with it, not in brackets
            words = words.strip("()")
        assert words in card_part, (words, "stat cards")


def test_forum_text_gives_a_cannons_ammo_and_a_turret(member: Member) -> None:
    army_id = army_of(member, "brikwars", [HAWK])
    text = member.client.get(f"/armies/{army_id}/export.txt").text
    assert '   - 3" Cannon: Use 6 · Range 12" · 2d10 Explosion · Power 3" · 13CP · ' in text
    assert "Ammo: 2 × X2 standard" in text
    assert '   - 1" Gun: Use 3 · Range 6" · 1d6 · Power 1" · 4CP · small turret' in text
