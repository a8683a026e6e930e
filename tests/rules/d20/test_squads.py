"""D20 squads (issue 27): a target of N figurines (``TargetInput.figures``) is N figurines
wherever figurines are counted. Automatic fire gives each its place in the Arc (its own
modifier), an explosion rolls for each; a shot or a blow strikes one. Every figure is checked
against the D20s enumerated in ``brute.py`` (written from the text, apart from the engine),
and a large seeded Monte Carlo of the engine's own roll for 4 squads of 5."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest

from app.rules.d20 import attack as attack_module
from app.rules.d20 import strike as strike_module
from app.rules.d20.attack import D20Attack
from app.rules.d20.options import D20Options
from app.rules.d20.ruleset import RULESET
from app.rules.d20.situation import MAX_TARGETS
from app.rules.errors import InvalidInput
from app.rules.ruleset import AttackOdds, TargetInput
from tests.rules.d20.brute import (
    enumerate_figurines,
    enumerate_figurines_by_outcome,
    figurine_faces,
)

OPTIONS = RULESET.decode_options(None)
RIFLE = {"type": "gun", "name": "Rifle", "reach": 60, "power": 6, "automatic": True}
KNIFE = {"type": "hth", "name": "Knife", "power": 4}
SHOOTER_BONUS = 8 + 6  # Shot 8 + the Rifle's Power 6
GRENADE_POWER = 25  # the Defensive Grenade: P25, cover protects
# the modifier of automatic fire at each place of the Arc, from the text: -1, -2, -3, then -4
ARC = (-1, -2, -3, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4)


def fig(*weapons: dict[str, Any], **more: Any) -> Any:
    data = {"name": "F", "shot": 8, "hth": 6, "pd": 20, "evasion": 0, "dexterity": 5, "cp": 1}
    return RULESET.decode_unit(data | more | {"weapons": list(weapons)})


def grenadier() -> Any:
    return fig({"type": "defensive_grenade"}, kind="su")


def attack(
    attacker: Any,
    targets: list[tuple[Any, int]],
    fields: list[dict[str, Any]] | None = None,
    options: D20Options = OPTIONS,
    **situation: Any,
) -> D20Attack:
    inputs = [
        TargetInput(unit, (fields or [{}] * len(targets))[i], figures=n)
        for i, (unit, n) in enumerate(targets)
    ]
    return RULESET.attack(attacker, (0,), inputs, situation, options)


def approx(value: Fraction) -> Any:
    return pytest.approx(float(value), abs=1e-12)


def entries(odds: AttackOdds) -> list[tuple[int, int, int]]:
    return [(t.target, t.figure, t.figures) for t in odds.lines[0].targets]


def outcomes(odds: AttackOdds, index: int) -> dict[str, float]:
    return {o.key: o.probability for o in odds.lines[0].targets[index].outcomes}


def tallies(odds: AttackOdds) -> dict[str, tuple[float, ...]]:
    return {t.key: t.distribution for t in odds.tallies}


def same_distribution(got: tuple[float, ...], exact: dict[int, Fraction], size: int) -> None:
    assert len(got) == size + 1
    assert list(got) == [approx(exact.get(k, Fraction(0))) for k in range(size + 1)]


def check_tallies(odds: AttackOdds, wounded: dict[int, Fraction], out: dict[int, Fraction]) -> int:
    """The tallies are the enumeration's, and the detail the D20 template reads agrees."""
    size = sum(t.figures for t in odds.lines[0].targets)
    got = tallies(odds)
    assert set(got) == {"wounded", "out"}
    same_distribution(got["wounded"], wounded, size)
    same_distribution(got["out"], out, size)
    assert [odds.detail["wounded_count"][str(k)] for k in range(size + 1)] == list(got["wounded"])
    assert [odds.detail["out_count"][str(k)] for k in range(size + 1)] == list(got["out"])
    return size


# ------------------------------------------------------------------ automatic fire


@pytest.mark.parametrize(
    "options",
    [OPTIONS, D20Options(margin_wounds=True, naturals=True)],
    ids=["plain", "margin-and-naturals"],
)
def test_automatic_fire_at_a_squad_of_3_alone_enumerates_all_20_cubed_rolls(
    options: D20Options,
) -> None:
    """A squad of 3 is enough for automatic fire (its figurines are three targets), at -1,
    -2, -3 in turn: each its own odds entry, and the tallies of all 8,000 rolls."""
    made = attack(fig(RIFLE), [(fig(pd=24, evasion=1, cp=2), 3)], options=options, mode="automatic")
    assert made.problems() == ()
    odds = made.odds()
    assert entries(odds) == [(0, 0, 1), (0, 1, 1), (0, 2, 1)]
    assert [d["modifier"] for d in odds.detail["targets"]] == [-1, -2, -3]
    rules = {"margin_wounds": options.margin_wounds, "naturals": options.naturals}
    figurines = [(SHOOTER_BONUS + m, 25, 2) for m in ARC[:3]]
    per, wounded, out = enumerate_figurines(figurines, **rules)
    for i in range(3):
        assert outcomes(odds, i) == {k: approx(v) for k, v in per[i].items()}
    assert check_tallies(odds, wounded, out) == 3
    assert odds.decisive == approx(1 - out.get(0, Fraction(0)))


def test_automatic_fire_at_a_squad_then_a_single_follows_the_arc() -> None:
    """Targets in their given order, a squad's figurines one after another: the squad's
    three take -1, -2, -3 and the single figurine after it -4 (20^4 rolls)."""
    squad, single = fig(pd=16, cp=2), fig(pd=12, evasion=3, cp=1)
    made = attack(fig(RIFLE), [(squad, 3), (single, 1)], mode="automatic")
    odds = made.odds()
    assert entries(odds) == [(0, 0, 1), (0, 1, 1), (0, 2, 1), (1, 0, 1)]
    figurines = [(SHOOTER_BONUS + m, 16, 2) for m in ARC[:3]] + [(SHOOTER_BONUS - 4, 15, 1)]
    per, wounded, out = enumerate_figurines(figurines)
    for i in range(4):
        assert outcomes(odds, i) == {k: approx(v) for k, v in per[i].items()}
    check_tallies(odds, wounded, out)


def test_the_minus_4_tail_of_a_squad_shares_one_entry() -> None:
    """A squad of 2 then a squad of 4: -1, -2 | -3, -4, -4, -4; the last three figurines of
    the second squad are alike (one entry of 3 figurines), the tallies over all six."""
    first, second = fig(pd=22, cp=1), fig(pd=17, cp=2)
    margin = D20Options(margin_wounds=True)
    made = attack(fig(RIFLE), [(first, 2), (second, 4)], options=margin, mode="automatic")
    odds = made.odds()
    assert entries(odds) == [(0, 0, 1), (0, 1, 1), (1, 0, 1), (1, 1, 3)]
    assert [d["modifier"] for d in odds.detail["targets"]] == [-1, -2, -3, -4]
    defences = [22, 22, 17, 17, 17, 17]
    cps = [1, 1, 2, 2, 2, 2]
    figurines = [(SHOOTER_BONUS + m, d, cp) for m, d, cp in zip(ARC, defences, cps, strict=False)]
    assert figurines[3] == figurines[4] == figurines[5]
    for index in range(4):  # each entry's first figurine is the figurine of its place here
        bonus, against, cp = figurines[index]
        counted = Counter(key for _, key in figurine_faces(bonus, against, cp, margin_wounds=True))
        assert outcomes(odds, index) == {
            k: approx(Fraction(counted[k], 20)) for k in ("out", "wounded", "unhurt")
        }
    check_tallies(odds, *enumerate_figurines_by_outcome(figurines, margin_wounds=True))


def test_the_two_enumerations_agree() -> None:
    figurines = [(13, 14, 1), (12, 9, 2), (11, 20, 1)]
    _, wounded, out = enumerate_figurines(figurines, margin_wounds=True)
    assert enumerate_figurines_by_outcome(figurines, margin_wounds=True) == (wounded, out)


def test_automatic_fire_needs_two_figurines_not_two_targets() -> None:
    assert attack(fig(RIFLE), [(fig(), 2)], mode="automatic").problems() == ()
    assert attack(fig(RIFLE), [(fig(), 1)], mode="automatic").problems() == (
        "Automatic fire needs at least two targets.",
    )


# ------------------------------------------------------------------ explosions


def test_an_explosion_on_a_squad_of_2_a_single_and_an_object() -> None:
    """Each figurine in the radius rolls Power + 1D20 against its PD alone (+ cover): the
    squad's two are alike (one entry of 2), the single its own; the object as before."""
    squad, single = fig(pd=24, evasion=2, cp=2), fig(pd=28, evasion=3, cp=1)
    made = attack(
        grenadier(),
        [(squad, 2), (single, 1)],
        fields=[{"cover": True}, {}],
        mode="explosion",
        distance=10,
        objects="30",
    )
    assert made.problems() == ()
    odds = made.odds()
    assert entries(odds) == [(0, 0, 2), (1, 0, 1)]
    figurines = [(GRENADE_POWER, 24 + 5, 2)] * 2 + [(GRENADE_POWER, 28, 1)]
    per, wounded, out = enumerate_figurines(figurines)
    assert per[0] == per[1]
    assert outcomes(odds, 0) == {k: approx(v) for k, v in per[0].items()}
    assert outcomes(odds, 1) == {k: approx(v) for k, v in per[2].items()}
    check_tallies(odds, wounded, out)
    destroyed = Fraction(sum(GRENADE_POWER + n - 1 >= 30 for n in range(1, 21)), 20)
    assert odds.detail["objects"] == [{"dl": 30, "destroyed": approx(destroyed)}]


def test_a_squad_above_a_grenades_blast_is_not_caught_at_all() -> None:
    odds = attack(grenadier(), [(fig(pd=0), 3)], fields=[{"height": 6}], mode="explosion").odds()
    assert entries(odds) == [(0, 0, 3)]
    assert outcomes(odds, 0)["unhurt"] == 1.0
    assert tallies(odds) == {"wounded": (1.0, 0.0, 0.0, 0.0), "out": (1.0, 0.0, 0.0, 0.0)}


# ------------------------------------------------------------------ a shot or a blow


@pytest.mark.parametrize(("mode", "weapon"), [("shot", RIFLE), ("blow", KNIFE)])
def test_a_shot_or_a_blow_at_a_squad_strikes_one_figurine(
    mode: str, weapon: dict[str, Any]
) -> None:
    target = fig(pd=15, evasion=2, cp=2)
    squad = attack(fig(weapon), [(target, 3)], mode=mode)
    alone = attack(fig(weapon), [(target, 1)], mode=mode)
    assert squad.problems() == () == alone.problems()
    assert squad.odds() == alone.odds()
    assert entries(squad.odds()) == [(0, 0, 1)]
    assert len(tallies(squad.odds())["wounded"]) == 2


# ------------------------------------------------------------------ the roll


def test_each_figurine_rolls_its_own_die_named_by_target_and_figure() -> None:
    squad, single = fig(pd=16, cp=2), fig(pd=12, cp=1)
    made = attack(fig(RIFLE), [(squad, 3), (single, 1)], mode="automatic")
    bonuses = [SHOOTER_BONUS + m for m in ARC[:4]]
    owners = [(0, 0), (0, 1), (0, 2), (1, 0)]
    for seed in range(100):
        roll = made.roll(random.Random(seed))
        line = roll.lines[0]
        assert [(d.target, d.figure) for d in line.dice] == owners
        assert [(e.target, e.figure) for e in line.effects] == owners
        assert [d.value - d.natural for d in line.dice] == bonuses
        for die, effect, data, against, cp in zip(
            line.dice,
            line.effects,
            roll.detail["targets"],
            (16, 16, 16, 12),
            (2, 2, 2, 1),
            strict=True,
        ):
            lost = min(cp, int(die.value > against))
            assert (effect.damage, data["cp_lost"], data["wounded"]) == (lost, lost, lost > 0)
        assert roll == made.roll(random.Random(seed))


def test_an_explosions_roll_gives_each_figurine_of_a_squad_a_die() -> None:
    made = attack(grenadier(), [(fig(pd=30), 2), (fig(pd=30), 1)], mode="explosion", objects="9")
    line = made.roll(random.Random(5)).lines[0]
    assert [(d.target, d.figure) for d in line.dice] == [(0, 0), (0, 1), (1, 0), (None, 0)]
    assert [(e.target, e.figure) for e in line.effects] == [(0, 0), (0, 1), (1, 0)]


@pytest.mark.slow
def test_monte_carlo_of_automatic_fire_over_4_squads_of_5() -> None:
    """200,000 seeded rolls of the engine's own roll: every figurine's P(wound) and the
    tallies of how many are wounded and out within 4 standard errors."""
    squads = [fig(pd=18 + 2 * i, evasion=i % 2, cp=1 + i % 2) for i in range(4)]
    made = attack(fig(RIFLE), [(s, 5) for s in squads], mode="automatic")
    odds = made.odds()
    assert entries(odds) == [
        (0, 0, 1),
        (0, 1, 1),
        (0, 2, 1),
        (0, 3, 2),
        (1, 0, 5),
        (2, 0, 5),
        (3, 0, 5),
    ]
    rolls = 200_000
    rng = random.Random(27)
    wounded: Counter[int] = Counter()
    out: Counter[int] = Counter()
    hurt: Counter[tuple[int, int]] = Counter()
    for _ in range(rolls):
        effects = made.roll(rng).lines[0].effects
        wounded[sum(e.damage is not None and e.damage > 0 for e in effects)] += 1
        out[sum(e.outcome == "out" for e in effects)] += 1
        hurt.update((e.target, e.figure) for e in effects if e.damage)

    def close(p: float, seen: int, n: int = rolls) -> bool:
        return abs(seen / n - p) <= 4 * (max(p * (1 - p), 1e-12) / n) ** 0.5 + 1e-9

    got = tallies(odds)
    assert all(close(p, wounded[k]) for k, p in enumerate(got["wounded"]))
    assert all(close(p, out[k]) for k, p in enumerate(got["out"]))
    for entry in odds.lines[0].targets:
        p = 1 - entry.probability("unhurt")
        for k in range(entry.figure, entry.figure + entry.figures):
            assert close(p, hurt[(entry.target, k)])


# ------------------------------------------------------------------ bounds


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "2"])
def test_figures_must_be_a_whole_number_from_1(bad: Any) -> None:
    inputs = [TargetInput(fig()), TargetInput(fig(), figures=bad)]
    with pytest.raises(InvalidInput) as err:
        RULESET.attack(fig(RIFLE), (0,), inputs, {"mode": "automatic"}, OPTIONS)
    assert err.value.field == "targets.1.figures"


def test_too_many_figurines_are_refused_before_any_work() -> None:
    ten_of_five = [(fig(), 5)] * 10
    assert attack(fig(RIFLE), ten_of_five, mode="automatic").problems() == ()
    assert MAX_TARGETS >= 50
    full = [*ten_of_five, (fig(), MAX_TARGETS - 50)]
    assert attack(grenadier(), full, mode="explosion").problems() == ()
    with pytest.raises(InvalidInput) as err:
        attack(fig(RIFLE), [*full, (fig(), 1)], mode="automatic")
    assert err.value.field == "targets.11.figures"
    with pytest.raises(InvalidInput) as err:
        attack(fig(RIFLE), [(fig(), 2), (fig(), 10**9)], mode="automatic")
    assert err.value.field == "targets.1.figures"
    # the bound holds for a shot too, though a shot strikes one of them
    with pytest.raises(InvalidInput) as err:
        attack(fig(RIFLE), [(fig(), MAX_TARGETS + 1)], mode="shot")
    assert err.value.field == "targets.0.figures"


def _enumerated(made: D20Attack, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int, int]:
    """(faces resolved, target details, count-distribution steps) of a real run of the odds."""
    counts = {"faces": 0, "steps": 0}
    resolve, distribution = strike_module.Strike.resolve, attack_module.count_distribution

    def counted_resolve(self: Any, natural: Any) -> Any:
        counts["faces"] += 1
        return resolve(self, natural)

    def counted_distribution(chances: Any) -> list[float]:
        chances = list(chances)
        counts["steps"] += len(chances) * (len(chances) + 1) // 2
        return distribution(chances)

    with monkeypatch.context() as patch:
        patch.setattr(strike_module.Strike, "resolve", counted_resolve)
        patch.setattr(attack_module, "count_distribution", counted_distribution)
        odds = made.odds()
    return counts["faces"], len(odds.lines[0].targets), counts["steps"]


def test_the_counted_work_is_what_the_odds_enumerate(monkeypatch: pytest.MonkeyPatch) -> None:
    """The estimate counts, before any work, the faces, runs and steps a real run enumerates
    (no timing: the rates are ``bench inline``'s)."""
    cases = [
        attack(fig(RIFLE), [(fig(), 1)], mode="shot"),
        attack(fig(RIFLE), [(fig(), 20)], mode="automatic"),
        attack(fig(RIFLE), [(fig(pd=10 + n), 1) for n in range(12)], mode="automatic"),
        attack(grenadier(), [(fig(), 5), (fig(pd=30), 5), (fig(cp=3), 1)], mode="explosion"),
    ]
    for made in cases:
        faces, runs, steps = made.work_terms()
        real_faces, real_runs, real_steps = _enumerated(made, monkeypatch)
        assert real_faces <= faces <= 2 * real_faces  # each distinct strike's faces, once
        assert runs == real_runs
        assert steps == real_steps  # two distributions over the figurines struck


def test_inline_rests_on_the_counted_work() -> None:
    """What scales the work scales the estimate: figurines struck alike add count steps,
    figurines struck differently add a face tally and a target's detail each."""
    alike = [attack(fig(RIFLE), [(fig(), n)], mode="automatic").work_units() for n in (2, 20, 60)]
    assert alike == sorted(alike) and alike[0] < alike[-1]
    different = attack(fig(RIFLE), [(fig(pd=10 + n), 1) for n in range(20)], mode="automatic")
    assert different.work_units() > alike[1]
    blast = attack(grenadier(), [(fig(), 50), (fig(pd=30), 10)], mode="explosion")
    assert blast.inline()  # 60 figurines in two runs of alike ones
    assert attack(fig(RIFLE), [(fig(), 2)], mode="automatic").inline()
    assert not different.inline()  # 20 targets' details: some 2,060 units, over 2,000
    # 60 alike figurines: some 1,030 units, inline under the one figure (2,000 units)
    assert 1000 < alike[-1] < 2000 < different.work_units()
    assert attack(fig(RIFLE), [(fig(), 60)], mode="automatic").inline()
    # a shot at a big squad strikes one figurine
    assert attack(fig(RIFLE), [(fig(), 60)], mode="shot").work_units() < alike[0]


# ------------------------------------------------------------------ the stateless body


def body(*targets: dict[str, Any], **attack_fields: Any) -> dict[str, Any]:
    return {
        "attack": {"stat": 8, "power": 6, "automatic": True} | attack_fields,
        "targets": list(targets),
    }


def test_the_stateless_body_takes_squads() -> None:
    made = RULESET.attack_from_body(body({"pd": 16, "cp": 2, "figures": 3}))
    odds = made.odds()
    assert entries(odds) == [(0, 0, 1), (0, 1, 1), (0, 2, 1)]
    _, wounded, out = enumerate_figurines([(SHOOTER_BONUS + m, 16, 2) for m in ARC[:3]])
    check_tallies(odds, wounded, out)
    blast = RULESET.attack_from_body(
        {
            "attack": {"stat": 8, "equipment": "defensive_grenade"},
            "targets": [{"pd": 30, "figures": 5}] * 10,
        }
    )
    assert entries(blast.odds()) == [(n, 0, 5) for n in range(10)]
    # one target, figures default 1: a single figurine, automatic fire refused
    with pytest.raises(InvalidInput) as err:
        RULESET.attack_from_body(body({"pd": 16}))
    assert err.value.field == "targets"


@pytest.mark.parametrize(
    ("targets", "field"),
    [
        ([{"pd": 16, "figures": 0}], "targets.0.figures"),
        ([{"pd": 16}, {"pd": 16, "figures": True}], "targets.1.figures"),
        ([{"pd": 16, "figures": 30}, {"pd": 16, "figures": 31}], "targets.1.figures"),
        ([{"pd": 16, "figures": 10**9}], "targets.0.figures"),
    ],
)
def test_bad_squads_in_the_stateless_body_are_named(
    targets: list[dict[str, Any]], field: str
) -> None:
    with pytest.raises(InvalidInput) as err:
        RULESET.attack_from_body(body(*targets))
    assert err.value.field == field
