"""Issue 28, the attack side: the rules of chapter 9 that change an attack's odds or a unit's
state (the attacker's visibility, suppression, Flashbacks' AP after a miss, dampened senses,
bloom from set-to-stun and dousing rods, the incandescent environment's attack, ballistics'
range in space, jump flashes' OP). Each test quotes the sentence of
``degrees-ch9-weapons.txt`` it follows; every probability is checked against the
enumeration of the d10s in ``brute.py`` (written apart from the engine)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from app.rules.degrees import battle_state as bs
from app.rules.degrees.ruleset import RULESET
from app.rules.ruleset import Fighter, TargetInput
from tests.rules.degrees.brute import S, ScriptedDice, enumerate_dice, shot

OPTIONS = RULESET.decode_options(None)


def unit(degree: int = 3, *weapons: str, **more: Any) -> Any:
    return RULESET.decode_unit(
        {
            "name": more.pop("name", "U"),
            "kind": more.pop("kind", "personnel"),
            "degree": degree,
            "weapons": [{"type": w} for w in weapons],
            **more,
        }
    )


def attack(attacker: Any, target: Any, weapons: tuple[int, ...] = (0,), **situation: Any) -> Any:
    return RULESET.attack(attacker, weapons, [TargetInput(target)], situation, OPTIONS)


def fighter(u: Any, state: bs.UnitState | None = None, key: int = 1) -> Fighter:
    return Fighter(key, u.name, u, state or bs.UnitState(), OPTIONS)


def p_hit(odds: Any) -> float:
    return float(odds.detail["hit"])


# ------------------------------------------------------------------ 1. visibility


def test_a_classical_ballistic_reveals_its_attacker_a_step_each_shot() -> None:
    """9.5.1: "Attacking with a classical ballistic makes the attacker more visible, going
    from fogged to concealed, or concealed to revealed"."""
    rifle = unit(3, "rifle", ap=6)
    odds = attack(rifle, unit(3), shots=3).odds()
    seen = [dict(line.steps)["attacker visibility"] for line in odds.lines]
    assert seen == ["Fogged -> Concealed", "Concealed -> Revealed", "Revealed -> Revealed"]
    assert odds.detail["attacker_visibility_before"] == "fogged"
    assert odds.detail["attacker_visibility"] == "revealed"
    once = attack(rifle, unit(3), visibility="concealed").odds()
    assert once.detail["attacker_visibility"] == "revealed"
    roll = attack(rifle, unit(3), shots=2).roll(random.Random(0))
    assert roll.detail["attacker"]["visibility"] == "revealed"


def test_one_more_ap_keeps_the_evasion_degree_and_rails_never_reveal() -> None:
    """9.5.1: "a unit may expend 1 additional AP to remain at their evasion degree while
    firing a classical ballistic"; "Modern ballistics use rails and so don't suffer the
    reveal that other ballistics do"."""
    rifle = unit(3, "rifle", ap=6)
    hidden = attack(rifle, unit(3), shots=3, stay_hidden=True)
    assert hidden.ap_cost == 6 and attack(rifle, unit(3), shots=3).ap_cost == 3
    odds = hidden.odds()
    assert odds.detail["attacker_visibility"] == "fogged"
    assert dict(odds.lines[0].steps)["attacker visibility"] == "stays Fogged (+1 AP)"
    for weapon in ("modern_pistol", "inter_offer", "dousing_rod", "gamma_gun"):
        odds = attack(unit(4, weapon), unit(3), visibility="concealed").odds()
        assert "attacker_visibility" not in odds.detail, weapon
        assert all("attacker visibility" not in dict(line.steps) for line in odds.lines)


def test_in_a_battle_the_attackers_visibility_is_state_carried_to_its_next_attack() -> None:
    rifleman = fighter(unit(3, "rifle", name="Rifleman"))
    target = fighter(unit(3, name="T"), key=2)
    made = RULESET.battle_attack(rifleman, (0,), [(target, {})], {"visibility": "revealed"})
    assert made.situation["visibility"] == "fogged"  # the state decides, not the form
    me, _ = RULESET.after_attack(made, made.attack.roll(random.Random(0)))
    assert me.visibility == "concealed"
    again = RULESET.battle_attack(replace(rifleman, state=me), (0,), [(target, {})], {})
    me, _ = RULESET.after_attack(again, again.attack.roll(random.Random(1)))
    assert me.visibility == "revealed"
    standing = RULESET.standing(replace(rifleman, state=me))
    assert standing.cells["visibility"] == "revealed" and "revealed" in standing.badges
    assert bs.decode_state(bs.encode_state(me)) == me
    # a γ-gun neither reads nor changes it
    gunner = fighter(unit(5, "gamma_gun", name="G"), bs.UnitState(visibility="concealed"))
    made = RULESET.battle_attack(gunner, (0,), [(target, {})], {})
    me, _ = RULESET.after_attack(made, made.attack.roll(random.Random(0)))
    assert me.visibility == "concealed"


def test_a_revealed_target_gives_an_inter_offer_its_very_far_bonus_in_a_battle() -> None:
    """9.5.1: "Inter-offers gain 1 AP (per round) when attacking revealed targets at Very Far
    range." A battle reads "revealed" from the target's state."""
    simo = fighter(unit(4, "inter_offer", name="Simo"))
    hidden = fighter(unit(3, name="T"), key=2)
    seen = fighter(unit(3, name="T"), bs.UnitState(visibility="revealed"), key=2)
    for target, degree in ((hidden, 4), (seen, 5)):
        made = RULESET.battle_attack(simo, (0,), [(target, {})], {"range": "very_far"})
        brute = enumerate_dice(1, lambda dice, d=degree: shot(S(3, 0, 3), "inter_offer", d, dice))
        assert p_hit(made.attack.odds()) == pytest.approx(
            sum(p for s, p in brute.items() if s != S(3, 0, 3)), abs=1e-12
        )


def test_blooming_reveals_and_incandescence_conceals_the_units_there() -> None:
    """9.5.2 Bloom: "Blooming reveals all units in the bloomed hexes"; Incandescent Blooms:
    "Any units so obscured are automatically concealed and become re-concealed after the end
    of the round"."""
    u = unit(3)
    state = bs.UnitState(location="ridge", pre_bloom=True, energy_fired=True)
    assert bs.new_round(state, u).visibility == "revealed"  # pre-bloomed -> bloom 1
    hot = bs.UnitState(location="ridge", bloom=2, energy_fired=True, visibility="revealed")
    assert bs.new_round(hot, u).visibility == "concealed"  # bloom 3: incandescent
    calm = bs.UnitState(visibility="concealed")
    assert bs.new_round(calm, u).visibility == "concealed"
    moved, _ = bs.set_location(bs.UnitState(), u, "U", "crater", 1)
    assert moved.visibility == "revealed"
    done = RULESET.apply_action(
        "visibility", fighter(u, moved), {"set_visibility": "fogged"}, random.Random(0)
    )
    assert done.after.visibility == "fogged"


# ------------------------------------------------------------------ 2. suppression


def test_a_dousing_rod_suppresses_on_any_hit() -> None:
    """9.5.1 Dousing Rods: "Suppresses on any hit." P(suppressed) = P(at least one of the
    round's shots hits), and the target's states as the enumeration gives them."""
    rod = unit(4, "dousing_rod", ap=6)
    made = attack(rod, unit(3), shots=2)
    odds = made.odds()

    def play(dice: Any) -> tuple[S, bool]:
        d1, d2 = next(dice), next(dice)
        s = shot(S(3, 0, 3), "dousing_rod", 4, iter([d1]))
        s = shot(s, "dousing_rod", 4, iter([d2]))
        return s, d1 <= 4 or d2 <= 4  # any hit suppresses

    brute = enumerate_dice(2, play)
    suppressed = sum(p for (_, any_hit), p in brute.items() if any_hit)
    assert suppressed == pytest.approx(1 - 0.6**2)
    assert odds.detail["suppressed"] == pytest.approx(suppressed, abs=1e-12)
    for n, line in enumerate(odds.lines):
        assert line.main.probability("suppressed") == pytest.approx(1 - 0.6 ** (n + 1))
    # other weapons never suppress, and do not show it
    rifle = attack(unit(3, "rifle"), unit(3)).odds()
    assert "suppressed" not in rifle.detail
    assert all(o.key != "suppressed" for o in rifle.lines[0].main.extras)


def test_a_dousing_rod_hit_marks_the_target_suppressed_in_a_battle() -> None:
    rod = fighter(unit(4, "dousing_rod", name="Rod"))
    target = fighter(unit(3, name="T"), key=2)
    made = RULESET.battle_attack(rod, (0,), [(target, {})], {})
    roll = made.attack.roll(ScriptedDice([2]))  # 2 against 4°: a hit
    assert roll.lines[0].effects[0].flags == ("suppressed",)
    _, it = RULESET.after_attack(made, roll)
    assert it.suppressed_rounds == 2
    standing = RULESET.standing(replace(target, state=it))
    assert "suppressed (2 rounds)" in standing.badges
    it = bs.new_round(it, target.unit)
    assert it.suppressed_rounds == 1 and bs.new_round(it, target.unit).suppressed_rounds == 0
    missed = made.attack.roll(ScriptedDice([7]))
    _, it = RULESET.after_attack(made, missed)
    assert it.suppressed_rounds == 0


# ------------------------------------------------------------------ 3. Flashbacks reuse AP


def test_a_flashbacks_missed_shot_leaves_its_ap_to_reuse() -> None:
    """9.5.2 Flashbacks: "Flashbacks only shoot if they hit/suppress. Therefore, a unit that
    fires a Flashback can opt to reuse that AP for something besides a direct attack at that
    moment." Two 3° shots at Close (+1 band) with 1 extended degree (5°, 2 AP a shot)."""
    fb = unit(3, "flashback", ap=5)
    made = attack(fb, unit(3), shots=2, extend=1)
    assert made.ap_cost == 4
    odds = made.odds()

    def play(dice: Any) -> int:
        return sum(2 for _ in range(2) if next(dice) > 5)  # 5°: a natural above it misses

    brute = enumerate_dice(2, play)
    assert odds.detail["ap_reused"] == pytest.approx(
        {str(k): brute[k] for k in sorted(brute)}, abs=1e-12
    )
    assert odds.detail["attacker_ap_left"] == pytest.approx(
        {str(1 + k): brute[k] for k in sorted(brute)}, abs=1e-12
    )
    assert [line.note("ap_reused") for line in odds.lines] == pytest.approx([0.5, 0.5])
    # other weapons spend their AP hit or miss
    assert "ap_reused" not in attack(unit(3, "rifle"), unit(3)).odds().detail


def test_a_flashbacks_miss_gives_its_ap_back_in_a_battle() -> None:
    fb = fighter(unit(3, "flashback", name="FB"))
    target = fighter(unit(3, name="T"), key=2)
    made = RULESET.battle_attack(fb, (0,), [(target, {})], {"shots": 2, "range": "close"})
    roll = made.attack.roll(ScriptedDice([9, 3]))  # a miss (9 > 4°), then a hit
    assert [line.notes for line in roll.lines] == [("ap_reused",), ()]
    me, _ = RULESET.after_attack(made, roll)
    assert me.ap_spent == 1 and bs.ap_left(me, fb.unit) == 2


# ------------------------------------------------------------------ 4. dampened senses


def _final_states(odds: Any) -> dict[tuple[int, int, int], float]:
    out: dict[tuple[int, int, int], float] = {}
    for s in odds.detail["states"]:
        key = (s["armour"], s["back_armour"], s["hp"])
        out[key] = out.get(key, 0.0) + s["p"]
    return out


def test_a_dampened_fine_motor_control_is_minus_1_degree_on_the_attackers_attacks() -> None:
    """Sensory dampeners' table: "Fine Motor Control | -1° attack and evasion rolls -1 AP for
    movements"."""
    shaky = unit(3, "rifle", senses="Fine Motor Control, Vision")
    for dampened, degree in ((0, 3), (1, 2), (2, 2)):
        odds = attack(shaky, unit(3), dampened=dampened).odds()
        brute = enumerate_dice(
            1, lambda dice, d=degree: shot(S(3, 0, 3), "classical_ballistic", d, dice)
        )
        expected: dict[tuple[int, int, int], float] = {}
        for s, p in brute.items():
            expected[(s.armour, s.back, s.hp)] = expected.get((s.armour, s.back, s.hp), 0) + p
        assert _final_states(odds) == pytest.approx(expected, abs=1e-12)
        assert ("final degree", f"{degree}°") in odds.lines[0].steps
    odds = attack(shaky, unit(3), dampened=1).odds()
    assert ("Fine Motor Control dampened", "-1°") in odds.lines[0].steps
    assert odds.detail["attacker_senses"] == [
        "Fine Motor Control: -1° evasion rolls and -1 AP for movements"
    ]
    # the senses the order puts later are not dampened by a smaller N
    plain = attack(unit(3, "rifle"), unit(3), dampened=3).odds()  # Vision, Audition, Nociception
    assert ("final degree", "3°") in plain.lines[0].steps


def test_a_dampened_nociception_costs_its_place_in_the_order_in_ap() -> None:
    """Sensory dampeners' table: "Nociception | Feels constant and severe pain, loosing
    additional APs to the degree nociception is in the list"."""
    hurt = unit(3, "rifle", ap=3, senses="Audition, Nociception, Gross Motor Control")
    assert attack(hurt, unit(3), dampened=1).problems() == ()
    made = attack(hurt, unit(3), shots=2, dampened=2)
    assert made.problems() == ("needs 2 AP; U has 1 this round.",)
    assert made.odds().detail["nociception_ap"] == 2
    made = attack(hurt, unit(3), dampened=3)
    assert made.odds().detail["attacker_senses"] == ["Gross Motor Control: -2 AP for movements"]
    # a given AP this round is what is left: Nociception is not taken twice
    assert attack(hurt, unit(3), shots=2, dampened=2, ap=2).problems() == ()


def test_in_a_battle_nociception_costs_ap_in_the_round_after_the_hit() -> None:
    """The SWAT's example: order "Audition, Vision, Analgesia, and Nociception", a hit of 4:
    "The target looses 4 AP" in the round of the hit; Nociception, 4th in the list, costs 4
    more in the next round (the dampening lasts "the rest of the current and all of the next
    round")."""
    target = unit(3, ap=6, senses="Audition, Vision, Analgesia, Nociception")
    state = bs.UnitState(
        dampened=("audition", "vision", "analgesia", "nociception"), dampened_rounds=2
    )
    state = bs.new_round(state, target)
    assert bs.ap_left(state, target) == 6 - 4
    state = bs.new_round(state, target)  # dampening over
    assert bs.ap_left(state, target) == 6 and state.dampened == ()


def test_in_a_battle_the_attackers_dampened_senses_come_from_its_state() -> None:
    shaky = unit(3, "rifle", name="Shaky", senses="Fine Motor Control")
    target = fighter(unit(3, name="T"), key=2)
    state = bs.UnitState(dampened=("fine_motor",), dampened_rounds=1)
    made = RULESET.battle_attack(fighter(shaky, state), (0,), [(target, {})], {"dampened": 0})
    assert made.situation["dampened"] == 1
    assert ("final degree", "2°") in made.attack.odds().lines[0].steps
    over = RULESET.battle_attack(
        fighter(shaky, replace(state, dampened_rounds=0)), (0,), [(target, {})], {}
    )
    assert ("final degree", "3°") in over.attack.odds().lines[0].steps


# ------------------------------------------------------------------ 5. bloom


def test_an_incandescent_bloom_attacks_the_target_at_1_degree_first() -> None:
    """Incandescent Blooms: "Any hex with a -3 or greater energy attack mod from blooming also
    has: -1 attack from any weapon into / out of / through that hex; A 1° attack at the
    beginning of each round from the environment on each unit in that hex"."""
    rifle = unit(3, "rifle")
    odds = attack(rifle, unit(3), bloom=3, environment=True).odds()
    assert [line.label for line in odds.lines] == ["Incandescent bloom (1°)", "Rifle 3°"]
    assert odds.lines[0].weapons == ()

    def play(dice: Any) -> S:
        s = shot(S(3, 0, 3), "standard", 1, dice)
        return shot(s, "classical_ballistic", 3 - 1, dice)  # the rifle at -1 (incandescent)

    expected: dict[tuple[int, int, int], float] = {}
    for s, p in enumerate_dice(2, play).items():
        expected[(s.armour, s.back, s.hp)] = expected.get((s.armour, s.back, s.hp), 0) + p
    assert _final_states(odds) == pytest.approx(expected, abs=1e-12)
    roll = attack(rifle, unit(3), bloom=3, environment=True).roll(ScriptedDice([1, 10]))
    assert roll.lines[0].dice[0].purpose == "attack vs 1°"
    assert roll.detail["targets"][0]["hp"] == 2  # the natural 1 on the back line
    # below incandescence there is none
    assert len(attack(rifle, unit(3), bloom=2, environment=True).odds().lines) == 1


def test_set_to_stun_may_reduce_the_bloom_and_dousing_rods_bloom_at_a_third() -> None:
    """9.6: "The bloom from radiation weapons, however, can be reduced to the same degree as
    the attenuated attack. [...] If it is reduced, then it is reduced in lock-step with the
    reduction in damage"; Dousing Rods: "cause a bloom in the host hex at 1/3 the rate of
    gamma guns"."""
    gamma = unit(5, "gamma_gun")
    full = attack(gamma, unit(3), set_degree=2).odds()
    reduced = attack(gamma, unit(3), set_degree=2, stun_bloom=True).odds()
    assert full.detail["bloom_share"] == "1" and reduced.detail["bloom_share"] == "2/5"
    assert ("bloom caused", "2/5 of a γ-gun's") in reduced.lines[0].steps
    assert reduced.detail["hit"] == pytest.approx(0.2)  # the 2° shot either way
    rod = attack(unit(4, "dousing_rod"), unit(3)).odds()
    assert rod.detail["bloom_share"] == "1/3"
    assert "bloom_share" not in attack(unit(3, "rifle"), unit(3)).odds().detail


def test_the_optional_rule_reduces_energy_weapons_range_by_bloom() -> None:
    """Bloom: "Optional rule (for Worlds or single battlefields): Blooms reduce energy weapon
    ranges: Pre-bloom: No distance mod; -1 blooms: Range reduced to 1/2; 2: Reduced to 1/3"."""
    gamma = unit(5, "gamma_gun")
    house = RULESET.decode_options({"bloom_range": True})
    made = RULESET.attack(gamma, (0,), [TargetInput(unit(3))], {"bloom": 2}, house)
    assert made.odds().detail["energy_range"] == "1/3"
    assert ("range (optional rule)", "1/3") in made.odds().lines[0].steps
    assert "energy_range" not in attack(gamma, unit(3), bloom=2).odds().detail
    assert RULESET.encode_options(house)["bloom_range"] is True


# ------------------------------------------------------------------ 6. space


def test_ballistics_in_space_reach_present_or_close_and_are_at_most_2_degrees() -> None:
    """9.5.1: "Ballistics in space are only ever 1° or 2° in mag & range"."""
    space = RULESET.decode_options({"in_space": True})

    def problems(weapon: str, degree: int, **situation: Any) -> tuple[str, ...]:
        made = RULESET.attack(unit(3, weapon), (0,), [TargetInput(unit(3))], situation, space)
        return tuple(made.problems())

    assert problems("smg", 2, range="close") == ()
    assert problems("smg", 2, range="far") == (
        "SMG 2°: ballistics in space reach only Present or Close (1° or 2° in range), not Far.",
    )
    assert problems("rifle", 3, range="present") == (
        "Rifle 3°: ballistics in space are at most 2°, not 3°.",
    )
    assert problems("rifle", 3, range="present", set_degree=2) == ()
    assert problems("gamma_gun", 5, range="far") == ()  # not a ballistic
    made = attack(unit(3, "smg"), unit(3), range="far")  # not in space
    assert made.problems() == ()


# ------------------------------------------------------------------ 7. jump flashes


def test_a_jump_flashs_op_are_shown_and_the_amount_is_the_players() -> None:
    """Jump Flashes: "their usage costs loads of OPs to use" (no number: the players'). The
    OP are shown; the shot's odds do not change."""
    flash = unit(10, "a_jump_flash", kind="army")
    target = unit(3, kind="army")
    plain, paid = attack(flash, target).odds(), attack(flash, target, jump_op=7).odds()
    assert paid.detail["jump_op"] == 7
    assert ("OP to fire (the players' amount)", "7") in paid.lines[0].steps
    assert paid.detail["states"] == plain.detail["states"]


def test_the_house_rule_reveals_the_attacker_once_a_round() -> None:
    """The other reading of "Attacking with a classical ballistic makes the attacker more
    visible": once an attack (a round), not once a shot (house rule ``reveal_once``)."""
    once = RULESET.decode_options({"reveal_once": True})
    rifle = unit(3, "rifle", ap=6)
    made = RULESET.attack(rifle, (0,), [TargetInput(unit(3))], {"shots": 3}, once)
    odds = made.odds()
    assert odds.detail["attacker_visibility"] == "concealed"
    assert (
        dict(odds.lines[1].steps)["attacker visibility"]
        == "stays Concealed (revealed once a round)"
    )
    assert attack(rifle, unit(3), shots=3).odds().detail["attacker_visibility"] == "revealed"
