"""One attack line of each kind (a single attack, a Combined Attack, an Arc Fire or Burst
volley, an Explosive shot): its breakdown, its exact odds and its seeded roll."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

import numpy as np

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
from app.rules.brikwars.attacks.area import volley_scenarios
from app.rules.brikwars.attacks.blast import MAX_BLAST_CELLS, BlastLaw
from app.rules.brikwars.attacks.explosion import Scenario
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


def _alone(main: TargetLine) -> tuple[tuple[float, np.ndarray], ...]:
    """A line that strikes one figurine (the main target's first): its odds are its law."""
    row = np.array(
        [[main.miss, main.no_effect, main.something_bad, main.size_damage, main.destroyed]]
    )
    return ((1.0, row),)


def _five(law: np.ndarray, sized: Sequence[bool]) -> np.ndarray:
    """(miss, no effect, Something Bad, destroying hit) per figurine as the five outcome
    columns: a destroying hit on a Creation larger than 1" is Size Damage."""
    out = np.zeros((len(law), 5))
    out[:, :3] = law[:, :3]
    big = np.array(sized, bool)
    out[big, 3] = law[big, 3]
    out[~big, 4] = law[~big, 3]
    return out


def _five_all(laws: np.ndarray, sized: Sequence[bool]) -> np.ndarray:
    """``_five`` for every scenario at once: ``(S, N, 4)`` to ``(S, N, 5)``."""
    out = np.zeros((*laws.shape[:2], 5))
    out[:, :, :3] = laws[:, :, :3]
    big = np.array(sized, bool)
    out[:, big, 3] = laws[:, big, 3]
    out[:, ~big, 4] = laws[:, ~big, 3]
    return out


def _same(a: TargetLine, b: TargetLine) -> bool:
    keys = ("miss", "no_effect", "something_bad", "destroyed", "size_damage", "on_fire")
    return a.index == b.index and all(abs(getattr(a, k) - getattr(b, k)) <= 1e-12 for k in keys)


def grouped(lines: Sequence[TargetLine]) -> tuple[TargetLine, ...]:
    """Consecutive figurines of one target with the same odds as one line (``figures``)."""
    out: list[TargetLine] = []
    for line in lines:
        if out and _same(out[-1], line) and out[-1].figure + out[-1].figures == line.figure:
            out[-1] = replace(out[-1], figures=out[-1].figures + 1)
        else:
            out.append(line)
    return tuple(out)


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
            scenarios=_alone(main),
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
            scenarios=_alone(main),
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
    owners: tuple[tuple[int, int], ...] = ((0, 0),),
) -> Line:
    """An Arc Fire or a Burst: several shots of one automatic weapon, each may jam it.
    ``owners``: the (target, figure) of each of the Arc's targets (a squad's figurines are
    targets of their own, in order along the Arc)."""
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
                owners[t.index][0],
                t.miss,
                t.no_effect,
                t.something_bad,
                0.0 if sized[t.index] else t.destroyed,
                t.destroyed if sized[t.index] else 0.0,
                t.on_fire,
                figure=owners[t.index][1],
            )
            for t in o.targets
        )
        scenarios = tuple((w, _five(law, sized)) for w, law in volley_scenarios(shots, len(owners)))
        if len(owners) == 1:  # one figurine: its law is all a tally needs
            scenarios = ((1.0, np.sum([w * law for w, law in scenarios], axis=0)),)
        return LineOdds(
            (index,),
            kind,
            label,
            grouped(targets),
            (),
            0.0,
            o.inoperative,
            o.truncation_bound,
            steps,
            reach=owners,
            scenarios=scenarios,
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
            owner, figure = owners[t]
            effects.append(
                Effect(owner, best, size, fire, max(damages) if damages else None, figure)
            )
        natural = r.dice[0].natural if r.dice else None
        return LineRoll(
            (index,),
            kind,
            label,
            r.dice,
            tuple(effects),
            r.inoperative,
            natural,
            owners=owners if owners != ((0, 0),) else (),
        )

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


@dataclass(frozen=True)
class BlastFollower:
    """A further target in the blast: its index among the turn's targets, its view as a
    target, its ring (from its distance to the blast centre) and its figurines there."""

    index: int
    target: Target
    ring: int
    figures: int = 1
    inches: str = ""


def _blast_steps(shot: ExplosiveShot, followers: Sequence[BlastFollower]) -> list[Step]:
    """Where each further target stands in the blast, or that it is beyond it."""
    n = shot.explosion.ring_count
    out = []
    for f in followers:
        where = f'target {f.index + 1} at {f.inches}"'
        if f.ring < n:
            rings = f'ring {f.ring} ({2 * f.ring}-{2 * f.ring + 2}")'
            out.append(Step("in the blast", f"{where}: {rings}, against {f.target.armour}"))
        elif f.ring == n:
            out.append(Step("in the blast", f"{where}: only on a Critical Success (one more d10)"))
        else:
            out.append(Step("not caught", f'{where}: beyond the {2 * n}" radius'))
    return out


def explosive_line(
    index: int,
    name: str,
    shot: ExplosiveShot,
    target: Target,
    s: TurnSituation,
    out: int,
    shot_odds: Callable[[], ExplosiveShotOdds],
    figures: int = 1,
    shot_scenarios: Callable[[], tuple[Scenario, ...]] | None = None,
    followers: tuple[BlastFollower, ...] = (),
    blast_law: Callable[[], BlastLaw | None] | None = None,
) -> Line:
    """An Explosive aimed at the target: an Action roll, then the Explosion's ring 0, where
    ``figures`` figurines of it stand, and each further target's figurines at its ring (one
    Damage roll for them all, each its own Armour roll; ruling T8). A further target beyond
    the radius (even with an Over-the-Top d10) is not caught: its odds are a miss."""
    # every figurine the blast can reach, and the object (target view, ring) of each
    reach_n = shot.explosion.ring_count + 1  # an Over-the-Top d10 adds a ring
    caught = tuple(f for f in followers if f.ring < reach_n)
    objects = [(target, 0)] * figures
    owners = [(0, f) for f in range(figures)]
    for f in caught:
        objects += [(f.target, f.ring)] * f.figures
        owners += [(f.index, k) for k in range(f.figures)]
    sized = [t.takes_size_damage for t, _ in objects]
    steps = (
        *action_steps(shot.action, modifier_parts(s, None, out)),
        Step("aimed at", 'the target (ring 0, within 2")'),
        Step("Explosion", str(shot.explosion.damage)),
        Step("against Armour", f"{target.armour} (rolled once)"),
        *_blast_steps(shot, followers),
        Step("a miss", "lands up to Use − roll inches away (the defender places it)"),
    )

    def follower_line(f: BlastFollower) -> TargetLine:
        if f.ring >= reach_n:
            return TargetLine(f.index, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, figures=f.figures)
        w, r = shot.caught(f.target, f.ring)
        if r is None:
            return TargetLine(f.index, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, figures=f.figures)
        return TargetLine(
            f.index,
            1.0 - w,
            w * r.no_effect,
            w * r.something_bad,
            w * r.destroyed,
            w * r.size_damage,
            w * r.on_fire,
            figures=f.figures,
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
            figures=figures,
        )
        more_steps: tuple[Step, ...] = ()
        bound = r.truncation_bound
        scenarios: tuple[tuple[float, np.ndarray], ...] = ()
        law: tuple[np.ndarray, np.ndarray] | None = None
        if not caught:
            scenarios = tuple(
                (w, _five(np.array([row] * figures), sized))
                for w, row in (shot_scenarios() if shot_scenarios else shot.scenarios(target))
            )
        else:
            joint = blast_law() if blast_law else shot.blast_law(tuple(objects))
            if joint is None:
                more_steps = (
                    Step(
                        "tally",
                        "not computed: the targets share one Damage roll whose joint law "
                        f"is too large here (more than {MAX_BLAST_CELLS:,} combinations of "
                        "the capped Damage of each ring and Deflection)",
                    ),
                )
            else:
                law = (joint[0], _five_all(joint[1], sized))
                # the mass the Bonus chains' truncation leaves out of the tally
                bound = max(bound, 1.0 - float(joint[0].sum()))
        return LineOdds(
            (index,),
            "explosive",
            name,
            (main, *(follower_line(f) for f in followers)),
            (),
            o.over_the_top,
            0.0,
            bound,
            steps + more_steps,
            reach=tuple(owners),
            scenarios=scenarios,
            law=law,
        )

    rolled = tuple(ExplosionObject(t, ring) for t, ring in objects)

    def roll(rng: random.Random) -> LineRoll:
        r = shot.roll(rng, rolled)
        effects: tuple[Effect, ...]
        if not r.hit or r.explosion is None:
            effects = tuple(Effect(t, "miss", figure=f) for t, f in owners)
        else:
            effects = tuple(
                replace(_effect_of(t, obj.outcome, obj.on_fire, obj.damage), figure=f)
                for (t, f), obj in zip(owners, r.explosion.objects, strict=True)
            )
        natural = r.dice[0].natural if r.dice else None
        return LineRoll(
            (index,),
            "explosive",
            name,
            r.dice,
            effects,
            natural_action=natural,
            owners=tuple(owners) if len(owners) > 1 else (),
        )

    return Line((index,), "explosive", name, steps, odds, roll)
