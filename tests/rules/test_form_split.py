"""Which form fields apply to which kind and type, as each ruleset declares it (issue 14,
item 8; docs/rulings.md, BrikWars building ruling 20)."""

from __future__ import annotations

import pytest

from app.rules.registry import get_ruleset


@pytest.mark.parametrize("kind", ["minifig", "hero"])
def test_a_brikwars_minifig_takes_none_of_a_creations_fields(kind: str) -> None:
    form = get_ruleset("brikwars").unit_form
    assert form.switch == "kind"
    for name in ("size", "structure_level", "propulsion", "size_damage"):
        assert not form.applies(name, kind) and form.applies(name, "creation")
    for name in ("name", "kind", "move", "mind_die", "specialties"):
        assert form.applies(name, kind) and form.applies(name, "creation")


@pytest.mark.parametrize(
    ("type_", "takes", "not_"),
    [
        (
            "gun",
            {"size", "mount", "label"},
            {"xsize", "variant", "ammo.xsize", "payload.per_launch"},
        ),
        ("cannon", {"size", "mount", "ammo.xsize", "ammo.rounds"}, {"xsize", "payload.per_launch"}),
        ("launcher", {"size", "payload.explosive.xsize", "payload.object_size"}, {"ammo.xsize"}),
        ("explosive", {"xsize", "variant"}, {"size", "ammo.xsize", "payload.per_launch"}),
        ("hand_weapon", {"label"}, {"size", "xsize", "mount", "variant"}),
        ("bazooka", {"ammo.xsize"}, {"size", "mount", "payload.per_launch"}),
        ("armor_plating", {"size", "label"}, {"mount", "xsize", "ammo.xsize"}),
    ],
)
def test_a_brikwars_weapon_takes_only_its_types_fields(type_: str, takes: set, not_: set) -> None:
    form = get_ruleset("brikwars").weapon_form
    assert form.switch == "type"
    assert all(form.applies(name, type_) for name in takes), takes
    assert not any(form.applies(name, type_) for name in not_), not_


def test_the_other_rulesets_split_their_weapons_by_their_catalogue() -> None:
    d20 = get_ruleset("d20").weapon_form
    assert d20.applies("reach", "gun") and not d20.applies("reach", "hth")
    assert d20.applies("power", "hth") and not d20.applies("name", "searing_grenade")
    assert d20.applies("automatic", "gun") and not d20.applies("automatic", "hth")
    degrees = get_ruleset("degrees")
    dousing = [e.id for e in degrees.catalogue() if any(f.name == "real_ammo" for f in e.fields)]
    assert dousing and all(degrees.weapon_form.applies("real_ammo", t) for t in dousing)
    others = [e.id for e in degrees.catalogue() if e.id not in dousing]
    assert not any(degrees.weapon_form.applies("real_ammo", t) for t in others)
