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
MAX_TALLY_SCENARIOS = 4096
"""Most combinations of the lines' scenarios mixed (each a (figurines x outcomes) table)."""


def tally(
    figurines: Sequence[tuple[int, int]], lines: Sequence[LineOdds], *, sized: bool
) -> tuple[tuple[str, str, tuple[float, ...]], ...]:
    """Per counted outcome, P(exactly n figurines end with it), n = 0..len(figurines); ``sized``:
    some target takes Size Damage (else that column is left out). Empty when the lines'
    scenarios combine past ``MAX_TALLY_SCENARIOS``."""
    index = {fig: i for i, fig in enumerate(figurines)}
    n = len(figurines)
    weights = np.ones(1)
    at_most = np.ones((1, n, OUTCOME_COUNT))  # P(the best so far <= each outcome)
    for line in lines:
        if not line.scenarios:
            continue
        count = len(line.scenarios)
        if len(weights) * count > MAX_TALLY_SCENARIOS:
            return ()
        w = np.array([s[0] for s in line.scenarios])
        cdf = np.ones((count, n, OUTCOME_COUNT))
        where = [index[fig] for fig in line.reach]
        for k, (_, law) in enumerate(line.scenarios):
            cdf[k, where] = np.cumsum(law, axis=1)
        weights = (weights[:, None] * w[None, :]).reshape(-1)
        at_most = (at_most[:, None] * cdf[None, :]).reshape(-1, n, OUTCOME_COUNT)
    law = np.diff(at_most, axis=2, prepend=0.0)
    out = []
    for key, label, column in TALLIES:
        if column == 3 and not sized:
            continue
        p = np.clip(law[:, :, column], 0.0, 1.0)
        dist = np.zeros((len(weights), n + 1))
        dist[:, 0] = 1.0
        for j in range(n):
            q = p[:, j, None]
            dist[:, 1:] = dist[:, 1:] * (1 - q) + dist[:, :-1] * q
            dist[:, 0] *= 1 - p[:, j]
        out.append((key, label, tuple(float(x) for x in weights @ dist)))
    return tuple(out)
