"""The inline / worker decision rests on counted work (``app.rules.work``, issue 30 F1)."""

from __future__ import annotations

from app.rules.brikwars.attacks.single import work_units
from app.rules.brikwars.raw_attack import RawAttack, raw_attack
from app.rules.work import INLINE_WORK_UNITS
from app.web.api.brikwars import ExplosionIn, explosion_of

F1 = {
    "dice": 3,
    "sides": 6,
    "over_the_top": True,
    "damage_modifier": -835,
    "deflection": 100,
    "armor": {"fixed": 51},
    "options": {"bonus_die": "d6"},
}
ODDS_EXAMPLE = {
    "action": {"die": 6, "use": 4, "modifier": 0},
    "damage": {"dice": 1, "sides": 6, "modifier": 0, "per_die_modifier": 0},
    "armor": {"fixed": 4},
    "deflection": 0,
    "options": {"bonus_die": "same"},
}


def _explosion(**changes: object) -> tuple[bool, float]:
    explosion, target = explosion_of(ExplosionIn.model_validate({**F1, **changes}))
    return explosion.inline(target), explosion.work_units(target)


def test_the_f1_explosion_goes_to_the_workers() -> None:
    inline, units = _explosion()
    assert not inline
    assert units > 10 * INLINE_WORK_UNITS  # its Deflection sweeps, 40-120 ms, are counted


def test_a_small_explosion_without_deflection_stays_inline() -> None:
    inline, units = _explosion(deflection=0, dice=1, over_the_top=False)
    assert inline and 0 < units < INLINE_WORK_UNITS


def test_the_odds_example_stays_inline() -> None:
    attack = raw_attack(ODDS_EXAMPLE)
    assert RawAttack(attack).inline()
    assert 0 < work_units([attack]) < INLINE_WORK_UNITS


def test_the_estimate_grows_with_the_dice() -> None:
    for deflection in (0, 1, 100):
        counted = [_explosion(dice=n, deflection=deflection)[1] for n in range(1, 7)]
        assert counted == sorted(counted) and counted[0] < counted[-1]
    damage = ODDS_EXAMPLE["damage"]
    assert isinstance(damage, dict)
    units = [
        work_units([raw_attack({**ODDS_EXAMPLE, "damage": {**damage, "dice": n}})])
        for n in range(1, 12)
    ]
    assert units == sorted(units) and units[0] < units[-1]
    assert not RawAttack(raw_attack({**ODDS_EXAMPLE, "damage": {**damage, "dice": 30}})).inline()


def test_the_one_figure_is_2000_units() -> None:
    """The figure every ruleset shares (``INLINE_WORK_UNITS``, ≈ 2 ms): 7d6 against a fixed
    Armour counts some 1,650 units and is computed in the request; 8d6 counts some 2,060
    and goes to the workers (their slowest inline, ``bench inline``: well under 5 ms)."""
    damage = ODDS_EXAMPLE["damage"]
    assert isinstance(damage, dict)
    seven, eight = (raw_attack({**ODDS_EXAMPLE, "damage": {**damage, "dice": n}}) for n in (7, 8))
    assert 1000 < work_units([seven]) < 2000 < work_units([eight]) < 2500
    assert RawAttack(seven).inline() and not RawAttack(eight).inline()
