"""A turn's odds are kept per process: an equal turn is answered from memory, any change
to the turn (a unit, a weapon, the situation) is computed anew, and nothing is kept for a
turn the rules refuse."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.rules.brikwars import ruleset as brikwars_ruleset
from app.rules.brikwars.ruleset import TurnAttack
from app.rules.brikwars.turn import Turn, TurnSituation
from app.rules.brikwars.units import hero, minifig
from app.rules.errors import InvalidInput
from app.rules.ruleset import AttackOdds
from tests.rules.brikwars.test_turn import rex, tank


def fresh(turn: Turn) -> AttackOdds:
    """The turn's odds computed without the memo."""
    return brikwars_ruleset._KNOWN_ODDS.__wrapped__(turn)


@pytest.fixture(autouse=True)
def forget():
    brikwars_ruleset._KNOWN_ODDS.cache_clear()
    yield
    brikwars_ruleset._KNOWN_ODDS.cache_clear()


def test_an_equal_turn_is_answered_with_the_odds_already_computed():
    first = TurnAttack(Turn(tank(), (0,), minifig(), TurnSituation(distance=Fraction(5))))
    again = TurnAttack(Turn(tank(), (0,), minifig(), TurnSituation(distance=Fraction(5))))
    odds = first.odds()
    assert again.odds() is odds
    # ... and they are the turn's own odds, as computed without the memo
    assert odds == fresh(Turn(tank(), (0,), minifig(), TurnSituation(Fraction(5))))
    info = brikwars_ruleset._KNOWN_ODDS.cache_info()
    assert (info.hits, info.misses) == (1, 1)


@pytest.mark.parametrize(
    "changed",
    [
        Turn(tank(), (3,), minifig(), TurnSituation(distance=Fraction(5))),  # another weapon
        Turn(tank(size=5), (0,), minifig(), TurnSituation(distance=Fraction(5))),  # the unit
        Turn(tank(), (0,), minifig(), TurnSituation(distance=Fraction(5), small="2x2")),
        Turn(tank(), (0,), hero(), TurnSituation(distance=Fraction(5))),  # another target
    ],
)
def test_a_changed_turn_is_computed_anew(changed: Turn):
    kept = TurnAttack(Turn(tank(), (0,), minifig(), TurnSituation(distance=Fraction(5)))).odds()
    computed = TurnAttack(changed).odds()
    assert computed is not kept
    assert computed == fresh(changed)
    assert brikwars_ruleset._KNOWN_ODDS.cache_info().hits == 0


def test_a_kept_turn_is_inline_and_has_no_problems():
    """Kept odds are answered where the request is handled, even for a turn that would go to
    the calculation workers (it was computed once already)."""
    volley = TurnAttack(Turn(tank(), (1,), minifig(), TurnSituation(burst=3)))
    assert not volley.inline()
    volley.odds()
    assert volley.inline() and volley.problems() == ()


def test_a_refused_turn_keeps_nothing():
    over_power = TurnAttack(Turn(rex(), (0, 1, 2), minifig()))
    assert over_power.problems()
    for _ in range(2):
        with pytest.raises(InvalidInput):
            over_power.odds()
        assert over_power.problems()
    assert brikwars_ruleset._KNOWN_ODDS.cache_info().currsize == 0


def test_the_kept_odds_stay_within_their_byte_budget(monkeypatch: pytest.MonkeyPatch):
    """A line's damage distribution can run to hundreds of values: the memo counts them."""
    kept = brikwars_ruleset._KNOWN_ODDS
    one = brikwars_ruleset._odds_bytes(fresh(Turn(tank(), (0,), minifig())))
    monkeypatch.setattr(kept, "max_bytes", 2 * one + one // 2)  # room for two such turns
    for distance in range(1, 6):
        TurnAttack(Turn(tank(), (0,), minifig(), TurnSituation(Fraction(distance)))).odds()
    info = kept.cache_info()
    assert info.currsize == 2 and info.nbytes <= info.max_bytes
