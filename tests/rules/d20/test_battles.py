"""The D20 battle half of the ruleset with the real calculator: standing, attacks on the
figurines as they stand (CP left, no Evasion while Shaken), ``after_attack`` from the roll's
detail, charges set off together, the named actions, the log's JSON and words, and the
refusals that come before anything is rolled. Chances are checked against the 20 faces of
the D20 counted by hand."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from app.rules.d20 import battle_state as bs
from app.rules.d20.battles import UNIT_ACTIONS, D20BattleAttack
from app.rules.d20.ruleset import RULESET
from app.rules.d20.units import D20Figurine, decode_unit
from app.rules.errors import InvalidFields, InvalidInput
from app.rules.ruleset import Fighter
from tests.rules.d20 import brute

FCA = decode_unit(
    {
        "name": "Genetic SU",
        "kind": "su",
        "shot": 8,
        "hth": 6,
        "pd": 12,
        "evasion": 3,
        "dexterity": 9,
        "cp": 3,
        "weapons": [
            {"type": "gun", "name": "Rifle", "reach": 60, "power": 6},
            {"type": "searing_grenade"},
            {"type": "lightning_charge"},
            {"type": "lightning_charge"},
            {"type": "hurricane_charge"},
        ],
    }
)
CHRONO = decode_unit({"name": "Psy Chrono", "shot": 7, "pd": 14, "evasion": 6, "cp": 2})
OPTIONS = RULESET.decode_options(None)


def fighter(unit: D20Figurine, state: bs.UnitState | None = None, key: int = 1) -> Fighter:
    return Fighter(key, unit.name, unit, state or bs.UnitState(), OPTIONS)


def chronos(*states: bs.UnitState) -> list[Fighter]:
    return [fighter(CHRONO, s, key=10 + i) for i, s in enumerate(states)]


def brute_wound(bonus: int, defence: int) -> float:
    return sum(1 for d in range(1, 21) if bonus + d > defence) / 20


def act(f: Fighter, name: str, seed: int = 1, **values: Any) -> Any:
    return RULESET.apply_action(name, f, values, random.Random(seed))


COUNTDOWN = {"charge_timer": "countdown", "charge_turns": 3}
BY_HAND = {"charge_timer": "hand"}


def test_a_fresh_figurine_stands_as_built() -> None:
    s = RULESET.standing(fighter(FCA))
    assert s.cells["cp"] == "3/3" and s.cells["evasion"] == "3" and s.cells["defence"] == "15"
    assert not s.out and s.badges == () and s.actions == ("new_turn", "place_charge")
    assert s.state_out == {
        "cp_lost": 0,
        "cp_left": 3,
        "out": False,
        "shaken": False,
        "charges": [],
        "spent": [],
    }
    assert s.unit == FCA
    fresh = RULESET.initial_state(FCA)
    assert RULESET.decode_state(RULESET.encode_state(fresh)) == fresh == bs.UnitState()


def test_the_battle_form_leaves_out_what_the_state_decides() -> None:
    names = [f.name for f in RULESET.battle_situation_fields]
    assert "shaken" not in names and "dl" not in names and "mode" in names
    mode = next(f for f in RULESET.battle_situation_fields if f.name == "mode")
    assert "defuse" not in mode.choice_values and "explosion" in mode.choice_values


def test_the_searing_grenade_on_three_psy_chronos_then_evasion_back_next_turn() -> None:
    """No roll: all three Shaken; they lose their Evasion (a shot at one now has the odds of
    its PD alone) and may not shoot; each gets it back with its next turn."""
    targets = chronos(bs.UnitState(), bs.UnitState(), bs.UnitState())
    made = RULESET.battle_attack(
        fighter(FCA),
        (1,),
        [(t, {}) for t in targets],
        {"mode": "explosion", "distance": 15},
    )
    roll = made.attack.roll(random.Random(3))
    assert all(not line.dice for line in roll.lines)  # nothing rolled
    after = RULESET.after_attack(made, roll)
    assert after[0].spent == (1,)  # the grenade is thrown
    shaken = [RULESET.standing(fighter(CHRONO, s, 10 + i)) for i, s in enumerate(after[1:])]
    assert all(s.state_out["shaken"] and s.cells["evasion"] == "0" for s in shaken)
    assert all(s.unit.evasion == 0 and s.state_out["cp_lost"] == 0 for s in shaken)
    assert all("Shaken (no Evasion) until its next turn" in s.badges for s in shaken)
    assert all(s.actions == ("new_turn",) for s in shaken)
    one = fighter(CHRONO, after[1], 10)
    shot = RULESET.battle_attack(fighter(FCA, after[0]), (0,), [(one, {})], {"distance": 30})
    odds = shot.attack.odds()
    assert shot.shown["shaken_targets"] == ["Psy Chrono"]
    assert odds.lines[0].main.probability("wounded") + odds.lines[0].main.probability(
        "out"
    ) == pytest.approx(brute_wound(8 + 6, 14))
    with pytest.raises(InvalidInput) as err:
        RULESET.battle_attack(one, (), [(fighter(FCA, after[0]), {})], {"mode": "blow"})
    assert err.value.field == "attacker_id"
    with pytest.raises(InvalidInput, match="used up"):
        RULESET.battle_attack(
            fighter(FCA, after[0]), (1,), [(one, {})], {"mode": "explosion", "distance": 5}
        )
    back = act(one, "new_turn")
    assert back.after.shaken is False and back.summary == "Psy Chrono: new turn, no longer Shaken"
    assert RULESET.standing(fighter(CHRONO, back.after)).cells["evasion"] == "6"
    again = RULESET.battle_attack(
        fighter(FCA, after[0]), (0,), [(fighter(CHRONO, back.after), {})], {"distance": 30}
    )
    assert again.attack.odds().lines[0].main.probability("unhurt") == pytest.approx(
        1 - brute_wound(14, 20)
    )


def test_a_wound_takes_cp_and_at_0_cp_the_figurine_is_out() -> None:
    target = fighter(CHRONO, key=10)
    made = RULESET.battle_attack(fighter(FCA), (0,), [(target, {})], {"distance": 10})
    seed = next(s for s in range(1000) if random.Random(s).randint(1, 20) == 20)
    roll = made.attack.roll(random.Random(seed))
    assert roll.detail["targets"][0]["cp_lost"] == 1
    _, hurt = RULESET.after_attack(made, roll)
    assert hurt.cp_lost == 1 and RULESET.standing(fighter(CHRONO, hurt)).cells["cp"] == "1/2"
    made = RULESET.battle_attack(fighter(FCA), (0,), [(fighter(CHRONO, hurt, 10), {})], {})
    _, dead = RULESET.after_attack(made, made.attack.roll(random.Random(seed)))
    s = RULESET.standing(fighter(CHRONO, dead))
    assert s.out and s.cells["cp"] == "0/2" and s.badges == ("out",) and s.actions == ("new_turn",)
    assert s.status.startswith("CP 0/2")
    with pytest.raises(InvalidInput) as err:
        RULESET.battle_attack(fighter(FCA), (0,), [(fighter(CHRONO, dead), {})], {})
    assert err.value.field == "target_id"
    with pytest.raises(InvalidInput) as err:
        RULESET.battle_attack(fighter(CHRONO, dead), (), [(fighter(FCA), {})], {"mode": "blow"})
    assert err.value.field == "attacker_id"


def test_two_p10_charges_placed_together_go_off_as_p20() -> None:
    placed = act(fighter(FCA), "place_charge", charge_weapons="2, 3", **COUNTDOWN)
    assert placed.dice == () and "P20/r10 (2 charges set together), 3 turns left" in (
        placed.summary
    )
    sapper = fighter(FCA, placed.after)
    targets = chronos(bs.UnitState(), bs.UnitState())
    made = RULESET.battle_attack(
        sapper, (2, 3), [(t, {}) for t in targets], {"mode": "explosion", "objects": "10"}
    )
    assert isinstance(made, D20BattleAttack) and made.groups == (1,)
    assert made.shown["charge_power"] == 20
    odds = made.attack.odds()
    for t in odds.lines[0].targets:
        assert 1 - t.probability("unhurt") == pytest.approx(brute_wound(20, 14))  # PD alone
    roll = made.attack.roll(random.Random(5))
    after = RULESET.after_attack(made, roll)
    assert after[0].charges == ()
    for state, rolled in zip(after[1:], roll.detail["targets"], strict=True):
        assert state.cp_lost == rolled["cp_lost"]
    log = RULESET.log_roll(made, roll)
    assert [d["unit_id"] for d in log[0]["dice"]] == [10, 11, None]
    assert all(d["sides"] == 20 for d in log[0]["dice"])


def test_a_charge_goes_off_against_pd_alone_and_a_shot_against_pd_plus_evasion() -> None:
    """RULINGS 3.3: an explosion is "Power of the explosion + 1 D20 / Physical Defense", so
    the Psy Chrono's Evasion 6 does not count against the P15 charge; it does against a shot,
    and not while the Chrono is Shaken."""
    placed = act(fighter(FCA), "place_charge", charge_weapons="4", **COUNTDOWN)
    sapper = fighter(FCA, placed.after)
    targets = chronos(bs.UnitState(), bs.UnitState(shaken=True))
    made = RULESET.battle_attack(sapper, (4,), [(t, {}) for t in targets], {"mode": "explosion"})
    wound = [1 - t.probability("unhurt") for t in made.attack.odds().lines[0].targets]
    assert wound == [pytest.approx(brute_wound(15, 14))] * 2  # 15 + 1..20 > 14: all
    assert brute_wound(15, 14) != brute_wound(15, 14 + 6)
    roll = made.attack.roll(random.Random(2))
    assert [d.purpose for d in roll.lines[0].dice] == ["vs defence 14"] * 2
    for target in targets:
        shot = RULESET.battle_attack(fighter(FCA), (0,), [(target, {})], {"distance": 10})
        (odds,) = shot.attack.odds().lines[0].targets
        evasion = 0 if target.state.shaken else 6
        assert 1 - odds.probability("unhurt") == pytest.approx(brute_wound(14, 14 + evasion))


@pytest.mark.parametrize(
    ("weapons", "situation", "match"),
    [
        ((2,), {"mode": "explosion"}, "not placed"),
        ((3,), {"mode": "explosion"}, "tick all"),
        ((0,), {"mode": "defuse"}, "Defuse"),
        ((0,), {"shaken": True}, "state"),
        ((0,), {"distance": 61}, "Reach"),
    ],
)
def test_a_refused_attack_names_the_field(
    weapons: tuple[int, ...], situation: dict[str, Any], match: str
) -> None:
    state = act(fighter(FCA), "place_charge", charge_weapons="3, 4", **BY_HAND).after
    with pytest.raises(InvalidInput, match=match):
        RULESET.battle_attack(
            fighter(FCA, state), weapons, [(fighter(CHRONO, key=9), {})], situation
        )


def test_a_shaken_placer_may_set_off_only_charges_that_ran_out() -> None:
    state = act(
        fighter(FCA), "place_charge", charge_weapons="4", charge_timer="countdown", charge_turns=1
    ).after
    shaken = bs.after_hurt(state, FCA, 0, True)
    target = [(fighter(CHRONO, key=9), {})]
    with pytest.raises(InvalidInput) as err:
        RULESET.battle_attack(fighter(FCA, shaken), (4,), target, {"mode": "explosion"})
    assert err.value.field == "attacker_id"
    ran_out = bs.after_hurt(act(fighter(FCA, state), "new_turn").after, FCA, 0, True)
    s = RULESET.standing(fighter(FCA, ran_out))
    assert "group 1: P15/r10, run out: go off now" in s.badges and "detonate" in s.actions
    made = RULESET.battle_attack(fighter(FCA, ran_out), (4,), target, {"mode": "explosion"})
    assert made.shown["charge_power"] == 15


def public(state: bs.UnitState) -> bs.UnitState:
    """The state as the read-only link reads it (through ``public_state``)."""
    return RULESET.decode_state(RULESET.public_state(RULESET.encode_state(state)))


def test_a_secret_countdown_is_shown_to_the_owner_only_until_it_runs_out() -> None:
    placed = act(
        fighter(FCA),
        "place_charge",
        charge_weapons="4",
        charge_timer="countdown",
        charge_turns=2,
        charge_secret="on",
    )
    assert "2 turn" not in placed.summary  # the log is read through the link too
    owner = RULESET.standing(fighter(FCA, placed.after))
    assert owner.state_out["charges"][0]["countdown"] == 2
    assert "group 1: P15/r10, secret countdown (0 turns counted): 2 turns left" in owner.badges
    shared = RULESET.standing(fighter(FCA, public(placed.after)))
    assert shared.state_out["charges"][0]["countdown"] is None
    assert "2 turn" not in " ".join(shared.badges) and "2 turn" not in shared.status
    assert "secret countdown (0 turns counted)" in shared.status
    assert RULESET.encode_state(placed.after)["charges"][0]["countdown"] == 2  # for Undo
    state = act(fighter(FCA, placed.after), "new_turn").after
    assert "1 turn left" not in " ".join(RULESET.standing(fighter(FCA, public(state))).badges)
    state = act(fighter(FCA, state), "new_turn").after
    for s in (RULESET.standing(fighter(FCA, state)), RULESET.standing(fighter(FCA, public(state)))):
        assert s.state_out["charges"][0]["countdown"] == 0
        assert s.state_out["charges"][0]["run_out"] is True
        assert "run out after 2 turns" in " ".join(s.badges)


def test_defusing_is_logged_with_its_die_and_the_odds_it_had() -> None:
    state = act(fighter(FCA), "place_charge", charge_weapons="4", **COUNTDOWN).after
    seed = next(s for s in range(1000) if random.Random(s).randint(1, 20) == 7)
    done = act(fighter(FCA, state, key=4), "defuse", seed=seed, defuse_dexterity=9)
    (line,) = done.dice
    assert line["kind"] == "defuse" and line["label"] == "Defuse a charge of Genetic SU"
    (die,) = line["dice"]
    assert (die["natural"], die["value"], die["against"], die["sides"]) == (7, 16, 15, 20)
    assert die["odds"] == brute_defuse(9, 15) and die["unit_id"] == 4
    assert done.after.charges == () and "defused" in done.summary


def brute_defuse(dexterity: int, dl: int) -> float:
    return sum(1 for d in range(1, 21) if dexterity + d > dl) / 20


def test_the_cupboard_action_sets_off_a_p15_charge_with_no_figurine_in_reach() -> None:
    state = act(fighter(FCA), "place_charge", charge_weapons="4", **BY_HAND).after
    seed = next(s for s in range(1000) if random.Random(s).randint(1, 20) == 1)
    done = act(fighter(FCA, state), "detonate", seed=seed, detonate_objects="10")
    (die,) = done.dice[0]["dice"]
    assert (die["natural"], die["value"], die["against"], die["odds"]) == (1, 16, 10, 1.0)
    assert done.summary == "Genetic SU: sets off P15/r10, no timer: object DL 10 destroyed"
    assert done.after.charges == () and done.after.spent == (4,) and done.others == {}


@pytest.mark.parametrize(
    ("action", "values", "field"),
    [
        ("place_charge", {"charge_turns": 0}, "charge_turns"),
        ("place_charge", {"charge_turns": 21}, "charge_turns"),
        ("place_charge", {"charge_weapons": "0", **BY_HAND}, "charge_weapons"),
        ("place_charge", {"charge_weapons": "x"}, "charge_weapons"),
        ("place_charge", {"charge_secret": "maybe"}, "charge_secret"),
        ("place_charge", {"charge_timer": "soon"}, "charge_timer"),
        (
            "place_charge",
            {"charge_weapons": "2", **BY_HAND, "charge_secret": True},
            "charge_secret",
        ),
        (
            "place_charge",
            {"charge_weapons": "2", "charge_timer": "trap", "trap_width": 6},
            "trap_width",
        ),
        ("lay_mine", {}, "mine_weapon"),
        ("lay_mine", {"mine_weapon": 2}, "mine_weapon"),
        ("defuse", {"defuse_dexterity": 9}, "unit"),
        ("defuse", {}, "defuse_dexterity"),
        ("defuse", {"defuse_dexterity": 41}, "defuse_dexterity"),
        ("detonate", {}, "unit"),
        ("trip_trap", {"trip_unit": "1"}, "unit"),
        ("enter_mine", {"trip_unit": "1"}, "unit"),
        ("teleport", {}, "action"),
    ],
)
def test_a_refused_action_names_the_field(action: str, values: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidInput) as err:
        act(fighter(FCA), action, **values)
    assert err.value.field == field


def test_placing_a_charge_names_every_missing_field_at_once() -> None:
    """No silent "first charge, no timer" (issue 27): each missing field is named."""
    with pytest.raises(InvalidFields) as err:
        act(fighter(FCA), "place_charge")
    assert set(err.value.errors) == {"charge_weapons", "charge_timer"}
    with pytest.raises(InvalidFields) as err:
        act(fighter(FCA), "place_charge", charge_timer="countdown")
    assert set(err.value.errors) == {"charge_weapons", "charge_turns"}
    with pytest.raises(InvalidFields) as err:
        act(fighter(FCA), "place_charge", charge_weapons="2", charge_timer="trap")
    assert set(err.value.errors) == {"trap_width"}


def test_a_field_shared_by_actions_is_one_field() -> None:
    """The blast's fields (who and what is in the radius) are shared by the actions that set
    a device off; the page shows each field once, so each name is one definition."""
    by_name: dict[str, Any] = {}
    for a in UNIT_ACTIONS:
        assert len({f.name for f in a.fields}) == len(a.fields)
        for f in a.fields:
            assert by_name.setdefault(f.name, f) is f
    situation = {f.name for f in RULESET.situation_fields}
    assert not situation & set(by_name)


def test_the_logs_words() -> None:
    assert RULESET.effect_words({"outcome": "out", "damage": 2, "flags": ["shaken"]}) == (
        "2 CP lost: out, Shaken"
    )
    assert RULESET.effect_words({"outcome": "unhurt", "damage": 0, "flags": []}) == "unhurt"
    target = fighter(CHRONO, key=10)
    made = RULESET.battle_attack(fighter(FCA), (0,), [(target, {})], {})
    logged = RULESET.log_odds(made, made.attack.odds())
    (words,) = RULESET.odds_words(logged)
    assert words.startswith("Shot: Rifle on Psy Chrono: ")
    assert f"{100 * brute_wound(14, 20):.1f}%" in words


# ------------------------------------------------------------------ devices going off

MINER = decode_unit(
    {
        "name": "Miner",
        "pd": 10,
        "evasion": 2,
        "cp": 2,
        "weapons": [{"type": "hypersensor_mine"}, {"type": "hurricane_charge"}],
    }
)


def placed_by_hand(weapons: str = "2, 3") -> Fighter:
    state = act(fighter(FCA), "place_charge", charge_weapons=weapons, **BY_HAND).after
    return fighter(FCA, state, key=1)


def in_battle(f: Fighter, *others: Fighter, side: str = "red") -> Fighter:
    return replace(f, side=side, others=others)


def test_setting_off_matches_the_enumeration_of_every_die() -> None:
    """Two P10 set together (P20) on two Chronos (PD 14, one in cover: + 5) and the Sapper
    itself (PD 12), each figurine's chances and the number wounded against the 20^3 rolls
    played out by hand (brute.py), and the object's chance against its 20 faces."""
    one, two = chronos(bs.UnitState(), bs.UnitState(cp_lost=1))
    sapper = in_battle(placed_by_hand(), replace(one, side="blue"), replace(two, side="blue"))
    done = act(
        sapper,
        "detonate",
        seed=7,
        detonate_units="10, 11, 1",
        detonate_cover="11",
        detonate_objects="30",
    )
    per, wounded = brute.enumerate_attack([20, 20, 20], [14, 14 + 5, 12], [2, 1, 3])
    assert done.odds is not None
    targets = done.odds["lines"][0]["targets"]
    assert [t["unit_id"] for t in targets] == [10, 11, 1]
    for t, exact in zip(targets, per, strict=True):
        for key in ("out", "wounded", "unhurt"):
            assert t["outcomes"][key] == pytest.approx(float(exact[key]))
    count = done.odds["detail"]["wounded_count"]
    for n, p in wounded.items():
        assert count[str(n)] == pytest.approx(float(p))
    (obj,) = done.odds["detail"]["objects"]
    assert obj["destroyed"] == sum(1 for d in range(1, 21) if 20 + d - 1 >= 30) / 20


def test_every_die_of_a_set_off_is_logged_and_applied_as_rolled() -> None:
    one, two = chronos(bs.UnitState(), bs.UnitState(cp_lost=1))
    sapper = in_battle(placed_by_hand(), one, two)
    rng = random.Random(11)
    naturals = [rng.randint(1, 20) for _ in range(3)]
    done = act(sapper, "detonate", seed=11, detonate_units="10, 11", detonate_objects="22")
    (line,) = done.dice
    assert [(d["natural"], d["value"], d["unit_id"]) for d in line["dice"]] == [
        (naturals[0], 20 + naturals[0], 10),
        (naturals[1], 20 + naturals[1], 11),
        (naturals[2], 20 + naturals[2], None),
    ]
    assert set(done.others) == {10, 11}
    for key, natural, before in ((10, naturals[0], 0), (11, naturals[1], 1)):
        assert done.others[key].cp_lost == before + int(20 + natural > 14)
    gone = 20 + naturals[2] - 1 >= 22
    assert done.summary.endswith(f"object DL 22 {'destroyed' if gone else 'stands'}")
    assert done.after.charges == () and done.after.spent == (2, 3)


def test_a_mine_shakes_every_figurine_in_its_radius_hurt_or_not_friend_or_foe() -> None:
    """The text: "every figurine caught in its explosion radius must stop moving and suffers
    Shaken effect, even if it has suffered no damage"; "any figurine (friend or opponent)"
    sets it off: a figurine of the Miner's own side may (RULINGS D2F11)."""
    laid = act(fighter(MINER), "lay_mine", mine_weapon=0)
    assert laid.after.charges[0].use == "mine" and "F25/r10, mine laid" in laid.summary
    s = RULESET.standing(fighter(MINER, laid.after))
    assert "enter_mine" in s.actions and "lay_mine" not in s.actions
    assert "detonate" not in s.actions and "defuse" not in s.actions
    tough = replace(fighter(CHRONO, key=10), side="red", unit=replace(CHRONO, pd=40))
    miner = in_battle(fighter(MINER, laid.after), tough)
    done = act(miner, "enter_mine", seed=3, trip_unit="Psy Chrono", detonate_units="Miner")
    assert done.others[10].shaken and done.others[10].cp_lost == 0  # unhurt, Shaken
    assert done.after.shaken and done.after.spent == (0,) and done.after.charges == ()
    assert "Psy Chrono comes within F25/r10" in done.summary
    # the odds: every figurine Shaken for sure
    assert done.odds is not None
    assert all(t["extras"]["shaken"] == 1.0 for t in done.odds["lines"][0]["targets"])


def test_a_trap_is_tripped_by_an_opponent_only_and_never_set_off_by_hand() -> None:
    """The text: "When the opponent figurine comes through, breaking the detonator thread,
    it sets off the explosion": a figurine of the placer's side is refused (RULINGS D2F12)."""
    state = act(
        fighter(FCA), "place_charge", charge_weapons="4", charge_timer="trap", trap_width=5
    ).after
    friend = replace(fighter(CHRONO, key=10), side="red")
    foe = replace(fighter(CHRONO, key=11), side="blue", name="Blue Chrono")
    sapper = in_battle(fighter(FCA, state), friend, foe)
    s = RULESET.standing(sapper)
    assert "trip_trap" in s.actions and "detonate" not in s.actions
    with pytest.raises(InvalidInput) as err:
        act(sapper, "trip_trap", trip_unit="10")
    assert err.value.field == "trip_unit" and "side" in err.value.reason
    with pytest.raises(InvalidInput) as err:
        act(sapper, "detonate", detonate_nothing=True)
    assert err.value.field == "unit"
    done = act(sapper, "trip_trap", seed=2, trip_unit="Blue Chrono", detonate_units="10")
    assert list(done.others) == [11, 10]
    assert done.odds is not None
    assert [t["unit_id"] for t in done.odds["lines"][0]["targets"]] == [11, 10]
    assert done.after.charges == () and done.after.spent == (4,)


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({}, "detonate_units"),  # nothing named: no silent "resolves nothing"
        ({"detonate_units": "99"}, "detonate_units"),
        ({"detonate_units": "Psy Chrono"}, "detonate_units"),  # two of that name
        ({"detonate_units": "10, 10"}, "detonate_units"),
        ({"detonate_units": "12"}, "detonate_units"),  # out
        ({"detonate_units": "10", "detonate_cover": "11"}, "detonate_cover"),
        ({"detonate_objects": "10, x"}, "detonate_objects"),
        ({"detonate_objects": "201"}, "detonate_objects"),
        ({"detonate_group": 2, "detonate_nothing": True}, "detonate_group"),
    ],
)
def test_a_refused_set_off_names_the_field_and_changes_nothing(
    values: dict[str, Any], field: str
) -> None:
    one, two, dead = chronos(bs.UnitState(), bs.UnitState(), bs.UnitState(cp_lost=2))
    sapper = in_battle(placed_by_hand(), one, two, dead)
    with pytest.raises(InvalidInput) as err:
        act(sapper, "detonate", **values)
    assert err.value.field == field


def test_two_groups_on_the_table_need_the_group_named() -> None:
    sapper = placed_by_hand("2")
    state = act(sapper, "place_charge", charge_weapons="4", **BY_HAND).after
    with pytest.raises(InvalidInput) as err:
        act(fighter(FCA, state), "detonate", detonate_nothing=True)
    assert err.value.field == "detonate_group" and "1, 2" in err.value.reason
    done = act(fighter(FCA, state), "detonate", detonate_group=2, detonate_nothing=True)
    assert done.summary == "Genetic SU: sets off P15/r10, no timer: nothing caught"
    assert done.dice == () and [c.group for c in done.after.charges] == [1]


def test_a_charge_run_out_goes_off_even_when_its_placer_is_out() -> None:
    """The countdown runs on after the placer is out (its New turn still counts it down),
    and the charges that ran out are set off by the action (RULINGS D2F6)."""
    placed = act(
        fighter(FCA), "place_charge", charge_weapons="4", charge_timer="countdown", charge_turns=1
    ).after
    out = bs.after_hurt(placed, FCA, 3, False)
    s = RULESET.standing(fighter(FCA, out))
    assert s.out and s.actions == ("new_turn", "defuse")
    ran = act(fighter(FCA, out), "new_turn").after
    s = RULESET.standing(fighter(FCA, ran))
    assert "detonate" in s.actions
    target = fighter(CHRONO, key=10)
    done = act(in_battle(fighter(FCA, ran), target), "detonate", detonate_units="10")
    assert done.after.charges == () and 10 in done.others
