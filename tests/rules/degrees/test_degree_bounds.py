"""RULINGS 2.1 as a property of the whole Degrees engine: a roll whose final degree is 0 or
less never succeeds, one of 10 or more always does, for every weapon type of the catalogue
and every path a roll takes: the first roll (the stateless body), a punch gun's penetrating
second roll, an area attack on several units, a whole round of shots, and stun (set to a
lower degree, stun guns and sensory dampeners, the break-free roll).

Each property is checked on the exact odds and on rolls, both with dice Hypothesis draws and
with a seeded ``random.Random``. The one exception is the rule's own: an inverted roll (AM
converters) succeeds only on a natural 1 (RULINGS 2.1), so at 10° or more it succeeds on
exactly that one face; at 0° or less it never does, like every other roll.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from app.rules.degrees.catalogue import WEAPON_TYPES, WEAPONS, CatalogueWeapon
from app.rules.degrees.plan import DegreesAttack
from app.rules.degrees.ruleset import RULESET
from app.rules.degrees.shot import Target, outcomes
from app.rules.ruleset import TargetInput
from tests.rules.degrees.brute import S, ScriptedDice, back_line, front

OPTIONS = RULESET.decode_options(None)
TYPES = sorted(WEAPON_TYPES)
AREA_TYPES = sorted(t for t, k in WEAPON_TYPES.items() if k.area)
STUN_TYPES = sorted(t for t, k in WEAPON_TYPES.items() if k.drains_ap)
SECOND_ROLL_TYPES = sorted(t for t, k in WEAPON_TYPES.items() if k.penetrate_penalty)
SIDES = ("never", "always")  # final degree 0 or less; 10 or more
PROPERTY = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much]
)


def on_side(side: str, degree: int) -> bool:
    return degree <= 0 if side == "never" else degree >= 10


def finals(side: str) -> st.SearchStrategy[int]:
    return st.integers(-19, 0) if side == "never" else st.integers(10, 30)


def test_the_paths_cover_the_catalogue() -> None:
    """Every weapon type has a catalogue weapon to fire, and each special path has types."""
    assert {w.type for w in WEAPONS.values()} == set(WEAPON_TYPES)
    assert AREA_TYPES and STUN_TYPES and SECOND_ROLL_TYPES == ["punch_gun"]


def weapon_of(type_id: str) -> CatalogueWeapon:
    """The type's first catalogue weapon, Personnel where there is one."""
    of_type = [w for w in WEAPONS.values() if w.type == type_id]
    return next((w for w in of_type if w.scale == "personnel"), of_type[0])


targets = st.builds(
    S,
    armour=st.integers(0, 8),
    back=st.integers(0, 3),
    hp=st.integers(1, 8),
)
naturals = st.lists(st.integers(1, 10), min_size=40, max_size=40)


def state(t: dict[str, Any]) -> S:
    return S(
        t["armour"], t["back_armour"], t["hp"], t["ap_lost"], t["restrained"], len(t["dampened"])
    )


def unit(scale: str, degree: int, **more: Any) -> Any:
    return RULESET.decode_unit({"name": "U", "kind": scale, "degree": degree, **more})


def target_unit(scale: str, s: S) -> Any:
    return unit(scale, 3, armour=s.armour, back_armour=s.back, hp=s.hp)


def made_with(
    weapon: CatalogueWeapon,
    weapon_degree: int,
    starts: list[S],
    locations: list[str] | None = None,
    figures: list[int] | None = None,
    **situation: Any,
) -> DegreesAttack:
    squads = figures or [1] * len(starts)
    attacker = unit(
        weapon.scale,
        5,
        weapons=[{"type": weapon.id, "degree": weapon_degree}],
        human=True,
    )
    inputs = [TargetInput(target_unit(weapon.scale, starts[0]), figures=squads[0])] + [
        TargetInput(target_unit(weapon.scale, s), {"location": loc}, figures=k)
        for s, loc, k in zip(starts[1:], locations or [], squads[1:], strict=True)
    ]
    return RULESET.attack(attacker, (0,), inputs, {"ap": 12, **situation}, OPTIONS)


def final_degrees(made: DegreesAttack) -> list[int]:
    """Each line's final degree at the main target, as its steps show it (a gas gun's: its
    pumping plus its modifiers)."""
    out = []
    for line in made.odds().lines:
        steps = dict(line.steps)
        if "final degree" in steps:
            out.append(int(steps["final degree"].rstrip("°")))
        else:
            pumped = int(steps["pumped"].split()[0]) + int(steps["pumped"].split()[3])
            mods = sum(int(v.rstrip("°")) for k, v in line.steps if v.endswith("°"))
            out.append(pumped + mods)
    return out


def main_states(made: DegreesAttack) -> dict[S, float]:
    detail = made.odds().detail
    return {
        S(s["armour"], s["back_armour"], s["hp"], s["ap_lost"]): s["p"] for s in detail["states"]
    }


def rolls(made: DegreesAttack, dice: list[int], seed: int) -> list[Any]:
    return [made.roll(ScriptedDice(dice)), made.roll(random.Random(seed))]  # type: ignore[arg-type]


def attack_dice(roll: Any, target: int = 0) -> list[int]:
    return [
        d.natural
        for line in roll.lines
        for d in line.dice
        if d.purpose.startswith("attack") and d.target == target
    ]


def assert_never(made: DegreesAttack, start: S, dice: list[int], seed: int) -> None:
    """No shot of the round succeeds: the odds leave the target as it was with certainty, and
    every roll does, every attack die dealing nothing."""
    detail = made.odds().detail
    assert detail["hit"] == 0.0
    assert detail["restrained"] == 0.0
    assert main_states(made) == pytest.approx({S(start.armour, start.back, start.hp): 1.0})
    for line in made.odds().lines:
        assert line.targets[0].probability("unharmed") == pytest.approx(1.0)
    for roll in rolls(made, dice, seed):
        assert state(roll.detail["targets"][0]) == start
        for line in roll.lines:
            assert all(e.damage is None and e.amount == 0 for e in line.effects), line


def assert_always(made: DegreesAttack, start: S, dice: list[int], seed: int, type_id: str) -> None:
    """Every shot of the round succeeds (an inverted roll: exactly on a natural 1), on the
    exact odds of each shot and of the round, and in every roll. (A punch gun's penetrating
    roll is a roll of its own, at 2° less, which may fail below 10°.)"""
    kind = WEAPON_TYPES[type_id]
    inv = kind.inverted
    target = Target(start.armour, start.back, start.hp)
    for planned, degree in zip(made.shots, final_degrees(made), strict=True):
        shot = planned.shots[0]
        assert shot is not None
        if planned.gas >= 0:  # a gas gun's shot takes its degree from the pumping
            shot = replace(shot, degree=degree)
        assert shot.degree == degree
        hit = sum(p for p, _, dealt in outcomes(shot, target) if dealt)
        assert hit == pytest.approx(0.1 if inv else 1.0)
    detail = made.odds().detail
    if not inv:
        assert detail["hit"] == pytest.approx(1.0)
    if not inv and min(final_degrees(made)) - kind.penetrate_penalty >= 10:
        assert main_states(made).get(S(start.armour, start.back, start.hp), 0.0) == 0.0
    for roll in rolls(made, dice, seed):
        for line in roll.lines:
            naturals_rolled = [d.natural for d in line.dice if d.purpose.startswith("attack")]
            assert len(naturals_rolled) == 1, line
            hit = line.effects[0].damage is not None
            assert hit == (naturals_rolled[0] == 1 if inv else True), line


# ---------------------------------------------------------------- the first roll


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("type_id", TYPES)
@PROPERTY
@given(
    data=st.data(),
    degree=st.integers(1, 10),
    op=st.integers(0, 10),
    start=targets,
    ap=st.integers(0, 12),
    penetrates_on=st.none() | st.integers(0, 10),
    dice=naturals,
    seed=st.integers(0, 2**32),
)
def test_the_first_roll_of_every_type(
    type_id: str,
    side: str,
    data: st.DataObject,
    degree: int,
    op: int,
    start: S,
    ap: int,
    penetrates_on: int | None,
    dice: list[int],
    seed: int,
) -> None:
    final = data.draw(finals(side), label="final")
    modifier = final - degree - op
    assume(-20 <= modifier <= 20)
    attack: dict[str, Any] = {"type": type_id, "degree": degree, "modifier": modifier, "op": op}
    if penetrates_on is not None:
        attack["penetrates_on"] = penetrates_on
    made = RULESET.attack_from_body(
        {
            "attack": attack,
            "target": {"armour": start.armour, "back_armour": start.back, "hp": start.hp, "ap": ap},
        }
    )
    assert final_degrees(made) == [final]
    if final <= 0:
        assert_never(made, start, dice, seed)
    else:
        assert_always(made, start, dice, seed, type_id)


# ---------------------------------------------------------------- the penetrating second roll


@pytest.mark.parametrize("route", ["body", "units"])
@pytest.mark.parametrize("type_id", SECOND_ROLL_TYPES)
@PROPERTY
@given(data=st.data(), start=targets, seed=st.integers(0, 2**32))
def test_a_penetrating_second_roll_at_0_or_less_is_never_made_and_at_10_never_fails(
    type_id: str, route: str, data: st.DataObject, start: S, seed: int
) -> None:
    penalty = WEAPON_TYPES[type_id].penetrate_penalty
    # the first roll hits on a natural 1; the second is at final - penalty
    final = data.draw(st.integers(1, penalty) | st.integers(10 + penalty, 20), label="final")
    if route == "body":
        made = RULESET.attack_from_body(
            {
                "attack": {"type": type_id, "degree": 10, "modifier": final - 10},
                "target": {"armour": start.armour, "back_armour": start.back, "hp": start.hp},
            }
        )
    else:  # between units: set to the degree (stun), OP above 10°; no range penalty
        made = made_with(
            weapon_of(type_id),
            10,
            [start],
            set_degree=min(final, 10),
            op=max(0, final - 10),
            range="present",
            medium="void",
        )
    assert final_degrees(made) == [final]
    states = main_states(made)
    if final <= penalty:
        # exactly the front-line outcomes: the point of a natural 1 on the front, never a
        # back-line point nor a tried-and-failed second roll
        expected: dict[S, float] = {}
        for natural in range(1, 11):
            after = front(start, natural) if natural <= final else start
            expected[after] = expected.get(after, 0.0) + 0.1
        assert states == pytest.approx(expected)
    else:
        # every natural hits, and no penetrating roll ever fails (which would leave it as is)
        assert states.get(start, 0.0) == 0.0
    for second in range(1, 11):
        roll = made.roll(ScriptedDice([1, second]))  # type: ignore[arg-type]
        dice = roll.lines[0].dice
        after = state(roll.detail["targets"][0])
        if final <= penalty:
            assert len(dice) == 1
            assert after == front(start, 1)
            assert f"a back-line roll at {final - penalty}° cannot succeed" in (
                roll.lines[0].effects[0].words
            )
        elif len(dice) == 2:
            assert dice[1].purpose == f"back line vs {final - penalty}°"
            assert after == back_line(start, 1)
        else:
            assert after == front(start, 1)
    if final > penalty:  # whatever the dice, the target is never left as it was
        for roll in rolls(made, [1] * 40, seed):
            assert state(roll.detail["targets"][0]) != start


# ---------------------------------------------------------------- area attacks


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("type_id", AREA_TYPES)
@PROPERTY
@given(
    weapon_degree=st.integers(1, 10),
    set_degree=st.sampled_from([0, 1, 1, 2]),
    op=st.sampled_from([0, 0, 8, 10]),
    extend=st.integers(0, 2),
    bloom=st.sampled_from([0, 3]),
    starts=st.lists(targets, min_size=1, max_size=4),
    data=st.data(),
    dice=naturals,
    seed=st.integers(0, 2**32),
)
def test_an_area_attack_rolls_each_unit_at_its_own_degree(
    type_id: str,
    side: str,
    weapon_degree: int,
    set_degree: int,
    op: int,
    extend: int,
    bloom: int,
    starts: list[S],
    data: st.DataObject,
    dice: list[int],
    seed: int,
) -> None:
    locations = data.draw(
        st.lists(
            st.sampled_from(["here", "close", "far"]),
            min_size=len(starts) - 1,
            max_size=len(starts) - 1,
        ),
        label="locations",
    )
    # squads: each target 1-3 figurines, each attacked with dice of its own
    figures = data.draw(
        st.lists(st.integers(1, 3), min_size=len(starts), max_size=len(starts)), label="figures"
    )
    made = made_with(
        weapon_of(type_id),
        weapon_degree,
        starts,
        locations,
        figures,
        set_degree=set_degree,
        op=op,
        extend=extend,
        bloom=bloom,
    )
    # each unit's degree written out apart from the engine: RULINGS 2.4
    base = min(set_degree, weapon_degree) if set_degree else weapon_degree
    offset = extend + op - (1 if bloom >= 3 else 0)
    penalty = {"here": 0, "close": -1, "far": -2}
    degrees = [base + offset] + [base + offset + penalty[loc] for loc in locations]
    assert [s.degree for s in made.shots[0].shots if s is not None] == degrees
    assume(any(on_side(side, d) for d in degrees))
    line = made.odds().lines[0]
    rolled = rolls(made, dice, seed)
    first = 0  # the index of the target's first figurine's effect
    for i, (d, start, k) in enumerate(zip(degrees, starts, figures, strict=True)):
        if 0 < d < 10:
            first += k
            continue
        (odds,) = [t for t in line.targets if t.target == i]  # alike figurines: one entry
        assert (odds.figure, odds.figures) == (0, k)
        assert odds.probability("unharmed") == pytest.approx(0.0 if d >= 10 else 1.0)
        for roll in rolled:
            for f in range(k):
                effect = roll.lines[0].effects[first + f]
                assert (effect.target, effect.figure) == (i, f)
                assert (effect.damage is not None) == (d >= 10)
                rolled_target = roll.detail["targets"][i]
                after = state(rolled_target["figures"][f] if k > 1 else rolled_target)
                assert (after != start) == (d >= 10)
        first += k


# ---------------------------------------------------------------- a whole round and stun


def _round(
    type_id: str, side: str, data: st.DataObject, shots: int, stun: bool
) -> tuple[DegreesAttack, list[int]]:
    """A round of ``shots`` with the type's catalogue weapon, its degree moved by the
    situation's modifiers (set to stun: a lower degree chosen) towards ``side``."""
    kind = WEAPON_TYPES[type_id]
    weapon_degree = data.draw(st.integers(1, 10), label="weapon degree")
    never = side == "never"
    situation: dict[str, Any] = {
        "shots": shots,
        "op": data.draw(st.just(0) if never else st.integers(7, 10), label="op"),
        "extend": data.draw(st.just(0) if never else st.integers(0, 2), label="extend"),
        "bloom": data.draw(st.sampled_from([3, 4, 6] if never else [0, 1, 3]), label="bloom"),
        "range": data.draw(st.sampled_from(["present", "close", "far"]), label="range"),
        "penetrate": data.draw(st.sampled_from(["best", "never"]), label="penetrate"),
    }
    if kind.punch:
        situation["medium"] = data.draw(st.sampled_from(["void", "heavy"]), label="medium")
    if kind.restrains:
        situation["break_free"] = data.draw(st.booleans(), label="break free")
    if kind.gas:
        # pumped within the gun's max (no over-compression roll): its degree is the pumping
        situation["range"] = "present"
        pump = st.just(1) if never else st.integers(1, weapon_degree)
        situation["pump"] = data.draw(pump, label="pump")
    elif stun or never or data.draw(st.booleans(), label="set to stun"):
        low = st.integers(1, 2) if never else st.integers(1, 10)
        situation["set_degree"] = data.draw(low, label="set degree")
    made = made_with(weapon_of(type_id), weapon_degree, [_start(data)], **situation)
    return made, final_degrees(made)


def _start(data: st.DataObject) -> S:
    return data.draw(targets, label="target")


def _check_round(made: DegreesAttack, degrees: list[int], type_id: str, dice: list[int]) -> None:
    assert len(set(degrees)) == 1, degrees  # every shot of the round at the same degree
    final = degrees[0]
    start = state(
        {
            "armour": made.targets[0].armour,
            "back_armour": made.targets[0].back_armour,
            "hp": made.targets[0].hp,
            "ap_lost": 0,
            "restrained": False,
            "dampened": [],
        }
    )
    seed = sum(dice)
    if final <= 0:
        assert_never(made, start, dice, seed)
    else:
        assert_always(made, start, dice, seed, type_id)


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("type_id", TYPES)
@PROPERTY
@given(shots=st.integers(1, 3), data=st.data(), dice=naturals)
def test_a_whole_round_of_every_type(
    type_id: str, side: str, shots: int, data: st.DataObject, dice: list[int]
) -> None:
    made, degrees = _round(type_id, side, data, shots, stun=False)
    assume(on_side(side, degrees[0]))
    _check_round(made, degrees, type_id, dice)


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("type_id", STUN_TYPES)
@PROPERTY
@given(shots=st.integers(1, 3), data=st.data(), dice=naturals)
def test_stun_at_0_or_less_takes_no_ap_and_at_10_always_does(
    type_id: str, side: str, shots: int, data: st.DataObject, dice: list[int]
) -> None:
    made, degrees = _round(type_id, side, data, shots, stun=True)
    assume(on_side(side, degrees[0]))
    _check_round(made, degrees, type_id, dice)
    detail = made.odds().detail
    if degrees[0] <= 0:
        assert detail["ap_lost"] == pytest.approx({"0": 1.0})
        assert detail["dampened"] == pytest.approx({"0": 1.0})
    else:
        # every shot takes at least 1 AP; a stun gun restrains unless the target breaks free
        assert sum(p for k, p in detail["ap_lost"].items() if int(k) >= shots) == pytest.approx(1)
        if WEAPON_TYPES[type_id].restrains and not made.shots[0].shots[0].break_free:  # type: ignore[union-attr]
            assert detail["restrained"] == pytest.approx(1.0)
