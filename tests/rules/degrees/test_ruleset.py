"""The Degrees ruleset on ``RulesetBase``: a unit's wrong fields named all at once, and the
unit form's declared fields."""

from __future__ import annotations

import pytest

from app.rules.degrees.ruleset import RULESET
from app.rules.errors import InvalidFields


def test_a_unit_names_every_wrong_field_at_once_by_its_path() -> None:
    data = {
        "name": "Simo",
        "degree": 11,
        "hp": 0,
        "weapons": [{"type": "rifle"}, {"type": "rifle", "degree": 0}],
    }
    with pytest.raises(InvalidFields) as err:
        RULESET.decode_unit(data)
    assert set(err.value.reasons()) == {"degree", "hp", "weapons.1.degree"}
    assert err.value.field == "degree"  # a reader that shows one still names a real field


def test_an_unknown_key_a_bad_sense_and_a_bad_weapon_type_are_named_together() -> None:
    data = {
        "name": " ",
        "colour": "red",
        "senses": "Vision, smell",
        "weapons": [{"type": "blaster", "degree": 11}, {"type": "rifle", "real_ammo": True}],
    }
    with pytest.raises(InvalidFields) as err:
        RULESET.decode_unit(data)
    assert set(err.value.reasons()) == {
        "name",
        "colour",
        "senses",
        "weapons.0.type",
        "weapons.0.degree",
        "weapons.1.real_ammo",
    }


def test_the_unit_form_asks_every_field_encode_unit_writes_but_the_weapons() -> None:
    unit = RULESET.decode_unit(
        {"name": "U", "human": True, "senses": "Audition", "weapons": [{"type": "pistol"}]}
    )
    written = set(RULESET.encode_unit(unit)) - {"weapons"}
    assert [f.name for f in RULESET.unit_fields][:2] == ["name", "kind"]
    assert {f.name for f in RULESET.unit_fields} == written
