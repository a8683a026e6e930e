"""Several objects in one Explosion (chapter 8, Heavy Explosions): the joint law of their
outcomes, exactly.

"The player rolls the number of d10s ... All objects ... within a two-inch radius of the blast
center take this much damage"; each further two inches take the total without the highest die
left (with its Bonus dice), and each object rolls its own Armour. So the objects are not
independent: they share one Damage roll. Given that roll they are (each its own Armour roll),
so the joint law is a mixture over the roll's outcomes of independent objects
(``Scenario``-like rows, one per object).

An object in ring ``k`` behind ``L`` layers of Deflection takes the dice left after the ``k +
L`` highest groups are removed (one kind of die: the removals commute), i.e. the sum of the
``n - k - L`` lowest groups. The walk below goes over the groups' values from low to high,
counting how many groups took a value so far (a multinomial, one level at a time) and
the running sum of the lowest ones; each object's sum is frozen when the count passes its
kept dice, and sums are capped where the object's outcome no longer changes (its Armour's
highest value), so the walk is small.

>>> from app.rules.brikwars.attacks.common import Target
>>> from app.rules.brikwars.catalogue import DamageExpr
>>> from app.rules.brikwars.attacks.explosion import Explosion
>>> boom = Explosion(DamageExpr(2, 10, explosion=True))
>>> law = blast_scenarios(boom, ((Target.minifig(), 0), (Target.minifig(), 1)))
>>> round(sum(w for w, _ in law), 9)  # the weights are the whole roll
1.0
>>> round(sum(w * rows[1][3] for w, rows in law), 4)  # ring 1: the lower d10 beats Armour 4
0.36
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import ceil, comb, prod
from typing import TYPE_CHECKING

import numpy as np

from app.rules.brikwars.attacks.common import Target
from app.rules.dice import TotalDistribution, total_distribution
from app.rules.dice.groups import chain_depth, group_table
from app.rules.dice.spec import Dice

if TYPE_CHECKING:
    from app.rules.brikwars.attacks.explosion import Explosion

Row = tuple[float, float, float, float]
"""One object's P(miss, no effect, Something Bad, destroying hit) given a scenario."""
BlastScenario = tuple[float, tuple[Row, ...]]
"""A weight and, per object, its row: the objects are independent given it."""
MISS: Row = (1.0, 0.0, 0.0, 0.0)
NO_EFFECT: Row = (0.0, 1.0, 0.0, 0.0)
MAX_BLAST_OUTCOMES = 16_384
"""Most combinations of the capped sums the objects' rings and Deflection keep (a bound on
the joint law's outcomes, four times what a tally mixes): past it the joint law is not
computed (``None``) and the tally says why. Rolled Armour in two rings is past it (e.g. a
Hero's 2d6 with Bonus dice has 167 values, a d10's 110)."""
MAX_BLAST_STATES = 100_000
"""Most states of the walk at once (counts, frozen sums, running sum)."""


def ring_of(inches: Fraction | int) -> int:
    """The ring an object ``inches`` from the blast centre stands in: ring 0 is within two
    inches (2" included), ring k from 2k" (excluded) to 2k + 2" (included).

    >>> [ring_of(Fraction(x)) for x in ("0", "2", "3", "4", "4.5", "6")]
    [0, 0, 1, 1, 2, 2]
    """
    d = Fraction(inches)
    return 0 if d <= 2 else ceil(d / 2) - 1


def _rows(armour: TotalDistribution | int) -> list[Row]:
    """Per damage 0..len(Armour law): the object's row (the last: damage past every Armour)."""
    if isinstance(armour, int):
        arm = np.zeros(armour + 1)
        arm[armour] = 1.0
    else:
        arm = np.asarray(armour.pmf, dtype=np.float64)
    size = len(arm) + 1
    a = np.zeros(size)
    a[: len(arm)] = arm
    cum = np.cumsum(a)
    rows: list[Row] = []
    for d in range(size):
        below = float(cum[d - 1]) if d else 0.0
        rows.append((0.0, float(cum[-1] - cum[d]), float(a[d]), below))
    return rows


def blast_scenarios(
    explosion: Explosion, objects: Sequence[tuple[Target, int]]
) -> tuple[BlastScenario, ...] | None:
    """The explosion's joint law over ``objects`` (each a target and its ring): per outcome
    of the one Damage roll (equal rows merged), each object's row. An object beyond the last
    ring is not caught (``MISS``); a Dud (every die a natural 1) leaves everyone unharmed.

    ``None`` when the pool mixes kinds of dice (an Over-the-Top d10 with a variant's dice,
    a Phased odd d10) or Deflection depends on the roll, or the law is too big (more than
    ``MAX_BLAST_OUTCOMES`` combinations of the sums or ``MAX_BLAST_STATES``): the odds of
    each object still hold (``Explosion.ring_odds``), only their joint law is not given."""
    if explosion.damage.knockback_only:  # Concussion: no damage to anyone
        return ((1.0, tuple(NO_EFFECT for _ in objects)),)
    pool = explosion.pool()
    kinds = {Dice(1, d.sides, d.per_die, d.bonus_die, d.deflectable) for d in pool.dice}
    if len(kinds) != 1:
        return None
    (kind,) = kinds
    n = pool.dice_count
    # per object: kept dice (None: not caught), total modifier, rows by damage
    plan: list[tuple[int | None, int, list[Row]]] = []
    caps: dict[int, int] = {}
    for target, ring in objects:
        if ring >= n:
            plan.append((None, 0, []))
            continue
        layers = explosion._layers(target, ring)
        if layers is None:
            return None
        kept = max(0, n - ring - layers)
        armour = target.armour_value(explosion.options)
        rows = _rows(armour if isinstance(armour, int) else total_distribution(armour))
        modifier = pool.modifier + target.size_modifier
        plan.append((kept, modifier, rows))
        if kept:
            caps[kept] = max(caps.get(kept, 0), max(0, len(rows) - 1 - modifier))
    if prod(c + 1 for c in caps.values()) > MAX_BLAST_OUTCOMES:
        return None
    table = group_table(kind, chain_depth(kind, n))
    sums, cf = _walk(table.value_pmf, table.all_ones_value, 1.0 / kind.sides, n, caps)
    if sums is None:
        return None
    merged: dict[tuple[Row, ...], float] = {}
    order = sorted(caps)
    for frozen, p in sums.items():
        by_kept = dict(zip(order, frozen, strict=True))
        key = tuple(
            MISS
            if kept is None
            else rows[min(len(rows) - 1, max(0, by_kept.get(kept, 0) + modifier))]
            for kept, modifier, rows in plan
        )
        merged[key] = merged.get(key, 0.0) + p
    if cf > 0:
        key = tuple(MISS if kept is None else NO_EFFECT for kept, _, _ in plan)
        merged[key] = merged.get(key, 0.0) + cf
    return tuple((w, rows) for rows, w in merged.items())


def _walk(
    value_pmf: np.ndarray, ones_value: int, ones_p: float, n: int, caps: dict[int, int]
) -> tuple[dict[tuple[int, ...], float] | None, float]:
    """The law of each kept count's sum of the lowest groups (capped), over ``n`` groups of
    one kind, without the all-ones roll; and P(all ones). Levels go from low values to high;
    the first is the natural 1 alone (a Dud needs every group there)."""
    order = sorted(caps)
    top = max(caps.values(), default=0)
    levels: list[tuple[int, float]] = [(ones_value, ones_p)]
    saturated = 0.0
    for value, p in enumerate(value_pmf):
        p = float(p) - (ones_p if value == ones_value else 0.0)
        if p <= 0:
            continue
        if value >= top:
            saturated += p  # every sum it joins is past its cap: one level
        else:
            levels.append((value, p))
    if saturated > 0:
        levels.append((top, saturated))
    # state: (groups placed, frozen sums of the kept counts passed, running sum) -> P
    states: dict[tuple[int, tuple[int, ...], int], float] = {(0, (), 0): 1.0}
    cf = 0.0
    for index, (value, p) in enumerate(levels):
        nxt: dict[tuple[int, tuple[int, ...], int], float] = {}
        for (c, frozen, running), q in states.items():
            for j in range(n - c + 1):
                w = q * comb(n - c, j) * p**j
                if w == 0.0:
                    continue
                c2 = c + j
                new = list(frozen)
                for k in order[len(frozen) :]:
                    if k > c2:
                        break
                    new.append(min(caps[k], running + (k - c) * value))
                open_caps = [caps[k] for k in order[len(new) :]]
                run2 = min(max(open_caps), running + j * value) if open_caps else 0
                if index == 0 and c2 == n:
                    cf += w
                    continue
                key = (c2, tuple(new), run2)
                nxt[key] = nxt.get(key, 0.0) + w
        if len(nxt) > MAX_BLAST_STATES:
            return None, 0.0
        states = nxt
    return {frozen: q for (c, frozen, _), q in states.items() if c == n}, cf
