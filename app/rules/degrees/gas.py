"""Pumping a gas gun (9.5.1): each AP adds 1° up to the gun's max; each AP beyond the max
rolls against the new degree (the first roll less the OP spent on it): success damages the
gun by the roll (its max drops; at 0 or less it is wrecked after this shot), the AP still
adds its degree, and the pumping stops there (the rest of the AP are not spent)."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

from app.rules.degrees.shot import D10, succeeds


class Pumped(NamedTuple):
    """The gun after pumping: the degree pumped, its max (0: wrecked), the AP spent on
    pumping and the over-compression rolls made (natural, against degree)."""

    degree: int
    max: int
    ap: int
    rolls: tuple[tuple[int, int], ...] = ()

    @property
    def damaged(self) -> bool:
        return any(succeeds(n, d) for n, d in self.rolls)


def pump_step(
    gun_max: int, pumped: int, op: int
) -> tuple[int, int | None]:  # (new pumped, degree to roll against or None)
    """One AP into the gun: the new pumped degree and the degree of its over-compression
    roll, ``op`` OP spent on it (None when within the max)."""
    new = pumped + 1
    return new, (None if new <= gun_max else new - op)


def pump_with(
    gun_max: int, start: int, pump: int, compress_op: int, die: Callable[[], int]
) -> Pumped:
    """Pump, rolling ``die()`` for each over-compression roll as it happens."""
    pumped, spent = start, 0
    rolls: list[tuple[int, int]] = []
    for _ in range(pump):
        pumped, against = pump_step(gun_max, pumped, 0 if rolls else compress_op)
        spent += 1
        if against is None:
            continue
        natural = die()
        rolls.append((natural, against))
        if succeeds(natural, against):
            return Pumped(pumped, max(0, gun_max - natural), spent, tuple(rolls))
    return Pumped(pumped, gun_max, spent, tuple(rolls))


@lru_cache(maxsize=4096)
def pump_odds(
    gun_max: int, start: int, pump: int, compress_op: int
) -> tuple[tuple[float, Pumped], ...]:
    """Every way the pumping can go, with its probability (rolls left out of the result:
    what differs is the degree, the max and the AP spent)."""
    out: dict[tuple[int, int, int], float] = {}
    pumped, spent, p, rolled = start, 0, 1.0, False
    for _ in range(pump):
        pumped, against = pump_step(gun_max, pumped, 0 if rolled else compress_op)
        spent += 1
        if against is None:
            continue
        rolled = True
        for natural in range(1, D10 + 1):
            if succeeds(natural, against):
                key = (pumped, max(0, gun_max - natural), spent)
                out[key] = out.get(key, 0.0) + p / D10
        p *= 1 - min(max(against, 0), D10) / D10
        if p == 0.0:
            break
    if p > 0.0:
        key = (pumped, gun_max, spent)
        out[key] = out.get(key, 0.0) + p
    return tuple((q, Pumped(*key)) for key, q in out.items())
