"""Bad inputs, the work bound, the truncation bound, and the engine's purity."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest

from app.rules.dice import (
    MAX_DICE,
    Dice,
    Pool,
    deflect,
    drop_highest,
    drop_highest_all,
    explosion_rings,
    total_distribution,
)
from app.rules.dice.groups import chain_depth, group_table
from app.rules.errors import InvalidInput, TooMuchWork


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: Dice(1, 7), "sides"),
        (lambda: Dice(1, 100), "sides"),
        (lambda: Dice(0, 6), "count"),
        (lambda: Dice(-2, 6), "count"),
        (lambda: Dice(MAX_DICE + 1, 6), "count"),
        (lambda: Dice(True, 6), "count"),
        (lambda: Dice(2.0, 6), "count"),
        (lambda: Dice(1, 6, per_die=10_000), "per_die"),
        (lambda: Dice(1, 6, bonus_die="d8"), "bonus_die"),
        (lambda: Pool(()), "dice"),
        (lambda: Pool([Dice(1, 6)]), "dice"),
        (lambda: Pool((Dice(60, 6), Dice(41, 10))), "count"),
        (lambda: Pool.of(1, 6, modifier=5000), "modifier"),
        (lambda: drop_highest(Pool.of(2, 6), -1), "drop"),
        (lambda: deflect(Pool.of(2, 6), 1.5), "layers"),
    ],
)
def test_bad_inputs_name_their_field(make, field: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidInput) as err:
        make()
    assert err.value.field == field


@pytest.mark.parametrize("sides", [4, 6, 8, 10, 12, 20])
def test_every_allowed_die(sides: int) -> None:
    dist = total_distribution(Pool.of(2, sides))
    assert dist.truncation_bound < 1e-9
    assert 1 - dist.mass() <= dist.truncation_bound + 1e-12


def test_too_much_work_is_refused_quickly() -> None:
    start = time.perf_counter()
    with pytest.raises(TooMuchWork):
        explosion_rings(Pool.of(100, 20))
    assert time.perf_counter() - start < 2.0


def test_largest_pools_within_the_bound_still_work() -> None:
    start = time.perf_counter()
    dist = total_distribution(Pool.of(100, 20))
    rings = drop_highest_all(Pool.of(40, 10))
    assert time.perf_counter() - start < 2.0
    assert dist.truncation_bound < 1e-9 and rings[5].truncation_bound < 1e-9


@pytest.mark.parametrize(
    "pool",
    [
        Pool.of(1, 4),
        Pool.of(10, 10),
        Pool.of(30, 6, per_die=-1),
        Pool((Dice(5, 10), Dice(3, 6, bonus_die="d6"), Dice(2, 4))),
    ],
)
def test_truncation_bound_covers_the_missing_mass(pool: Pool) -> None:
    for dist in (total_distribution(pool), *drop_highest_all(pool)):
        assert dist.truncation_bound < 1e-9
        assert 1 - dist.mass() <= dist.truncation_bound + 1e-12
    ring = explosion_rings(pool)[0]
    assert ring.truncation_bound < 1e-9
    assert 1 - float(ring.pmf.sum()) <= ring.truncation_bound + 1e-12


def test_dropped_chain_mass_is_the_stated_formula() -> None:
    # d10 chain cut after 3 Bonus dice: the 4th Bonus die is reached with (1/10)^4.
    table = group_table(Dice(1, 10), 3)
    assert table.dropped == pytest.approx(1e-4, rel=1e-12)
    assert 1 - table.probs.sum() == pytest.approx(1e-4, rel=1e-9)
    # d4 with d6 Bonus dice cut after 2: (1/4) (1/6)^2
    assert group_table(Dice(1, 4, bonus_die="d6"), 2).dropped == pytest.approx(1 / 144)
    # the depth is chosen so all groups together stay within the budget
    for sides in (4, 6, 10, 20):
        depth = chain_depth(Dice(1, sides), 100)
        assert 100 * group_table(Dice(1, sides), depth).dropped <= 5e-11


def test_truncated_result_agrees_with_a_much_deeper_chain() -> None:
    # Re-run the same 4d6 drop-1 with the chain budget 1e6 times smaller: the answers move by
    # less than the stated bound.
    from app.rules.dice import exact, groups

    pool = Pool.of(4, 6)
    shallow = drop_highest(pool, 1)
    budget = groups.CHAIN_BUDGET
    tail = exact.TAIL_BUDGET
    try:
        groups.CHAIN_BUDGET = exact.TAIL_BUDGET = 1e-17
        deep = drop_highest(pool, 1)
    finally:
        groups.CHAIN_BUDGET, exact.TAIL_BUDGET = budget, tail
    assert deep.truncation_bound < 1e-15 < shallow.truncation_bound  # really deeper
    size = max(len(deep.pmf), len(shallow.pmf))
    a, b = np.zeros(size), np.zeros(size)
    a[: len(deep.pmf)], b[: len(shallow.pmf)] = deep.pmf, shallow.pmf
    # total variation (half the L1 distance) within the stated bound
    assert np.abs(a - b).sum() / 2 <= shallow.truncation_bound + 1e-12


def test_engine_imports_no_web_or_database_layer() -> None:
    code = (
        "import sys, app.rules.dice, app.rules.dice.rolling\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "{'fastapi', 'starlette', 'sqlalchemy', 'jinja2', 'pydantic'}]\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
