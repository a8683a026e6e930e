"""Ruling DK19: a gas gun's pump left empty is the AP that reach the range, within the AP the
round leaves after its other costs; the shortfall names the range it reaches."""

from __future__ import annotations

from typing import Any

from app.rules.degrees.ruleset import RULESET
from app.rules.ruleset import TargetInput

OPTIONS = RULESET.decode_options(None)


def _gunner(ap: int, *weapons: dict[str, Any]) -> Any:
    data = {"name": "G", "kind": "personnel", "degree": 2, "ap": ap, "weapons": list(weapons)}
    return RULESET.decode_unit(data)


GAS = {"type": "gas_gun", "degree": 2}
TARGET = RULESET.decode_unit({"name": "T", "kind": "personnel", "degree": 3, "weapons": []})


def _round(attacker: Any, weapons: tuple[int, ...] = (0,), **situation: Any) -> Any:
    return RULESET.attack(attacker, weapons, [TargetInput(TARGET)], situation, OPTIONS)


def _pumps(made: Any) -> list[int]:
    return [s.pump for s in made.shots if s.gas >= 0]


def test_each_range_is_pumped_to_its_degree_when_the_ap_allow() -> None:
    for range_, need in (("present", 1), ("close", 2), ("far", 3), ("very_far", 4)):
        made = _round(_gunner(need + 1, GAS), range=range_)
        assert _pumps(made) == [need] and not made.problems(), range_
        assert made.ap_needed == need + 1
        (note,) = dict(made.more)["gas_pump"]
        assert f"pumped {need} AP to reach" in note and f"within {need + 1} AP" in note


def test_carried_ap_count_and_what_is_short_is_named() -> None:
    assert _pumps(_round(_gunner(3, GAS), carried=2)) == [0]
    assert _pumps(_round(_gunner(3, GAS), carried=1)) == [1]
    short = _round(_gunner(3, GAS), range="very_far")  # 2 AP left to pump after the shot's 1
    assert _pumps(short) == [2]
    assert any("it reaches Close" in p for p in short.problems())
    assert not any("AP;" in p for p in short.problems())  # nothing pumped beyond the AP


def test_the_round_shares_its_ap_between_the_shots_in_order() -> None:
    assert _pumps(_round(_gunner(6, GAS), shots=2)) == [2, 2]
    made = _round(_gunner(5, GAS), shots=2)  # 2 shots of 1 AP leave 3 to pump: 2 then 1
    assert _pumps(made) == [2, 1]
    assert any("pumped to 1°" in p and "it reaches Present" in p for p in made.problems())
    rifle = _round(_gunner(4, GAS, {"type": "rifle", "degree": 3}), (0, 1))
    assert _pumps(rifle) == [2] and not rifle.problems()  # 3 for the gas shot, 1 the rifle


def test_a_pump_given_is_kept() -> None:
    made = _round(_gunner(6, GAS), pump=1)
    assert _pumps(made) == [1] and "gas_pump" not in dict(made.more)
    assert any("pumped to 1° cannot reach Close" in p for p in made.problems())
