"""A turn of saved units behind the interface's ``Attack`` (``TurnAttack``), its odds kept.

A turn's odds depend on nothing but the turn (a frozen value, compared by value: its units,
weapons, targets, situation and options), and the same turns come back: the calculator asks
again as its inputs change and change back, and a club's players ask about the same units.
Kept per process (a turn sent to a calculation worker is kept in that worker, and its answer
handed back to ``remember`` is kept here), within a byte budget: a line's damage
distribution can run to hundreds of values.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, replace
from dataclasses import fields as dataclass_fields
from typing import Any

from app.rules.brikwars.shapes import turn_odds, turn_roll
from app.rules.brikwars.turn import ArcFollower, Turn
from app.rules.brikwars.units import UnitSpec
from app.rules.memo import BoundedMemo
from app.rules.ruleset import AttackOdds, AttackRoll, RememberingAttack
from app.rules.ruleset.base import odds_bytes


def _turn_attack_odds(turn: Turn) -> AttackOdds:
    """A turn's odds as the calculator shows them."""
    odds = turn_odds(turn.odds())
    if turn.target.kind == "creation":
        return odds
    # Only a Creation loses Size: the main target's table leaves that column out.
    return replace(
        odds,
        lines=tuple(
            replace(
                line,
                targets=(
                    replace(line.targets[0], inapplicable=("size_damage",)),
                    *line.targets[1:],
                ),
            )
            for line in odds.lines
        ),
    )


_KNOWN_ODDS: BoundedMemo[[Turn], AttackOdds] = BoundedMemo(
    _turn_attack_odds, maxsize=2048, max_bytes=32 << 20, size=odds_bytes
)

_UNIT_FIELDS = tuple(f.name for f in dataclass_fields(UnitSpec) if f.name != "name")
_FOLLOWER_FIELDS = tuple(f.name for f in dataclass_fields(ArcFollower))
_TURN_FIELDS = tuple(f.name for f in dataclass_fields(Turn) if f.compare)


class _OddsKey:
    """What a turn's odds depend on: the turn less its units' names. A squad's Troopers or a
    club's copies of one Tank have equal odds (unit names appear nowhere in them; an ally's
    does, in a Combined Attack's line: that turn is kept under the whole turn). Hashed once."""

    __slots__ = ("_hash", "_parts")

    def __init__(self, parts: tuple[Any, ...]) -> None:
        self._parts = parts
        self._hash = hash(parts)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _OddsKey):
            return NotImplemented
        return self._hash == other._hash and self._parts == other._parts

    def __reduce__(self) -> tuple[Any, ...]:
        return (_OddsKey, (self._parts,))  # hashed anew: a string's hash differs by process

    @classmethod
    def of(cls, turn: Turn) -> _OddsKey:
        if turn.allies:
            return cls((turn,))
        parts: list[Any] = []
        for name in _TURN_FIELDS:
            value = getattr(turn, name)
            if isinstance(value, UnitSpec):
                value = _unit_key(value)
            elif name == "followers":
                value = tuple(_follower_key(f) for f in value)
            parts.append(value)
        return cls(tuple(parts))


def _unit_key(unit: UnitSpec) -> tuple[Any, ...]:
    return tuple(getattr(unit, name) for name in _UNIT_FIELDS)


def _follower_key(follower: ArcFollower) -> tuple[Any, ...]:
    return tuple(
        _unit_key(v) if isinstance(v, UnitSpec) else v
        for v in (getattr(follower, name) for name in _FOLLOWER_FIELDS)
    )


@dataclass(frozen=True)
class TurnAttack(RememberingAttack):
    """A turn of saved units (``Turn``) behind the interface's ``Attack``: its odds kept in
    ``_KNOWN_ODDS`` under the turn less its units' names (``inline`` and ``remember`` are
    ``RememberingAttack``'s)."""

    known = _KNOWN_ODDS
    turn: Turn

    @functools.cached_property
    def _key(self) -> _OddsKey:
        return _OddsKey.of(self.turn)

    @property
    def odds_key(self) -> _OddsKey:
        return self._key

    def exact_odds(self) -> AttackOdds:
        return _turn_attack_odds(self.turn)

    def cheap(self) -> bool:
        return self.turn.inline()

    def odds(self) -> AttackOdds:
        # the memo computes from the turn (``_KNOWN_ODDS.__wrapped__(turn)``: a turn's odds,
        # no attack needed), not from the attack as RememberingAttack's does
        return _KNOWN_ODDS.keyed(self._key, self.turn)

    def problems(self) -> tuple[str, ...]:
        if self.known.get(self._key) is not None:
            return ()  # (odds are only computed for a turn without problems)
        return self.turn.power().problems

    def roll(self, rng: random.Random) -> AttackRoll:
        return turn_roll(self.turn.roll(rng))
