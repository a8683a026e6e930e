"""The damage chart: drawn once for the same numbers, anew for any other."""

from __future__ import annotations

from app.web import charts
from app.web.charts import damage_chart

DAMAGE = [(0, 0.5), (1, 0.25), (2, 0.25)]


def test_the_same_numbers_are_drawn_once():
    charts._drawn.cache_clear()
    svg = damage_chart(DAMAGE, armour_hint="Armour 1d6")
    as_json = [[v, p] for v, p in DAMAGE]  # (a battle's stored odds, read back from JSON)
    assert damage_chart(as_json, armour_hint="Armour 1d6") is svg
    assert svg.count('<rect class="bar"') == 3 and "against Armour 1d6" in svg


def test_other_numbers_label_or_mode_draw_another_chart():
    charts._drawn.cache_clear()
    svg = damage_chart(DAMAGE)
    others = [
        damage_chart([(0, 0.5), (1, 0.5)]),
        damage_chart(DAMAGE, label="Size Damage"),
        damage_chart(DAMAGE, mode="at_least"),
        damage_chart(DAMAGE, armour_hint="Armour 2d6"),
    ]
    assert len({svg, *others}) == 5
    assert others[0].count('<rect class="bar"') == 2
    assert "P(Size Damage = N)" in others[1]
    assert 'data-mode="at_least"' in others[2]


def test_a_long_distribution_is_drawn_but_not_kept():
    """Its key would hold every value: past MAX_KEPT_VALUES the chart is drawn each time."""
    charts._drawn.cache_clear()
    long = [(v, 1 / 300) for v in range(300)]
    svg = damage_chart(long)
    assert svg.count('<rect class="bar"') == charts.MAX_BARS
    assert damage_chart(long) == svg
    assert charts._drawn.cache_info().currsize == 0
