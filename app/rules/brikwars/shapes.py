"""The engine's results in the interface's shared shapes: a turn's odds and roll (the
calculator's and a battle's), and the pieces a raw dice attack's reuse.

>>> [o.key for o in outcomes(dict.fromkeys(OUTCOME_KEYS, 0.2))]
['miss', 'no_effect', 'something_bad', 'size_damage', 'destroyed']
>>> words("size_damage", 2), words("no_effect")
('2" of Size Damage', 'hit, no effect')
"""

from __future__ import annotations

from collections.abc import Mapping

from app.rules.brikwars.attacks import LoggedDie
from app.rules.brikwars.turn import TurnOdds, TurnRoll
from app.rules.ruleset import (
    AttackOdds,
    AttackRoll,
    Effect,
    LineOdds,
    LineRoll,
    Outcome,
    RolledDie,
    Tally,
    TargetOdds,
)

OUTCOME_LABELS: tuple[tuple[str, str], ...] = (
    ("miss", "miss"),
    ("no_effect", "hit, no effect"),
    ("something_bad", "Something Bad"),
    ("size_damage", "Size Damage"),
    ("destroyed", "destroyed"),
)
"""A target's mutually exclusive outcomes, in the order pages show them."""
OUTCOME_KEYS = tuple(key for key, _ in OUTCOME_LABELS)
ON_FIRE = ("on_fire", "on Fire")


def outcomes(values: Mapping[str, float]) -> tuple[Outcome, ...]:
    """A target's outcomes from their probabilities by key."""
    return tuple(Outcome(key, label, values[key]) for key, label in OUTCOME_LABELS)


def turn_odds(odds: TurnOdds) -> AttackOdds:
    """A turn's odds in the interface's shape."""
    lines = []
    for line in odds.lines:
        targets = tuple(
            TargetOdds(
                t.index,
                outcomes(
                    {
                        "miss": t.miss,
                        "no_effect": t.no_effect,
                        "something_bad": t.something_bad,
                        "size_damage": t.size_damage,
                        "destroyed": t.destroyed,
                    }
                ),
                (Outcome(*ON_FIRE, t.on_fire),),
                figure=t.figure,
                figures=t.figures,
            )
            for t in line.targets
        )
        notes = (
            Outcome("over_the_top", "Over the Top", line.over_the_top),
            Outcome("jam", "jams (Inoperative until Reloaded)", line.jam),
        )
        lines.append(
            LineOdds(
                label=line.label,
                kind=line.kind,
                weapons=line.weapons,
                targets=targets,
                damage=line.damage,
                steps=tuple((s.label, s.value) for s in line.steps),
                notes=notes,
                truncation_bound=line.truncation_bound,
            )
        )
    return AttackOdds(
        tuple(lines),
        odds.any_destroying,
        odds.truncation_bound,
        odds.expected_destroying,
        tallies=tuple(Tally(key, label, dist) for key, label, dist in odds.tallies),
    )


def rolled_die(die: LoggedDie, owners: tuple[tuple[int, int], ...] = ()) -> RolledDie:
    """A die of the engine's log in the interface's shape; ``owners``: the (target, figure)
    of each figurine a line strikes, when its dice index figurines."""
    if owners and die.target is not None:
        target, figure = owners[die.target]
        return RolledDie(die.purpose, die.sides, die.natural, die.value, die.bonus, target, figure)
    return RolledDie(die.purpose, die.sides, die.natural, die.value, die.bonus, die.target)


def words(outcome: str, size_damage: int = 0) -> str:
    """An effect's words: its outcome's label, or the inches of Size Damage."""
    if outcome == "size_damage" and size_damage:
        return f'{size_damage}" of Size Damage'
    return dict(OUTCOME_LABELS).get(outcome, outcome)


def turn_roll(roll: TurnRoll) -> AttackRoll:
    """A rolled turn in the interface's shape (each target's damage: its Size lost)."""
    return AttackRoll(
        tuple(
            LineRoll(
                label=line.label,
                kind=line.kind,
                weapons=line.weapons,
                dice=tuple(rolled_die(d, line.owners) for d in line.dice),
                effects=tuple(
                    Effect(
                        e.target,
                        e.outcome,
                        words(e.outcome, e.size_damage),
                        e.damage,
                        ("on_fire",) if e.on_fire else (),
                        e.size_damage,
                        e.figure,
                    )
                    for e in line.effects
                ),
                skipped=line.skipped,
                notes=("jammed",) if line.jammed else (),
            )
            for line in roll.lines
        ),
        tuple(float(unit.size_damage) for unit in roll.targets_after),
    )
