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

import math
from collections.abc import Sequence
from fractions import Fraction
from math import ceil, comb, prod
from typing import TYPE_CHECKING

import numpy as np

from app.rules.brikwars.attacks.common import Target
from app.rules.brikwars.plated import deflected_sum
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
BlastLaw = tuple[np.ndarray, np.ndarray]
"""The joint law as arrays: weights ``(O,)`` and each object's row per outcome ``(O, N, 4)``."""
MAX_BLAST_CELLS = 2_000_000
"""Most combinations of the capped sums the objects' rings and Deflection keep (the dense
table the walk fills, 16 MB): past it the joint law is not computed (``None``) and the tally
says why. Four rings of rolled Armour can pass it (a Hero's 2d6 with Bonus dice has 167 values,
a d10's 110); two or three are within it."""
MAX_WALK_CELLS = 4_000_000
"""Most cells of the walk's tables at once (per state of counts and layers left, a table of
the capped sums; 32 MB): past it the joint law is not computed."""


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
    """``blast_law`` as tuples: per outcome of the one Damage roll (equal rows merged), its
    weight and each object's row."""
    law = blast_law(explosion, objects)
    if law is None:
        return None
    weights, rows = law
    return tuple(
        (float(w), tuple(tuple(float(x) for x in row) for row in law_rows))  # type: ignore[misc]
        for w, law_rows in zip(weights, rows, strict=True)
    )


def blast_law(explosion: Explosion, objects: Sequence[tuple[Target, int]]) -> BlastLaw | None:
    """The explosion's joint law over ``objects`` (each a target and its ring): per outcome
    of the one Damage roll (equal rows merged), its weight and each object's row. An object
    beyond the last ring is not caught (``MISS``); a Dud (every die a natural 1) leaves
    everyone unharmed.

    The outcomes are the capped damages of each (ring, Deflection) the objects stand at,
    jointly (``_walk``); ``None`` past ``MAX_BLAST_CELLS`` of them or ``MAX_WALK_CELLS``:
    the odds of each object still hold (``Explosion.ring_odds``), only their joint law is
    not given. The weights sum to one less the Bonus chains' truncation (the engine's)."""
    count = len(objects)
    if explosion.damage.knockback_only:  # Concussion: no damage to anyone
        return np.ones(1), np.tile(np.array(NO_EFFECT), (1, count, 1))
    pool = explosion.pool()
    n = pool.dice_count
    piercing = explosion._piercing()
    # per object: its class (ring, layers) index (None: not caught), modifier, rows
    classes: dict[tuple[int, int], int] = {}
    caps: list[int] = []
    plan: list[tuple[int | None, int, np.ndarray]] = []
    for target, ring in objects:
        if ring >= n:
            plan.append((None, 0, np.zeros((0, 4))))
            continue
        armour = target.armour_value(explosion.options)
        rows = np.array(_rows(armour if isinstance(armour, int) else total_distribution(armour)))
        modifier = pool.modifier + target.size_modifier
        key = (ring, target.armour.deflection)
        if key not in classes:
            classes[key] = len(caps)
            caps.append(0)
        c = classes[key]
        caps[c] = max(caps[c], max(0, len(rows) - 1 - modifier))
        plan.append((c, modifier, rows))
    if prod(c + 1 for c in caps) > MAX_BLAST_CELLS:
        return None
    walked = _walk(pool.dice, piercing, n, list(classes), caps, explosion.ties)
    if walked is None:
        return None
    table, dud, dud_sums = walked
    if dud > 0:  # the Dud is one outcome of the walk: take it out, leave everyone unharmed
        table[dud_sums] = max(0.0, float(table[dud_sums]) - dud)
    cells = np.flatnonzero(table > 0.0)
    weights = table.reshape(-1)[cells]
    sums = np.unravel_index(cells, table.shape) if caps else ()
    index = np.zeros((len(cells), count), dtype=np.int64)
    for f, (cls, modifier, rows) in enumerate(plan):
        if cls is not None:
            index[:, f] = np.clip(sums[cls] + modifier, 0, len(rows) - 1)
    unique, inverse = np.unique(index, axis=0, return_inverse=True)
    merged = np.bincount(inverse.reshape(-1), weights=weights, minlength=len(unique))
    out = np.empty((len(unique) + (dud > 0), count, 4))
    for f, (cls, _, rows) in enumerate(plan):
        out[: len(unique), f] = MISS if cls is None else rows[unique[:, f]]
        if dud > 0:
            out[-1, f] = MISS if cls is None else NO_EFFECT
    if dud > 0:
        merged = np.append(merged, dud)
    return merged, out


def _walk(
    dice: tuple[Dice, ...],
    piercing: tuple[bool, ...],
    n: int,
    classes: list[tuple[int, int]],
    caps: list[int],
    ties: str,
) -> tuple[np.ndarray, float, tuple[int, ...]] | None:
    """The joint law of each class's (ring ``k``, ``L`` layers of Deflection) damage before
    its objects' modifiers, capped at ``caps``: a dense table over the classes' sums; the
    probability of the Dud (every die a natural 1) and its cell (the Dud is in the table).

    The groups are placed from the highest down, in the order the rings remove them (value,
    then dice by ``ties``, then a plain group before an Armor Piercing or Phased one, ruling
    A17), a level (one group outcome of one kind) at a time, with how many of each kind are
    placed and each class's layers still to apply (unknown until its ring's ``k`` highest
    groups are placed: each Armor Piercing group left in the ring cancels one) as the state;
    a group ranked past ``k`` is deflected while layers are left and it is deflectable, else
    adds its value. Values at or above every cap saturate every sum they join: with one kind
    of group (alike flags) they are one level."""
    kinds: dict[Kind, int] = {}
    for d, ap in zip(dice, piercing, strict=True):
        key = (d.sides, d.per_die, d.bonus_die, d.deflectable, bool(ap))
        kinds[key] = kinds.get(key, 0) + d.count
    kind_list = list(kinds.items())
    counts = [m for _, m in kind_list]
    soft = [k[3] for k, _ in kind_list]
    pierce = [k[4] for k, _ in kind_list]
    ap_total = sum(m for k, m in kind_list if k[4])
    levels = _levels(kind_list, n, max(caps, default=0), ties)
    shape = tuple(c + 1 for c in caps)
    start = np.zeros(shape)
    start[(0,) * len(caps)] = 1.0
    first = tuple(max(0, layers - ap_total) if k == 0 else -1 for k, layers in classes)
    State = tuple[tuple[int, ...], tuple[int, ...]]
    states: dict[State, np.ndarray] = {((0,) * len(counts), first): start}
    for _, t, value, p in levels:
        grown: dict[State, np.ndarray] = {}
        for (placed, lefts), arr in states.items():
            done = sum(placed)
            ap_placed = sum(placed[u] for u in range(len(counts)) if pierce[u])
            free = counts[t] - placed[t]
            for b in range(free + 1):
                weight = comb(free, b) * p**b
                if weight == 0.0:
                    break
                shifts, new_lefts = _step(
                    classes, lefts, done, b, value, ap_placed, ap_total, pierce[t], soft[t]
                )
                state = ((*placed[:t], placed[t] + b, *placed[t + 1 :]), tuple(new_lefts))
                into = grown.get(state)
                if into is None:
                    into = grown[state] = np.zeros(shape)
                _add_shifted(into, arr, weight, shifts, caps)
        if len(grown) * math.prod(shape) > MAX_WALK_CELLS:
            return None
        states = grown
    table = np.zeros(shape)
    for (placed, _), arr in states.items():
        if list(placed) == counts:
            table += arr
    dud = math.prod((1.0 / k[0]) ** m for k, m in kind_list)
    return table, dud, _dud_sums(kind_list, classes, caps)


Kind = tuple[int, int, str, bool, bool]  # sides, per_die, bonus_die, deflectable, piercing


def _levels(
    kind_list: list[tuple[Kind, int]], n: int, top: int, ties: str
) -> list[tuple[tuple[int, int, bool], int, int, float]]:
    """Every group outcome of every kind as (order key, kind, value, probability), in the
    order the rings remove them; with one kind of group (alike flags) the values at or
    above ``top`` are one level (they saturate every sum they join, whatever their order)."""
    alike = len({(k[3], k[4]) for k, _ in kind_list}) == 1
    sign = 1 if ties == "fewer_dice_first" else -1
    levels: list[tuple[tuple[int, int, bool], int, int, float]] = []
    for t, ((sides, per_die, bonus_die, deflectable, ap), _) in enumerate(kind_list):
        one = Dice(1, sides, per_die, bonus_die)  # type: ignore[arg-type]
        table = group_table(one, chain_depth(one, n))
        saturated = 0.0
        for value, bonus, p in zip(table.values, table.bonus, table.probs, strict=True):
            if alike and value >= top:
                saturated += float(p)
                continue
            special = ap or not deflectable
            levels.append(((-int(value), sign * int(bonus), special), t, int(value), float(p)))
        if saturated > 0:
            levels.append(((-top, -(10**9), False), t, top, saturated))
    levels.sort(key=lambda x: x[0])
    return levels


def _step(
    classes: list[tuple[int, int]],
    lefts: tuple[int, ...],
    done: int,
    b: int,
    value: int,
    ap_placed: int,
    ap_total: int,
    piercing: bool,
    deflectable: bool,
) -> tuple[list[int], list[int]]:
    """``b`` groups of ``value`` placed at ranks ``done + 1`` on: per class (ring ``k``,
    ``layers``), what its sum gains and its layers left (-1: not known yet)."""
    shifts = []
    new_lefts = []
    for (k, layers), left in zip(classes, lefts, strict=True):
        dropped = min(b, max(0, k - done))
        kept = b - dropped
        if left < 0 and done + b >= k:
            ap_top = ap_placed + (dropped if piercing else 0)
            left = max(0, layers - (ap_total - ap_top))
        damaged = kept
        if kept and deflectable and left > 0:
            deflected = min(left, kept)
            left -= deflected
            damaged -= deflected
        shifts.append(damaged * value)
        new_lefts.append(left)
    return shifts, new_lefts


def _add_shifted(
    into: np.ndarray, arr: np.ndarray, weight: float, shifts: list[int], caps: list[int]
) -> None:
    """``into += weight * arr`` with each class's sum raised by its shift, capped: along each
    shifted axis the cells that land at or past the cap are summed first, so the rest is one
    slice added to another."""
    src = arr
    dst: list[slice] = []
    for axis, (by, cap) in enumerate(zip(shifts, caps, strict=True)):
        by = min(by, cap)
        if not by:
            dst.append(slice(None))
            continue
        keep = cap + 1 - by  # source cells 0..cap-by land at by..cap (the last collapses)
        head = [slice(None)] * src.ndim
        head[axis] = slice(0, keep)
        tail = [slice(None)] * src.ndim
        tail[axis] = slice(keep - 1, keep)
        rest = [slice(None)] * src.ndim
        rest[axis] = slice(keep, None)
        reduced = src[tuple(head)].copy()
        reduced[tuple(tail)] += src[tuple(rest)].sum(axis=axis, keepdims=True)
        src = reduced
        dst.append(slice(by, cap + 1))
    into[tuple(dst)] += weight * src


def _dud_sums(
    kind_list: list[tuple[Kind, int]],
    classes: list[tuple[int, int]],
    caps: list[int],
) -> tuple[int, ...]:
    """Each class's capped sum when every die shows a natural 1 (the same ranks as the walk:
    equal values, a plain group first)."""
    ranked = sorted(
        ((max(0, 1 + k[1]), k[4] or not k[3], k) for k, m in kind_list for _ in range(m)),
        key=lambda x: (-x[0], x[1]),
    )
    out = []
    for (ring, layers), cap in zip(classes, caps, strict=True):
        out.append(min(cap, deflected_sum(ranked[ring:], layers)))
    return tuple(out)
