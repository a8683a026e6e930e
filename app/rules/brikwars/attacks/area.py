"""Arc Fire and Bursts (chapter 8.3): many shots, each its own Action roll, in order.

Arc Fire gives every target in the Firing Arc one attack, plus one per full point of Arc it
spans; Target Size modifiers apply to the Damage too. MachineGuns and FlameThrowers take an
Auto Penalty of -1 Action per point of Arc; a BlastGun has a fixed Arc of 1, no Auto Penalty,
and loses 1 Damage per full inch of distance. A Burst fires N shots at one target at -N.

A MachineGun shot whose natural Action roll is below its Auto Penalty fires, then the gun is
Inoperative until Reloaded: the remaining shots are lost (the jam rule). The exact odds follow
the gun's state shot by shot (operational or jammed), so the per-target results are exact
even though a jam links the shots.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Literal

import numpy as np

from app.rules.brikwars.attacks.common import (
    NO_SITUATION,
    ActionRoll,
    LoggedDie,
    Outcome,
    Situation,
    Target,
)
from app.rules.brikwars.attacks.single import Attack, FaceOutcomes
from app.rules.brikwars.catalogue import DamageExpr
from app.rules.brikwars.options import DEFAULT_OPTIONS, BrikWarsOptions
from app.rules.errors import InvalidInput, TooMuchWork

AutoWeapon = Literal["machinegun", "flamethrower", "blastgun"]
MAX_SHOTS = 60
"""Most shots in one Arc Fire or Burst (each needs its own damage odds)."""
LEVELS = ("miss", "no_effect", "something_bad", "destroyed")


@dataclass(frozen=True, slots=True)
class ArcTarget:
    """One target in the Firing Arc, in order from one end.

    ``spans``: full points of Arc the target spans (one extra attack each); ``distance``:
    inches from the barrel (a BlastGun loses 1 Damage per full inch); ``out_of_range``:
    inches beyond the Range (-1 Action, -1 per damage die).
    """

    target: Target
    spans: int = 0
    distance: Fraction | int = 0
    out_of_range: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.spans, int) or not 0 <= self.spans <= MAX_SHOTS:
            raise InvalidInput("spans", f"needs a whole number from 0 to {MAX_SHOTS}")
        if Fraction(self.distance) < 0:
            raise InvalidInput("distance", "must be at least 0")


@dataclass(frozen=True, slots=True)
class Shot:
    """One shot of a volley: the attack, its target's index, and the jam threshold (a natural
    Action roll below ``jam_below`` jams the gun; 0 for weapons that never jam)."""

    attack: Attack
    target: int
    jam_below: int


@dataclass(frozen=True, slots=True)
class TargetOdds:
    """Exact odds for one target over all its shots.

    ``worst``: P(the best result any shot achieved) for each of miss (every shot missed or
    was lost), no_effect, something_bad, destroyed (``destroyed`` counts hits that take Size
    Damage on a large Creation). ``destroying_hits[n]`` = P(exactly n destroying hits): a
    Creation larger than 1" loses 1" of Effective Size per hit. ``damaged``: P(at least one
    point of damage got through, no Critical Failure): on Fire for Fire weapons, KnockBack 1"
    for minifig-sized targets of a BlastGun.
    """

    index: int
    shots: int
    miss: float
    no_effect: float
    something_bad: float
    destroyed: float
    destroying_hits: tuple[float, ...]
    damaged: float
    on_fire: float
    knockback: float


@dataclass(frozen=True, slots=True)
class VolleyOdds:
    """Exact odds of an Arc Fire or Burst.

    ``fired[i]``: P(shot i is fired, not lost to a jam); ``inoperative``: P(the gun ends
    Inoperative); ``expected_lost``: the expected number of shots lost after a jam.
    """

    targets: tuple[TargetOdds, ...]
    fired: tuple[float, ...]
    inoperative: float
    expected_lost: float
    truncation_bound: float


@dataclass(frozen=True, slots=True)
class ShotResult:
    """One shot of a rolled volley (``lost``: never fired because the gun had jammed)."""

    target: int
    outcome: Outcome
    lost: bool = False
    jammed: bool = False
    damage: int | None = None
    on_fire: bool = False


@dataclass(frozen=True, slots=True)
class VolleyRoll:
    """A rolled Arc Fire or Burst: every die in order, each shot, and the gun's state."""

    dice: tuple[LoggedDie, ...]
    shots: tuple[ShotResult, ...]
    inoperative: bool


def _face_arrays(shot: Shot) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per natural face: probability, jam flag, outcome rows."""
    fo: FaceOutcomes = shot.attack.face_outcomes()
    rows = np.array(fo.rows)
    n = len(rows)
    faces = np.arange(1, n + 1)
    jam = (faces < shot.jam_below) if shot.attack.action is not None else np.zeros(n, bool)
    return np.full(n, 1.0 / n), jam, rows


def volley_odds(shots: tuple[Shot, ...], n_targets: int) -> VolleyOdds:
    """Exact odds of shots fired in order, with the jam rule linking them.

    A dynamic programme over the shots with the gun's state (operational or jammed) and, per
    target, the event being followed; each event is run separately (they are few).
    """
    tables = [_face_arrays(s) for s in shots]
    # every shot counts: the distance between products is at most the sum of the factors'
    bound = sum(s.attack.face_outcomes().truncation_bound for s in shots)

    def prob_all(ok: list[np.ndarray | None]) -> float:
        """P(every shot's outcome passes ``ok`` (per-face pass probability; None: any))."""
        op, jammed = 1.0, 0.0
        for (p, jam, _), passes in zip(tables, ok, strict=True):
            weights = p if passes is None else p * passes
            jammed += op * float(weights[jam].sum())  # fired, then the gun jams; lost shots pass
            op *= float(weights[~jam].sum())
        return op + jammed

    fired, alive = [], 1.0
    for p, jam, _ in tables:
        fired.append(alive)
        alive *= float(p[~jam].sum())
    targets = []
    for t in range(n_targets):
        mine = [i for i, s in enumerate(shots) if s.target == t]
        at_most = []
        for level in range(len(LEVELS)):
            ok = [
                tables[i][2][:, : level + 1].sum(axis=1) if shots[i].target == t else None
                for i in range(len(shots))
            ]
            at_most.append(prob_all(ok))
        worst = np.diff([0.0, *at_most])
        hits = _hit_counts(tables, shots, t)
        damaged = 1.0 - prob_all(
            [1.0 - tables[i][2][:, 4] if shots[i].target == t else None for i in range(len(shots))]
        )
        first = shots[mine[0]].attack if mine else None
        fire = bool(first and first.damage.fire)
        knock = bool(
            first and first.damage.minus_distance and first.target.kind in ("minifig", "hero")
        )
        targets.append(
            TargetOdds(
                index=t,
                shots=len(mine),
                miss=float(worst[0]),
                no_effect=float(worst[1]),
                something_bad=float(worst[2]),
                destroyed=float(worst[3]),
                destroying_hits=hits,
                damaged=damaged,
                on_fire=damaged if fire else 0.0,
                knockback=damaged if knock else 0.0,
            )
        )
    return VolleyOdds(
        tuple(targets), tuple(fired), 1.0 - alive, float(sum(1 - f for f in fired)), bound
    )


Scenario = tuple[float, np.ndarray]
"""A weight and, per target, P(miss, no effect, Something Bad, destroying hit) as the best
result of its shots: the targets are independent given the scenario."""


def volley_scenarios(shots: tuple[Shot, ...], n_targets: int) -> tuple[Scenario, ...]:
    """The volley's joint law over its targets, as scenarios given which each target's best
    result is independent of the others': a jam links the shots (those after it are lost), so
    the scenarios are where the gun jams (or never); a weapon that never jams has one.

    Each target's best result mixes to its ``volley_odds`` odds; a tally over several
    targets mixes their independent counts by the scenarios' weights.
    """
    tables = [_face_arrays(s) for s in shots]
    levels = len(LEVELS)

    def best(cdfs: list[np.ndarray]) -> np.ndarray:
        """Per target, from each shot's P(result <= level) (lost shots: 1), the best's law."""
        at_most = np.ones((n_targets, levels))
        for shot, cdf in zip(shots, cdfs, strict=True):
            at_most[shot.target] *= cdf
        return np.diff(np.concatenate([np.zeros((n_targets, 1)), at_most], axis=1), axis=1)

    def cdf(p: np.ndarray, rows: np.ndarray, mask: np.ndarray) -> tuple[float, np.ndarray]:
        weight = float(p[mask].sum())
        if weight <= 0:
            return 0.0, np.ones(levels)
        law = (p[mask, None] * rows[mask, :levels]).sum(axis=0) / weight
        return weight, np.cumsum(law)

    lost = np.ones(levels)
    fired: list[np.ndarray] = []
    out: list[Scenario] = []
    alive = 1.0
    for i, (p, jam, rows) in enumerate(tables):
        w_jam, at_jam = cdf(p, rows, jam)
        if w_jam > 0 and alive > 0:
            cdfs = [*fired, at_jam, *([lost] * (len(shots) - i - 1))]
            out.append((alive * w_jam, best(cdfs)))
        w_on, on = cdf(p, rows, ~jam)
        alive *= w_on
        fired.append(on)
    if alive > 0:
        out.append((alive, best(fired)))
    return tuple(out)


def _hit_counts(
    tables: list[tuple[np.ndarray, np.ndarray, np.ndarray]], shots: tuple[Shot, ...], t: int
) -> tuple[float, ...]:
    """Distribution of the number of destroying hits on target ``t`` (state: gun, count)."""
    n = sum(1 for s in shots if s.target == t)
    op = np.zeros(n + 1)
    jammed = np.zeros(n + 1)
    op[0] = 1.0
    for (p, jam, rows), shot in zip(tables, shots, strict=True):
        if shot.target != t:
            jammed += op * float(p[jam].sum())
            op = op * float(p[~jam].sum())
            continue
        hit = rows[:, 3]
        moved = []
        for mask in (~jam, jam):  # the shot fires either way; a jam then stops the gun
            p_hit = float((p * hit)[mask].sum())
            p_not = float((p * (1 - hit))[mask].sum())
            step = op * p_not
            step[1:] += op[:-1] * p_hit
            moved.append(step)
        op, jammed = moved[0], jammed + moved[1]
    return tuple(float(x) for x in op + jammed)


def roll_volley(shots: tuple[Shot, ...], rng: random.Random) -> VolleyRoll:
    """Fire the shots in order, logging every die; after a jam the remaining shots are lost."""
    log: list[LoggedDie] = []
    results: list[ShotResult] = []
    jammed = False
    for shot in shots:
        if jammed:
            results.append(ShotResult(shot.target, "miss", lost=True))
            continue
        start = len(log)
        r = shot.attack._roll_into(rng, log, shot.target)
        natural = log[start].natural if shot.attack.action is not None else None
        jam = natural is not None and natural < shot.jam_below
        jammed = jammed or jam
        results.append(ShotResult(shot.target, r.outcome, False, jam, r.damage, r.on_fire))
    return VolleyRoll(tuple(log), tuple(results), jammed)


def _check_shots(count: int) -> None:
    if count > MAX_SHOTS:
        raise TooMuchWork(f"{count} shots are too many to compute (at most {MAX_SHOTS})")


@dataclass(frozen=True, slots=True)
class ArcFire:
    """Arc Fire over an ordered list of targets.

    ``action`` is the firer's Action die against the weapon's Use (plus the firer's own
    modifiers); ``arc`` the points of Arc (a BlastGun always 1); ``situation`` applies to every
    shot (Firing Blind, Gunnery Support); each target's Out of Range is its own.

    >>> from app.rules.brikwars.units import Armour
    >>> arc = ArcFire("machinegun", ActionRoll(6, 4), DamageExpr(2, 6), arc=2,
    ...               targets=(ArcTarget(Target.minifig()), ArcTarget(Target.minifig())))
    >>> [s.attack.action_roll().modifier for s in arc.shots()], [s.jam_below for s in arc.shots()]
    ([-2, -2], [2, 2])
    """

    weapon: AutoWeapon
    action: ActionRoll
    damage: DamageExpr
    arc: int = 1
    targets: tuple[ArcTarget, ...] = ()
    situation: Situation = NO_SITUATION
    options: BrikWarsOptions = DEFAULT_OPTIONS
    _shots: list[tuple[Shot, ...]] = field(default_factory=list, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.weapon not in ("machinegun", "flamethrower", "blastgun"):
            raise InvalidInput("weapon", "must be machinegun, flamethrower or blastgun")
        if not isinstance(self.arc, int) or not 0 <= self.arc <= MAX_SHOTS:
            raise InvalidInput("arc", f"needs a whole number from 0 to {MAX_SHOTS}")
        if self.weapon == "flamethrower" and self.arc < 1:
            raise InvalidInput("arc", "a FlameThrower always fires with an Arc of at least 1")
        if not self.targets:
            raise InvalidInput("targets", "Arc Fire needs at least one target")
        _check_shots(sum(1 + t.spans for t in self.targets))

    @property
    def auto_penalty(self) -> int:
        """-1 Action per point of Arc for MachineGuns and FlameThrowers; none for BlastGuns."""
        return 0 if self.weapon == "blastgun" else self.arc

    def shots(self) -> tuple[Shot, ...]:
        """Every shot in order: each target once, plus once per full point of Arc it spans."""
        if self._shots:
            return self._shots[0]
        out: list[Shot] = []
        jam_below = self.auto_penalty if self.weapon == "machinegun" else 0
        for index, t in enumerate(self.targets):
            fall_off = -math.floor(Fraction(t.distance)) if self.weapon == "blastgun" else 0
            attack = Attack(
                self.damage,
                t.target,
                self.action.with_modifier(-self.auto_penalty),
                replace(self.situation, out_of_range=self.situation.out_of_range + t.out_of_range),
                area=True,
                damage_modifier=fall_off,
                options=self.options,
            )
            out.extend(Shot(attack, index, jam_below) for _ in range(1 + t.spans))
        self._shots.append(tuple(out))
        return self._shots[0]

    def odds(self) -> VolleyOdds:
        """Exact odds per target (and of the gun jamming)."""
        return volley_odds(self.shots(), len(self.targets))

    def roll(self, rng: random.Random) -> VolleyRoll:
        """One resolution: the shots in order, each die logged with its target's index."""
        return roll_volley(self.shots(), rng)


@dataclass(frozen=True, slots=True)
class Burst:
    """A MachineGun Burst: ``count`` shots at one target, each at -``count`` (the Auto
    Penalty), each hit rolling its own Damage against its own Armour roll; the jam rule
    applies to every shot.

    >>> from app.rules.brikwars.units import Armour
    >>> b = Burst(ActionRoll(6, 3), DamageExpr(1, 6), 3, Target.minifig())
    >>> o = b.odds()
    >>> round(o.inoperative, 4), len(o.fired)
    (0.7037, 3)
    """

    action: ActionRoll
    damage: DamageExpr
    count: int
    target: Target = field(default_factory=Target)
    situation: Situation = NO_SITUATION
    options: BrikWarsOptions = DEFAULT_OPTIONS
    _shots: list[tuple[Shot, ...]] = field(default_factory=list, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.count, int) or self.count < 1:
            raise InvalidInput("count", "a Burst fires at least one shot")
        _check_shots(self.count)

    def shots(self) -> tuple[Shot, ...]:
        """The ``count`` shots at -``count`` each."""
        return _burst_shots(self)

    def odds(self) -> VolleyOdds:
        """Exact odds: the target's results and the gun's jam."""
        return volley_odds(self.shots(), 1)

    def roll(self, rng: random.Random) -> VolleyRoll:
        """One resolution, every die logged; shots after a jam are lost."""
        return roll_volley(self.shots(), rng)


def _burst_shots(burst: Burst) -> tuple[Shot, ...]:
    """A Burst's shots, built once per Burst (rolls repeat them many times)."""
    if burst._shots:
        return burst._shots[0]
    attack = Attack(
        burst.damage,
        burst.target,
        burst.action.with_modifier(-burst.count),
        burst.situation,
        options=burst.options,
    )
    burst._shots.append(tuple(Shot(attack, 0, burst.count) for _ in range(burst.count)))
    return burst._shots[0]
