"""Single attacks (ranged or close combat) and Combined Attacks against one target.

An attack is an Action roll (or an automatic hit), then a Damage Roll against the target's
Armour after Deflection: greater destroys (or takes 1" of Size Damage from a Creation larger
than 1"), equal is Something Bad, less is "ka-ping", and an all-ones Damage Roll has no
effect at all.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from app.rules.brikwars.attacks.common import (
    NO_SITUATION,
    ActionRoll,
    LoggedDie,
    Outcome,
    Situation,
    Target,
    damage_pool,
    over_the_top,
    roll_logged,
)
from app.rules.brikwars.catalogue import DamageExpr
from app.rules.brikwars.options import DEFAULT_OPTIONS, BrikWarsOptions
from app.rules.dice import (
    MAX_DICE,
    Dice,
    Pool,
    TotalDistribution,
    compare,
    deflect,
    deflect_with_over_the_top,
    total_distribution,
)
from app.rules.dice.exact import work_bound
from app.rules.errors import InvalidInput, TooMuchWork
from app.rules.work import MULTIPLY_ADDS_PER_UNIT, inline_work

MAX_COMBINED = 6
"""Most participants of one Combined Attack (3^n hit patterns are enumerated exactly)."""
COMBINED_SECONDS = 1.5
"""Estimated time above which a Combined Attack is refused (the 2 s request budget)."""


def _combined_seconds(attacks: tuple[Attack, ...]) -> float:
    """A measured cost model: ~0.3 ms per hit pattern, plus ~0.2 ms per die face through
    Deflection (100d20 through 50 layers: 0.36 s), ~2 us per face without."""
    faces = sum(a.pool().dice_count * max(d.sides for d in a.pool().dice) for a in attacks)
    deflected = any(a.layers() for a in attacks)
    per_pattern = 3e-4 + faces * (2e-4 if deflected else 2e-6)
    return float(3 ** len(attacks)) * per_pattern


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class AttackOdds:
    """Exact odds of one attack's outcomes.

    ``miss + no_effect + something_bad + destroyed + size_damage == 1`` (within
    ``truncation_bound``). ``no_effect`` includes the damage Critical Failure
    (``critical_failure``: hit, every damage die a natural 1) and parried blows (``parried``).
    ``damage_distribution`` is the Damage total after Deflection *given a hit*, as
    ``(value, probability)`` pairs. ``over_the_top`` is P(Critical Success); ``on_fire`` is
    P(at least 1 point of Fire damage, no Critical Failure) for Fire weapons; ``disarmed`` is
    P(the parrying unit fumbles its Parry).
    """

    miss: float
    no_effect: float
    something_bad: float
    destroyed: float
    size_damage: float
    truncation_bound: float
    damage_distribution: tuple[tuple[int, float], ...]
    critical_failure: float = 0.0
    over_the_top: float = 0.0
    on_fire: float = 0.0
    parried: float = 0.0
    disarmed: float = 0.0

    def outcome(self, name: Outcome) -> float:
        """The probability of one outcome by name."""
        return float(getattr(self, name))

    def outcomes(self) -> dict[str, float]:
        """The five outcomes by name."""
        return {
            "miss": self.miss,
            "no_effect": self.no_effect,
            "something_bad": self.something_bad,
            "destroyed": self.destroyed,
            "size_damage": self.size_damage,
        }


@dataclass(frozen=True, slots=True)
class AttackRoll:
    """One resolution: every die in the order rolled, and what came of it.

    ``outcome`` is one of ``miss``, ``no_effect``, ``something_bad``, ``destroyed``,
    ``size_damage``. ``damage`` and ``armour`` are None when nothing was rolled for them.
    """

    dice: tuple[LoggedDie, ...]
    outcome: Outcome
    hit: bool
    over_the_top: bool = False
    damage: int | None = None
    armour: int | None = None
    critical_failure: bool = False
    on_fire: bool = False
    parried: bool = False
    disarmed: bool = False


@dataclass(frozen=True, slots=True)
class _DamageStep:
    """Damage against Armour for one kind of hit (plain, or Over the Top)."""

    greater: float
    equal: float
    less: float
    critical_failure: float
    on_fire: float
    dist: TotalDistribution
    bound: float
    damaged: float = 0.0


def _damage_step(
    pool: Pool,
    layers: int,
    armour: int | Pool | TotalDistribution,
    fire: bool,
    dist: TotalDistribution | None = None,
) -> _DamageStep:
    """Damage (``dist``: the pool after ``layers`` of Deflection, if already computed)
    against the Armour."""
    if dist is None:
        dist = deflect(pool, layers)
    kept = dist.excluding_all_ones()
    damaged = float(kept[1:].sum())
    if isinstance(armour, int):
        # A fixed Armour (a minifig's 4) needs three sums, not the general comparison.
        a = max(0, armour)
        greater, equal = float(kept[a + 1 :].sum()), float(kept[a : a + 1].sum())
        less = float(kept[:a].sum())
        bound, cf = dist.truncation_bound, dist.all_ones
    else:
        c = compare(dist, armour)
        greater, equal, less, cf, bound = (
            c.greater,
            c.equal,
            c.less,
            c.critical_failure,
            c.truncation_bound,
        )
    return _DamageStep(greater, equal, less, cf, damaged if fire else 0.0, dist, bound, damaged)


def _armour_once(armour: int | Pool) -> int | TotalDistribution:
    """A rolled Armour's distribution, computed once for every comparison of one attack."""
    return total_distribution(armour) if isinstance(armour, Pool) else armour


class _DamageDists:
    """The Damage Roll without and with its Over-the-Top die, after Deflection: when both
    are needed and the pool is one kind of die, the dice core computes them together
    (``deflect_with_over_the_top``: shared transforms, the same exact result)."""

    def __init__(self, plain: Pool, damage: DamageExpr, *, both: bool) -> None:
        self.plain = plain
        self.ott = over_the_top(plain, damage)
        # The Over-the-Top die is one more die of the pool's only kind (not an Explosive's d10)
        self.paired = both and len(plain.dice) == 1 and not damage.explosion
        self.done: dict[tuple[bool, int], TotalDistribution] = {}

    def pool(self, crit: bool) -> Pool:
        return self.ott if crit else self.plain

    def deflected(self, crit: bool, layers: int) -> TotalDistribution:
        key = (crit, layers)
        if key not in self.done:
            if self.paired and 0 < 2 * layers <= self.plain.dice_count:
                pair = deflect_with_over_the_top(self.plain, layers)
                self.done[(False, layers)], self.done[(True, layers)] = pair
            else:
                self.done[key] = deflect(self.pool(crit), layers)
        return self.done[key]


@dataclass(frozen=True, slots=True)
class FaceOutcomes:
    """An attack's outcome for each natural Action face (Arc Fire and Bursts need the face:
    the jam rule reads it). ``rows[f - 1]`` = P(miss, no effect, Something Bad, destroying
    hit, took at least 1 point of damage) given natural face ``f``; one row for an automatic
    hit."""

    rows: tuple[tuple[float, float, float, float, float], ...]
    truncation_bound: float


def _mix(parts: list[tuple[float, TotalDistribution]]) -> tuple[tuple[int, float], ...]:
    """Weighted mixture of damage distributions, as (value, probability) pairs above 0."""
    size = max((len(d.pmf) for w, d in parts if w > 0), default=1)
    out = np.zeros(size)
    weight = sum(w for w, _ in parts)
    if weight <= 0:
        return ()
    for w, d in parts:
        out[: len(d.pmf)] += (w / weight) * d.pmf
    values = np.flatnonzero(out > 0)
    return tuple(zip(values.tolist(), out[values].tolist(), strict=True))


# --------------------------------------------------------------------------- parry


@dataclass(frozen=True, slots=True)
class Parry:
    """A Parry: an Action roll against the parrying weapon's Use (chapter 5.2).

    ``action`` already holds the modifiers (+1 per 2" of the parried weapon's Size, +1
    against a Two-Handed Weapon; see ``parry_modifier``). Success cancels the maneuver; with a
    Melee Shield (``shield_layers`` = its Weapon Size) it instead adds that many layers of
    Deflection. A natural 1 fails and disarms the parrying unit.

    >>> p = Parry(ActionRoll(6, 0))
    >>> [round(x, 4) for x in p.probabilities()]
    [0.8333, 0.1667]
    """

    action: ActionRoll
    shield_layers: int = 0

    def probabilities(self) -> tuple[float, float]:
        """P(the Parry succeeds), P(it fumbles: fails and disarms)."""
        _, hit, crit = self.action.probabilities()
        return hit + crit, 1.0 / self.action.die


def parry_modifier(parried_weapon_size: int | float = 1, two_handed: bool = False) -> int:
    """The Parry's bonus: +1 for every full 2" of the parried weapon's Size, +1 against a
    Two-Handed Weapon (RULINGS 1.7).

    >>> parry_modifier(4), parry_modifier(1, two_handed=True)
    (2, 1)
    """
    return int(parried_weapon_size // 2) + (1 if two_handed else 0)


# --------------------------------------------------------------------------- single attack


@dataclass(frozen=True, slots=True)
class Attack:
    """One attack against one target.

    ``action`` is the attacker's Action die against the weapon's Use with any modifiers of
    its own (None: an automatic hit); the situation's and the target's modifiers are added
    here. ``area``: Target Size modifiers also apply to the Damage (Arc Fire, BlastGun,
    FlameThrower). ``per_die`` is an extra per-die damage modifier (the API's); Out of Range
    adds -1 per inch on each damage die, floored at 0, except for Explosives. ``charge_die``:
    a Charge spending its MOM adds one Action die of that size to the Damage.

    >>> from app.rules.brikwars.units import Armour
    >>> odds = Attack(DamageExpr(1, 6), Target(Armour(fixed=4)), ActionRoll(6, 4)).odds()
    >>> round(odds.miss, 4), round(odds.destroyed + odds.something_bad + odds.no_effect, 4)
    (0.5, 0.5)
    """

    damage: DamageExpr
    target: Target = field(default_factory=Target)
    action: ActionRoll | None = None
    situation: Situation = NO_SITUATION
    area: bool = False
    per_die: int = 0
    damage_modifier: int = 0
    extra_deflection: int = 0
    parry: Parry | None = None
    charge_die: int | None = None
    options: BrikWarsOptions = DEFAULT_OPTIONS
    _memo: list[_Prepared] = field(default_factory=list, compare=False, repr=False)
    _faces: list[FaceOutcomes] = field(default_factory=list, compare=False, repr=False)
    """What ``roll`` needs, computed on the first roll (rolls repeat; a memo on the instance
    is cheaper than hashing the nested dataclasses for a cache)."""

    def __post_init__(self) -> None:
        if self.damage.explosion:
            raise InvalidInput("damage", "an Explosion is resolved with Explosion, not Attack")
        if self.charge_die is not None and self.charge_die not in (4, 6, 8, 10, 12):
            raise InvalidInput("charge_die", "must be an Action die: 4, 6, 8, 10 or 12")
        extra = self.damage.extra.dice if self.damage.extra else 0
        most = self.damage.dice + extra + (self.charge_die is not None) + (self.action is not None)
        if most > MAX_DICE:
            raise InvalidInput(
                "damage.dice",
                f"at most {MAX_DICE} dice in a Damage Roll, an Over-the-Top die included",
            )

    # the numbers the attack rolls against -----------------------------------------------

    def action_roll(self) -> ActionRoll | None:
        """The Action roll with every modifier (None: an automatic hit)."""
        if self.action is None:
            return None
        return self.action.with_modifier(self.situation.action_total + self.target.size_modifier)

    def pool(self) -> Pool:
        """The Damage Roll's dice on a plain hit."""
        per_die = self.per_die - self.situation.out_of_range
        modifier = self.damage_modifier + self.situation.damage_modifier
        if self.area:
            modifier += self.target.size_modifier
        extra = (
            ()
            if self.charge_die is None
            else (Dice(1, self.charge_die, per_die, self.options.bonus_die),)
        )
        return damage_pool(
            self.damage,
            per_die=per_die,
            modifier=modifier,
            options=self.options,
            extra_dice=extra,
        )

    def layers(self, shield: int = 0) -> int:
        """Deflection layers left after Armor Piercing dice cancel theirs."""
        piercing = self.damage.dice if self.damage.armor_piercing else 0
        return max(0, self.target.armour.deflection + self.extra_deflection + shield - piercing)

    def work_pools(self) -> list[tuple[Pool, int]]:
        """The pools the odds sum, each with its Deflection layers (what ``work_bound``
        estimates): the plain hit's Damage, Over the Top's, and rolled Armour."""
        plain = self.pool()
        layers = self.layers()
        pools = [(plain, layers), (over_the_top(plain, self.damage), layers)]
        armour = self.target.armour_value(self.options)
        return pools + ([(armour, 0)] if isinstance(armour, Pool) else [])

    # odds -----------------------------------------------------------------------------

    def odds(self) -> AttackOdds:
        """The exact distribution of outcomes.

        >>> from app.rules.brikwars.units import Armour
        >>> o = Attack(DamageExpr(1, 6), Target(Armour(fixed=4))).odds()  # automatic hit
        >>> round(o.destroyed, 4), round(o.something_bad, 4), round(o.no_effect, 4)
        (0.3333, 0.1667, 0.5)
        """
        action = self.action_roll()
        if action is None:
            p_miss, p_hit, p_crit = 0.0, 1.0, 0.0
        else:
            p_miss, p_hit, p_crit = action.probabilities()
        armour = _armour_once(self.target.armour_value(self.options))
        fire = self.damage.fire
        plain = self.pool()
        # Parry: rolled only against a blow that hits (ruling A3).
        p_parried, p_fumble, shield = 0.0, 0.0, 0
        if self.parry is not None:
            p_parried, p_fumble = self.parry.probabilities()
            shield = self.parry.shield_layers
        damage = _DamageDists(plain, self.damage, both=p_hit > 0 and p_crit > 0)
        steps: list[tuple[float, _DamageStep]] = []
        for weight, crit in ((p_hit, False), (p_crit, True)):
            if weight <= 0:
                continue
            pool = damage.pool(crit)
            layer_counts = [(weight * (1 - p_parried), self.layers())]
            if shield:
                # A Melee Shield's successful Parry adds layers instead of cancelling the blow.
                layer_counts = [
                    (weight * p_parried, self.layers(shield)),
                    (weight * (1 - p_parried), self.layers()),
                ]
            for w, layers in layer_counts:
                dist = damage.deflected(crit, layers)
                steps.append((w, _damage_step(pool, layers, armour, fire, dist)))
        cancelled = 0.0 if shield else (p_hit + p_crit) * p_parried
        greater = sum(w * s.greater for w, s in steps)
        size = self.target.takes_size_damage
        return AttackOdds(
            miss=p_miss,
            no_effect=sum(w * (s.less + s.critical_failure) for w, s in steps) + cancelled,
            something_bad=sum(w * s.equal for w, s in steps),
            destroyed=0.0 if size else greater,
            size_damage=greater if size else 0.0,
            truncation_bound=max((s.bound for _, s in steps), default=0.0),
            damage_distribution=_mix([(w, s.dist) for w, s in steps]),
            critical_failure=sum(w * s.critical_failure for w, s in steps),
            over_the_top=p_crit,
            on_fire=sum(w * s.on_fire for w, s in steps),
            parried=0.0 if shield else cancelled,
            disarmed=(p_hit + p_crit) * p_fumble,
        )

    def face_outcomes(self) -> FaceOutcomes:
        """The outcome given each natural Action face (no Parry: area attacks are not
        parried).

        >>> from app.rules.brikwars.units import Armour
        >>> f = Attack(DamageExpr(1, 6), Target(Armour(fixed=4)), ActionRoll(6, 4)).face_outcomes()
        >>> f.rows[0][0], f.rows[2][0], round(f.rows[3][3], 4)
        (1.0, 1.0, 0.3333)
        """
        if self._faces:  # the shots of one target share their Attack: computed once
            return self._faces[0]
        armour = _armour_once(self.target.armour_value(self.options))
        action = self.action_roll()
        faces = () if action is None else action.faces()
        damage = _DamageDists(self.pool(), self.damage, both="hit" in faces)
        steps: dict[bool, _DamageStep] = {}

        def step(crit: bool) -> tuple[float, float, float, float, float]:
            if crit not in steps:
                layers = self.layers()
                dist = damage.deflected(crit, layers)
                steps[crit] = _damage_step(
                    damage.pool(crit), layers, armour, self.damage.fire, dist
                )
            s = steps[crit]
            return (0.0, s.less + s.critical_failure, s.equal, s.greater, s.damaged)

        missed = (1.0, 0.0, 0.0, 0.0, 0.0)
        rows: tuple[tuple[float, float, float, float, float], ...]
        if action is None:
            rows = (step(False),)
        else:
            rows = tuple(
                missed if r in ("fumble", "miss") else step(r == "critical") for r in faces
            )
        bound = max((s.bound for s in steps.values()), default=0.0)
        self._faces.append(FaceOutcomes(rows, bound))
        return self._faces[0]

    # roll -----------------------------------------------------------------------------

    def roll(self, rng: random.Random, *, target_index: int | None = None) -> AttackRoll:
        """One resolution with every die logged in the order rolled.

        Order: the Action die, the Parry die (only against a hit), the damage dice (an
        Over-the-Top die last), the Armour dice.

        >>> from app.rules.brikwars.units import Armour
        >>> r = Attack(DamageExpr(1, 6), Target(Armour(fixed=4)), ActionRoll(6, 4)).roll(
        ...     random.Random(3))
        >>> [d.purpose for d in r.dice][0], r.outcome in ("miss", "no_effect", "destroyed",
        ...     "something_bad")
        ('action', True)
        """
        log: list[LoggedDie] = []
        return self._roll_into(rng, log, target_index)

    def _roll_into(
        self, rng: random.Random, log: list[LoggedDie], target_index: int | None
    ) -> AttackRoll:
        prep = _prepared(self)
        start = len(log)  # this attack's dice only (a volley shares one log)
        action = prep.action
        crit = False
        if action is not None:
            natural = action.roll(rng, log, target=target_index)
            result = action.result(natural)
            if result in ("fumble", "miss"):
                return AttackRoll(tuple(log[start:]), "miss", hit=False)
            crit = result == "critical"
        shield, disarmed = 0, False
        if self.parry is not None:
            pnat = self.parry.action.roll(rng, log, "parry")
            presult = self.parry.action.result(pnat)
            disarmed = presult == "fumble"
            if presult in ("hit", "critical"):
                if self.parry.shield_layers:
                    shield = self.parry.shield_layers
                else:
                    return AttackRoll(
                        tuple(log[start:]), "no_effect", hit=True, over_the_top=crit, parried=True
                    )
        plain = prep.plain
        pool = prep.over_the_top if crit else plain
        damage_roll = roll_logged(
            pool,
            rng,
            "damage",
            log,
            target=target_index,
            extra_from=plain.dice_count if crit else None,
        )
        layers = prep.shield_layers if shield else prep.layers
        total = damage_roll.deflected_total(layers) if layers else damage_roll.total
        if isinstance(prep.armour, int):
            armour = prep.armour
        else:
            armour = roll_logged(prep.armour, rng, "armour", log, target=target_index).total
        critical_failure = damage_roll.critical_failure
        on_fire = self.damage.fire and not critical_failure and total >= 1
        outcome: Outcome
        if critical_failure or total < armour:
            outcome = "no_effect"
        elif total == armour:
            outcome = "something_bad"
        else:
            outcome = prep.destroying
        return AttackRoll(
            tuple(log[start:]),
            outcome,
            hit=True,
            over_the_top=crit,
            damage=total,
            armour=armour,
            critical_failure=critical_failure,
            on_fire=on_fire,
            disarmed=disarmed,
        )


@dataclass(frozen=True, slots=True)
class _Prepared:
    """What a roll needs, computed once per attack (rolls are repeated many times)."""

    action: ActionRoll | None
    plain: Pool
    over_the_top: Pool
    layers: int
    shield_layers: int
    armour: int | Pool
    destroying: Outcome


def _prepared(attack: Attack) -> _Prepared:
    if attack._memo:
        return attack._memo[0]
    plain = attack.pool()
    shield = attack.parry.shield_layers if attack.parry is not None else 0
    prep = _Prepared(
        attack.action_roll(),
        plain,
        over_the_top(plain, attack.damage),
        attack.layers(),
        attack.layers(shield),
        attack.target.armour_value(attack.options),
        "size_damage" if attack.target.takes_size_damage else "destroyed",
    )
    attack._memo.append(prep)
    return prep


# --------------------------------------------------------------------------- combined


@dataclass(frozen=True, slots=True)
class CombinedAttack:
    """Several attackers against one target: the Damage of all that hit is summed (their
    modifiers too, ruling A4) and compared with a single Armour roll (RULINGS 1.2).

    Each participant is an ``Attack`` (its own Action roll, damage and modifiers); the
    participants' targets should be the same, and the first one's is used.

    >>> from app.rules.brikwars.units import Armour
    >>> t = Target(Armour(dice=2, sides=6), kind="hero")
    >>> c = CombinedAttack((Attack(DamageExpr(1, 6), t), Attack(DamageExpr(1, 6), t)))
    >>> round(sum(c.odds().outcomes().values()), 6)
    1.0
    """

    attacks: tuple[Attack, ...]
    _pools: dict[tuple[int, ...], tuple[Pool, int]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        if not self.attacks:
            raise InvalidInput("attacks", "a Combined Attack needs at least one attacker")
        if len(self.attacks) > MAX_COMBINED:
            raise TooMuchWork(
                f"a Combined Attack of {len(self.attacks)} attackers is too much work to compute "
                f"exactly (at most {MAX_COMBINED}); use seeded rolls"
            )
        if _combined_seconds(self.attacks) > COMBINED_SECONDS:
            raise TooMuchWork(
                "this Combined Attack is too much work to compute exactly within 2 s "
                "(fewer attackers, fewer dice or less Deflection); use seeded rolls"
            )

    @property
    def target(self) -> Target:
        """The target (the first participant's)."""
        return self.attacks[0].target

    def _layers(self, pools: list[tuple[Attack, bool]]) -> int:
        first = self.attacks[0]
        piercing = sum(a.damage.dice for a, _ in pools if a.damage.armor_piercing)
        return max(0, first.target.armour.deflection + first.extra_deflection - piercing)

    def odds(self) -> AttackOdds:
        """Exact odds: every pattern of miss / hit / Critical Success is enumerated.

        Parries are not part of a Combined Attack here (each ``Attack``'s ``parry`` is ignored).
        """
        options = self.attacks[0].options
        armour = _armour_once(self.target.armour_value(options))
        states = []
        for a in self.attacks:
            action = a.action_roll()
            miss, hit, crit = (0.0, 1.0, 0.0) if action is None else action.probabilities()
            states.append(((0, miss), (1, hit), (2, crit)))
        p_miss = 0.0
        steps: list[tuple[float, _DamageStep]] = []
        for pattern in itertools.product(*states):
            weight = float(np.prod([p for _, p in pattern]))
            if weight <= 0:
                continue
            hits = [(a, s == 2) for a, (s, _) in zip(self.attacks, pattern, strict=True) if s]
            if not hits:
                p_miss += weight
                continue
            pool = self._pool(hits)
            # Fire only when a Fire weapon is among the attackers that hit (as ``roll`` does)
            fire = any(a.damage.fire for a, _ in hits)
            steps.append((weight, _damage_step(pool, self._layers(hits), armour, fire)))
        greater = sum(w * s.greater for w, s in steps)
        size = self.target.takes_size_damage
        return AttackOdds(
            miss=p_miss,
            no_effect=sum(w * (s.less + s.critical_failure) for w, s in steps),
            something_bad=sum(w * s.equal for w, s in steps),
            destroyed=0.0 if size else greater,
            size_damage=greater if size else 0.0,
            truncation_bound=max((s.bound for _, s in steps), default=0.0),
            damage_distribution=_mix([(w, s.dist) for w, s in steps]),
            critical_failure=sum(w * s.critical_failure for w, s in steps),
            over_the_top=1.0 - float(np.prod([1 - st[2][1] for st in states])),
            on_fire=sum(w * s.on_fire for w, s in steps),
        )

    @staticmethod
    def _pool(hits: list[tuple[Attack, bool]]) -> Pool:
        pools = []
        for attack, crit in hits:
            plain = attack.pool()
            pools.append(over_the_top(plain, attack.damage) if crit else plain)
        combined = pools[0]
        for p in pools[1:]:
            combined = combined.plus(p)
        return combined

    def roll(self, rng: random.Random) -> AttackRoll:
        """One resolution: each attacker's Action die in turn, then every hitting attacker's
        damage dice in the same order, then one Armour roll."""
        log: list[LoggedDie] = []
        pattern = []
        for i, a in enumerate(self.attacks):
            action = _prepared(a).action
            if action is None:
                pattern.append(1)
                continue
            result = action.result(action.roll(rng, log, f"action (attacker {i + 1})"))
            pattern.append(0 if result in ("fumble", "miss") else 2 if result == "critical" else 1)
        if not any(pattern):
            return AttackRoll(tuple(log), "miss", hit=False)
        key = tuple(pattern)
        if key not in self._pools:
            hits = [(a, s == 2) for a, s in zip(self.attacks, pattern, strict=True) if s]
            self._pools[key] = (self._pool(hits), self._layers(hits))
        pool, layers = self._pools[key]
        hits = [(a, s == 2) for a, s in zip(self.attacks, pattern, strict=True) if s]
        any_crit = 2 in pattern
        damage_roll = roll_logged(pool, rng, "damage", log)
        total = damage_roll.deflected_total(layers)
        armour_value = _prepared(self.attacks[0]).armour
        if isinstance(armour_value, int):
            armour = armour_value
        else:
            armour = roll_logged(armour_value, rng, "armour", log).total
        cf = damage_roll.critical_failure
        outcome: Outcome
        if cf or total < armour:
            outcome = "no_effect"
        elif total == armour:
            outcome = "something_bad"
        else:
            outcome = "size_damage" if self.target.takes_size_damage else "destroyed"
        fire = any(a.damage.fire for a, _ in hits)
        return AttackRoll(
            tuple(log),
            outcome,
            hit=True,
            over_the_top=any_crit,
            damage=total,
            armour=armour,
            critical_failure=cf,
            on_fire=fire and not cf and total >= 1,
        )


INLINE_DICE = 30
"""Attacks of more dice than this are not even estimated where the request is handled."""


def work_units(attacks: Sequence[Attack]) -> float:
    """These attacks' odds' counted work (``app.rules.work`` units), from the pools' sizes
    alone (nothing is summed): the dice core's multiply-adds (``work_bound``)."""
    pools = [p for attack in attacks for p in attack.work_pools()]
    return sum(work_bound(pool, layers) for pool, layers in pools) / MULTIPLY_ADDS_PER_UNIT


def cheap(attacks: Sequence[Attack]) -> bool:
    """Whether these attacks' odds together are small enough to compute inline: their
    counted work (``work_units``) under ``INLINE_WORK_UNITS``."""
    pools = [p for attack in attacks for p in attack.work_pools()]
    if sum(pool.dice_count for pool, _ in pools) > INLINE_DICE:
        return False  # not even worth estimating where the request is handled
    return inline_work(work_units(attacks))
