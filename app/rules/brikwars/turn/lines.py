"""One attack line of each kind (a single attack, a Combined Attack, an Arc Fire or Burst
volley, an Explosive shot): its breakdown, its exact odds and its seeded roll."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from app.rules.brikwars.attacks import (
    ArcFire,
    Attack,
    Burst,
    CombinedAttack,
    ExplosionObject,
    ExplosiveShot,
    ExplosiveShotOdds,
    Outcome,
    ShotResult,
    Target,
    VolleyOdds,
)
from app.rules.brikwars.turn.breakdown import (
    action_steps,
    damage_steps,
    modifier_parts,
    pool_text,
)
from app.rules.brikwars.turn.results import Effect, LineKind, LineOdds, LineRoll, Step, TargetLine
from app.rules.brikwars.turn.situation import TurnSituation


@dataclass(frozen=True)
class Line:
    """An attack line ready to fire: what it is, its breakdown, and how to compute its odds
    and roll it (against the target it was built for)."""

    weapons: tuple[int, ...]
    kind: LineKind
    label: str
    steps: tuple[Step, ...]
    odds: Callable[[], LineOdds]
    roll: Callable[[random.Random], LineRoll]
    # A single weapon's own attack (the other kinds: None), whose work can be estimated.
    attack: Attack | None = None


def _effect_of(target_index: int, outcome: Outcome, on_fire: bool, damage: int | None) -> Effect:
    return Effect(target_index, outcome, 1 if outcome == "size_damage" else 0, on_fire, damage)


def single_line(
    index: int, name: str, attack: Attack, target: Target, s: TurnSituation, out: int
) -> Line:
    """One weapon's own attack on the main target."""
    steps = tuple(
        action_steps(attack.action_roll(), modifier_parts(s, target, out))
        + damage_steps(attack, target)
    )

    def odds() -> LineOdds:
        o = attack.odds()
        main = TargetLine(
            0, o.miss, o.no_effect, o.something_bad, o.destroyed, o.size_damage, o.on_fire
        )
        return LineOdds(
            (index,),
            "single",
            name,
            (main,),
            o.damage_distribution,
            o.over_the_top,
            0.0,
            o.truncation_bound,
            steps,
        )

    def roll(rng: random.Random) -> LineRoll:
        r = attack.roll(rng)
        natural = r.dice[0].natural if attack.action is not None and r.dice else None
        return LineRoll(
            (index,),
            "single",
            name,
            r.dice,
            (_effect_of(0, r.outcome, r.on_fire, r.damage),),
            natural_action=natural,
        )

    return Line((index,), "single", name, steps, odds, roll, attack)


def combined_line(
    indexes: tuple[int, ...], who: list[str], combined: CombinedAttack, target: Target
) -> Line:
    """Several direct attacks whose Damage is summed against one Armour roll."""
    label = "Combined Attack: " + " + ".join(who)
    each = []
    for name, attack in zip(who, combined.attacks, strict=True):
        action = attack.action_roll()
        if action is None:
            each.append(Step(name, f"automatic hit; Damage {pool_text(attack.pool())}"))
            continue
        need = max(2, min(action.die, action.use - action.modifier))
        each.append(
            Step(
                name,
                f"d{action.die} against Use {action.use} ({action.modifier:+d}): "
                f"needs a natural {need}+; Damage {pool_text(attack.pool())}",
            )
        )
    steps = (
        Step(
            "Combined Attack",
            "each weapon rolls its own Action roll; the Damage of those "
            "that hit is summed against one Armour roll",
        ),
        *each,
        Step("against Armour", str(target.armour)),
    )

    def odds() -> LineOdds:
        o = combined.odds()
        main = TargetLine(
            0, o.miss, o.no_effect, o.something_bad, o.destroyed, o.size_damage, o.on_fire
        )
        return LineOdds(
            indexes,
            "combined",
            label,
            (main,),
            o.damage_distribution,
            o.over_the_top,
            0.0,
            o.truncation_bound,
            steps,
        )

    def roll(rng: random.Random) -> LineRoll:
        r = combined.roll(rng)
        return LineRoll(
            indexes, "combined", label, r.dice, (_effect_of(0, r.outcome, r.on_fire, r.damage),)
        )

    return Line(indexes, "combined", label, steps, odds, roll)


# A volley's effect on a target is the best of its shots' outcomes.
_RANK: dict[Outcome, int] = {
    "miss": 0,
    "no_effect": 1,
    "something_bad": 2,
    "size_damage": 3,
    "destroyed": 4,
}
_MISS: Outcome = "miss"


def volley_line(
    index: int,
    kind: LineKind,
    label: str,
    volley: ArcFire | Burst,
    s: TurnSituation,
    out: int,
    target: Target,
) -> Line:
    """An Arc Fire or a Burst: several shots of one automatic weapon, each may jam it."""
    shots = volley.shots()
    first = shots[0].attack
    jam = (
        Step("Auto Penalty and jam", f"a natural roll below {shots[0].jam_below} jams the gun")
        if shots[0].jam_below
        else Step("jam", "this weapon never jams")
    )
    steps = (
        Step("shots", str(len(shots))),
        *action_steps(first.action_roll(), modifier_parts(s, target, out)),
        jam,
        *damage_steps(first, target),
    )

    # A Creation larger than 1" loses Size rather than being destroyed: a volley's
    # "destroyed" on it is Size Damage.
    hit = [a.target for a in volley.targets] if isinstance(volley, ArcFire) else [volley.target]
    sized = [t.takes_size_damage for t in hit]

    def odds() -> LineOdds:
        o: VolleyOdds = volley.odds()
        targets = tuple(
            TargetLine(
                t.index,
                t.miss,
                t.no_effect,
                t.something_bad,
                0.0 if sized[t.index] else t.destroyed,
                t.destroyed if sized[t.index] else 0.0,
                t.on_fire,
            )
            for t in o.targets
        )
        return LineOdds(
            (index,), kind, label, targets, (), 0.0, o.inoperative, o.truncation_bound, steps
        )

    def roll(rng: random.Random) -> LineRoll:
        r = volley.roll(rng)
        hits: dict[int, list[ShotResult]] = {}
        for shot in r.shots:
            hits.setdefault(shot.target, []).append(shot)
        effects = []
        for t, shots_at in sorted(hits.items()):
            fired = [sh for sh in shots_at if not sh.lost]
            best = max((sh.outcome for sh in fired), key=_RANK.__getitem__, default=_MISS)
            size = sum(1 for sh in fired if sh.outcome == "size_damage")
            fire = any(sh.on_fire for sh in fired)
            damages = [sh.damage for sh in fired if sh.damage is not None]
            effects.append(Effect(t, best, size, fire, max(damages) if damages else None))
        natural = r.dice[0].natural if r.dice else None
        return LineRoll((index,), kind, label, r.dice, tuple(effects), r.inoperative, natural)

    return Line((index,), kind, label, steps, odds, roll)


T = TypeVar("T")


def once(compute: Callable[[], T]) -> Callable[[], T]:
    """``compute`` run once, on the first call: a launch's rounds share one set of odds."""
    kept: list[T] = []

    def first_or_kept() -> T:
        if not kept:
            kept.append(compute())
        return kept[0]

    return first_or_kept


def explosive_line(
    index: int,
    name: str,
    shot: ExplosiveShot,
    target: Target,
    s: TurnSituation,
    out: int,
    shot_odds: Callable[[], ExplosiveShotOdds],
) -> Line:
    """An Explosive aimed at the target: an Action roll, then the Explosion's ring 0."""
    steps = (
        *action_steps(shot.action, modifier_parts(s, None, out)),
        Step("aimed at", 'the target (ring 0, within 2")'),
        Step("Explosion", str(shot.explosion.damage)),
        Step("against Armour", f"{target.armour} (rolled once)"),
        Step("a miss", "lands up to Use − roll inches away (the defender places it)"),
    )

    def odds() -> LineOdds:
        o = shot_odds()
        r = o.ring
        main = TargetLine(
            0,
            o.miss,
            o.hit * r.no_effect,
            o.hit * r.something_bad,
            o.hit * r.destroyed,
            o.hit * r.size_damage,
            o.hit * r.on_fire,
        )
        return LineOdds(
            (index,),
            "explosive",
            name,
            (main,),
            (),
            o.over_the_top,
            0.0,
            r.truncation_bound,
            steps,
        )

    def roll(rng: random.Random) -> LineRoll:
        r = shot.roll(rng, (ExplosionObject(target, 0),))
        if not r.hit or r.explosion is None:
            effect = Effect(0, "miss")
        else:
            obj = r.explosion.objects[0]
            effect = _effect_of(0, obj.outcome, obj.on_fire, obj.damage)
        natural = r.dice[0].natural if r.dice else None
        return LineRoll((index,), "explosive", name, r.dice, (effect,), natural_action=natural)

    return Line((index,), "explosive", name, steps, odds, roll)
