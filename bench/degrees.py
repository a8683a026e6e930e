"""Degrees attack engine speed: one shot's exact odds, a whole round of 6 AP with a gas gun
and a penetrating choice, a 5° area attack on 50 units (issue 12's targets) and a 6° one on
60 figurines of 6 squads over Here, Close and Far (issue 27's). Uncached: the engine's shot
and pumping caches are emptied before every call."""

from __future__ import annotations

from app.rules.degrees.gas import pump_odds
from app.rules.degrees.plan import DegreesAttack
from app.rules.degrees.ruleset import RULESET
from app.rules.degrees.shot import outcomes
from app.rules.degrees.units import DegreesUnit
from app.rules.ruleset import TargetInput
from bench.common import Row, median, timed

OPTIONS = RULESET.decode_options(None)


def _clear() -> None:
    outcomes.cache_clear()
    pump_odds.cache_clear()


def _unit(degree: int, weapons: list[dict[str, object]], **more: object) -> DegreesUnit:
    data = {"name": "U", "kind": "personnel", "degree": degree, "weapons": weapons, **more}
    return RULESET.decode_unit(data)


def _attack(
    attacker: DegreesUnit, targets: list[TargetInput], weapons: tuple[int, ...], **situation: object
) -> DegreesAttack:
    made = RULESET.attack(attacker, weapons, targets, situation, OPTIONS)
    assert not made.problems(), made.problems()
    return made


# the stateless example: 5° -1 against Armour 3, HP 3, penetrating on a natural 1
SINGLE = RULESET.attack_from_body(
    {"attack": {"degree": 5, "modifier": -1, "penetrates_on": 1}, "target": {"armour": 3, "hp": 3}}
)
# 6 AP: a 2-max gas gun with 2 AP carried, pumped 2 more (over-compressed twice) and fired
# extended (4 AP), then a γ-gun extended (2 AP), penetrating on 1-2 with the back line when
# worse, against a 5° with back-line Armour
ROUND = _attack(
    _unit(
        4,
        [{"type": "gas_gun", "degree": 2}, {"type": "gamma_gun", "degree": 5}],
        ap=6,
    ),
    [TargetInput(_unit(5, [], back_armour=2))],
    (0, 1),
    carried=2,
    pump=2,
    compress_op=1,
    extend=1,
    range="present",
    penetrate="best",
)
AREA = _attack(
    _unit(5, [{"type": "missile", "degree": 5}]),
    [TargetInput(_unit(3, []))]
    + [
        TargetInput(_unit(1 + i % 5, [], back_armour=i % 2), {"location": ("here", "close")[i % 2]})
        for i in range(49)
    ],
    (0,),
)

# issue 27: 6 squads of 10 over the three locations (a 6° explosive reaches Far at -2°)
SQUADS = _attack(
    _unit(6, [{"type": "missile", "degree": 6}]),
    [
        TargetInput(
            _unit(1 + i % 4, [], back_armour=i % 2),
            {"location": ("here", "close", "far")[i % 3]} if i else {},
            figures=10,
        )
        for i in range(6)
    ],
    (0,),
)


def _single() -> None:
    _clear()
    SINGLE.odds()


def _round() -> None:
    _clear()
    ROUND.odds()


def _area() -> None:
    _clear()
    AREA.odds()


def _squads() -> None:
    _clear()
    SQUADS.odds()


def run() -> list[Row]:
    single_ms = timed(_single, repeat=500)
    round_ms = timed(_round, repeat=200)
    area_ms = timed(_area, repeat=100)
    squads_ms = timed(_squads, repeat=100)
    return [
        Row(
            "Degrees: one attack's exact odds (5° -1 vs Armour 3, HP 3, penetrating on 1)",
            median(single_ms),
            "ms median",
            "< 0.2 ms",
            median(single_ms) < 0.2,
            f"n={len(single_ms)}; uncached",
        ),
        Row(
            "Degrees: a whole round of 6 AP (gas gun over-compressed, then a γ-gun, back line "
            "when worse)",
            median(round_ms),
            "ms median",
            "< 5 ms",
            median(round_ms) < 5,
            f"n={len(round_ms)}; uncached; {ROUND.ap_needed} AP this round",
        ),
        Row(
            "Degrees: a 5° area attack on 50 units (Here and Close)",
            median(area_ms),
            "ms median",
            "< 10 ms",
            median(area_ms) < 10,
            f"n={len(area_ms)}; uncached; units-hit distribution exact",
        ),
        Row(
            "Degrees: a 6° area attack on 60 units in three locations (6 squads of 10)",
            median(squads_ms),
            "ms median",
            "< 10 ms",
            median(squads_ms) < 10,
            f"n={len(squads_ms)}; uncached; {SQUADS.units} figurines; tallies exact",
        ),
    ]
