"""A turn's odds are kept per process: an equal turn is answered from memory, any change
to the turn (a unit, a weapon, the situation) is computed anew, and nothing is kept for a
turn the rules refuse. Units' names are not part of the odds: turns that differ only in
names share them (a squad's Troopers, a club's copies of one Tank)."""

from __future__ import annotations

import pickle
from dataclasses import replace
from fractions import Fraction

import pytest

from app.rules.brikwars import known_odds
from app.rules.brikwars.known_odds import TurnAttack
from app.rules.brikwars.turn import Ally, ArcFollower, Turn, TurnSituation
from app.rules.brikwars.units import UnitSpec, WeaponSpec, hero, minifig
from app.rules.errors import InvalidInput
from app.rules.ruleset import AttackOdds
from tests.rules.brikwars.test_turn import rex, tank


def fresh(turn: Turn) -> AttackOdds:
    """The turn's odds computed without the memo."""
    return known_odds._KNOWN_ODDS.__wrapped__(turn)


@pytest.fixture(autouse=True)
def forget():
    known_odds._KNOWN_ODDS.cache_clear()
    yield
    known_odds._KNOWN_ODDS.cache_clear()


def test_an_equal_turn_is_answered_with_the_odds_already_computed():
    first = TurnAttack(Turn(tank(), (0,), minifig(), TurnSituation(distance=Fraction(5))))
    again = TurnAttack(Turn(tank(), (0,), minifig(), TurnSituation(distance=Fraction(5))))
    odds = first.odds()
    assert again.odds() is odds
    # ... and they are the turn's own odds, as computed without the memo
    assert odds == fresh(Turn(tank(), (0,), minifig(), TurnSituation(Fraction(5))))
    info = known_odds._KNOWN_ODDS.cache_info()
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
    assert known_odds._KNOWN_ODDS.cache_info().hits == 0


def test_a_kept_turn_is_inline_and_has_no_problems():
    """Kept odds are answered where the request is handled, even for a turn that would go to
    the calculation workers (it was computed once already)."""
    volley = TurnAttack(Turn(tank(), (1,), minifig(), TurnSituation(burst=3)))
    assert not volley.inline()
    volley.odds()
    assert volley.inline() and volley.problems() == ()


def test_odds_a_worker_computed_are_kept_here():
    """The worker's answer, handed back (``remember``): an equal turn is inline here and
    answered with it."""
    turn = Turn(tank(), (1,), minifig(), TurnSituation(burst=3))
    from_worker = fresh(turn)
    TurnAttack(turn).remember(from_worker)
    again = TurnAttack(Turn(tank(), (1,), minifig(), TurnSituation(burst=3)))
    assert again.inline() and again.odds() is from_worker


def test_a_refused_turn_keeps_nothing():
    over_power = TurnAttack(Turn(rex(), (0, 1, 2), minifig()))
    assert over_power.problems()
    for _ in range(2):
        with pytest.raises(InvalidInput):
            over_power.odds()
        assert over_power.problems()
    assert known_odds._KNOWN_ODDS.cache_info().currsize == 0


def test_the_kept_odds_stay_within_their_byte_budget(monkeypatch: pytest.MonkeyPatch):
    """A line's damage distribution can run to hundreds of values: the memo counts them."""
    kept = known_odds._KNOWN_ODDS
    one = known_odds.odds_bytes(fresh(Turn(tank(), (0,), minifig())))
    monkeypatch.setattr(kept, "max_bytes", 2 * one + one // 2)  # room for two such turns
    for distance in range(1, 6):
        TurnAttack(Turn(tank(), (0,), minifig(), TurnSituation(Fraction(distance)))).odds()
    info = kept.cache_info()
    assert info.currsize == 2 and info.nbytes <= info.max_bytes


def renamed(turn: Turn, tag: str) -> Turn:
    """The turn with every unit named anew (``tag`` in each name)."""
    return replace(
        turn,
        attacker=replace(turn.attacker, name=f"{tag} attacker"),
        target=replace(turn.target, name=f"{tag} target"),
        followers=tuple(
            replace(f, unit=replace(f.unit, name=f"{tag} follower {k}"))
            for k, f in enumerate(turn.followers)
        ),
    )


NAMELESS_TURNS = [
    Turn(tank(), (0,), minifig(), TurnSituation(distance=Fraction(5))),
    Turn(tank(), (0, 3), hero(), TurnSituation(distance=Fraction(14))),
    Turn(tank(), (1,), minifig(), TurnSituation(burst=3)),
    Turn(
        tank(),
        (1,),
        minifig(),
        TurnSituation(arc=2),
        (ArcFollower(minifig(), Fraction(4)), ArcFollower(hero(), Fraction(13))),
    ),
    Turn(rex(), (0,), tank(), TurnSituation(distance=Fraction(1))),
]


@pytest.mark.parametrize("turn", NAMELESS_TURNS)
def test_turns_that_differ_only_in_names_share_their_odds(turn: Turn):
    odds = TurnAttack(turn).odds()
    other = renamed(turn, "Qzx")
    assert TurnAttack(other).inline() and TurnAttack(other).problems() == ()
    assert TurnAttack(other).odds() is odds
    assert known_odds._KNOWN_ODDS.cache_info().hits == 1
    # ... which holds because no unit's name reaches the odds: computed afresh, they are
    # equal, and name nobody
    computed = fresh(other)
    assert computed == odds
    assert "Qzx" not in repr(computed)


def test_a_combined_attack_names_its_ally_so_is_kept_under_the_whole_turn():
    walker = UnitSpec(name="Walker", size=3, structure_level=3)
    trooper = UnitSpec(name="Pvt", kind="minifig", weapons=(WeaponSpec("short_ranged_weapon"),))
    turn = Turn(
        tank(), (0,), walker, TurnSituation(distance=Fraction(3)), allies=(Ally(trooper, (0,)),)
    )
    other = replace(turn, allies=(Ally(replace(trooper, name="Sgt"), (0,)),))
    first, second = TurnAttack(turn).odds(), TurnAttack(other).odds()
    assert "Pvt's" in first.lines[0].label and "Sgt's" in second.lines[0].label
    assert TurnAttack(turn).odds() is first


def test_a_kept_key_is_hashed_anew_where_it_is_unpickled():
    """A turn's key travels with it to a calculation worker, where strings hash otherwise."""
    key = TurnAttack(renamed(NAMELESS_TURNS[0], "A"))._key
    assert pickle.loads(pickle.dumps(key)) == key  # noqa: S301  (our own object)
    assert key.__reduce__()[1] == (key._parts,)  # the hash is not carried
    assert key == TurnAttack(renamed(NAMELESS_TURNS[0], "B"))._key
    assert key != TurnAttack(NAMELESS_TURNS[1])._key
