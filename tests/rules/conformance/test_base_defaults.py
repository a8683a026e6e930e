"""What ``RulesetBase`` and ``Values`` derive, checked apart from any ruleset's own members."""

from __future__ import annotations

import copy
import pickle
import random
from dataclasses import dataclass

from app.rules.ruleset import AttackOdds, AttackRoll, RememberingAttack, Values
from app.rules.ruleset.base import _as_json


def test_values_survive_pickling_and_copying() -> None:
    """A situation or options kept as ``Values`` may go to a calculation worker and back."""
    values = Values(cover=True, distance=3, mode="shot")
    pickled = pickle.loads(pickle.dumps(values))  # noqa: S301  (our own bytes)
    for copied in (pickled, copy.deepcopy(values), copy.copy(values)):
        assert copied == values and hash(copied) == hash(values)
        assert copied.cover is True and copied["mode"] == "shot"


def test_values_compare_as_mappings_and_refuse_unknown_names() -> None:
    values = Values({"a": 1}, b=2)
    assert values == {"a": 1, "b": 2} and values != Values(a=1)
    assert dict(values) == {"a": 1, "b": 2} and len(values) == 2
    try:
        _ = values.c
    except AttributeError as err:
        assert "c" in str(err)
    else:
        raise AssertionError("an unknown name must be refused")


@dataclass(frozen=True)
class _State:
    wounds: int = 0
    marks: tuple[tuple[int, str], ...] = ()


def test_a_state_is_written_as_json_ready_data() -> None:
    """Tuples (a dataclass's, or nested) become lists: what the database's JSON gives back."""
    written = _as_json(_State(2, ((1, "a"),)))
    assert written == {"wounds": 2, "marks": [[1, "a"]]}
    assert _as_json(Values(wounds=1)) == {"wounds": 1}


@dataclass(frozen=True)
class _Slow(RememberingAttack):
    """An attack whose odds count how often they were computed."""

    key: int
    computed: list[int]

    @property
    def odds_key(self) -> int:
        return self.key

    def exact_odds(self) -> AttackOdds:
        self.computed.append(self.key)
        return AttackOdds((), 0.5)

    def roll(self, rng: random.Random) -> AttackRoll:
        return AttackRoll(())


def test_a_remembering_attack_keeps_odds_in_a_bounded_memo() -> None:
    """A worker's odds make an equal attack inline; computed odds are kept once; the memo
    has a bound on entries and on bytes (every cache in the app has both)."""
    computed: list[int] = []
    first, again = _Slow(1, computed), _Slow(1, computed)
    assert not first.inline()
    assert first.odds() == again.odds() and computed == [1]
    assert again.inline()
    worker = _Slow(2, computed)
    worker.remember(AttackOdds((), 0.25))
    assert _Slow(2, computed).inline() and _Slow(2, computed).odds().decisive == 0.25
    assert computed == [1]
    assert _Slow.known.maxsize == 2048 and _Slow.known.max_bytes == 32 << 20
