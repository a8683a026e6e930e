"""D20 attack engine speed (issue 13's targets): a single shot's exact odds, automatic fire at
12 targets with the exact distribution of the number wounded, and a Defensive Grenade on 40
figurines and 10 objects; issue 27's squads (``TargetInput.figures``): automatic fire over 4
squads of 5 and a Defensive Grenade on 10 squads of 5 and 10 objects, each figurine counted.
Nothing is cached: each call computes its odds afresh."""

from __future__ import annotations

from app.rules.d20.attack import D20Attack
from app.rules.d20.ruleset import RULESET
from app.rules.d20.units import D20Figurine
from app.rules.ruleset import TargetInput
from bench.common import Row, median, timed

OPTIONS = RULESET.decode_options(None)


def _fig(weapons: list[dict[str, object]], **more: object) -> D20Figurine:
    data = {"name": "F", "shot": 8, "hth": 6, "pd": 20, "evasion": 2, "dexterity": 5, "cp": 3}
    return RULESET.decode_unit(data | more | {"weapons": weapons})


def _attack(attacker: D20Figurine, targets: list[TargetInput], **situation: object) -> D20Attack:
    made = RULESET.attack(attacker, (0,), targets, situation, OPTIONS)
    assert not made.problems(), made.problems()
    return made


RIFLE = {"type": "gun", "name": "Rifle", "reach": 60, "power": 6, "automatic": True}
# the stateless body, as a single shot
SINGLE = RULESET.attack_from_body(
    {"attack": {"stat": 8, "power": 6, "modifier": 0}, "targets": [{"pd": 20, "cp": 3}]}
)
AUTOMATIC = _attack(
    _fig([RIFLE]),
    [TargetInput(_fig([], pd=14 + i % 8, evasion=i % 3), {"cover": i % 2 == 1}) for i in range(12)],
    mode="automatic",
    distance=40,
)
EXPLOSION = _attack(
    _fig([{"type": "defensive_grenade"}], kind="su"),
    [
        TargetInput(_fig([], pd=20 + i % 15, cp=1 + i % 4), {"cover": i % 3 == 0, "height": i % 7})
        for i in range(40)
    ],
    mode="explosion",
    distance=20,
    objects=", ".join(str(10 + 3 * i) for i in range(10)),
)
SQUAD_FIRE = _attack(
    _fig([RIFLE]),
    [
        TargetInput(_fig([], pd=14 + 2 * i, evasion=i % 3, cp=1 + i % 2), figures=5)
        for i in range(4)
    ],
    mode="automatic",
    distance=40,
)
SQUAD_BLAST = _attack(
    _fig([{"type": "defensive_grenade"}], kind="su"),
    [
        TargetInput(_fig([], pd=20 + i, cp=1 + i % 3), {"cover": i % 3 == 0}, figures=5)
        for i in range(10)
    ],
    mode="explosion",
    distance=20,
    objects=", ".join(str(10 + 3 * i) for i in range(10)),
)


def run() -> list[Row]:
    single_ms = timed(SINGLE.odds, repeat=500)
    auto_ms = timed(AUTOMATIC.odds, repeat=200)
    blast_ms = timed(EXPLOSION.odds, repeat=100)
    squad_fire_ms = timed(SQUAD_FIRE.odds, repeat=200)
    squad_blast_ms = timed(SQUAD_BLAST.odds, repeat=100)
    return [
        Row(
            "D20: a single shot's exact odds (Shot 8 + P6 vs PD 20, CP 3)",
            median(single_ms),
            "ms median",
            "< 0.2 ms",
            median(single_ms) < 0.2,
            f"n={len(single_ms)}; margin and CP-left distributions",
        ),
        Row(
            "D20: automatic fire at 12 targets (exact number wounded)",
            median(auto_ms),
            "ms median",
            "< 2 ms",
            median(auto_ms) < 2,
            f"n={len(auto_ms)}; -1, -2, -3, then -4",
        ),
        Row(
            "D20: a Defensive Grenade on 40 figurines and 10 objects",
            median(blast_ms),
            "ms median",
            "< 5 ms",
            median(blast_ms) < 5,
            f"n={len(blast_ms)}; cover and height; objects' P(destroyed)",
        ),
        Row(
            "D20: automatic fire over 4 squads of 5 (exact figurines-wounded distribution)",
            median(squad_fire_ms),
            "ms median",
            "< 5 ms",
            median(squad_fire_ms) < 5,
            f"n={len(squad_fire_ms)}; 20 figurines in the Arc, -1, -2, -3, then -4; tallies",
        ),
        Row(
            "D20: a Defensive Grenade on 10 squads of 5 and 10 objects",
            median(squad_blast_ms),
            "ms median",
            "< 10 ms",
            median(squad_blast_ms) < 10,
            f"n={len(squad_blast_ms)}; 50 figurines each rolled; tallies; objects' P(destroyed)",
        ),
    ]
