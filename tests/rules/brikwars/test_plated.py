"""An explosion ring against a Deflecting object: (damage, dice left) against the oracle."""

from __future__ import annotations

import pytest

from app.rules.brikwars.plated import explosion_ring_deflected
from app.rules.dice import Dice, Pool, Ties
from app.rules.errors import InvalidInput
from tests.rules.dice.oracle import enumerate_ring_deflected, enumerate_ring_mixed
from tests.rules.dice.test_exact import as_dict, assert_matches


@pytest.mark.parametrize(
    ("pool", "depth", "ties"),
    [
        (Pool.of(3, 10), 2, "more_dice_first"),
        (Pool.of(3, 6, modifier=-1), 3, "more_dice_first"),
        (Pool.of(3, 4, bonus_die="d6"), 3, "more_dice_first"),
        # ties: a d6 showing 6 + 1 against a d10 showing 7; every d4 at -4 is worth 0
        (Pool((Dice(1, 10), Dice(2, 6))), 3, "more_dice_first"),
        (Pool((Dice(1, 10), Dice(2, 6))), 3, "fewer_dice_first"),
        (Pool.of(3, 4, per_die=-4), 4, "more_dice_first"),
        (Pool.of(3, 4, per_die=-4), 4, "fewer_dice_first"),
    ],
)
def test_every_ring_and_layer_count_matches_enumeration(pool: Pool, depth: int, ties: Ties) -> None:
    fewer = ties == "fewer_dice_first"
    for ring in range(pool.dice_count):
        for layers in range(pool.dice_count - ring + 1):
            exact, missing = enumerate_ring_deflected(pool, depth, ring, layers, fewer)
            got = explosion_ring_deflected(pool, ring, layers, ties=ties)
            assert_matches(as_dict(got.pmf), exact, missing, got.truncation_bound)


AP = Dice(2, 6)  # Armor Piercing d6s (flagged by ``piercing``)
PHASED = Dice(1, 12, deflectable=False)


@pytest.mark.parametrize(
    ("pool", "piercing", "depth", "ties"),
    [
        # an Armor Piercing explosion gone Over the Top: AP d6s plus a standard d10
        (Pool((AP, Dice(1, 10))), (True, False), 2, "more_dice_first"),
        (Pool((AP, Dice(1, 10))), (True, False), 2, "fewer_dice_first"),
        (Pool((Dice(1, 6), Dice(1, 10)), modifier=-1), (True, False), 3, "more_dice_first"),
        # a Phased explosion of odd X (d12s and a d10), and gone Over the Top (a second d10)
        (Pool((PHASED, Dice(1, 10))), (False, False), 2, "more_dice_first"),
        (Pool((Dice(2, 12, deflectable=False), Dice(1, 10))), (False, False), 1, "more_dice_first"),
        (Pool((PHASED, Dice(2, 10, bonus_die="d6"))), (False, False), 2, "more_dice_first"),
        # ties everywhere: every die worth 0 or 1
        (
            Pool((Dice(2, 4, per_die=-3), Dice(1, 4, per_die=-3))),
            (True, False),
            3,
            "more_dice_first",
        ),
    ],
)
def test_mixed_pools_match_enumeration(
    pool: Pool, piercing: tuple[bool, ...], depth: int, ties: Ties
) -> None:
    fewer = ties == "fewer_dice_first"
    for ring in range(pool.dice_count):
        for layers in range(1, pool.dice_count + 2):
            exact, missing = enumerate_ring_mixed(pool, depth, ring, layers, piercing, fewer)
            got = explosion_ring_deflected(pool, ring, layers, ties=ties, piercing=piercing)
            assert_matches(as_dict(got.pmf), exact, missing, got.truncation_bound)


def test_mixed_all_ones_event_is_located() -> None:
    # AP 2d6 + d10 all ones, ring 1 (the d10 goes first on the tie), 3 layers: the two AP
    # d6s left cancel two, the third removes one of them: 1 damage, 2 dice left.
    got = explosion_ring_deflected(Pool((AP, Dice(1, 10))), 1, 3, piercing=(True, False))
    assert got.all_ones == pytest.approx(1 / 360)
    assert (got.all_ones_total, got.all_ones_dice) == (1, 2)
    # Phased d12 + d10 all ones, ring 0, 1 layer: the d10 is deflected, the d12 is not.
    got = explosion_ring_deflected(Pool((PHASED, Dice(1, 10))), 0, 1, piercing=(False, False))
    assert (got.all_ones_total, got.all_ones_dice) == (1, 2)


def test_all_ones_event_is_located() -> None:
    got = explosion_ring_deflected(Pool.of(3, 6, modifier=1), 1, 1)
    assert got.all_ones == pytest.approx(1 / 216)
    assert (got.all_ones_total, got.all_ones_dice) == (2, 2)  # one die of 1 left, +1


def test_bad_inputs() -> None:
    with pytest.raises(InvalidInput) as err:
        explosion_ring_deflected(Pool.of(2, 10), 2, 1)
    assert err.value.field == "ring"
    with pytest.raises(InvalidInput) as err:
        explosion_ring_deflected(Pool.of(2, 10), 0, -1)
    assert err.value.field == "layers"
    with pytest.raises(InvalidInput) as err:
        explosion_ring_deflected(Pool.of(2, 10), 0, 1, piercing=(True, False))
    assert err.value.field == "piercing"


def test_too_much_work_is_refused_quickly() -> None:
    import time

    from app.rules.errors import TooMuchWork

    start = time.perf_counter()
    with pytest.raises(TooMuchWork):
        explosion_ring_deflected(Pool.of(100, 10), 1, 2)
    assert time.perf_counter() - start < 2.0
