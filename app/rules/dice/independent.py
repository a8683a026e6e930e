"""Independent events of their own chances (each unit of an area attack rolled separately,
each target of automatic fire): the exact distribution of how many happen."""

from __future__ import annotations

from collections.abc import Iterable


def count_distribution(chances: Iterable[float]) -> list[float]:
    """P(exactly k events) of independent events with the given chances, k = 0..n.

    >>> count_distribution([0.5, 0.5])
    [0.25, 0.5, 0.25]
    """
    dist = [1.0]
    for p in chances:
        nxt = [0.0] * (len(dist) + 1)
        q = 1.0 - p
        for k, v in enumerate(dist):
            nxt[k] += v * q
            nxt[k + 1] += v * p
        dist = nxt
    return dist
