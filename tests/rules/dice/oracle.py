"""Brute-force oracle: every face of every die enumerated, exact Fractions.

Independent of the engine: it re-reads the rules from the spec's plain fields (sides, per-die
modifier, Bonus die option) and walks the Bonus chain to a given depth. Outcomes whose chain
goes deeper are left out and their mass reported, so the true probability of any event lies in
``[oracle, oracle + missing]``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import TypeVar

from app.rules.dice import Dice, Pool

K = TypeVar("K")

# A group outcome: (value, dice, natural faces)
GroupOutcome = tuple[int, int, tuple[int, ...]]


def enumerate_group(spec: Dice, depth: int) -> tuple[dict[GroupOutcome, Fraction], Fraction]:
    """All face sequences of one group with at most ``depth`` Bonus dice, and the mass beyond."""
    bonus = {"same": spec.sides, "d6": 6, "none": None}[spec.bonus_die]
    out: dict[GroupOutcome, Fraction] = {}
    missing = Fraction(0)

    def walk(sides: int, faces: tuple[int, ...], prob: Fraction) -> None:
        nonlocal missing
        for face in range(1, sides + 1):
            seq, p = (*faces, face), prob / sides
            if face == sides and bonus is not None:
                if len(seq) > depth:
                    missing += p
                else:
                    walk(bonus, seq, p)
                continue
            value = sum(max(0, f + spec.per_die) for f in seq)
            key = (value, len(seq), seq)
            out[key] = out.get(key, Fraction(0)) + p

    walk(spec.sides, (), Fraction(1))
    return out, missing


Table = tuple[dict[GroupOutcome, Fraction], Fraction]


def _in_whole_numbers(tables: Sequence[Table]) -> tuple[list[list[tuple[GroupOutcome, int]]], int]:
    """Each group's outcomes with whole-number weights over the group's common denominator,
    and the product of those denominators: a combination's exact probability is the product
    of its weights over that scale, without a Fraction per combination (which made the
    largest enumerations take a minute)."""
    rows, scale = [], 1
    for table, _ in tables:
        den = math.lcm(*(p.denominator for p in table.values()))
        rows.append([(outcome, int(p * den)) for outcome, p in table.items()])
        scale *= den
    return rows, scale


def _exact(weights: dict[K, int], scale: int) -> dict[K, Fraction]:
    return {key: Fraction(w, scale) for key, w in weights.items()}


@dataclass(frozen=True)
class Enumeration:
    """Exact sub-distribution over (kept total, kept dice, all ones) and the mass left out."""

    outcomes: dict[tuple[int, int, bool], Fraction]
    missing: Fraction

    def totals(self, *, exclude_all_ones: bool = False) -> dict[int, Fraction]:
        out: dict[int, Fraction] = {}
        for (t, _, ones), p in self.outcomes.items():
            if exclude_all_ones and ones:
                continue
            out[t] = out.get(t, Fraction(0)) + p
        return out

    def joint(self) -> dict[tuple[int, int], Fraction]:
        out: dict[tuple[int, int], Fraction] = {}
        for (t, c, _), p in self.outcomes.items():
            out[(t, c)] = out.get((t, c), Fraction(0)) + p
        return out

    def all_ones(self) -> Fraction:
        return sum((p for (_, _, ones), p in self.outcomes.items() if ones), Fraction(0))


def enumerate_pool(
    pool: Pool,
    depth: int,
    drop: int = 0,
    *,
    deflection: bool = False,
    fewer_dice_first: bool = False,
) -> Enumeration:
    """Roll every group (faces enumerated), drop the ``drop`` highest, apply the modifier.

    Highest = largest value, then most dice (fewest with ``fewer_dice_first``). With
    ``deflection`` only deflectable groups may be dropped.
    """
    results = _enumerate_all(pool, depth, deflection, fewer_dice_first)
    return results[min(drop, len(results) - 1)]


@cache
def _enumerate_all(
    pool: Pool, depth: int, deflection: bool, fewer_dice_first: bool
) -> list[Enumeration]:
    sign = -1 if fewer_dice_first else 1
    specs = [d for d in pool.dice for _ in range(d.count)]
    tables = [enumerate_group(s, depth) for s in specs]
    survive = Fraction(1)
    for _, miss in tables:
        survive *= 1 - miss
    n = len(specs)
    rows, scale = _in_whole_numbers(tables)
    results: list[dict[tuple[int, int, bool], int]] = [{} for _ in range(n + 1)]
    items: Iterable[tuple[tuple[GroupOutcome, int], ...]] = itertools.product(*rows)
    for combo in items:
        prob = math.prod(w for _, w in combo)
        order = sorted(
            (g for g in range(n) if specs[g].deflectable or not deflection),
            key=lambda g: (combo[g][0][0], sign * combo[g][0][1]),
            reverse=True,
        )
        ones = all(f == 1 for (_, _, faces), _ in combo for f in faces)
        for drop in range(n + 1):
            removed = set(order[:drop])
            kept = [combo[g][0] for g in range(n) if g not in removed]
            total = max(0, sum(v for v, _, _ in kept) + pool.modifier)
            dice = sum(c for _, c, _ in kept)
            key = (total, dice, ones)
            results[drop][key] = results[drop].get(key, 0) + prob
    return [Enumeration(_exact(r, scale), 1 - survive) for r in results]


def enumerate_ring_deflected(
    pool: Pool, depth: int, ring: int, layers: int, fewer_dice_first: bool = False
) -> tuple[dict[tuple[int, int], Fraction], Fraction]:
    """(damage without the ring + layers highest, dice without the ring highest) -> exact
    probability, and the mass left out."""
    every, missing = _rings_deflected(pool, depth, fewer_dice_first)
    return every.get((ring, layers), {}), missing


@cache
def _rings_deflected(
    pool: Pool, depth: int, fewer_dice_first: bool
) -> tuple[dict[tuple[int, int], dict[tuple[int, int], Fraction]], Fraction]:
    specs = [d for d in pool.dice for _ in range(d.count)]
    tables = [enumerate_group(s, depth) for s in specs]
    survive = Fraction(1)
    for _, miss in tables:
        survive *= 1 - miss
    sign = -1 if fewer_dice_first else 1
    n = len(specs)
    rows, scale = _in_whole_numbers(tables)
    out: dict[tuple[int, int], dict[tuple[int, int], int]] = {}
    for combo in itertools.product(*rows):
        prob = math.prod(w for _, w in combo)
        groups = sorted((g for g, _ in combo), key=lambda o: (o[0], sign * o[1]), reverse=True)
        for ring in range(n):
            dice = sum(c for _, c, _ in groups[ring:])
            for layers in range(n - ring + 1):
                damage = max(0, sum(v for v, _, _ in groups[ring + layers :]) + pool.modifier)
                cell = out.setdefault((ring, layers), {})
                cell[(damage, dice)] = cell.get((damage, dice), 0) + prob
    return {key: _exact(cell, scale) for key, cell in out.items()}, 1 - survive


def enumerate_ring_mixed(
    pool: Pool,
    depth: int,
    ring: int,
    layers: int,
    piercing: tuple[bool, ...],
    fewer_dice_first: bool = False,
) -> tuple[dict[tuple[int, int], Fraction], Fraction]:
    """A ring against ``layers`` of Deflection, read off every face combination: the ring
    drops its ``ring`` highest groups (on a tie a plain group first, then the lower index);
    each Armor Piercing group left cancels a layer; the layers left remove the highest
    deflectable groups left. (damage, dice left) -> exact probability, and the mass left out.
    """
    sign = -1 if fewer_dice_first else 1
    specs = [(d, ap) for d, ap in zip(pool.dice, piercing, strict=True) for _ in range(d.count)]
    tables = [enumerate_group(d, depth) for d, _ in specs]
    survive = Fraction(1)
    for _, miss in tables:
        survive *= 1 - miss
    rows, scale = _in_whole_numbers(tables)
    out: dict[tuple[int, int], int] = {}
    for combo in itertools.product(*rows):
        prob = math.prod(w for _, w in combo)
        plain = [d.deflectable and not ap for d, ap in specs]
        order = sorted(
            range(len(specs)),
            key=lambda g: (-combo[g][0][0], -sign * combo[g][0][1], not plain[g], g),
        )
        kept = order[ring:]
        left = max(0, layers - sum(1 for g in kept if specs[g][1]))
        damage = 0
        for g in kept:
            if left and specs[g][0].deflectable:
                left -= 1
                continue
            damage += combo[g][0][0]
        key = (max(0, damage + pool.modifier), sum(combo[g][0][1] for g in kept))
        out[key] = out.get(key, 0) + prob
    return _exact(out, scale), 1 - survive
