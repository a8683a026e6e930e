"""How many figurines of all a turn's targets end with each outcome (ruling T7): the exact
distribution, jointly.

A figurine's outcome of the turn is the best its lines achieve on it (miss < no effect <
Something Bad < Size Damage < destroyed), the lines independent (ruling T2). Within a line
figurines are not independent (a jam loses the Arc's later shots; one Damage roll serves a
whole blast): each line gives scenarios given which they are (``LineOdds.scenarios``). So
the tally mixes, over every combination of the lines' scenarios, the independent figurines'
counts (a Poisson binomial), by the combination's weight.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.rules.brikwars.turn.results import LineOdds

TALLIES: tuple[tuple[str, str, int], ...] = (
    ("something_bad", "Something Bad", 2),
    ("size_damage", "lost Size", 3),
    ("destroyed", "destroyed", 4),
)
"""(key, label, outcome column): the outcome columns counted. ``destroyed``: out of play (a
minifig, a Hero, a Creation of 1" or less); ``size_damage``: a larger Creation's figurine
that lost Size (wounded); ``something_bad``: Something Bad and nothing worse."""
OUTCOME_COUNT = 5
MAX_TALLY_SCENARIOS = 100_000
"""Most combinations of the lines' scenarios mixed (each a (figurines x outcomes) table)."""
CHUNK_CELLS = 2_000_000
"""Floats of the combined (scenarios x figurines x outcomes) tables built at once."""


def combinations(lines: Sequence[LineOdds]) -> int:
    """How many combinations of the lines' scenarios the tally mixes."""
    count = 1
    for line in lines:
        joint = line.joint()
        count *= 1 if joint is None else len(joint[0])
    return count


def tally(
    figurines: Sequence[tuple[int, int]], lines: Sequence[LineOdds], *, sized: bool
) -> tuple[tuple[str, str, tuple[float, ...]], ...]:
    """Per counted outcome, P(exactly n figurines end with it), n = 0..len(figurines); ``sized``:
    some target takes Size Damage (else that column is left out). Empty when the lines'
    scenarios combine past ``MAX_TALLY_SCENARIOS``.

    Given a combination of the lines' scenarios every figurine is independent, its best
    outcome's law the product of the lines' cumulative laws (T2); the largest line's
    scenarios are mixed whole, the others' combinations a chunk at a time."""
    if combinations(lines) > MAX_TALLY_SCENARIOS:
        return ()
    index = {fig: i for i, fig in enumerate(figurines)}
    n = len(figurines)
    parts: list[tuple[np.ndarray, np.ndarray]] = []
    for line in lines:
        joint = line.joint()
        if joint is None:
            continue
        w, laws = joint
        cdf = np.ones((len(w), n, OUTCOME_COUNT))
        cdf[:, [index[fig] for fig in line.reach]] = np.cumsum(laws, axis=2)
        parts.append((np.asarray(w, dtype=np.float64), cdf))
    parts.sort(key=lambda part: len(part[0]))
    big_w, big_cdf = parts.pop() if parts else (np.ones(1), np.ones((1, n, OUTCOME_COUNT)))
    rest_w, rest_cdf = np.ones(1), np.ones((1, n, OUTCOME_COUNT))
    for w, cdf in parts:
        rest_w = (rest_w[:, None] * w[None, :]).reshape(-1)
        rest_cdf = (rest_cdf[:, None] * cdf[None, :]).reshape(-1, n, OUTCOME_COUNT)
    columns = [(k, label, c) for k, label, c in TALLIES if c != 3 or sized]
    totals = {k: np.zeros(n + 1) for k, _, _ in columns}
    step = max(1, CHUNK_CELLS // (len(big_w) * max(1, n) * OUTCOME_COUNT))
    for lo in range(0, len(rest_w), step):
        weights = (rest_w[lo : lo + step, None] * big_w[None, :]).reshape(-1)
        at_most = (rest_cdf[lo : lo + step, None] * big_cdf[None]).reshape(-1, n, OUTCOME_COUNT)
        law = np.diff(at_most, axis=2, prepend=0.0)
        for key, _, column in columns:
            totals[key] += weights @ _counts(np.clip(law[:, :, column], 0.0, 1.0))
    return tuple((k, label, tuple(float(x) for x in totals[k])) for k, label, _ in columns)


def _counts(p: np.ndarray) -> np.ndarray:
    """Per scenario (row), P(exactly j of the independent figurines (columns) with their
    chances ``p``): a Poisson binomial, ``(S, N + 1)``."""
    scenarios, n = p.shape
    dist = np.zeros((scenarios, n + 1))
    dist[:, 0] = 1.0
    for j in range(n):
        q = p[:, j, None]
        dist[:, 1 : j + 2] = dist[:, 1 : j + 2] * (1 - q) + dist[:, : j + 1] * q
        dist[:, 0] *= 1 - p[:, j]
    return dist
