"""House rules: defaults from RULINGS, round trip, strict keys."""

from __future__ import annotations

import pytest

from app.rules.brikwars.options import DEFAULT_OPTIONS, BrikWarsOptions
from app.rules.errors import InvalidInput


def test_defaults_follow_rulings():
    assert DEFAULT_OPTIONS.allow_over_budget is False
    assert DEFAULT_OPTIONS.bonus_die == "same"
    assert BrikWarsOptions.from_dict(None) == DEFAULT_OPTIONS
    assert BrikWarsOptions.from_dict({}) == DEFAULT_OPTIONS


def test_round_trip():
    options = BrikWarsOptions(allow_over_budget=True, bonus_die="d6")
    data = options.to_dict()
    assert data == {"allow_over_budget": True, "bonus_die": "d6"}
    assert BrikWarsOptions.from_dict(data) == options


def test_unknown_key_names_it():
    with pytest.raises(InvalidInput) as err:
        BrikWarsOptions.from_dict({"allow_over_budget": True, "colour": "red"})
    assert err.value.field == "colour"


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"bonus_die": "d8"}, "bonus_die"),
        ({"allow_over_budget": "yes"}, "allow_over_budget"),
        ({"allow_over_budget": 1}, "allow_over_budget"),
    ],
)
def test_bad_values(data, field):
    with pytest.raises(InvalidInput) as err:
        BrikWarsOptions.from_dict(data)
    assert err.value.field == field


def test_not_a_mapping():
    with pytest.raises(InvalidInput) as err:
        BrikWarsOptions.from_dict(["allow_over_budget"])  # type: ignore[arg-type]
    assert err.value.field == "options"
