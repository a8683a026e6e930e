"""Degrees attacks in a battle through the calculator's ``attack``: what the state feeds in
(AP left, carried or pumped AP, a drawn p-gun, bloom), the refusals before anything is
rolled, and the text's worked examples played as a battle (the Thinny's 5° p-gun attack
over two rounds; the over-compressed gas gun's 5° shot that leaves a fresh 3° critically
wounded)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from app.rules.degrees import battle_state as bs
from app.rules.degrees.ruleset import RULESET
from app.rules.degrees.units import decode_unit
from app.rules.errors import InvalidInput
from app.rules.ruleset import Fighter

THINNY = decode_unit(
    {
        "name": "Thinny",
        "degree": 2,
        "op": 1,
        "weapons": [
            {"type": "p_gun"},
            {"type": "gas_gun"},
            {"type": "stun_gun"},
            {"type": "gamma_gun"},
        ],
    }
)
FRESH3 = decode_unit({"name": "Fresh", "degree": 3})
OPTIONS = RULESET.decode_options(None)


def fighter(unit: Any, state: bs.UnitState | None = None, key: int = 1) -> Fighter:
    return Fighter(key, unit.name, unit, state or bs.UnitState(), OPTIONS)


def act(name: str, f: Fighter, rng: random.Random | None = None, **values: Any) -> Fighter:
    done = RULESET.apply_action(name, f, values, rng or random.Random(0))
    return replace(f, state=done.after)


def seed_with(*rolls: int) -> int:
    def first(seed: int) -> list[int]:
        rng = random.Random(seed)
        return [rng.randint(1, 10) for _ in rolls]

    return next(s for s in range(100_000) if first(s) == list(rolls))


def test_an_attack_over_the_ap_left_is_refused_naming_weapons() -> None:
    thinny = fighter(THINNY, bs.UnitState(ap_spent=1))
    with pytest.raises(InvalidInput) as err:
        RULESET.battle_attack(thinny, (0,), [(fighter(FRESH3, key=2), {})], {"range": "close"})
    assert err.value.field == "weapons"
    assert err.value.reason == "needs 3 AP; Thinny has 2 left this round"
    owed = fighter(THINNY, bs.UnitState(ap_spent=3, ap_lost=2))
    with pytest.raises(InvalidInput) as err:
        RULESET.battle_attack(owed, (2,), [(fighter(FRESH3, key=2), {})], {})
    assert "has 0 left" in err.value.reason


def test_the_state_is_fed_into_the_situation_and_shown() -> None:
    thinny = fighter(THINNY, bs.UnitState(ap_spent=1, drawn=True, carried=1, bloom=1))
    target = fighter(FRESH3, bs.UnitState(bloom=2), key=2)
    made = RULESET.battle_attack(
        thinny, (0,), [(target, {})], {"ap": 12, "carried": 9, "bloom": 0, "extend": 1}
    )
    assert made.shown == {
        "ap_left": 2,
        "carried": 1,
        "drawn": True,
        "bloom": 2,
        "visibility": "fogged",
    }
    assert {k: made.situation[k] for k in ("ap", "carried", "drawn", "bloom", "extend")} == {
        "ap": 2,
        "carried": 1,
        "drawn": True,
        "bloom": 2,
        "extend": 1,
    }
    assert made.attack.ap_cost == 2  # type: ignore[attr-defined]  (p-gun 2 + 1 extended - 1)


def test_the_battle_fields_leave_out_what_the_state_decides() -> None:
    names = {f.name for f in RULESET.battle_situation_fields}
    assert not names & {"ap", "carried", "drawn", "bloom"}
    assert {"range", "extend", "op", "pump", "break_free"} <= names


def test_the_thinnys_p_gun_attack_over_two_rounds() -> None:
    """Begin 1 + whip out 1 in round 1; devote another 1 + fire 1 in round 2: a 5° attack
    with a 4° p-gun, 4 AP in all."""
    thinny = act("draw", fighter(THINNY))
    thinny = act("begin", thinny, begin_ap=1)
    assert bs.ap_left(thinny.state, THINNY) == 1
    thinny = act("new_round", thinny)
    target = fighter(FRESH3, key=2)
    made = RULESET.battle_attack(thinny, (0,), [(target, {})], {"extend": 1, "range": "close"})
    odds = made.attack.odds()
    assert ("final degree", "5°") in odds.lines[0].steps
    assert made.attack.ap_cost == 2  # type: ignore[attr-defined]
    roll = made.attack.roll(random.Random(3))
    me, _ = RULESET.after_attack(made, roll)
    assert me.ap_spent == 2 and me.carried == 0 and me.drawn
    assert me.ap_spent + 2 == 4  # 2 in round 1, 2 in round 2


def test_the_over_compressed_gas_gun_leaves_a_fresh_3_critically_wounded() -> None:
    """2 AP into the 2-max gun; next round 2 more with 1 OP on the first compression roll
    (3 against 2° holds, 1 against 4° damages it to 1-max); next round the 4° + 1 extended =
    5° shot rolls a 5 against a fresh 3°: Armour 3 gone, 2 HP lost, HP 1."""
    gunner = act("pump", fighter(THINNY), pump_ap=2, pump_weapon=1)
    gunner = act("new_round", gunner)
    gunner = act("pump", gunner, random.Random(seed_with(3, 1)), pump_ap=2, pump_op=1)
    assert gunner.state.gun(1, THINNY.weapons[1]) == bs.GasGun(4, 1)
    gunner = act("new_round", gunner)
    target = fighter(FRESH3, key=2)
    made = RULESET.battle_attack(gunner, (1,), [(target, {})], {"extend": 1, "range": "present"})
    assert made.situation["carried"] == 4
    assert made.attack.ap_cost == 2  # type: ignore[attr-defined]
    roll = made.attack.roll(random.Random(seed_with(5)))
    attack_dice = [d for line in roll.lines for d in line.dice if d.purpose.startswith("attack")]
    assert [(d.natural, d.value) for d in attack_dice] == [(5, 5)]
    me, it = RULESET.after_attack(made, roll)
    assert me.gun(1, THINNY.weapons[1]) == bs.GasGun(0, 1) and me.ap_spent == 2
    assert (it.armour, it.hp) == (0, 1)
    standing = RULESET.standing(replace(target, state=it))
    assert "critically wounded" in standing.badges and not standing.out


def test_a_stun_gun_hit_restrains_and_the_restrained_unit_may_not_attack() -> None:
    thinny = fighter(THINNY)
    target = fighter(FRESH3, bs.UnitState(ap_spent=1), key=2)
    made = RULESET.battle_attack(thinny, (2,), [(target, {})], {})
    seed = seed_with(2)  # 2 against 2°: a hit, 2 AP lost
    me, it = RULESET.after_attack(made, made.attack.roll(random.Random(seed)))
    assert it.restrained and (it.ap_spent, it.ap_lost) == (3, 0)
    assert it.hp is None and it.armour is None  # front Armour does not stop it; no HP lost
    assert me.ap_spent == 1
    with pytest.raises(InvalidInput) as err:
        RULESET.battle_attack(replace(target, state=it), (0,), [(thinny, {})], {})
    assert err.value.field == "attacker_id"


def test_energy_fire_marks_both_locations_and_blooms_them_over_rounds() -> None:
    thinny = fighter(THINNY)
    target = fighter(FRESH3, key=2)
    made = RULESET.battle_attack(thinny, (3,), [(target, {})], {"range": "close"})
    me, it = RULESET.after_attack(made, made.attack.roll(random.Random(1)))
    assert me.energy_fired and it.energy_fired
    assert bs.new_round(me, THINNY).pre_bloom


def test_attack_rolls_hit_as_often_as_the_odds_say_in_a_battle() -> None:
    """The rolls a battle applies agree with its odds: 20,000 seeded stun-gun shots at 2°
    restrain 2 times in 10 (a d10 at or under 2, by enumeration)."""
    made = RULESET.battle_attack(fighter(THINNY), (2,), [(fighter(FRESH3, key=2), {})], {})
    n = 20_000
    restrained = 0
    for seed in range(n):
        _, it = RULESET.after_attack(made, made.attack.roll(random.Random(seed)))
        restrained += it.restrained
    p = sum(1 for natural in range(1, 11) if natural <= 2) / 10
    assert abs(restrained / n - p) < 4 * (p * (1 - p) / n) ** 0.5
