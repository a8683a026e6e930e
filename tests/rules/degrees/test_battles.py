"""The Degrees battle half of the ruleset: standing, every named action through
``apply_action``, ``after_attack`` from a roll's detail, the log's JSON and its words, and
the refusals that come before anything is rolled."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from app.rules.degrees import battle_state as bs
from app.rules.degrees.battles import UNIT_ACTIONS, DegreesBattleAttack
from app.rules.degrees.ruleset import RULESET
from app.rules.degrees.units import decode_unit
from app.rules.errors import InvalidInput
from app.rules.ruleset import (
    AttackOdds,
    AttackRoll,
    Effect,
    Fighter,
    LineOdds,
    LineRoll,
    Outcome,
    RolledDie,
    TargetOdds,
)

THINNY = decode_unit(
    {
        "name": "Thinny",
        "degree": 2,
        "op": 1,
        "weapons": [{"type": "p_gun"}, {"type": "gas_gun"}, {"type": "stun_gun"}],
    }
)
SIMO = decode_unit({"name": "Simo", "degree": 3, "back_armour": 1, "senses": "audition, vision"})
OPTIONS = RULESET.decode_options(None)


def fighter(unit: Any, state: bs.UnitState | None = None, key: int = 1) -> Fighter:
    return Fighter(key, unit.name, unit, state or bs.UnitState(), OPTIONS)


class NoAttack:
    """Stands for the calculator's attack where only the battle's own checks are tested."""

    ap_cost = 0


def test_a_fresh_unit_stands_as_built() -> None:
    s = RULESET.standing(fighter(SIMO))
    assert s.cells["armour"] == "3/3" and s.cells["hp"] == "3/3" and s.cells["ap"] == "3/3"
    assert s.cells["back_armour"] == "1/1" and not s.out and s.badges == ()
    assert s.actions == ("new_round", "begin", "location", "recon", "visibility")
    assert s.state_out["ap_left"] == 3 and s.state_out["destroyed"] is False
    assert RULESET.decode_state(RULESET.encode_state(RULESET.initial_state(SIMO))) == (
        bs.UnitState()
    )


def test_a_worn_unit_stands_with_its_state_in_cells_badges_and_actions() -> None:
    state = bs.UnitState(
        hp=1,
        armour=0,
        ap_spent=3,
        ap_lost=1,
        restrained=True,
        dampened=("audition",),
        dampened_rounds=2,
        gas=((1, bs.GasGun(3, 0)),),
        bloom=3,
    )
    s = RULESET.standing(fighter(THINNY, state))
    assert s.cells["hp"] == "1/2" and s.cells["ap"] == "0/3" and s.cells["bloom"] == "3"
    assert s.unit.ap == 2 and s.unit.hp == 1 and s.unit.armour == 0
    assert "critically wounded" in s.badges and "restrained" in s.badges
    assert "dampened: Audition (2 rounds)" in s.badges and "1 AP owed" in s.badges
    assert "bloom 3 (incandescent)" in s.badges
    assert any("wrecked" in b for b in s.badges)
    assert s.actions == (
        "new_round",
        "location",
        "visibility",
    )  # restrained, and no AP left to break free
    assert not any(w.ready for w in s.weapons)
    assert [w.cells["degree"] for w in s.weapons] == ["4°", "wrecked", "2°"]
    assert "HP 1/2" in s.status and "restrained" in s.status


def test_a_destroyed_unit_is_out_and_takes_no_action() -> None:
    s = RULESET.standing(fighter(SIMO, bs.UnitState(hp=0)))
    assert s.out and s.badges == ("destroyed",) and s.actions == ()
    with pytest.raises(InvalidInput) as err:
        RULESET.apply_action("new_round", fighter(SIMO, bs.UnitState(hp=0)), {}, random.Random())
    assert err.value.field == "unit"


def test_every_action_through_the_interface() -> None:
    rng = random.Random(5)
    unit = fighter(THINNY, bs.UnitState(ap_spent=1, ap_lost=0, restrained=False))
    done = RULESET.apply_action("draw", unit, {}, rng)
    assert done.after.drawn and done.after.ap_spent == 2 and done.dice == ()
    assert done.summary == "Thinny draws Percussion gun (p-gun) 4°"
    begun = RULESET.apply_action("begin", replace(unit, state=done.after), {"begin_ap": "1"}, rng)
    assert begun.after.carried == 1 and begun.after.ap_spent == 3
    fresh = RULESET.apply_action("new_round", replace(unit, state=begun.after), {}, rng)
    assert fresh.after.ap_spent == 0 and fresh.after.carried == 1
    assert fresh.summary == "Thinny: new round, 3 AP"
    pumped = RULESET.apply_action(
        "pump", replace(unit, state=fresh.after), {"pump_ap": 3, "pump_op": 1}, random.Random(1)
    )
    n = random.Random(1).randint(1, 10)  # the one compression roll, against 3 - 1 OP
    top = 2 - n if n <= 2 else 2
    assert pumped.after.gun(1, THINNY.weapons[1]) == bs.GasGun(3, top)
    assert pumped.after.ap_spent == 3
    assert [d["purpose"] for d in pumped.dice[0]["dice"]] == ["over-compression vs 2°"]
    die = pumped.dice[0]["dice"][0]
    assert die["sides"] == 10 and die["unit_id"] == 1 and die["against"] == 2
    placed = RULESET.apply_action(
        "location", unit, {"location": "  Hex   4 ", "location_bloom": "2"}, rng
    )
    assert placed.after.location == "Hex 4" and placed.after.bloom == 2
    assert placed.summary == "Thinny is at Hex 4, bloom 2"


def test_breaking_free_is_logged_with_its_die() -> None:
    unit = fighter(THINNY, bs.UnitState(restrained=True), key=7)
    seed = next(s for s in range(100) if random.Random(s).randint(1, 10) == 1)
    freed = RULESET.apply_action("break_free", unit, {}, random.Random(seed))
    assert not freed.after.restrained and freed.summary == "Thinny breaks free"
    (line,) = freed.dice
    assert line["kind"] == "break_free" and line["dice"][0]["natural"] == 1
    assert line["dice"][0]["unit_id"] == 7
    held = RULESET.apply_action("break_free", unit, {}, random.Random(seed + 1))
    assert held.after.restrained == (random.Random(seed + 1).randint(1, 10) != 1)


@pytest.mark.parametrize(
    ("name", "state", "values", "field"),
    [
        ("no_such_action", bs.UnitState(), {}, "action"),
        ("break_free", bs.UnitState(), {}, "unit"),
        ("pump", bs.UnitState(), {"pump_ap": "0"}, "pump_ap"),
        ("pump", bs.UnitState(), {"pump_ap": "x"}, "pump_ap"),
        ("pump", bs.UnitState(), {"pump_weapon": "0"}, "pump_weapon"),
        ("pump", bs.UnitState(), {"pump_op": "2"}, "pump_op"),
        ("pump", bs.UnitState(restrained=True), {}, "unit"),
        ("draw", bs.UnitState(restrained=True), {}, "unit"),
        ("begin", bs.UnitState(ap_spent=3), {}, "unit"),
        ("begin", bs.UnitState(), {"begin_ap": "13"}, "begin_ap"),
        ("location", bs.UnitState(), {"location": "x" * 61}, "location"),
        ("location", bs.UnitState(), {"location_bloom": "11"}, "location_bloom"),
    ],
)
def test_an_action_is_refused_by_field(
    name: str, state: bs.UnitState, values: dict[str, object], field: str
) -> None:
    with pytest.raises(InvalidInput) as err:
        RULESET.apply_action(name, fighter(THINNY, state), values, random.Random(0))
    assert err.value.field == field and err.value.reason


def test_every_action_is_named_once_with_fields_of_its_own() -> None:
    names = [a.name for a in UNIT_ACTIONS]
    assert len(names) == len(set(names)) == 8
    fields = [f.name for a in UNIT_ACTIONS for f in a.fields]
    assert len(fields) == len(set(fields))
    situation = {f.name for f in getattr(RULESET, "situation_fields", ())}
    assert not situation & set(fields)


# ------------------------------------------------------------------ attacks


def made(
    attacker: Fighter,
    targets: tuple[Fighter, ...],
    weapons: tuple[int, ...],
    situation: dict[str, Any] | None = None,
) -> DegreesBattleAttack:
    return DegreesBattleAttack(
        attack=NoAttack(),  # type: ignore[arg-type]
        attacker=attacker,
        targets=targets,
        situation=situation or {"carried": 0},
        weapons=weapons,
    )


def test_a_restrained_unit_may_not_attack_and_nothing_is_made() -> None:
    attacker = fighter(THINNY, bs.UnitState(restrained=True))
    with pytest.raises(InvalidInput) as err:
        RULESET.battle_attack(attacker, (2,), [(fighter(SIMO, key=2), {})], {})
    assert err.value.field == "attacker_id" and "break free" in err.value.reason


def test_a_wrecked_gas_gun_does_not_fire() -> None:
    attacker = fighter(THINNY, bs.UnitState(gas=((1, bs.GasGun(2, 0)),)))
    with pytest.raises(InvalidInput) as err:
        RULESET.battle_attack(attacker, (1,), [(fighter(SIMO, key=2), {})], {})
    assert err.value.field == "weapons" and "wrecked" in err.value.reason


def test_after_attack_reads_the_rolls_detail() -> None:
    """A stun-gun hit of 2 on Simo with 1 AP left: 1 paid now, 1 owed; restrained."""
    attacker = fighter(THINNY, bs.UnitState(ap_spent=1))
    target = fighter(SIMO, bs.UnitState(ap_spent=2), key=2)
    roll = AttackRoll(
        (),
        detail={
            "targets": [
                {
                    "armour": 3,
                    "back_armour": 1,
                    "hp": 3,
                    "ap_lost": 2,
                    "restrained": True,
                    "dampened": [],
                }
            ],
            "attacker": {"ap_spent": 1, "gas": {}, "pumped_left": 0},
        },
    )
    me, it = RULESET.after_attack(made(attacker, (target,), (2,)), roll)
    assert me.ap_spent == 2 and not me.energy_fired
    assert (it.armour, it.back_armour, it.hp) == (None, None, None)  # untouched: as built
    assert (it.ap_spent, it.ap_lost, it.restrained) == (3, 1, True)


def test_after_attack_wounds_dampens_and_blooms() -> None:
    unit = decode_unit(
        {
            "name": "SWAT",
            "degree": 3,
            "weapons": [{"type": "sensory_dampener"}, {"type": "gamma_gun"}],
        }
    )
    attacker = fighter(unit, bs.UnitState(carried=1))
    target = fighter(SIMO, bs.UnitState(dampened=("audition",), dampened_rounds=1), key=2)
    roll = AttackRoll(
        (),
        detail={
            "targets": [
                {
                    "armour": 0,
                    "back_armour": 0,
                    "hp": 1,
                    "ap_lost": 3,
                    "restrained": False,
                    "dampened": ["audition", "vision", "nociception"],
                }
            ],
            "attacker": {"ap_spent": 3, "gas": {}, "pumped_left": 0},
        },
    )
    me, it = RULESET.after_attack(made(attacker, (target,), (0, 1), {"carried": 1}), roll)
    assert me.ap_spent == 3 and me.carried == 0 and me.energy_fired
    assert (it.armour, it.back_armour, it.hp) == (0, 0, 1)
    assert it.dampened == ("audition", "vision", "nociception") and it.dampened_rounds == 2
    assert it.ap_spent == 3 and it.energy_fired
    standing = RULESET.standing(replace(target, state=it))
    assert "critically wounded" in standing.badges


def test_after_attack_keeps_a_fired_gas_guns_damaged_max_and_a_drawn_p_gun() -> None:
    attacker = fighter(THINNY, bs.UnitState(gas=((1, bs.GasGun(4, 1)),)))
    target = fighter(SIMO, key=2)
    roll = AttackRoll(
        (),
        detail={
            "targets": [
                {
                    "armour": 0,
                    "back_armour": 0,
                    "hp": 0,
                    "ap_lost": 0,
                    "restrained": False,
                    "dampened": [],
                }
            ],
            "attacker": {"ap_spent": 2, "gas": {"1": {"max": 1}}, "pumped_left": 0},
        },
    )
    me, it = RULESET.after_attack(made(attacker, (target,), (1, 0), {"carried": 4}), roll)
    assert me.gun(1, THINNY.weapons[1]) == bs.GasGun(0, 1) and me.ap_spent == 2
    assert me.drawn  # the p-gun fired is in hand
    assert RULESET.standing(replace(target, state=it)).out


# ------------------------------------------------------------------ the log


def odds() -> AttackOdds:
    outcomes = (
        Outcome("destroyed", "Destroyed", 0.25),
        Outcome("wounded", "Wounded", 0.25),
        Outcome("unharmed", "Unharmed", 0.5),
    )
    line = LineOdds(
        "Stun gun 2°",
        "single",
        (2,),
        (TargetOdds(0, outcomes, (Outcome("restrained", "Restrained", 0.2),)),),
        steps=(("degree", "2°"),),
        notes=(Outcome("gun_damaged", "Gun damaged", 0.1),),
    )
    return AttackOdds((line,), 0.25, expected=0.25, detail={"hp_left": {"3": 0.5}})


def test_the_log_keeps_odds_and_dice_by_unit_id_and_in_words() -> None:
    attack = made(fighter(THINNY), (fighter(SIMO, key=9),), (2,))
    logged = RULESET.log_odds(attack, odds())
    assert logged["lines"][0]["targets"][0] == {
        "unit_id": 9,
        "name": "Simo",
        "outcomes": {"destroyed": 0.25, "wounded": 0.25, "unharmed": 0.5},
        "extras": {"restrained": 0.2},
        "figure": 0,
        "figures": 1,
    }
    assert logged["lines"][0]["notes"] == {"gun_damaged": 0.1}
    assert logged["detail"] == {"hp_left": {"3": 0.5}}
    assert RULESET.odds_words(logged) == [
        "Stun gun 2° on Simo: Destroyed 25.0%, Wounded 25.0%, Unharmed 50.0%, Restrained 20.0%"
    ]
    roll = AttackRoll(
        (
            LineRoll(
                "Stun gun 2°",
                "single",
                (2,),
                (RolledDie("attack", 10, 2, 2, target=0), RolledDie("break_free", 10, 4, 4)),
                (Effect(0, "drained", "2 AP lost", 2, ("restrained",), 2),),
            ),
        )
    )
    (line,) = RULESET.log_roll(attack, roll)
    assert [d["natural"] for d in line["dice"]] == [2, 4]
    assert line["dice"][0]["unit_id"] == 9 and line["dice"][1]["unit_id"] is None
    (effect,) = line["effects"]
    assert effect["unit_id"] == 9 and effect["outcome"] == "drained"
    assert RULESET.effect_words(effect) == "2 damage: AP lost, restrained"
    assert RULESET.effect_words({"outcome": "unharmed", "damage": 0}) == "unharmed"
