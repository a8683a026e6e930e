"""The D20 battle state: JSON both ways with refusals by field, CP left and out, Shaken until
the figurine's next turn, charges placed together (their Power added), countdowns public or
secret until they run out (shown to the owner only), traps, defusing by Dexterity, every
chance checked against the 20 faces of the D20 counted by hand."""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.rules.d20 import battle_state as bs
from app.rules.d20.units import decode_unit
from app.rules.errors import InvalidInput

SAPPER = decode_unit(
    {
        "name": "Sapper",
        "kind": "su",
        "shot": 8,
        "hth": 6,
        "pd": 12,
        "evasion": 4,
        "dexterity": 7,
        "cp": 3,
        "weapons": [
            {"type": "gun", "name": "Rifle", "reach": 60, "power": 10},
            {"type": "lightning_charge"},
            {"type": "lightning_charge"},
            {"type": "hurricane_charge"},
            {"type": "typhoon_charge"},
        ],
    }
)


def rng_with(*rolls: int) -> random.Random:
    """A Random whose first D20 rolls are ``rolls``."""
    seed = next(s for s in range(200_000) if _first(s, len(rolls)) == list(rolls))
    return random.Random(seed)


def _first(seed: int, n: int) -> list[int]:
    r = random.Random(seed)
    return [r.randint(1, 20) for _ in range(n)]


def place(
    state: bs.UnitState, weapons: list[int], turns: int | None, secret: bool = False
) -> bs.Done:
    """Charges placed with a countdown of ``turns`` (None: no timer, set off by hand)."""
    timer = "hand" if turns is None else "countdown"
    return bs.place_charges(state, SAPPER, "Sapper", weapons, timer, turns, secret)


def test_a_fresh_state_round_trips_and_a_missing_key_is_fresh() -> None:
    assert bs.decode_state({}) == bs.UnitState()
    state = bs.UnitState(
        cp_lost=2,
        shaken=True,
        charges=(bs.Charge(1, 10, 10, 4, True, 1, 2), bs.Charge(2, 10, 10, 4, True, 1, 2)),
    )
    assert bs.decode_state(bs.encode_state(state)) == state


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"cp_lost": -1}, "state.cp_lost"),
        ({"cp_lost": 21}, "state.cp_lost"),
        ({"cp_lost": True}, "state.cp_lost"),
        ({"shaken": "yes"}, "state.shaken"),
        ({"charges": {}}, "state.charges"),
        ({"charges": [{"weapon": 1}]}, "state.charges"),
        (
            {"charges": [{"weapon": 1, "power": 10, "radius": 10, "countdown": 21}]},
            "state.countdown",
        ),
        ({"charges": [{"weapon": 99, "power": 10, "radius": 10}]}, "state.weapon"),
        (
            {"charges": [{"weapon": 1, "power": 10, "radius": 10}] * 2},
            "state.charges",
        ),
        ({"charges": [1] * 21}, "state.charges"),
    ],
)
def test_a_bad_state_is_refused_by_field(data: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidInput) as err:
        bs.decode_state(data)
    assert err.value.field == field


def test_cp_left_out_and_shaken_change_the_figurine_attacks_see() -> None:
    state = bs.after_hurt(bs.UnitState(), SAPPER, 2, True)
    unit = bs.standing_unit(state, SAPPER)
    assert (unit.cp, unit.evasion, unit.pd) == (1, 0, 12)
    assert not bs.out(state, SAPPER)
    state = bs.after_hurt(state, SAPPER, 5, False)
    assert state.cp_lost == 3 and bs.cp_left(state, SAPPER) == 0 and bs.out(state, SAPPER)
    assert state.shaken  # stays Shaken: a new attack's "not shaken" does not lift it


def test_the_searing_grenade_example_evasion_comes_back_with_the_next_turn() -> None:
    """Three Psy Chronos Shaken by the flash lose their Evasion during the opponent's phase
    and 'recover their capacities and their Evasion with the next Turn'."""
    chrono = decode_unit({"name": "Psy Chrono", "pd": 10, "evasion": 6, "cp": 2})
    shaken = bs.after_hurt(bs.UnitState(), chrono, 0, True)
    assert bs.standing_unit(shaken, chrono).evasion == 0
    with pytest.raises(InvalidInput, match="Shaken"):
        bs.require_fit(shaken, chrono, "Psy Chrono")
    done = bs.new_turn(shaken)
    assert not done.after.shaken and "no longer Shaken" in done.summary
    assert bs.standing_unit(done.after, chrono).evasion == 6
    bs.require_fit(done.after, chrono, "Psy Chrono")


def test_two_p10_charges_set_together_are_p20_with_one_countdown() -> None:
    done = place(bs.UnitState(), [1, 2], 3, False)
    charges = done.after.charges
    assert [c.weapon for c in charges] == [1, 2] and {c.group for c in charges} == {1}
    assert bs.group_power(charges, 1) == 20
    assert "P20/r10 (2 charges set together), 3 turns left" in done.summary
    more = place(done.after, [3], None, False)
    assert more.after.charges[-1].weapon == 3 and more.after.charges[-1].group == 2
    assert bs.group_power(more.after.charges, 2) == 15 and "no timer" in more.summary


@pytest.mark.parametrize(
    ("weapons", "timer", "turns", "secret", "width", "field"),
    [
        ([0], "countdown", 3, False, None, "charge_weapons"),  # the rifle is no charge
        ([9], "countdown", 3, False, None, "charge_weapons"),
        ([1, 1], "countdown", 3, False, None, "charge_weapons"),
        ([], "countdown", 3, False, None, "charge_weapons"),  # no silent "first charge"
        ([1], "later", 3, False, None, "charge_timer"),
        ([1], "countdown", None, False, None, "charge_turns"),
        ([1], "hand", 3, False, None, "charge_turns"),
        ([1], "hand", None, True, None, "charge_secret"),
        ([1], "trap", None, True, 3, "charge_secret"),
        ([1], "trap", None, False, None, "trap_width"),
        ([1], "trap", None, False, 6, "trap_width"),  # wider than 5 cm
        ([1], "countdown", 2, False, 3, "trap_width"),
    ],
)
def test_a_bad_placing_is_refused_by_field(
    weapons: list[int],
    timer: str,
    turns: int | None,
    secret: bool,
    width: int | None,
    field: str,
) -> None:
    with pytest.raises(InvalidInput) as err:
        bs.place_charges(bs.UnitState(), SAPPER, "Sapper", weapons, timer, turns, secret, width)
    assert err.value.field == field


def test_a_trap_is_set_in_a_passageway_of_at_most_5_cm() -> None:
    done = bs.place_charges(bs.UnitState(), SAPPER, "Sapper", [3], "trap", None, False, 5)
    (trap,) = done.after.charges
    assert trap.use == "trap" and trap.countdown is None and trap.power == 15
    assert "across a passageway 5 cm wide" in done.summary and "trips" in done.summary
    assert bs.decode_state(bs.encode_state(done.after)) == done.after
    # a New turn does not count a trap down
    assert bs.new_turn(done.after).after.charges[0].countdown is None


def test_a_placed_charge_is_not_placed_again_and_a_shaken_figurine_places_none() -> None:
    placed = place(bs.UnitState(), [1], 2, False).after
    with pytest.raises(InvalidInput, match="placed already"):
        place(placed, [1], 2, False)
    with pytest.raises(InvalidInput) as err:
        place(bs.UnitState(shaken=True), [1], 2, False)
    assert err.value.field == "unit"
    gone = bs.set_off(placed, 1)
    assert gone.charges == () and gone.spent == (1,)
    with pytest.raises(InvalidInput, match="used up"):
        place(gone, [1], 2, False)


def test_the_countdown_runs_out_on_the_placers_turns() -> None:
    state = place(bs.UnitState(), [1], 2, False).after
    first = bs.new_turn(state)
    assert first.after.charges[0].countdown == 1 and "run out" not in first.summary
    second = bs.new_turn(first.after)
    assert second.after.charges[0].run_out and "charges run out: P10/r10" in second.summary
    third = bs.new_turn(second.after)  # stays at 0: due, said once
    assert third.after.charges[0].countdown == 0 and "run out" not in third.summary


def test_a_secret_countdown_is_hidden_until_it_runs_out() -> None:
    state = place(bs.UnitState(), [3], 2, True)
    assert "2 turns" not in state.summary and "secret countdown (0 turns counted)" in state.summary
    (shown,) = [bs.public_charge(c) for c in state.after.charges]
    assert shown["countdown"] is None and shown["run_out"] is False and shown["secret"]
    one = bs.new_turn(state.after).after
    assert bs.public_charge(one.charges[0])["countdown"] is None
    assert "1 turn counted" in bs.group_words(one.charges, 1)
    done = bs.new_turn(one)
    shown = bs.public_charge(done.after.charges[0])
    assert shown["countdown"] == 0 and shown["run_out"] is True
    assert "P15/r10, run out after 2 turns" in done.summary  # the paper read out
    assert "run out after 2 turns" in bs.group_words(done.after.charges, 1)
    # what Undo restores keeps it
    assert bs.encode_state(state.after)["charges"][0]["countdown"] == 2


def brute_defuse(dexterity: int, dl: int) -> float:
    return sum(1 for d in range(1, 21) if dexterity + d > dl) / 20


@pytest.mark.parametrize(("dexterity", "dl"), [(7, 10), (0, 35), (40, 35), (5, 15), (15, 15)])
def test_defusing_odds_count_the_d20(dexterity: int, dl: int) -> None:
    assert bs.defuse_odds(dexterity, dl) == brute_defuse(dexterity, dl)


def test_defusing_by_dexterity_takes_the_charge_off_on_a_success_only() -> None:
    state = place(bs.UnitState(), [3], 5, True).after
    # Dexterity 7 against DL 15: an 8 fails (15 is not > 15), a 9 succeeds
    failed = bs.defuse(state, SAPPER, "Sapper", None, 7, rng_with(8))
    assert failed.after == state
    assert failed.dice == (("defuse vs DL 15", 8, 15, 15, 0.6),)
    assert "not defused" in failed.summary
    done = bs.defuse(state, SAPPER, "Sapper", 3, 7, rng_with(9))
    assert done.after.charges == () and done.dice[0][1:3] == (9, 16)
    with pytest.raises(InvalidInput) as err:
        bs.defuse(state, SAPPER, "Sapper", 1, 7, random.Random(1))
    assert err.value.field == "defuse_weapon"
    with pytest.raises(InvalidInput) as err:
        bs.defuse(bs.UnitState(), SAPPER, "Sapper", None, 7, random.Random(1))
    assert err.value.field == "unit"


def test_groups_of_ticked_charges_must_be_placed_and_whole() -> None:
    state = place(bs.UnitState(), [1, 2], 4, False).after
    state = place(state, [3], None, False).after
    assert bs.groups_of(state, [1, 2]) == (1,)
    assert bs.groups_of(state, [1, 2, 3]) == (1, 2)
    with pytest.raises(InvalidInput, match="tick all"):
        bs.groups_of(state, [1])
    with pytest.raises(InvalidInput, match="not placed"):
        bs.groups_of(state, [4])
