"""Properties the weapon table must have at any size (chapter 8: stats scale with Size)."""

from __future__ import annotations

from fractions import Fraction as F

from hypothesis import given
from hypothesis import strategies as st

from app.rules.brikwars import catalogue, weapon_stats

INCH_TYPES = [w.id for w in catalogue() if w.sized_by == "inches"]
BRICK_TYPES = [w.id for w in catalogue() if w.sized_by == "bricks"]
PROPORTIONAL = [t for t in INCH_TYPES if t != "armor_plating"]  # plating is area + 1

sizes = st.fractions(min_value=F(1, 10), max_value=50, max_denominator=20)


@given(type_id=st.sampled_from(INCH_TYPES), small=sizes, extra=sizes)
def test_bigger_is_never_cheaper_easier_or_shorter(type_id, small, extra):
    a = weapon_stats(type_id, size=small)
    b = weapon_stats(type_id, size=small + extra)
    assert b.cost > a.cost
    if a.use is not None:
        assert b.use >= a.use
    if a.range_inches is not None:
        assert b.range_inches > a.range_inches
    if a.damage is not None:
        assert b.damage.dice >= a.damage.dice


@given(type_id=st.sampled_from(PROPORTIONAL), size=sizes)
def test_cost_is_proportional_to_size(type_id, size):
    assert weapon_stats(type_id, size=2 * size).cost == 2 * weapon_stats(type_id, size=size).cost


@given(type_id=st.sampled_from(PROPORTIONAL), size=sizes)
def test_power_is_the_weapon_size_and_dice_never_exceed_it(type_id, size):
    stats = weapon_stats(type_id, size=size)
    assert stats.power == size
    if stats.damage is not None:
        assert 1 <= stats.damage.dice <= max(1, size)
    if stats.use is not None:
        assert isinstance(stats.use, int)


@given(type_id=st.sampled_from(BRICK_TYPES), x=st.integers(1, 100))
def test_explosives_roll_x_d10_and_need_x_power(type_id, x):
    stats = weapon_stats(type_id, xsize=x)
    assert (stats.damage.dice, stats.damage.sides) == (x, 10)
    assert stats.power == x
    assert stats.cost == (x if type_id == "explosive" else 2 * x)


@given(x=st.integers(1, 100))
def test_phased_dice_account_for_every_brick(x):
    damage = weapon_stats("explosive", xsize=x, variant="phased").damage
    bricks = 0
    part = damage
    while part is not None:
        bricks += part.dice * (2 if part.sides == 12 else 1)
        part = part.extra
    assert bricks == x
