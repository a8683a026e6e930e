"""Explosions (chapter 8.4): rings of damage and KnockBack, one Armour roll per object.

An Explosion rolls its dice once. Ring 0 (0-2" from the centre) takes the whole total; each
further 2" ring takes the total without the highest remaining die (with its Bonus dice). Loose
objects (and objects the blast destroys) are Knocked Back 1" per die left in their ring.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from app.rules.brikwars.attacks.blast import MISS, BlastLaw, blast_law
from app.rules.brikwars.attacks.common import (
    ActionRoll,
    LoggedDie,
    Outcome,
    Target,
    damage_pool,
    log_pool,
    roll_logged,
)
from app.rules.brikwars.catalogue import DamageExpr
from app.rules.brikwars.options import DEFAULT_OPTIONS, BrikWarsOptions
from app.rules.brikwars.plated import check_request_work, explosion_ring_deflected, sweep_work
from app.rules.dice import (
    MAX_DICE,
    Dice,
    JointDistribution,
    Pool,
    PoolRoll,
    Ties,
    TotalDistribution,
    compare_by_dice,
    explosion_rings,
    roll_explosion,
    total_distribution,
)
from app.rules.dice.exact import work_bound
from app.rules.errors import InvalidInput
from app.rules.work import MULTIPLY_ADDS_PER_UNIT, RING_UNITS, SWEEP_CALL_UNITS, inline_work

RING_INCHES = 2
POP_SIDES = 6
INLINE_RINGS = 6
"""Explosions of more rings (dice) than this are not even estimated in the request."""
Scenario = tuple[float, tuple[float, float, float, float]]
"""A weight and one object's P(miss, no effect, Something Bad, destroying hit) given it."""
_NO_EFFECT = (0.0, 1.0, 0.0, 0.0)


@dataclass(frozen=True, slots=True)
class RingOdds:
    """One ring against one object: its outcomes and KnockBack.

    ``destroyed + size_damage + something_bad + no_effect == 1`` (within the bound);
    ``no_effect`` includes ``critical_failure`` (the whole explosion rolled all ones: a Dud,
    no damage and no KnockBack, ruling D5). ``knockback`` is the KnockBack of a loose object
    as ``(inches, probability)``; ``knockback_if_destroyed`` is P(destroyed and Knocked Back
    that far) (debris of a nailed-down object). ``on_fire``: P(at least 1 point of Fire).
    """

    ring: int
    from_inches: int
    to_inches: int
    destroyed: float
    size_damage: float
    something_bad: float
    no_effect: float
    critical_failure: float
    knockback: tuple[tuple[int, float], ...]
    knockback_if_destroyed: tuple[tuple[int, float], ...]
    on_fire: float
    truncation_bound: float


@dataclass(frozen=True, slots=True)
class ExplosionOdds:
    """Every ring of an explosion against one kind of object."""

    rings: tuple[RingOdds, ...]
    truncation_bound: float


@dataclass(frozen=True, slots=True)
class ExplosionObject:
    """An object caught in a rolled explosion: which ring it is in, whether it is loose."""

    target: Target
    ring: int
    loose: bool = False


@dataclass(frozen=True, slots=True)
class ObjectResult:
    """What one object got from a rolled explosion."""

    ring: int
    damage: int
    armour: int | None
    outcome: Outcome
    knockback: int
    on_fire: bool


@dataclass(frozen=True, slots=True)
class ExplosionRollResult:
    """A rolled explosion: every die in order, each ring's (damage, dice left), each object."""

    dice: tuple[LoggedDie, ...]
    rings: tuple[tuple[int, int], ...]
    critical_failure: bool
    objects: tuple[ObjectResult, ...]


def _pairs(values: np.ndarray) -> tuple[tuple[int, float], ...]:
    return tuple((int(i), float(p)) for i, p in enumerate(values) if p > 0)


@dataclass(frozen=True, slots=True)
class Explosion:
    """An Explosion of ``damage`` (X d10, or a variant's dice) plus ``damage_modifier``.

    ``over_the_top``: the Action roll was a Critical Success, one more standard d10 (RULINGS
    1.1). Out of Range never reduces Explosion Damage. Each object adds its own Target Size
    and visibility modifier to the damage (RULINGS 1.3).

    >>> boom = Explosion(DamageExpr(3, 10, explosion=True))
    >>> [(r.from_inches, r.to_inches) for r in boom.odds(Target.minifig()).rings]
    [(0, 2), (2, 4), (4, 6)]
    """

    damage: DamageExpr
    damage_modifier: int = 0
    over_the_top: bool = False
    options: BrikWarsOptions = DEFAULT_OPTIONS
    ties: Ties = "more_dice_first"
    _cache: dict[int, tuple[JointDistribution, ...]] = field(
        default_factory=dict, compare=False, repr=False
    )
    # Computed once per Explosion (rolls repeat): its pool, its groups' flags, and per object
    # (by id, the object kept alive so its id stays its own) its damage modifier and Armour.
    _pool_memo: list[Pool] = field(default_factory=list, compare=False, repr=False)
    _flags_memo: list[tuple[tuple[bool, ...], tuple[bool, ...]]] = field(
        default_factory=list, compare=False, repr=False
    )
    _object_memo: dict[int, tuple[Target, int, int | Pool]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        if self.pool().dice_count > MAX_DICE:
            raise InvalidInput("dice", f"an explosion rolls at most {MAX_DICE} dice")

    def pool(self, modifier: int = 0) -> Pool:
        """The explosion's dice (Bonus dice by the options) with ``modifier`` on each ring."""
        extra = (Dice(1, 10, 0, self.options.bonus_die),) if self.over_the_top else ()
        return damage_pool(
            self.damage,
            modifier=self.damage_modifier + modifier,
            options=self.options,
            extra_dice=extra,
        )

    @property
    def ring_count(self) -> int:
        """Number of 2" rings (one per die group)."""
        return self.pool().dice_count

    def _rings(self, modifier: int) -> tuple[JointDistribution, ...]:
        if modifier not in self._cache:
            self._cache[modifier] = explosion_rings(self.pool(modifier), ties=self.ties)
        return self._cache[modifier]

    def _piercing(self) -> tuple[bool, ...]:
        """Armor Piercing flags, one per ``Dice`` of ``pool()``: the variant's dice, the odd
        standard d10 of a Phased Explosive, the Over-the-Top d10 (never piercing)."""
        flags = [self.damage.armor_piercing]
        if self.damage.extra is not None:
            flags.append(self.damage.extra.armor_piercing)
        if self.over_the_top:
            flags.append(False)
        return tuple(flags)

    def _layers(self, target: Target, ring: int) -> int | None:
        """The Deflection layers that remove the highest groups left in ``ring``, when they
        do not depend on the roll; ``None`` for a mixed pool (Armor Piercing or Phased dice
        with standard d10s), which the general sweep resolves (ruling A17)."""
        layers = target.armour.deflection
        if not layers:
            return 0
        pool = self.pool()
        piercing = self._piercing()
        if all(not d.deflectable for d in pool.dice):
            return 0  # Phased d12s ignore Deflection
        if all(piercing):
            # Every die left in the ring is an Armor Piercing die (ruling A6).
            return max(0, layers - (pool.dice_count - ring))
        if not any(piercing) and all(d.deflectable for d in pool.dice):
            return layers
        return None

    def sweep_work(self, target: Target, rings: Iterable[int]) -> int:
        """Array operations of the Deflection sweeps ``ring_odds`` runs for ``rings``."""
        pool = self.pool(target.size_modifier)
        calls = 0
        for ring in rings:
            layers = self._layers(target, ring)
            if layers is None:
                calls += sweep_work(pool, target.armour.deflection, self._piercing())
            elif layers:
                calls += sweep_work(pool, layers)
        return calls

    def work_units(self, target: Target) -> float:
        """The counted work (``app.rules.work`` units) of ``odds(target)``, from the pools'
        sizes alone: the sums' multiply-adds (the explosion's pool, a rolled Armour's), the
        Deflection sweeps' array operations over every ring, and each ring's own odds. The
        sweeps dominate wherever there is Deflection (a 3d6 explosion Over the Top against
        Deflection counts some 100,000 units; it took 45 ms)."""
        pools = [self.pool(target.size_modifier)]
        armour = target.armour_value(self.options)
        if isinstance(armour, Pool):
            pools.append(armour)
        adds = sum(work_bound(pool) for pool in pools)
        sweeps = self.sweep_work(target, range(self.ring_count))
        return (
            adds / MULTIPLY_ADDS_PER_UNIT + sweeps * SWEEP_CALL_UNITS + self.ring_count * RING_UNITS
        )

    def inline(self, target: Target) -> bool:
        """Whether ``odds(target)`` is computed where the request is handled: at most
        ``INLINE_RINGS`` rings (larger ones are not even estimated there), and counted work
        under ``INLINE_WORK_UNITS``."""
        return self.ring_count <= INLINE_RINGS and inline_work(self.work_units(target))

    def check_work(self, target: Target, rings: Iterable[int]) -> None:
        """Refuse, before any sweep, the rings whose sweeps together are too much work."""
        check_request_work(self.sweep_work(target, rings), self.ring_count)

    def ring_joint(self, target: Target, ring: int) -> JointDistribution:
        """Ring ``ring``'s (damage, dice left) against an object like ``target`` (its Target
        Size modifier added, its Deflection taken off)."""
        modifier = target.size_modifier
        layers = self._layers(target, ring)
        if layers is None:
            return explosion_ring_deflected(
                self.pool(modifier),
                ring,
                target.armour.deflection,
                ties=self.ties,
                piercing=self._piercing(),
            )
        if layers:
            return explosion_ring_deflected(self.pool(modifier), ring, layers, ties=self.ties)
        return self._rings(modifier)[ring]

    def ring_scenarios(self, target: Target, ring: int) -> tuple[Scenario, ...]:
        """Objects like ``target`` in ring ``ring`` share the explosion's one Damage roll and
        each rolls its own Armour: given the ring's damage, each object's (miss, no effect,
        Something Bad, destroying hit) law, by weight (the scenarios given which the objects
        are independent; equal laws merged: a fixed Armour has three)."""
        joint = self.ring_joint(target, ring)
        if self.damage.knockback_only:
            return ((1.0, _NO_EFFECT),)
        total = joint.total()
        damage = total.excluding_all_ones()
        armour = target.armour_value(self.options)
        law = (
            TotalDistribution.fixed(armour)
            if isinstance(armour, int)
            else total_distribution(armour)
        )
        arm = law.pmf
        size = max(len(damage), len(arm)) + 1
        a = np.zeros(size)
        a[: len(arm)] = arm
        cum = np.cumsum(a)
        out: dict[tuple[float, float, float, float], float] = {}
        if total.all_ones:
            out[_NO_EFFECT] = total.all_ones
        for d, p in enumerate(damage):
            if p <= 0:
                continue
            below = float(cum[d - 1]) if d else 0.0
            row = (0.0, float(cum[-1] - cum[d]), float(a[d]), below)
            out[row] = out.get(row, 0.0) + float(p)
        return tuple((w, row) for row, w in out.items())

    def ring_odds(self, target: Target, ring: int) -> RingOdds:
        """Ring ``ring`` (``2*ring`` to ``2*ring + 2`` inches) against one object."""
        joint = self.ring_joint(target, ring)
        loose = joint.excluding_all_ones().sum(axis=0)
        loose[0] += joint.all_ones
        base = dict(
            ring=ring,
            from_inches=RING_INCHES * ring,
            to_inches=RING_INCHES * (ring + 1),
            critical_failure=joint.all_ones,
            knockback=_pairs(loose),
        )
        if self.damage.knockback_only:
            return self._concussion(joint, base)
        armour = target.armour_value(self.options)
        c = compare_by_dice(joint, armour)
        greater = float(c.greater.sum())
        size = target.takes_size_damage
        fire = float(joint.excluding_all_ones()[1:].sum()) if self.damage.fire else 0.0
        return RingOdds(
            destroyed=0.0 if size else greater,
            size_damage=greater if size else 0.0,
            something_bad=float(c.equal.sum()),
            no_effect=float(c.less.sum()) + c.critical_failure,
            knockback_if_destroyed=_pairs(c.greater),
            on_fire=fire,
            truncation_bound=c.truncation_bound,
            **base,  # type: ignore[arg-type]
        )

    def _concussion(self, joint: JointDistribution, base: dict[str, object]) -> RingOdds:
        """Concussion dice do no damage: their total is KnockBack, less the target's POP 1d6
        (no Bonus die: POP is neither damage nor Armour, ruling A7)."""
        total = joint.total().excluding_all_ones()
        pop = np.full(POP_SIDES, 1.0 / POP_SIDES)
        knock = np.zeros(len(total))
        for t, p in enumerate(total):
            for face, q in enumerate(pop, start=1):
                knock[max(0, t - face)] += p * q
        knock[0] += joint.all_ones
        base["knockback"] = _pairs(knock)
        return RingOdds(
            destroyed=0.0,
            size_damage=0.0,
            something_bad=0.0,
            no_effect=1.0,
            knockback_if_destroyed=(),
            on_fire=0.0,
            truncation_bound=joint.truncation_bound,
            **base,  # type: ignore[arg-type]
        )

    def odds(self, target: Target) -> ExplosionOdds:
        """Every ring against an object like ``target`` (its Armour rolled once per ring).

        >>> from app.rules.brikwars.units import Armour
        >>> o = Explosion(DamageExpr(1, 10, explosion=True)).odds(Target(Armour(fixed=4)))
        >>> r = o.rings[0]
        >>> round(r.destroyed, 4), round(r.something_bad, 4)
        (0.6, 0.1)
        >>> [round(p, 4) for _, p in r.knockback[:3]]  # a Dud (natural 1) moves nothing
        [0.1, 0.8, 0.09]
        """
        n = self.ring_count
        self.check_work(target, range(n))
        rings = tuple(self.ring_odds(target, k) for k in range(n))
        return ExplosionOdds(rings, max(r.truncation_bound for r in rings))

    def roll(
        self, rng: random.Random, objects: tuple[ExplosionObject, ...] = ()
    ) -> ExplosionRollResult:
        """Roll the explosion once, then each object's Armour in turn (one roll per object).

        >>> r = Explosion(DamageExpr(3, 10, explosion=True)).roll(random.Random(1))
        >>> [d.natural for d in r.dice], r.rings
        ([3, 10, 2, 5], ((20, 4), (8, 2), (3, 1)))
        """
        log: list[LoggedDie] = []
        pool = _explosion_pool(self)
        boom = roll_explosion(pool, rng, ties=self.ties)
        base_count = pool.dice_count - (1 if self.over_the_top else 0)
        log_pool(boom.roll, "explosion", log, extra_from=base_count if self.over_the_top else None)
        cf = boom.roll.critical_failure
        order = _ring_order(self, boom.roll)
        results = []
        for i, obj in enumerate(objects):
            results.append(self._object(boom, order, obj, i, rng, log, cf))
        rings = tuple((r.total, r.dice) for r in boom.rings)
        return ExplosionRollResult(tuple(log), rings, cf, tuple(results))

    def _object(
        self,
        boom: object,
        order: tuple[int, ...],
        obj: ExplosionObject,
        index: int,
        rng: random.Random,
        log: list[LoggedDie],
        cf: bool,
    ) -> ObjectResult:
        roll = boom.roll  # type: ignore[attr-defined]
        k = obj.ring
        if not isinstance(k, int) or k < 0:
            raise InvalidInput("ring", f"needs a ring from 0, got {k!r}")
        if k >= len(roll.group_values):  # beyond the blast's radius: not caught
            return ObjectResult(k, 0, None, "miss", 0, False)
        modifier, armour_value = _object_facts(self, obj.target)
        kept = order[k:]
        dice_left = sum(roll.group_dice[g] for g in kept)
        # Each Armor Piercing die left cancels a layer; the layers left remove the highest
        # deflectable groups still in the ring (rulings D8, A6, A17).
        piercing, soft = _group_flags(self)
        left = max(0, obj.target.armour.deflection - sum(1 for g in kept if piercing[g]))
        raw = roll.pool.modifier + modifier
        for g in kept:
            if left and soft[g]:
                left -= 1
                continue
            raw += roll.group_values[g]
        damage = max(0, raw)
        if self.damage.knockback_only:
            pop = rng.randrange(POP_SIDES) + 1
            log.append(LoggedDie("POP", POP_SIDES, pop, pop, False, index))
            knock = 0 if cf else max(0, damage - pop)
            return ObjectResult(k, 0, None, "no_effect", knock, False)
        if isinstance(armour_value, int):
            armour = armour_value
        else:
            armour = roll_logged(armour_value, rng, "armour", log, target=index).total
        outcome: Outcome
        if cf or damage < armour:
            outcome = "no_effect"
        elif damage == armour:
            outcome = "something_bad"
        else:
            outcome = "size_damage" if obj.target.takes_size_damage else "destroyed"
        moved = not cf and (obj.loose or outcome in ("destroyed", "size_damage"))
        return ObjectResult(
            k,
            damage,
            armour,
            outcome,
            dice_left if moved else 0,
            self.damage.fire and not cf and damage >= 1,
        )


def _explosion_pool(explosion: Explosion) -> Pool:
    """The explosion's pool, built once per Explosion (rolls repeat)."""
    if not explosion._pool_memo:
        explosion._pool_memo.append(explosion.pool())
    return explosion._pool_memo[0]


def _group_flags(explosion: Explosion) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    """Per group of the explosion's pool: Armor Piercing, and deflectable (not Phased)."""
    if not explosion._flags_memo:
        pool = _explosion_pool(explosion)
        piercing = tuple(
            ap
            for d, ap in zip(pool.dice, explosion._piercing(), strict=True)
            for _ in range(d.count)
        )
        explosion._flags_memo.append((piercing, tuple(d.deflectable for d in pool.groups())))
    return explosion._flags_memo[0]


def _ring_order(explosion: Explosion, roll: PoolRoll) -> tuple[int, ...]:
    """Group indices in the order the rings remove them: highest value first, equal values
    by the ``ties`` option, then a plain group before an Armor Piercing or Phased one (the
    attacker's choice, ruling A17), then the lower index (ruling D1)."""
    piercing, soft = _group_flags(explosion)
    values, counts = roll.group_values, roll.group_dice
    sign = 1 if explosion.ties == "fewer_dice_first" else -1
    ranked = sorted(
        (-values[g], sign * counts[g], piercing[g] or not soft[g], g) for g in range(len(values))
    )
    return tuple(g for *_, g in ranked)


def _object_facts(explosion: Explosion, target: Target) -> tuple[int, int | Pool]:
    """An object's damage modifier and Armour (once per object)."""
    key = id(target)
    if key not in explosion._object_memo:
        explosion._object_memo[key] = (
            target,  # kept alive so its id stays its own
            target.size_modifier,
            target.armour_value(explosion.options),
        )
    _, modifier, armour = explosion._object_memo[key]
    return modifier, armour


# --------------------------------------------------------------------------- fired explosives


@dataclass(frozen=True, slots=True)
class ExplosiveShotOdds:
    """A thrown, dropped or fired Explosive aimed at a point: P(hit), P(Critical Success: one
    more d10), the ring's odds for an object given a hit, and the miss distance.

    ``ring`` mixes the plain and Over-the-Top explosions by their chances given a hit.
    ``missed_by``: (inches, probability) of a miss (the defender picks where within that
    distance it lands, chapter 5.3; at least 1", ruling A15). ``dud_option``:
    P(the Action roll or the Damage Roll is a Critical Failure: the defender may declare a
    Dud).
    """

    hit: float
    over_the_top: float
    miss: float
    missed_by: tuple[tuple[int, float], ...]
    ring: RingOdds
    dud_option: float


@dataclass(frozen=True, slots=True)
class ExplosiveShotRoll:
    """A rolled Explosive shot: the Action die, then (on a hit) the explosion."""

    dice: tuple[LoggedDie, ...]
    hit: bool
    over_the_top: bool
    missed_by: int
    explosion: ExplosionRollResult | None


def _mix_rings(a: RingOdds, wa: float, b: RingOdds, wb: float) -> RingOdds:
    total = wa + wb

    def mix(x: float, y: float) -> float:
        return (wa * x + wb * y) / total

    def pairs(
        x: tuple[tuple[int, float], ...], y: tuple[tuple[int, float], ...]
    ) -> tuple[tuple[int, float], ...]:
        out: dict[int, float] = {}
        for inches, p in x:
            out[inches] = out.get(inches, 0.0) + wa * p / total
        for inches, p in y:
            out[inches] = out.get(inches, 0.0) + wb * p / total
        return tuple(sorted(out.items()))

    return RingOdds(
        ring=a.ring,
        from_inches=a.from_inches,
        to_inches=a.to_inches,
        destroyed=mix(a.destroyed, b.destroyed),
        size_damage=mix(a.size_damage, b.size_damage),
        something_bad=mix(a.something_bad, b.something_bad),
        no_effect=mix(a.no_effect, b.no_effect),
        critical_failure=mix(a.critical_failure, b.critical_failure),
        knockback=pairs(a.knockback, b.knockback),
        knockback_if_destroyed=pairs(a.knockback_if_destroyed, b.knockback_if_destroyed),
        on_fire=mix(a.on_fire, b.on_fire),
        truncation_bound=max(a.truncation_bound, b.truncation_bound),
    )


@dataclass(frozen=True, slots=True)
class ExplosiveShot:
    """An Explosive thrown, dropped, fired as a Rocket, from a Cannon or from a Launcher (each
    launched round rolls its own Action roll): the Action roll, then the Explosion at the aimed
    point on a hit, with one more d10 on a Critical Success.

    >>> from app.rules.brikwars.attacks.common import ActionRoll
    >>> shot = ExplosiveShot(ActionRoll(6, 1), Explosion(DamageExpr(1, 10, explosion=True)))
    >>> o = shot.odds(Target.minifig())
    >>> round(o.hit, 4), round(o.over_the_top, 4), o.ring.ring
    (0.8333, 0.1667, 0)
    """

    action: ActionRoll
    explosion: Explosion

    def _over_the_top(self) -> Explosion:
        e = self.explosion
        return Explosion(e.damage, e.damage_modifier, True, e.options, e.ties)

    def odds(self, target: Target, ring: int = 0) -> ExplosiveShotOdds:
        """Odds for an object in ``ring`` of the aimed point (ring 0: at the point)."""
        miss, hit, crit = self.action.probabilities()
        plain = self.explosion.ring_odds(target, ring) if hit > 0 else None
        ott = self._over_the_top().ring_odds(target, ring)
        mixed = ott if plain is None else _mix_rings(plain, hit, ott, crit)
        missed: dict[int, float] = {}
        for natural in range(1, self.action.die + 1):
            if self.action.result(natural) in ("miss", "fumble"):
                by = max(1, self.action.use - (natural + self.action.modifier))  # ruling A15
                missed[by] = missed.get(by, 0.0) + 1.0 / self.action.die
        dud = 1.0 / self.action.die + (hit + crit) * mixed.critical_failure
        return ExplosiveShotOdds(
            hit=hit + crit,
            over_the_top=crit,
            miss=miss,
            missed_by=tuple(sorted(missed.items())),
            ring=mixed,
            dud_option=dud,
        )

    def scenarios(self, target: Target, ring: int = 0) -> tuple[Scenario, ...]:
        """The shot's joint law over objects like ``target`` in ring ``ring`` of the aimed
        point: a miss leaves them all untouched; a hit (a Critical Success: one more d10)
        rolls one Damage for them all (``Explosion.ring_scenarios``)."""
        miss, hit, crit = self.action.probabilities()
        out: dict[tuple[float, float, float, float], float] = {}
        if miss > 0:
            out[(1.0, 0.0, 0.0, 0.0)] = miss
        for weight, explosion in ((hit, self.explosion), (crit, self._over_the_top())):
            if weight <= 0:
                continue
            for w, row in explosion.ring_scenarios(target, ring):
                out[row] = out.get(row, 0.0) + weight * w
        return tuple((w, row) for row, w in out.items())

    def caught(self, target: Target, ring: int) -> tuple[float, RingOdds | None]:
        """An object in ring ``ring`` of the aimed point: P(the explosion catches it) (a hit
        whose explosion reaches its ring; an Over-the-Top d10 adds a ring) and the odds given
        that (``None`` when nothing reaches it)."""
        _, hit, crit = self.action.probabilities()
        ott = self._over_the_top()
        parts = [
            (w, e.ring_odds(target, ring))
            for w, e in ((hit, self.explosion), (crit, ott))
            if w > 0 and ring < e.ring_count
        ]
        if not parts:
            return 0.0, None
        (w, odds), *rest = parts
        for w2, odds2 in rest:
            odds, w = _mix_rings(odds, w, odds2, w2), w + w2
        return w, odds

    def blast_law(self, objects: tuple[tuple[Target, int], ...]) -> BlastLaw | None:
        """The shot's joint law over ``objects`` (target, ring): a miss catches none of them
        (it lands elsewhere), a hit rolls one Damage for them all (``blast.blast_law``), one
        more d10 on a Critical Success. ``None`` when that law is not computed."""
        miss, hit, crit = self.action.probabilities()
        weights: list[np.ndarray] = []
        rows: list[np.ndarray] = []
        if miss > 0:
            weights.append(np.array([miss]))
            rows.append(np.tile(np.array(MISS), (1, len(objects), 1)))
        for weight, explosion in ((hit, self.explosion), (crit, self._over_the_top())):
            if weight <= 0:
                continue
            law = blast_law(explosion, objects)
            if law is None:
                return None
            weights.append(weight * law[0])
            rows.append(law[1])
        return np.concatenate(weights), np.concatenate(rows)

    def roll(
        self, rng: random.Random, objects: tuple[ExplosionObject, ...] = ()
    ) -> ExplosiveShotRoll:
        """The Action die; on a hit the explosion with ``objects`` around the aimed point. On a
        miss nothing explodes here: the defender places the shot within ``missed_by`` inches
        (then roll ``explosion.roll`` there)."""
        log: list[LoggedDie] = []
        natural = self.action.roll(rng, log)
        result = self.action.result(natural)
        if result in ("miss", "fumble"):
            by = max(1, self.action.use - (natural + self.action.modifier))  # ruling A15
            return ExplosiveShotRoll(tuple(log), False, False, by, None)
        crit = result == "critical"
        explosion = self._over_the_top() if crit else self.explosion
        boom = explosion.roll(rng, objects)
        return ExplosiveShotRoll(tuple(log) + boom.dice, True, crit, 0, boom)
