"""Issue 28's gaps, the battle side: bloom built up by the share the engine reports (a dousing
rod's 1/3, set to stun's reduced share), kept exactly; the incandescent environment's 1°
attack rolled at the unit's new round; a missed Flashback's AP kept for anything but a
direct attack; the house rules for the text's other readings (a Flashback's attack AP only,
Nociception's AP at the hit, no gas-gun repair); at most six Least Weasels a Ferret. Each
test quotes the sentence of ``degrees-ch9-weapons.txt`` it follows; every probability is the
enumeration of the d10s (``brute.py``, written apart from the engine)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from app.rules.degrees import battle_state as bs
from app.rules.degrees.actions import act
from app.rules.degrees.ruleset import RULESET
from app.rules.errors import InvalidInput
from app.rules.ruleset import Fighter, TargetInput
from tests.rules.degrees.brute import S, ScriptedDice, enumerate_dice, hits, shot

DEFAULT = RULESET.decode_options(None)


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


def fighter(u: Any, state: bs.UnitState | None = None, key: int = 1, **rules: Any) -> Fighter:
    options = RULESET.decode_options(rules) if rules else DEFAULT
    return Fighter(key, u.name, u, state or bs.UnitState(), options)


def fire(attacker: Fighter, target: Fighter, dice: list[int], **situation: Any) -> Any:
    """The attack as a battle makes it, rolled with ``dice``: (attacker, target) after it."""
    made = RULESET.battle_attack(attacker, (0,), [(target, {})], situation)
    return RULESET.after_attack(made, made.attack.roll(ScriptedDice(dice)))


# ------------------------------------------------------------------ 1. bloom, exactly


def test_battle_bloom_builds_up_by_the_engines_share_kept_exactly() -> None:
    """Dousing Rods "cause a bloom in the host hex at 1/3 the rate of gamma guns"; "Any
    gassy hex [...] fired through by any energy weapon [...] twice in a row blooms"; "Bloomed
    hexes loose 1 level of bloom at the end of any round during which no energy attacks
    pass". The battle adds the share the attack reports (``bloom_share``) to both units'
    locations, a round of fire once (its largest share), and keeps it as a fraction."""
    rod, target = unit(4, "dousing_rod", name="Rod"), unit(3, name="T")
    me, it = bs.UnitState(location="ridge"), bs.UnitState(location="ridge")
    shares = []
    for _ in range(3):  # three rounds of a dousing rod's fire: one round's worth of a γ-gun's
        me, it = fire(fighter(rod, me), fighter(target, it, key=2), [10])  # a miss blooms too
        shares.append((me.energy_fired, it.energy_fired))
        me, it = bs.new_round(me, rod), bs.new_round(it, target)
    assert shares == [(Fraction(1, 3), Fraction(1, 3))] * 3
    assert (me.pre_bloom, me.bloom, it.pre_bloom) == (True, 0, True)  # pre-bloomed at 3/3
    # a γ-gun's round: bloom 1; then a rod's: 1 1/3, shown rounded down with the fraction
    gamma = unit(5, "gamma_gun", "dousing_rod", name="G")
    g, _ = fire(fighter(gamma, me), fighter(target, it, key=2), [10])
    assert g.energy_fired == 1
    g = bs.new_round(g, gamma)
    assert g.bloom == 1
    g, _ = fire(fighter(replace(gamma, weapons=gamma.weapons[1:]), g), fighter(target, key=2), [10])
    g = bs.new_round(g, gamma)
    assert g.bloom == Fraction(4, 3) and bs.bloom_level(g) == 1
    shown = RULESET.standing(fighter(gamma, g))
    assert shown.cells["bloom"] == "1 (4/3)" and "bloom 1 (4/3)" in shown.badges
    # the attack from there suffers the level (1), not the fraction
    made = RULESET.battle_attack(fighter(gamma, g), (0,), [(fighter(target, key=2), {})], {})
    assert made.shown["bloom"] == 1 and ("bloom", "-1°") in made.attack.odds().lines[0].steps
    # stored and read back exactly
    assert bs.encode_state(g)["bloom"] == "4/3"
    assert bs.decode_state(bs.encode_state(g)) == g
    # dissipation: a level a quiet round, the fraction kept: 4/3 -> 1/3 -> 1/3 on the way
    quiet = [bs.new_round(g, gamma)]
    quiet.append(bs.new_round(quiet[-1], gamma))
    quiet.append(bs.new_round(quiet[-1], gamma))
    assert [(q.bloom, q.pre_bloom, q.bloom_build) for q in quiet] == [
        (Fraction(1, 3), True, 0),
        (0, False, Fraction(1, 3)),
        (0, False, 0),
    ]
    # a round of γ-gun and dousing-rod fire counts once: its largest share
    both, _ = fire(fighter(gamma, bs.UnitState()), fighter(target, key=2), [10])
    both = bs.mark_bloom(both, Fraction(1, 3))
    assert both.energy_fired == 1


def test_set_to_stun_builds_the_bloom_up_by_its_reduced_share_in_a_battle() -> None:
    """9.6: "The bloom from radiation weapons, however, can be reduced to the same degree as
    the attenuated attack. [...] If it is reduced, then it is reduced in lock-step with the
    reduction in damage"; "IF the bloom effect is not reduced, then it stays at the same
    level"."""
    gamma, target = unit(5, "gamma_gun", name="G"), unit(3, name="T")
    reduced, _ = fire(fighter(gamma), fighter(target, key=2), [10], set_degree=2, stun_bloom=True)
    full, _ = fire(fighter(gamma), fighter(target, key=2), [10], set_degree=2)
    assert (reduced.energy_fired, full.energy_fired) == (Fraction(2, 5), 1)
    after = bs.new_round(bs.new_round(reduced, gamma), gamma)  # the second round is quiet
    assert after.bloom_build == 0 and not after.pre_bloom
    built = bs.new_round(reduced, gamma)
    assert built.bloom_build == Fraction(2, 5) and not built.pre_bloom
    assert "blooming (2/5 of a pre-bloom)" in RULESET.standing(fighter(gamma, built)).badges


def test_a_stored_bloom_is_read_as_written_and_a_bad_one_refused() -> None:
    assert bs.decode_state({"bloom": 2, "energy_fired": True}).energy_fired == 1  # as stored before
    assert bs.decode_state({"bloom": "7/3"}).bloom == Fraction(7, 3)
    for bad in ({"bloom": "11/1"}, {"bloom": "1/0"}, {"bloom": 1.5}, {"energy_fired": "4/3"}):
        with pytest.raises(InvalidInput) as err:
            bs.decode_state(bad)
        assert err.value.field == f"state.{next(iter(bad))}"


# ------------------------------------------------------------------ 2. the incandescent attack


def test_an_incandescent_location_attacks_each_unit_at_1_degree_at_its_new_round() -> None:
    """Incandescent Blooms: "Any hex with a -3 or greater energy attack mod from blooming also
    has: [...] A 1° attack at the beginning of each round from the environment on each unit in
    that hex". The battle rolls it at each unit's New round (not in an attack: the
    calculator's ``environment`` field is not on a battle's attack form); every face of the
    d10 gives the state the enumeration gives."""
    target = unit(3, name="T", back_armour=1)
    assert "environment" not in {f.name for f in RULESET.battle_situation_fields}
    hot = bs.UnitState(location="ridge", bloom=Fraction(3), pre_bloom=True, energy_fired=1)
    got: dict[tuple[int, int, int], float] = {}
    for natural in range(1, 11):
        done = act("new_round", fighter(target, hot), {}, ScriptedDice([natural]))  # type: ignore[arg-type]
        after = done.after
        (line,) = done.dice
        assert line["dice"][0]["purpose"] == "incandescent bloom vs 1°"
        assert line["dice"][0]["natural"] == natural
        assert "incandescent bloom at 1°" in done.summary
        key = (bs.armour_left(after, target), bs.back_armour_left(after, target))
        key += (bs.hp_left(after, target),)
        got[key] = got.get(key, 0.0) + 0.1
    brute = enumerate_dice(1, lambda dice: shot(S(3, 1, 3), "standard", 1, dice))
    expected: dict[tuple[int, int, int], float] = {}
    for s, p in brute.items():
        expected[(s.armour, s.back, s.hp)] = expected.get((s.armour, s.back, s.hp), 0) + p
    assert got == pytest.approx(expected, abs=1e-12)
    # below incandescence (a -2 bloom left after a quiet round) nothing is rolled
    cooling = replace(hot, energy_fired=Fraction(0))
    done = act("new_round", fighter(target, cooling), {}, ScriptedDice([]))  # type: ignore[arg-type]
    assert done.dice == () and done.after.bloom == 2


# ------------------------------------------------------------------ 3. a Flashback's AP


def test_a_missed_flashbacks_ap_are_for_anything_but_a_direct_attack() -> None:
    """Flashbacks: "Flashbacks only shoot if they hit/suppress. Therefore, a unit that fires a
    Flashback can opt to reuse that AP for something besides a direct attack at that moment."
    The AP come back to the unit's round (a Recon may use them) but not to an attack: a second
    shot, a begun attack or pumping is refused."""
    fb = unit(3, "flashback", name="FB", ap=2)
    target = unit(3, name="T")
    me, _ = fire(fighter(fb), fighter(target, key=2), [10], extend=1)  # 2 AP, a miss
    assert (me.ap_spent, me.ap_reused, bs.ap_left(me, fb), bs.attack_ap_left(me, fb)) == (
        0,
        2,
        2,
        0,
    )
    assert (
        "2 AP of a missed Flashback (not for attacks)" in RULESET.standing(fighter(fb, me)).badges
    )
    with pytest.raises(InvalidInput) as err:
        RULESET.battle_attack(fighter(fb, me), (0,), [(fighter(target, key=2), {})], {})
    assert err.value.field == "weapons" and "missed Flashback" in err.value.reason
    with pytest.raises(InvalidInput):
        bs.begin(me, fb, "FB", 1)
    recon = act("recon", fighter(fb, me), {}, ScriptedDice([1]))  # type: ignore[arg-type]
    assert (recon.after.ap_spent, recon.after.ap_reused) == (1, 1)
    assert bs.new_round(recon.after, fb).ap_reused == 0
    # a hit spends its AP as any shot
    hit, _ = fire(fighter(fb), fighter(target, key=2), [1], extend=1)
    assert (hit.ap_spent, hit.ap_reused) == (2, 0)


def _reused_odds(degree: int, ap: int) -> dict[int, float]:
    """P(AP given back) of one Flashback shot at ``degree`` worth ``ap`` AP, by the d10s."""
    out: dict[int, float] = {}
    for (n,) in ((n,) for n in range(1, 11)):
        back = 0 if hits(n, degree) else ap
        out[back] = out.get(back, 0.0) + 0.1
    return out


def test_the_house_rule_gives_back_only_a_missed_flashbacks_attack_ap() -> None:
    """The same sentence read the other way (house rule ``flashback_attack_ap``): "reuse that
    AP" as the attack's 1 AP only, the extended degrees' AP spent even on a miss."""
    fb = unit(3, "flashback", name="FB", ap=3)
    target = unit(3, name="T")
    rules = RULESET.decode_options({"flashback_attack_ap": True})
    for options, back in ((DEFAULT, 3), (rules, 1)):
        odds = RULESET.attack(fb, (0,), [TargetInput(target)], {"extend": 2}, options).odds()
        # 3° + 2 extended + 1 band (Close): 6°, the shot worth 3 AP
        expected = {k: p for k, p in _reused_odds(6, back).items()}
        assert {int(k): p for k, p in odds.detail["ap_reused"].items()} == pytest.approx(expected)
    me, _ = fire(fighter(fb), fighter(target, key=2), [10], extend=2)
    assert (me.ap_spent, me.ap_reused) == (0, 3)
    me, _ = fire(fighter(fb, flashback_attack_ap=True), fighter(target, key=2), [10], extend=2)
    assert (me.ap_spent, me.ap_reused) == (2, 1)


# ------------------------------------------------------------------ 4. Nociception's AP


def test_the_house_rule_takes_nociceptions_ap_at_the_hit() -> None:
    """Sensory dampeners' table: Nociception, "loosing additional APs to the degree
    nociception is in the list". By default they are lost at each new round while it is
    dampened (the SWAT example's hit loses only the roll's AP); house rule
    ``nociception_at_hit``: at the hit that dampens it, once."""
    swat = unit(4, "sensory_dampener", name="SWAT")
    target = unit(3, name="T", ap=12, senses="Vision, Nociception")
    rules = RULESET.decode_options({"nociception_at_hit": True})
    for options, extra in ((DEFAULT, 0), (rules, 2)):
        odds = RULESET.attack(swat, (0,), [TargetInput(target)], {}, options).odds()
        expected: dict[int, float] = {}
        for n in range(1, 11):  # a 4° dampener: the roll in AP, +2 once Nociception (2nd) is hit
            lost = (n + (extra if n >= 2 else 0)) if hits(n, 4) else 0
            expected[lost] = expected.get(lost, 0.0) + 0.1
        got: dict[int, float] = {}
        for s in odds.detail["states"]:
            got[s["ap_lost"]] = got.get(s["ap_lost"], 0.0) + s["p"]
        assert got == pytest.approx(expected, abs=1e-12)
    # in a battle: a 3 dampens Vision, Nociception
    _, default = fire(fighter(swat), fighter(target, key=2), [3])
    assert default.ap_spent == 3 and bs.new_round(default, target).ap_spent == 2
    hit = fighter(target, key=2, nociception_at_hit=True)
    _, at_hit = fire(fighter(swat, nociception_at_hit=True), hit, [3])
    assert at_hit.ap_spent == 5 and bs.new_round(at_hit, target, rules).ap_spent == 0
    # a second hit while it is still dampened does not take them again
    _, again = fire(fighter(swat, nociception_at_hit=True), replace(hit, state=at_hit), [2])
    assert again.ap_spent == 7
    # the attacker's own dampened Nociception: off its round by default, not under the rule
    hurt = unit(3, "rifle", senses="Nociception")
    by_default = RULESET.attack(hurt, (0,), [TargetInput(target)], {"dampened": 1}, DEFAULT)
    assert by_default.odds().detail["ap_available"] == 2
    ruled = RULESET.attack(hurt, (0,), [TargetInput(target)], {"dampened": 1}, rules)
    assert ruled.odds().detail["ap_available"] == 3


# ------------------------------------------------------------------ 5. gas-gun repair


def test_the_house_rule_leaves_damaged_gas_guns_unrepaired_at_the_end() -> None:
    """ "Damaged gas guns have their new, reduced level as their max for the rest of the
    scenario (assuming spare parts & tools are available)." By default End battle repairs a
    damaged gun; house rule ``no_gas_repair`` (no spare parts): it stays damaged."""
    thinny = unit(2, "gas_gun", name="Thinny")
    damaged = bs.UnitState().with_gun(0, bs.GasGun(1, 1))
    repaired = RULESET.end_battle((fighter(thinny, damaged),))
    assert repaired.others[1].gun(0, thinny.weapons[0]) == bs.GasGun(1, 2)
    kept = RULESET.end_battle((fighter(thinny, damaged, no_gas_repair=True),))
    assert kept.others == {} and kept.summary == ""


# ------------------------------------------------------------------ 6. Weasels per Ferret


def test_a_ferret_fields_at_most_six_least_weasels() -> None:
    """9.5.3: "Ferrets are standard-issued six Least Weasels." A Ferret is a unit carrying the
    tables' Least Weasel ("Ferrets can fire them as any normal attack"); a roster's counts
    count."""
    ferret = unit(4, "least_weasel", name="Ferret")
    weasel = RULESET.decode_unit({"name": "W", "kind": "least_weasel"})
    rifleman = unit(3, "rifle", name="R")
    assert RULESET.roster_findings([(ferret, 1), (weasel, 6), (rifleman, 3)], DEFAULT) == []
    (too_many,) = RULESET.roster_findings([(ferret, 1), (weasel, 4), (weasel, 3)], DEFAULT)
    assert (too_many.code, too_many.severity, too_many.unit) == (
        "weasels_per_ferret",
        "error",
        None,
    )
    assert "fields 7 Least Weasels" in too_many.message and "at most 6" in too_many.message
    assert RULESET.roster_findings([(ferret, 2), (weasel, 12)], DEFAULT) == []
    (none,) = RULESET.roster_findings([(rifleman, 1), (weasel, 1)], DEFAULT)
    assert "no Ferret" in none.message
    # a Weasel is not a Ferret, even with the attack it carries
    assert [f.code for f in RULESET.army_findings([weasel], None, DEFAULT)] == [
        "weasels_per_ferret"
    ]
