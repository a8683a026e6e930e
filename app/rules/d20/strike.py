"""One D20 roll against one figurine or one object (RULINGS 3.3), as a function of the die.

``Strike.resolve(natural)`` gives what one natural D20 does to a figurine; ``Strike.outcomes``
enumerates the twenty faces with the same function, so a seeded roll and the exact odds
cannot disagree. Objects and defusing are plain comparisons of a total with a DL.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from app.rules.d20.catalogue import D20, OBJECT_MARGIN

MARGIN_STEP = 5  # margin_wounds: a CP for every 5 points (or part) over the defence
FACES = range(1, D20 + 1)


class Hit(NamedTuple):
    """What one die did to a figurine: the total, its margin over the defence, whether it
    wounded, the CP it removed (the roll's and any flat CP) and whether it Shakes."""

    natural: int | None
    total: int | None
    margin: int | None
    wounded: bool
    cp_lost: int
    shaken: bool


@dataclass(frozen=True, slots=True)
class Strike:
    """A roll against one figurine: ``bonus`` (Shot or HtH + Power + modifiers, or an
    explosion's Power) + 1D20 against ``defence`` (a shot's or blow's: PD + Evasion; an
    explosion's: PD alone, + cover where it counts).

    ``rolled``: a die is rolled (False: the Searing Grenade); ``hit``: the figurine is struck
    at all (False: above a grenade's blast); ``flat_cp``: CP lost besides the roll (the
    Flaming Grenade); ``shakes``: the figurine is Shaken, hurt or not; ``cp``: its CP left.
    """

    bonus: int
    defence: int
    cp: int
    rolled: bool = True
    hit: bool = True
    flat_cp: int = 0
    shakes: bool = False
    margin_wounds: bool = False
    naturals: bool = False

    def resolve(self, natural: int | None) -> Hit:
        """The effect of a natural D20 (None: no die, where none is rolled)."""
        if not self.hit:
            return Hit(None, None, None, False, 0, False)
        if not self.rolled or natural is None:
            lost = self.flat_cp
            return Hit(None, None, None, lost > 0, lost, self.shakes)
        total = self.bonus + natural
        margin = total - self.defence
        wounds = margin > 0
        if self.naturals and natural == D20:
            wounds = True
        if self.naturals and natural == 1:
            wounds = False
        lost = 0
        if wounds:
            lost = max(1, -(-margin // MARGIN_STEP)) if self.margin_wounds else 1
        lost += self.flat_cp
        return Hit(natural, total, margin, lost > 0, lost, self.shakes)

    def tally(self) -> Tally:
        """Every face of the D20 counted once: how many wound, put out, Shake, the CP lost
        (capped at the CP left) and the margins; probabilities are counts over 20."""
        if not self.hit or not self.rolled:
            hit = self.resolve(None)
            lost = min(hit.cp_lost, self.cp)
            return Tally(
                D20 * hit.wounded,
                D20 * (lost >= self.cp),
                D20 * hit.shaken,
                {lost: D20},
                {},
                None,
            )
        wound = out = 0
        needs: int | None = None
        lost_counts: dict[int, int] = {}
        margins: dict[int, int] = {}
        for natural in FACES:
            hit = self.resolve(natural)
            lost = min(hit.cp_lost, self.cp)
            lost_counts[lost] = lost_counts.get(lost, 0) + 1
            if hit.margin is not None:
                margins[hit.margin] = margins.get(hit.margin, 0) + 1
            if hit.wounded:
                wound += 1
            if lost >= self.cp:
                out += 1
            if needs is None and hit.cp_lost > self.flat_cp:
                needs = natural
        return Tally(
            wound,
            out,
            D20 if self.shakes else 0,
            dict(sorted(lost_counts.items())),
            margins,
            needs,
        )

    def cp_lost(self) -> dict[int, float]:
        """The distribution of the CP lost (capped at the CP left: out is out)."""
        return {k: v / D20 for k, v in self.tally().lost.items()}

    def margins(self) -> dict[int, float]:
        """The distribution of the total's margin over the defence (empty: no roll)."""
        return {k: v / D20 for k, v in self.tally().margins.items()}

    def wound(self) -> float:
        return self.tally().wound / D20

    def out(self) -> float:
        return self.tally().out / D20

    def shaken(self) -> float:
        return self.tally().shaken / D20

    @property
    def needs(self) -> int | None:
        """The lowest natural roll whose roll wounds (None: none does, or no roll)."""
        return self.tally().needs


class Tally(NamedTuple):
    """A strike's faces counted (of 20): wounding, putting out, Shaking; the CP lost and
    the margins by value; the lowest natural that wounds by the roll."""

    wound: int
    out: int
    shaken: int
    lost: dict[int, int]
    margins: dict[int, int]
    needs: int | None


def destroys(power: int, natural: int, dl: int) -> bool:
    """An object is blown to bits when its DL is at least 1 lower than Power + 1D20."""
    return dl <= power + natural - OBJECT_MARGIN


def destroyed_chance(power: int, dl: int) -> float:
    return sum(destroys(power, n, dl) for n in FACES) / D20


def defuses(dexterity: int, natural: int, dl: int) -> bool:
    """Dexterity + 1D20 greater than the charge's DL (its Power) defuses it."""
    return dexterity + natural > dl


def defuse_chance(dexterity: int, dl: int) -> float:
    return sum(defuses(dexterity, n, dl) for n in FACES) / D20
