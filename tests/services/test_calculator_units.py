"""The open calculator's typed-in units answer the same look-ups as saved units do."""

from __future__ import annotations

import pytest

from app.rules.registry import RULESETS
from app.rules.ruleset import Ruleset
from app.services.calculator_units import TypedUnits, UnitLookup
from app.services.errors import NotFound


@pytest.mark.parametrize("ruleset", list(RULESETS.values()), ids=list(RULESETS))
def test_typed_units_are_found_by_id_in_an_army_never_stored(ruleset: Ruleset) -> None:
    sample = ruleset.sample_attacks[0]
    attacker = ruleset.decode_unit(sample.attacker)
    target = ruleset.decode_unit(sample.targets[0])
    units: UnitLookup = TypedUnits(ruleset, {1: attacker, 2: target})
    army, unit = units.unit(2)
    assert unit.row.id == 2 and unit.row.name == sample.targets[0]["name"]
    assert army.army.id == 0 and army.units == [unit]
    assert [w.row.id for w in units.unit(1)[1].weapons] == list(
        range(1, len(sample.attacker["weapons"]) + 1)
    )
    assert units.ruleset((1, 2)) is ruleset and units.offered() == []
    with pytest.raises(NotFound):
        units.unit(3)
