"""A Degrees unit's state in a battle and what the actions do to it (docs/rulings.md,
"Degrees: battles"): JSON round trip, AP spent and owed, new rounds, breaking free, pumping a
gas gun (the text's over-compression example), drawing, beginning an attack, bloom."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import replace

import pytest

from app.rules.degrees import battle_state as bs
from app.rules.degrees.units import decode_unit
from app.rules.errors import InvalidInput

THINNY = decode_unit(
    {
        "name": "Thinny",
        "degree": 2,
        "op": 2,
        "weapons": [{"type": "p_gun"}, {"type": "gas_gun"}, {"type": "stun_gun"}],
    }
)
FULL = bs.UnitState(
    armour=1,
    back_armour=0,
    hp=2,
    ap_lost=2,
    ap_spent=3,
    restrained=True,
    dampened=("vision", "audition"),
    dampened_rounds=2,
    gas=((1, bs.GasGun(4, 1)),),
    drawn=True,
    carried=2,
    location="Hex 4",
    bloom=3,
    pre_bloom=True,
    energy_fired=True,
)


class Scripted(random.Random):
    """Dice in a given order (a seeded game roll, with the rolls chosen)."""

    def __init__(self, *rolls: int) -> None:
        super().__init__(0)
        self.rolls: Iterator[int] = iter(rolls)

    def randint(self, a: int, b: int) -> int:
        value = next(self.rolls)
        assert a <= value <= b
        return value


def test_the_state_round_trips_and_empty_json_is_a_fresh_unit() -> None:
    assert bs.decode_state(bs.encode_state(FULL)) == FULL
    assert bs.decode_state({}) == bs.UnitState()
    assert bs.decode_state(bs.encode_state(bs.UnitState())) == bs.UnitState()


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"hp": -1}, "state.hp"),
        ({"ap_spent": "3"}, "state.ap_spent"),
        ({"restrained": 1}, "state.restrained"),
        ({"dampened": ["smell"]}, "state.dampened"),
        ({"gas": {"x": {"pumped": 1, "max": 2}}}, "state.gas"),
        ({"gas": {"1": {"pumped": 1}}}, "state.gas"),
        ({"location": "x" * 61}, "state.location"),
        ({"bloom": 11}, "state.bloom"),
    ],
)
def test_a_bad_state_is_refused_by_field(data: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidInput) as err:
        bs.decode_state(data)
    assert err.value.field == field


def test_the_unit_as_it_stands_has_what_is_left_and_the_damaged_gas_gun() -> None:
    unit = bs.standing_unit(FULL, THINNY)
    assert (unit.armour, unit.back_armour, unit.hp) == (1, 0, 2)
    assert unit.ap == 1  # 3 per round less 2 owed
    assert [w.degree for w in unit.weapons] == [4, 1, 2]
    fresh = bs.standing_unit(bs.UnitState(), THINNY)
    assert (fresh.armour, fresh.hp, fresh.ap) == (2, 2, 3)


def test_lost_ap_come_out_of_the_round_and_the_rest_is_owed_then_paid_first() -> None:
    state = bs.UnitState(ap_spent=1)
    state = bs.lose_ap(state, THINNY, 4)  # 2 left this round: 2 paid, 2 owed
    assert (state.ap_spent, state.ap_lost, bs.ap_left(state, THINNY)) == (3, 2, 0)
    state = bs.new_round(state, THINNY)
    assert (state.ap_spent, state.ap_lost, bs.ap_left(state, THINNY)) == (2, 0, 1)
    big = bs.new_round(bs.UnitState(ap_lost=7, ap_spent=3), THINNY)
    assert (big.ap_spent, big.ap_lost, bs.ap_left(big, THINNY)) == (3, 4, 0)


def test_dampening_lasts_this_round_and_the_next() -> None:
    state = bs.UnitState(dampened=("vision",), dampened_rounds=2)
    state = bs.new_round(state, THINNY)
    assert state.dampened == ("vision",) and state.dampened_rounds == 1
    state = bs.new_round(state, THINNY)
    assert state.dampened == () and state.dampened_rounds == 0


def test_bloom_grows_with_energy_fire_and_dissipates_as_the_text_says() -> None:
    """Fired into twice in a row blooms (-1), each further round -1 more; a -2 hex becomes
    -1 at the end of a quiet round, pre-bloomed at the end of the next, free after that."""
    state = bs.UnitState()
    levels = []
    for _ in range(3):
        state = bs.new_round(replace(state, energy_fired=True), THINNY)
        levels.append((state.bloom, state.pre_bloom))
    assert levels == [(0, True), (1, True), (2, True)]
    quiet = []
    for _ in range(3):
        state = bs.new_round(state, THINNY)
        quiet.append((state.bloom, state.pre_bloom))
    assert quiet == [(1, True), (0, True), (0, False)]


def test_breaking_free_takes_a_raw_1_and_costs_1_ap() -> None:
    restrained = bs.UnitState(restrained=True)
    freed = bs.break_free(restrained, THINNY, "Thinny", Scripted(1))
    assert not freed.after.restrained and freed.after.ap_spent == 1
    assert freed.dice == (("break_free", 1, 1),)
    for natural in range(2, 11):
        held = bs.break_free(restrained, THINNY, "Thinny", Scripted(natural))
        assert held.after.restrained and held.dice == (("break_free", natural, 1),)
    with pytest.raises(InvalidInput, match="not restrained"):
        bs.break_free(bs.UnitState(), THINNY, "Thinny", Scripted(1))
    with pytest.raises(InvalidInput, match="0 left"):
        bs.break_free(bs.UnitState(restrained=True, ap_spent=3), THINNY, "Thinny", Scripted(1))


def test_breaking_free_succeeds_one_time_in_ten_over_seeded_rolls() -> None:
    restrained = bs.UnitState(restrained=True)
    n = 20_000
    freed = sum(
        not bs.break_free(restrained, THINNY, "T", random.Random(seed)).after.restrained
        for seed in range(n)
    )
    p, se = 0.1, (0.1 * 0.9 / n) ** 0.5
    assert abs(freed / n - p) < 4 * se


def test_the_texts_gas_gun_over_compression() -> None:
    """Carried 2 into a 2-max gun, pump 2 more with 1 OP on the first compression roll:
    a 3 against 2° holds, a 1 against 4° damages the gun to 1-max; 4 AP pumped."""
    carried = bs.pump(bs.UnitState(), THINNY, "Thinny", None, 2, 0, Scripted())
    assert carried.dice == () and carried.after.gun(1, THINNY.weapons[1]) == bs.GasGun(2, 2)
    round2 = bs.new_round(carried.after, THINNY)
    pumped = bs.pump(round2, THINNY, "Thinny", 1, 2, 1, Scripted(3, 1))
    assert pumped.dice == (("compress", 3, 2), ("compress", 1, 4))
    assert pumped.after.gun(1, THINNY.weapons[1]) == bs.GasGun(4, 1)
    assert pumped.after.ap_spent == 2
    assert "now 1-max" in pumped.summary


def test_damage_stops_the_pumping_and_the_rest_is_not_spent() -> None:
    state = bs.UnitState().with_gun(1, bs.GasGun(2, 2))
    done = bs.pump(state, THINNY, "T", 1, 3, 0, Scripted(2))  # 2 against 3°: damaged
    assert done.after.gun(1, THINNY.weapons[1]) == bs.GasGun(3, 0)
    assert done.after.ap_spent == 1 and "wrecked" in done.summary
    assert bs.wrecked(done.after, THINNY, 1)
    with pytest.raises(InvalidInput) as err:
        bs.pump(done.after, THINNY, "T", 1, 1, 0, Scripted())
    assert err.value.field == "pump_weapon"


def test_a_compression_roll_damages_the_gun_with_the_chance_of_the_pumped_degree() -> None:
    """P(damage) on the one AP beyond the max = P(d10 <= pumped - OP), by enumeration."""
    for top, op in itertools.product((1, 2, 3), (0, 1, 2)):
        state = bs.UnitState().with_gun(1, bs.GasGun(top, top))
        unit = THINNY
        damaged = sum(
            bs.pump(state, unit, "T", 1, 1, op, Scripted(n)).after.gun(1, unit.weapons[1]).max < top
            for n in range(1, 11)
        )
        assert damaged == max(0, top + 1 - op)


@pytest.mark.parametrize(
    ("state", "call", "field", "words"),
    [
        (
            bs.UnitState(),
            lambda s: bs.pump(s, THINNY, "T", 0, 1, 0, Scripted()),
            "pump_weapon",
            "no gas gun",
        ),
        (
            bs.UnitState(),
            lambda s: bs.pump(s, THINNY, "T", None, 1, 3, Scripted()),
            "pump_op",
            "2 OP",
        ),
        (
            bs.UnitState(),
            lambda s: bs.pump(s, THINNY, "T", None, 4, 0, Scripted()),
            "unit",
            "needs 4 AP",
        ),
        (
            bs.UnitState(restrained=True),
            lambda s: bs.pump(s, THINNY, "T", None, 1, 0, Scripted()),
            "unit",
            "restrained",
        ),
        (bs.UnitState(hp=0), lambda s: bs.begin(s, THINNY, "T", 1), "unit", "destroyed"),
        (bs.UnitState(drawn=True), lambda s: bs.draw(s, THINNY, "T"), "unit", "drawn already"),
        (bs.UnitState(ap_spent=3), lambda s: bs.draw(s, THINNY, "T"), "unit", "needs 1 AP"),
    ],
)
def test_actions_are_refused_by_field(
    state: bs.UnitState, call: object, field: str, words: str
) -> None:
    with pytest.raises(InvalidInput) as err:
        call(state)  # type: ignore[operator]
    assert err.value.field == field and words in err.value.reason


def test_drawing_and_beginning_an_attack_spend_this_rounds_ap() -> None:
    drawn, _ = bs.draw(bs.UnitState(), THINNY, "T")
    assert drawn.drawn and drawn.ap_spent == 1
    begun, words = bs.begin(drawn, THINNY, "T", 1)
    assert begun.carried == 1 and begun.ap_spent == 2 and "1 AP carried" in words
    assert bs.new_round(begun, THINNY).carried == 1  # carried into the next round


def test_moving_to_another_location_starts_from_its_bloom() -> None:
    here, _ = bs.set_location(bs.UnitState(), THINNY, "T", "Hex 4", 3)
    assert (here.location, here.bloom, bs.incandescent(here)) == ("Hex 4", 3, True)
    kept, _ = bs.set_location(here, THINNY, "T", "Hex 4", None)
    assert kept.bloom == 3
    moved, _ = bs.set_location(here, THINNY, "T", "Hex 5", None)
    assert (moved.bloom, moved.pre_bloom) == (0, False)
