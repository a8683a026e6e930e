"""Counted work: the one unit every ruleset's ``inline()`` estimates a calculation in, and the
one figure that decides whether a calculation is computed where the request is handled or
handed to the calculation workers.

A work unit is about one microsecond of the exact computation on the yardstick machine (the
2-core machine of ``bench/results.md``). Each ruleset counts what actually drives its cost,
from the request's sizes alone (nothing is summed), and converts it with the rates below,
which over-estimate what ``bench`` measured:

>>> inline_work(INLINE_WORK_UNITS - 1), inline_work(INLINE_WORK_UNITS)
(True, False)
"""

from __future__ import annotations

INLINE_WORK_UNITS = 2000
"""The one figure of every ruleset: a calculation is inline when its counted work is under
2,000 units (about 2 ms on the yardstick machine); otherwise a calculation worker computes it.
``python -m bench inline`` searches legal bodies of each ruleset for the slowest one judged
inline (target < 5 ms, scaled: measured at most 2.5 ms, a body whose fixed costs its count
leaves out) and the share judged inline (which must not fall; at 1,000 units one ruleset's
fell below the share its judgement by figurines had put inline)."""

MULTIPLY_ADDS_PER_UNIT = 200
"""Dice-core multiply-adds (``work_bound``) per unit: measured about 2-3 ns each."""

SWEEP_CALL_UNITS = 4
"""Units of one array operation of a Deflection sweep (``plated.sweep_work``): measured
2-4 µs each (numpy calls on small arrays)."""

RING_UNITS = 50
"""Units of one explosion ring's odds besides its sums (its Armour comparison, KnockBack)."""


def inline_work(units: float) -> bool:
    """Whether a calculation of ``units`` counted work is computed in the request."""
    return units < INLINE_WORK_UNITS
