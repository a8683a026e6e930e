"""A larger attack's odds come from a calculation worker once; the server keeps them, so
an equal attack is answered where the request is handled."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

import pytest

from app.rules.brikwars import known_odds
from app.rules.brikwars.known_odds import TurnAttack
from app.rules.brikwars.turn import Turn, TurnSituation
from app.rules.brikwars.units import minifig
from app.services import compute
from tests.rules.brikwars.test_turn import tank


@pytest.fixture
def pool() -> Iterator[compute.ComputePool]:
    known_odds._KNOWN_ODDS.cache_clear()
    pool = compute.ComputePool(1, 0, 60.0)
    old = compute.set_pool(pool)
    yield pool
    compute.set_pool(old)
    pool.close()
    known_odds._KNOWN_ODDS.cache_clear()


def _volley() -> TurnAttack:
    return TurnAttack(Turn(tank(), (1,), minifig(), TurnSituation(Fraction(4), burst=3)))


def test_a_workers_odds_are_kept_and_an_equal_attack_stays_here(
    pool: compute.ComputePool,
) -> None:
    first = _volley()
    assert not first.inline()
    odds = compute.odds(first)
    worker = pool.last_worker
    assert worker is not None  # computed in the pool
    assert odds == known_odds._KNOWN_ODDS.__wrapped__(first.turn)
    pool.last_worker = None
    again = _volley()
    assert again.inline()
    assert compute.odds(again) is odds
    assert pool.last_worker is None  # not sent to a worker
