"""The Degrees rules written out plainly, dice in, state out, for brute-force enumeration
of every d10 a shot or a round can roll (``itertools.product`` over 1..10).

Deliberately simple and separate from the engine: it reads the rules (RULINGS 2.1-2.2, the
spec's decisions) one die at a time, in the order the engine rolls them (over-compression
rolls, then for each target its attack die and any second die).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from itertools import product
from typing import Any

from app.rules.degrees.catalogue import WEAPON_TYPES


@dataclass(frozen=True)
class S:
    """A target as the rules see it."""

    armour: int
    back: int
    hp: int
    ap_lost: int = 0
    restrained: bool = False
    dampened: int = 0

    @property
    def key(self) -> tuple[int, int, int, int]:
        return (self.armour, self.back, self.hp, self.ap_lost)


def back_line(s: S, damage: int) -> S:
    taken = min(s.back, damage)
    return replace(s, back=s.back - taken, hp=max(0, s.hp - (damage - taken)))


def front(s: S, damage: int) -> S:
    taken = min(s.armour, damage)
    return back_line(replace(s, armour=s.armour - taken), damage - taken)


def worse(a: S, b: S) -> bool:
    """Is ``a`` worse for the target than ``b``: destroyed, then HP, then total Armour."""
    return (a.hp == 0, -a.hp, -(a.armour + a.back)) > (b.hp == 0, -b.hp, -(b.armour + b.back))


def hits(n: int, degree: int, inverted: bool = False) -> bool:
    if degree <= 0:
        return False
    return n == 1 if inverted else n <= degree


def shot(
    s: S,
    type_id: str,
    degree: int,
    dice: Iterator[int],
    *,
    penetrate: bool = True,
    break_free: bool = False,
    penetrates_on: int | None = None,
) -> S:
    """One shot of a weapon type at its final degree."""
    kind = WEAPON_TYPES[type_id]
    n = next(dice)
    if not hits(n, degree, kind.inverted):
        return s
    damage = 10 if kind.inverted else n
    limit = kind.penetrates_on if penetrates_on is None else penetrates_on
    may_penetrate = not kind.never_penetrates and not kind.inverted and n <= limit
    if kind.drains_ap:
        back_hit = penetrate and may_penetrate
        after = replace(s, ap_lost=s.ap_lost + damage + (kind.back_line_bonus if back_hit else 0))
        if kind.senses:
            after = replace(after, dampened=max(after.dampened, min(damage, 16)))
        if kind.restrains:
            freed = break_free and next(dice) == 1
            after = replace(after, restrained=s.restrained or not freed)
        if back_hit and kind.back_line_bonus:
            after = replace(after, hp=max(0, after.hp - 1))
        return after
    if kind.punch and may_penetrate and penetrate:
        q = max(0, min(10, degree - 2)) / 10
        f, b = front(s, damage), back_line(s, damage)

        def lost(x: S) -> int:
            return s.armour + s.back - x.armour - x.back

        if (q * (b.hp == 0), q * (s.hp - b.hp), q * lost(b)) > (
            float(f.hp == 0),
            float(s.hp - f.hp),
            float(lost(f)),
        ):
            return b if hits(next(dice), degree - 2) else s
        return f  # the penetrating attack not tried: the 1 point on the front, never free
    # a Flashback's first point always goes to the back line
    on_front = front(back_line(s, 1), damage - 1) if kind.first_point_back else front(s, damage)
    if penetrate and may_penetrate:
        all_back = back_line(s, damage)
        if worse(all_back, on_front):
            return all_back
    return on_front


def gas_pump(
    gun_max: int, start: int, pump: int, compress_op: int, dice: Iterator[int]
) -> tuple[int, int, int]:
    """(pumped degree, the gun's max after, AP spent pumping)."""
    pumped, spent, first = start, 0, True
    for _ in range(pump):
        pumped += 1
        spent += 1
        if pumped > gun_max:
            against = pumped - (compress_op if first else 0)
            first = False
            n = next(dice)
            if hits(n, against):
                return pumped, max(0, gun_max - n), spent
    return pumped, gun_max, spent


def enumerate_dice(k: int, play: Callable[[Iterator[int]], Any]) -> Counter[Any]:
    """The exact distribution of ``play``'s result over k d10s (unused dice don't matter)."""
    out: Counter[Any] = Counter()
    for seq in product(range(1, 11), repeat=k):
        out[play(iter(seq))] += 0.1**k
    return out


class ScriptedDice:
    """A stand-in for ``random.Random`` whose d10s are the given naturals, in order."""

    def __init__(self, naturals: Any) -> None:
        self._it = iter(naturals)

    def randint(self, low: int, high: int) -> int:
        assert (low, high) == (1, 10)
        return next(self._it)
