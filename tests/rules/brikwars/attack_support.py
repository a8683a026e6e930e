"""Test helpers for the attack engine: forced dice, a brute-force oracle, Monte Carlo checks.

The oracle enumerates every face of every die (Bonus chains to a fixed depth, the mass left
out reported) with plain Python arithmetic, independently of the dice core's convolutions.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


class Forced(random.Random):
    """A "random" generator that returns the given natural faces in order (forced dice)."""

    def __init__(self, faces: Iterable[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)
        self.used: list[tuple[int, int]] = []

    def randrange(self, n: int, *args: object, **kw: object) -> int:  # type: ignore[override]
        face = self.faces.pop(0)
        assert 1 <= face <= n, f"forced face {face} does not fit a d{n}"
        self.used.append((n, face))
        return face - 1

    def done(self) -> bool:
        return not self.faces


def within(count: int, n: int, p: float, *, z: float = 4.0) -> bool:
    """``count`` of ``n`` trials is within ``z`` standard errors of probability ``p``."""
    se = math.sqrt(max(p * (1 - p), 1.0 / n) / n)
    return abs(count / n - p) <= z * se


# --------------------------------------------------------------------------- oracle


@dataclass(frozen=True)
class G:
    """One die group for the oracle: sides, per-die modifier, Bonus sides (None: no Bonus),
    deflectable."""

    sides: int
    per_die: int = 0
    bonus: int | None = -1  # -1: same as sides
    deflectable: bool = True


def group_outcomes(g: G, depth: int) -> tuple[list[tuple[int, int, bool, float]], float]:
    """(value, dice, first natural is 1, probability) of one group, and the mass left out."""
    bonus = g.sides if g.bonus == -1 else g.bonus
    out: list[tuple[int, int, bool, float]] = []

    def walk(sides: int, value: int, dice: int, first: bool, p: float, level: int) -> None:
        for face in range(1, sides + 1):
            v = value + max(0, face + g.per_die)
            q = p / sides
            is_one = first and face == 1 if dice == 0 else first
            if face == sides and bonus is not None:
                if level < depth:
                    walk(bonus, v, dice + 1, is_one, q, level + 1)
                continue
            out.append((v, dice + 1, is_one, q))

    walk(g.sides, 0, 0, True, 1.0, 0)
    return out, 1.0 - sum(o[3] for o in out)


def pool_outcomes(
    groups: Sequence[G], depth: int
) -> tuple[list[tuple[tuple[int, ...], tuple[int, ...], bool, float]], float]:
    """Every combination of the groups: (values, dice counts, all ones, probability)."""
    tables = [group_outcomes(g, depth) for g in groups]
    out = []
    for combo in itertools.product(*(t[0] for t in tables)):
        p = math.prod(c[3] for c in combo)
        out.append(
            (tuple(c[0] for c in combo), tuple(c[1] for c in combo), all(c[2] for c in combo), p)
        )
    return out, 1.0 - sum(o[3] for o in out)


def deflected(values: Sequence[int], groups: Sequence[G], layers: int) -> int:
    """Sum after removing the ``layers`` highest deflectable groups."""
    soft = sorted((v for v, g in zip(values, groups, strict=True) if g.deflectable), reverse=True)
    hard = sum(v for v, g in zip(values, groups, strict=True) if not g.deflectable)
    return sum(soft[layers:]) + hard


def armour_table(armour: int | Sequence[G], depth: int, modifier: int = 0) -> dict[int, float]:
    if isinstance(armour, int):
        return {armour: 1.0}
    table: dict[int, float] = {}
    for values, _, _, p in pool_outcomes(armour, depth)[0]:
        t = max(0, sum(values) + modifier)
        table[t] = table.get(t, 0.0) + p
    return table


def depth_for(sides: int) -> int:
    """Chain depth for the oracle: deep enough to be tight, shallow enough to be quick."""
    return {4: 6, 6: 4}.get(sides, 3)


def damage_vs_armour(
    groups: Sequence[G], modifier: int, layers: int, armour: dict[int, float], depth: int
) -> dict[str, float]:
    """greater / equal / less / critical_failure of one Damage Roll against an Armour table,
    and ``left``: the probability mass the truncated chains left out (the oracle's error)."""
    totals: dict[int, float] = {}
    out = {"greater": 0.0, "equal": 0.0, "less": 0.0, "critical_failure": 0.0}
    for values, _, ones, p in pool_outcomes(groups, depth)[0]:
        if ones:
            out["critical_failure"] += p
            continue
        total = max(0, deflected(values, groups, layers) + modifier)
        totals[total] = totals.get(total, 0.0) + p
    for total, p in totals.items():
        for a, q in armour.items():
            key = "greater" if total > a else "equal" if total == a else "less"
            out[key] += p * q
    out["left"] = 1.0 - sum(out.values())
    return out


def action_faces(die: int, use: int, modifier: int) -> tuple[float, float, float]:
    """P(miss), P(plain hit), P(Critical Success) by listing the faces."""
    miss = hit = crit = 0
    for face in range(1, die + 1):
        if face == 1:
            miss += 1
        elif face == die:
            crit += 1
        elif face + modifier >= use:
            hit += 1
        else:
            miss += 1
    return miss / die, hit / die, crit / die
