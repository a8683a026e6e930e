"""Brute force of the D20 rules, written from the text and RULINGS §3 without the engine:
every combination of the dice (itertools.product over 1..20) is played out and counted."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction


def cp_lost(
    bonus: int,
    defence: int,
    natural: int,
    *,
    margin_wounds: bool = False,
    naturals: bool = False,
    flat: int = 0,
) -> int:
    total = bonus + natural
    wounds = total > defence
    if naturals and natural == 20:
        wounds = True
    if naturals and natural == 1:
        wounds = False
    lost = 0
    if wounds:
        lost = max(1, math.ceil((total - defence) / 5)) if margin_wounds else 1
    return lost + flat


def defence(
    pd: int, evasion: int, *, explosion: bool = False, shaken: bool = False, cover: int = 0
) -> int:
    """What the D20 total must beat (RULINGS 3.3): a shot or a blow, PD + Evasion (PD alone
    while Shaken); an explosion, PD alone whatever the Evasion ("Power of the explosion + 1 D20
    / Physical Defense": Evasion dodges shots and blows, not a blast), + ``cover`` where the
    blast respects it."""
    if explosion:
        return pd + cover
    return pd + (0 if shaken else evasion)


def _outcome(lost: int, cp: int) -> str:
    return "out" if lost >= cp else "wounded" if lost else "unhurt"


def enumerate_attack(
    bonuses: Sequence[int],
    defences: Sequence[int],
    cps: Sequence[int],
    **rules: object,
) -> tuple[list[dict[str, Fraction]], dict[int, Fraction]]:
    """Each target's P(out), P(wounded, not out), P(unhurt), and the exact distribution of the
    number wounded, by playing out all 20^n rolls."""
    n = len(bonuses)
    # Each target's outcome for each natural, played out once: every one of the 20^n rolls is
    # then looked up and counted (a 5-target attack is 3.2 million rolls).
    outcome = [
        [
            _outcome(cp_lost(bonuses[i], defences[i], natural, **rules), cps[i])  # type: ignore[arg-type]
            for natural in range(1, 21)
        ]
        for i in range(n)
    ]
    per: list[Counter[str]] = [Counter() for _ in range(n)]
    wounded: Counter[int] = Counter()
    for rolled, times in Counter(itertools.product(*outcome)).items():
        for i, key in enumerate(rolled):
            per[i][key] += times
        wounded[n - rolled.count("unhurt")] += times
    size = 20**n
    return (
        [{k: Fraction(c[k], size) for k in ("out", "wounded", "unhurt")} for c in per],
        {k: Fraction(v, size) for k, v in wounded.items()},
    )


def figurine_faces(bonus: int, against: int, cp: int, **rules: object) -> list[tuple[int, str]]:
    """One figurine's (CP lost, outcome) for each natural 1..20."""
    out = []
    for natural in range(1, 21):
        lost = min(cp, cp_lost(bonus, against, natural, **rules))  # type: ignore[arg-type]
        out.append((lost, _outcome(lost, cp)))
    return out


def enumerate_figurines(
    figurines: Sequence[tuple[int, int, int]], **rules: object
) -> tuple[list[dict[str, Fraction]], dict[int, Fraction], dict[int, Fraction]]:
    """Every figurine (bonus, defence, CP) its own D20: each figurine's P(out), P(wounded,
    not out), P(unhurt), and the exact distributions of how many lost 1 CP or more and how
    many are out, by playing out every one of the 20^n rolls (n <= 4 or so)."""
    faces = [figurine_faces(b, d, cp, **rules) for b, d, cp in figurines]
    n = len(figurines)
    per: list[Counter[str]] = [Counter() for _ in range(n)]
    wounded: Counter[int] = Counter()
    out: Counter[int] = Counter()
    for naturals in itertools.product(range(20), repeat=n):
        rolled = [faces[i][k] for i, k in enumerate(naturals)]
        for i, (_, key) in enumerate(rolled):
            per[i][key] += 1
        wounded[sum(lost > 0 for lost, _ in rolled)] += 1
        out[sum(key == "out" for _, key in rolled)] += 1
    size = 20**n
    return (
        [{k: Fraction(c[k], size) for k in ("out", "wounded", "unhurt")} for c in per],
        {k: Fraction(v, size) for k, v in wounded.items()},
        {k: Fraction(v, size) for k, v in out.items()},
    )


def enumerate_figurines_by_outcome(
    figurines: Sequence[tuple[int, int, int]], **rules: object
) -> tuple[dict[int, Fraction], dict[int, Fraction]]:
    """The same two distributions for more figurines: every combination of the figurines'
    outcomes, each weighted by the number of D20 rolls that give it (the product of each
    figurine's faces giving its part), so 3^n combinations rather than 20^n rolls."""
    classes = [
        Counter((lost > 0, key == "out") for lost, key in figurine_faces(b, d, cp, **rules))
        for b, d, cp in figurines
    ]
    wounded: Counter[int] = Counter()
    out: Counter[int] = Counter()
    for combo in itertools.product(*(c.items() for c in classes)):
        times = math.prod(count for _, count in combo)
        wounded[sum(w for (w, _), _ in combo)] += times
        out[sum(o for (_, o), _ in combo)] += times
    size = 20 ** len(figurines)
    return (
        {k: Fraction(v, size) for k, v in wounded.items()},
        {k: Fraction(v, size) for k, v in out.items()},
    )
