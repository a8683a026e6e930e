"""The BrikWars ruleset's declared fields: a unit read whole names every wrong field at once
(by its path), and the unit form's fields are the ones ``encode_unit`` writes."""

from __future__ import annotations

import pytest

from app.rules.brikwars.ruleset import RULESET
from app.rules.brikwars.serialize import unit_from_dict
from app.rules.errors import InvalidFields, InvalidInput

TANK = {
    "name": "Tank",
    "size": 4,
    "structure_level": 2,
    "weapons": [{"type": "gun", "size": 3}, {"type": "cannon", "size": 4, "ammo": {"xsize": 2}}],
}


def reasons(data: object) -> dict[str, str]:
    with pytest.raises(InvalidFields) as caught:
        RULESET.decode_unit(data)  # type: ignore[arg-type]
    return caught.value.reasons()


def test_two_bad_unit_fields_and_a_bad_weapon_field_are_named_at_once():
    bad = {**TANK, "move": -1, "mind_die": 7}
    bad["weapons"] = [TANK["weapons"][0], {"type": "cannon", "size": "x"}]
    assert reasons(bad) == {
        "weapons.1.size": "must be a number",
        "move": "must be from 0 to 100 inches",
        "mind_die": "must be one of d4, d6, d8, d10, d12",
    }


def test_the_first_named_is_the_one_a_reader_of_one_refusal_was_shown():
    """Weapons are read before the unit, as before: ``field``/``reason`` are the first's."""
    bad = {**TANK, "name": "bad\x00name", "weapons": [{"type": "gun", "size": 0}]}
    with pytest.raises(InvalidInput) as caught:
        RULESET.decode_unit(bad)
    assert caught.value.field == "weapons.0.size"
    assert list(caught.value.reasons()) == ["weapons.0.size", "name"]


def test_every_unknown_key_and_nested_refusal_is_named_by_its_path():
    bad = {
        **TANK,
        "colour": "red",
        "weapons": [
            {"type": "cannon", "size": 4, "ammo": {"xsize": 0, "rounds": 0}, "paint": 1},
            {"type": "launcher", "size": 3, "payload": {"per_launch": 0, "explosive": {}}},
            "a gun",
        ],
    }
    assert set(reasons(bad)) == {
        "weapons.0.ammo.xsize",
        "weapons.0.ammo.rounds",
        "weapons.0.paint",
        "weapons.1.payload.explosive.xsize",
        "weapons.1.payload.per_launch",
        "weapons.2",
        "colour",
    }


def test_a_refused_field_invents_no_refusal_of_the_fields_read_after_it():
    """A stand-in takes the refused field's place, so what depends on it is not refused."""
    assert reasons({"name": "Rex", "kind": "robot", "size": 3, "structure_level": 1}) == {
        "kind": "must be one of minifig, hero, creation"
    }
    assert reasons({"name": "Rex", "kind": "robot"}) == {
        "kind": "must be one of minifig, hero, creation"
    }
    # a Size refused: the Size Damage is still checked, against a Size it could have
    assert reasons({**TANK, "size": -2, "size_damage": 3}) == {"size": "must be greater than 0"}
    assert set(reasons({**TANK, "size": -2, "size_damage": "x"})) == {"size", "size_damage"}
    assert reasons({"name": "Pvt", "kind": "minifig", "size": 2, "propulsion": "none"}) == {
        "size": 'a minifig is Size 1"',
        "move": "a unit without propulsion has no Move",
    }


def test_a_unit_that_is_not_an_object_is_named_unit():
    assert reasons([1, 2]) == {"unit": "must be an object"}
    assert reasons({**TANK, "weapons": "gun"}) == {"weapons": "must be a list"}


def test_a_good_unit_reads_as_before():
    assert RULESET.decode_unit(TANK) == unit_from_dict(TANK)
    assert RULESET.decode_unit(RULESET.encode_unit(RULESET.decode_unit(TANK))) == (
        RULESET.decode_unit(TANK)
    )


def test_the_unit_form_fields_are_named_as_encode_unit_writes_them():
    written = RULESET.encode_unit(RULESET.decode_unit(TANK))
    names = [f.name for f in RULESET.unit_fields]
    assert names[:2] == ["name", "kind"]
    assert set(names) <= set(written)
    # what encode_unit writes beyond them: the Specialties (a list) and the weapons
    assert set(written) - set(names) == {"specialties", "weapons"}
    assert set(RULESET.unit_form.applies_to) <= set(names)
