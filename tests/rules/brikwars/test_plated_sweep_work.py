"""Explosions against Deflection: the work of every ring's sweep is counted before the first.

Each ring of an explosion against a Deflecting object is one sweep of
``explosion_ring_deflected``, so the request's work is the sum over its rings. A per-sweep
limit let 30d4 run 30 sweeps (7.7 s) and 20d6 twenty (2.4 s).
"""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules import brikwars as bw
from app.rules.brikwars import attacks as atk
from app.rules.brikwars import plated
from app.rules.brikwars.plated import explosion_ring_deflected
from app.rules.dice import Dice, Pool
from app.rules.errors import TooMuchWork


def _count_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    real = plated._add_shifted

    def counted(*args: object) -> None:
        calls[0] += 1
        real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(plated, "_add_shifted", counted)
    return calls


@settings(max_examples=25, deadline=None)
@given(
    count=st.integers(1, 6),
    sides=st.sampled_from([4, 6, 10, 12]),
    layers=st.integers(1, 8),
    extra=st.sampled_from([None, (1, 10, False), (2, 12, True), (1, 10, True)]),
    ring=st.integers(0, 3),
)
def test_the_estimate_bounds_the_sweep(
    count: int, sides: int, layers: int, extra: tuple[int, int, bool] | None, ring: int
) -> None:
    dice = [Dice(count, sides)]
    piercing: tuple[bool, ...] | None = None
    if extra is not None:
        n, s, ap = extra
        dice.append(Dice(n, s, deflectable=not (s == 12 and not ap)))
        piercing = (False, ap)
    pool = Pool(tuple(dice))
    ring = min(ring, pool.dice_count - 1)
    with pytest.MonkeyPatch.context() as mp:
        calls = _count_calls(mp)
        explosion_ring_deflected(pool, ring, layers, piercing=piercing)
    estimate = plated.sweep_work(pool, layers, piercing)
    special = any(piercing or ()) or not all(d.deflectable for d in pool.dice)
    unweighted = estimate / (plated.MIXED_CALL_WEIGHT if special else 1)
    assert calls[0] <= unweighted


def _explosion(count: int, sides: int) -> atk.Explosion:
    return atk.Explosion(bw.DamageExpr(count, sides, explosion=True))


def test_every_ring_is_counted_before_the_first_sweep(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_calls(monkeypatch)
    target = atk.Target(bw.Armour(fixed=4, deflection=1), kind="object")
    start = time.perf_counter()
    for count, sides in ((20, 6), (30, 4), (15, 10)):  # 2.4 s, 7.7 s and ~1.9 s before
        with pytest.raises(TooMuchWork) as err:
            _explosion(count, sides).odds(target)
        assert err.value.field == "count"
        assert "fewer dice" in err.value.reason
    assert calls[0] == 0
    assert time.perf_counter() - start < 0.5


def test_explosions_within_the_limit_are_computed() -> None:
    target = atk.Target(bw.Armour(fixed=4, deflection=1), kind="object")
    explosion = _explosion(3, 10)
    assert explosion.sweep_work(target, range(3)) <= plated.REQUEST_CALL_LIMIT
    odds = explosion.odds(target)
    assert len(odds.rings) == 3
    for ring in odds.rings:
        total = ring.destroyed + ring.size_damage + ring.something_bad + ring.no_effect
        assert total == pytest.approx(1.0, abs=1e-9)


def test_without_deflection_nothing_sweeps() -> None:
    target = atk.Target(bw.Armour(fixed=4), kind="object")
    assert _explosion(60, 10).sweep_work(target, range(60)) == 0


def test_layers_past_every_die_add_no_states() -> None:
    # ruling-neutral: past the dice (and the Armor Piercing ones) more layers remove nothing
    # more, so the general sweep's state count stops growing with them
    pool = Pool((Dice(3, 10), Dice(1, 10)))
    piercing = (True, False)
    assert plated.sweep_work(pool, 50, piercing) == plated.sweep_work(pool, 100, piercing)
    a = explosion_ring_deflected(pool, 1, 50, piercing=piercing)
    b = explosion_ring_deflected(pool, 1, 100, piercing=piercing)
    assert (a.pmf == b.pmf).all()
