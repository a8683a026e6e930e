"""Least Weasels as a unit kind (9.5.3) and recon rolls: the builder's figures and findings,
the Weasel's one 6° attack that destroys it, its -5° detection and its +2 recon, each recon
modifier the text gives, and the odds shown against the enumeration of the d10."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from app.rules.degrees import battle_state as bs
from app.rules.degrees.actions import recon_degree
from app.rules.degrees.ruleset import RULESET
from app.rules.degrees.units import decode_unit, encode_unit
from app.rules.errors import InvalidInput
from app.rules.ruleset import Fighter

OPTIONS = RULESET.decode_options(None)
FERRET = decode_unit(
    {"name": "Ferret", "degree": 4, "op": 2, "weapons": [{"type": "least_weasel"}]}
)
WEASEL = decode_unit({"name": "Weasel 1", "kind": "least_weasel"})
SWAT = decode_unit({"name": "SWAT", "degree": 4, "op": 1})
FRESH3 = decode_unit({"name": "Fresh", "degree": 3})


def fighter(
    unit: Any, state: bs.UnitState | None = None, key: int = 1, side: str = "Red", **more: Any
) -> Fighter:
    return Fighter(key, unit.name, unit, state or bs.UnitState(), OPTIONS, side, **more)


class Die:
    """A d10 that rolls ``natural`` (the enumeration's stand-in for ``random.Random``)."""

    def __init__(self, natural: int) -> None:
        self.natural = natural

    def randint(self, low: int, high: int) -> int:
        assert (low, high) == (1, 10)
        return self.natural


# ------------------------------------------------------------------ the builder


def test_a_least_weasel_is_a_unit_of_the_texts_figures() -> None:
    """ "They each get 2 vanilla APs per round." "They have 1 HP & 1° defenses." Whatever
    else is sent, a Weasel is degree 1, Armour 1, HP 1, 2 AP, no OP, with its own 6° attack
    (the table: "Tactical propulsives ..., Least Weasels" at 6°)."""
    sent = {"name": "W", "kind": "least_weasel", "degree": 7, "armour": 9, "hp": 5, "ap": 6}
    weasel = decode_unit(sent)
    assert (weasel.degree, weasel.armour, weasel.hp, weasel.ap, weasel.op) == (1, 1, 1, 2, 0)
    assert weasel.weasel and weasel.scale == "personnel" and weasel.kind == "least_weasel"
    assert [(w.type, w.degree) for w in weasel.weapons] == [("least_weasel", 6)]
    assert encode_unit(weasel)["kind"] == "least_weasel"
    assert decode_unit(encode_unit(weasel)) == weasel
    # a Personnel unit is not changed by the new kind
    assert not FERRET.weasel and encode_unit(FERRET)["kind"] == "personnel"


def test_a_weasel_costs_what_the_cost_rule_gives_and_its_form_asks_only_its_name() -> None:
    """RULINGS 2.3: "a unit costs its degree, plus the maximum degree of each weapon":
    1 + 6 = 7 DP. The fields the text fixes do not apply to the kind."""
    figures = RULESET.figures(WEASEL, OPTIONS)
    assert figures.cost == 1 + 6 and figures.cost_text == "7 DP"
    assert figures.kind_text == "Least Weasel (drone)" and figures.findings == ()
    form = RULESET.unit_form
    for name in ("degree", "armour", "back_armour", "hp", "ap", "op", "human"):
        assert not form.applies(name, "least_weasel") and form.applies(name, "personnel")
    assert form.applies("name", "least_weasel") and form.applies("senses", "least_weasel")
    assert ("least_weasel", "Least Weasel (a Ferret's drone, Personnel)") in next(
        f.choices for f in RULESET.unit_fields if f.name == "kind"
    )


def test_a_weasel_carries_no_weapon_but_its_one_attack() -> None:
    """ "only get one attack before they are destroyed": a second Weasel attack or any
    other weapon is an error naming it."""
    armed = decode_unit(
        {
            "name": "W",
            "kind": "least_weasel",
            "weapons": [{"type": "least_weasel"}, {"type": "pistol"}, {"type": "least_weasel"}],
        }
    )
    findings = RULESET.figures(armed, OPTIONS).findings
    assert [(f.code, f.severity, f.weapon) for f in findings] == [
        ("weasel_weapon", "error", 1),
        ("weasel_weapon", "error", 2),
    ]
    assert "Pistol" in findings[0].message and "only one attack" in findings[1].message


# ------------------------------------------------------------------ its attack


def test_a_weasels_attack_is_6_degrees_and_destroys_it() -> None:
    """ "Least Weasels may attack at any time, but only get one attack before they are
    destroyed (they are destroyed on attack)." Its 6° attack hits a fresh 3° on a natural
    6 or less (6 of the 10 faces), destroys it on a 6 (1 face); the Weasel is destroyed
    whatever the die, and is no longer in the fight."""
    weasel = fighter(WEASEL)
    target = fighter(FRESH3, key=2, side="Blue")
    made = RULESET.battle_attack(weasel, (0,), [(target, {})], {})
    outcomes = {o.key: o.probability for o in made.attack.odds().lines[0].targets[0].outcomes}
    faces = range(1, 11)
    assert outcomes["unharmed"] == pytest.approx(sum(n > 6 for n in faces) / 10)
    assert outcomes["destroyed"] == pytest.approx(sum(n == 6 for n in faces) / 10)
    for seed in (1, 2, 3):
        me, _ = RULESET.after_attack(made, made.attack.roll(random.Random(seed)))
        standing = RULESET.standing(replace(weasel, state=me))
        assert standing.out and standing.badges == ("destroyed",) and standing.actions == ()
    # a Ferret that fires its Least Weasel as "any normal attack" is not destroyed
    ferret = fighter(FERRET)
    made = RULESET.battle_attack(ferret, (0,), [(target, {})], {})
    me, _ = RULESET.after_attack(made, made.attack.roll(random.Random(1)))
    assert not RULESET.standing(replace(ferret, state=me)).out


def test_a_weasel_has_2_ap_a_round() -> None:
    state = bs.new_round(bs.UnitState(ap_spent=2), WEASEL)
    assert bs.ap_left(state, WEASEL) == 2
    standing = RULESET.standing(fighter(WEASEL))
    assert standing.cells["ap"] == "2/2" and standing.cells["hp"] == "1/1"
    assert standing.badges == ()  # its 1 HP as built is no wound


# ------------------------------------------------------------------ recon


def _enumerated(f: Fighter, **values: Any) -> Fraction:
    """P(the recon succeeds) by rolling every face of the d10 through the action."""
    wins = 0
    for natural in range(1, 11):
        done = RULESET.apply_action("recon", f, values, Die(natural))  # type: ignore[arg-type]
        wins += "succeeds" in done.summary
    return Fraction(wins, 10)


def test_recon_is_1_ap_and_a_d10_against_the_units_degree() -> None:
    """ "SWAT unit recons a location | 1 | 1 | It's a 4° roll that they get with a 2": a 4°
    SWAT spends 1 AP and a 2 succeeds; the odds shown are the enumeration's."""
    swat = fighter(SWAT)
    done = RULESET.apply_action("recon", swat, {}, Die(2))  # type: ignore[arg-type]
    assert done.after.ap_spent == 1
    assert done.summary.startswith("SWAT recons: d10 2 against 4° (4°; 40% chance): succeeds")
    assert "what a recon reveals is left to the players" in done.summary
    die = done.dice[0]["dice"][0]
    assert (die["natural"], die["against"], die["sides"]) == (2, 4, 10)
    assert _enumerated(swat) == recon_degree(SWAT, bs.UnitState()).chance == Fraction(4, 10)


@pytest.mark.parametrize(
    ("values", "state", "degree"),
    [
        # "They are detected at -5° recon rolls"
        ({"recon_weasels": True}, bs.UnitState(), 4 - 5),
        # "give that Ferret (etc.) +2 recon within the Weasel's ambient range"
        ({"recon_weasels": True, "recon_weasel_near": True}, bs.UnitState(), 4 - 5 + 2),
        ({"recon_weasel_near": True}, bs.UnitState(), 4 + 2),
        # "Recon rolls made into / out of / through -3 or greater blooms have a -1 mod"
        ({"recon_bloom": True}, bs.UnitState(), 4 - 1),
        ({}, bs.UnitState(bloom=3), 4 - 1),
        ({"recon_bloom": True}, bs.UnitState(bloom=3), 4 - 1),  # one mod, not two
        ({}, bs.UnitState(bloom=2), 4),
        # Actual: "-1° on defense, evasion, and recon rolls"
        ({}, bs.UnitState(dampened=("actual",), dampened_rounds=1), 4 - 1),
        # an OP moves a roll 1 in the roller's favour (RULINGS 2.1)
        ({"recon_op": 2}, bs.UnitState(), 4 + 2),
        ({"recon_weasels": True, "recon_op": 2}, bs.UnitState(bloom=4), 4 - 5 - 1 + 2),
    ],
)
def test_each_recon_modifier_changes_the_odds_as_the_text_says(
    values: dict[str, Any], state: bs.UnitState, degree: int
) -> None:
    ferret = fighter(FERRET, state, others=(fighter(WEASEL, key=2),))
    read = {k.removeprefix("recon_"): v for k, v in values.items()}
    made = recon_degree(
        FERRET,
        state,
        weasels=bool(read.get("weasels")),
        weasel_near=bool(read.get("weasel_near")),
        through_bloom=bool(read.get("bloom")),
        op=int(read.get("op", 0)),
    )
    assert made.degree == degree
    expected = Fraction(max(0, min(10, degree)), 10)
    assert _enumerated(ferret, **values) == made.chance == expected


def test_the_weasels_plus_2_needs_a_weasel_of_the_side_still_flying() -> None:
    spent = bs.UnitState(hp=0)
    for others in ((), (fighter(WEASEL, key=2, side="Blue"),), (fighter(WEASEL, spent, 2),)):
        with pytest.raises(InvalidInput) as err:
            RULESET.apply_action(
                "recon", fighter(FERRET, others=others), {"recon_weasel_near": True}, Die(1)
            )  # type: ignore[arg-type]
        assert err.value.field == "recon_weasel_near"


@pytest.mark.parametrize(
    ("state", "field", "words"),
    [
        # Telepathy: "Target cannot use or devote APs to psionic telepathy or recon actions"
        (bs.UnitState(dampened=("telepathy",), dampened_rounds=1), "unit", "Telepathy"),
        (bs.UnitState(restrained=True), "unit", "restrained"),
        (bs.UnitState(ap_spent=3), "unit", "needs 1 AP"),
        (bs.UnitState(hp=0), "unit", "destroyed"),
    ],
)
def test_recon_is_refused_where_the_state_forbids_it(
    state: bs.UnitState, field: str, words: str
) -> None:
    with pytest.raises(InvalidInput) as err:
        RULESET.apply_action("recon", fighter(SWAT, state), {}, Die(1))  # type: ignore[arg-type]
    assert err.value.field == field and words in err.value.reason
    assert "recon" not in RULESET.standing(fighter(SWAT, state)).actions


def test_recon_op_is_bounded_by_the_units_op() -> None:
    with pytest.raises(InvalidInput) as err:
        RULESET.apply_action("recon", fighter(SWAT), {"recon_op": 2}, Die(1))  # type: ignore[arg-type]
    assert err.value.field == "recon_op"
