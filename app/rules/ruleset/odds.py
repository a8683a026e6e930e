"""What an attack gives: exact odds by line and target, and rolls with every die (the shared
shapes of calculating), and the attack itself as the product holds it."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.rules.ruleset.figures import JSON


@dataclass(frozen=True, slots=True)
class Outcome:
    """One of a target's mutually exclusive outcomes (they sum to 1), or, in ``extras``, a
    chance that may overlap the others (on Fire, say)."""

    key: str
    label: str
    probability: float


@dataclass(frozen=True, slots=True)
class TargetOdds:
    """One target's outcomes. ``inapplicable``: outcome keys that cannot happen to this
    target (a Size loss to a unit without Size, say): a table of this target alone may leave
    their columns out."""

    target: int  # index into the attack's targets
    outcomes: tuple[Outcome, ...]
    extras: tuple[Outcome, ...] = ()
    inapplicable: tuple[str, ...] = ()
    # A squad (a target of several figurines, ``TargetInput.figures``): these odds are each
    # of ``figures`` figurines' of the target, from its ``figure``-th (0: the first). Alike
    # figurines share one entry; figurines with different odds (automatic fire's falling
    # modifier, say) get one each.
    figure: int = 0
    figures: int = 1

    def probability(self, key: str) -> float:
        return sum(o.probability for o in self.outcomes + self.extras if o.key == key)


@dataclass(frozen=True, slots=True)
class LineOdds:
    """One line of an attack (a weapon, or weapons rolled together) against its targets:
    the outcomes, the damage distribution (value, probability) given a hit, the step-by-step
    breakdown (label, value) and the probability mass left out by truncation."""

    label: str
    kind: str
    weapons: tuple[int, ...]
    targets: tuple[TargetOdds, ...]
    damage: tuple[tuple[int, float], ...] = ()
    steps: tuple[tuple[str, str], ...] = ()
    notes: tuple[Outcome, ...] = ()  # per-line chances such as a jam
    truncation_bound: float = 0.0

    @property
    def main(self) -> TargetOdds:
        """The odds on the main target (the first)."""
        return self.targets[0]

    def note(self, key: str) -> float:
        """The chance of the per-line note ``key`` (0 when the line has none)."""
        return sum(n.probability for n in self.notes if n.key == key)

    def at_least(self, limit: int | None = None) -> tuple[tuple[int, float], ...]:
        """P(damage >= N given a hit) for each N of the damage distribution (its first
        ``limit`` values: a page shows a dozen of a few hundred)."""
        out: list[tuple[int, float]] = []
        left = 1.0
        for value, p in self.damage[:limit]:
            out.append((value, max(0.0, left)))
            left -= p
        return tuple(out)


@dataclass(frozen=True, slots=True)
class Tally:
    """How many figurines, over every target of the attack, end with an outcome (``key``:
    ``wounded``, ``out``, ``destroyed``...): the exact distribution, ``distribution[n]`` being
    P(exactly n). A ruleset whose targets' outcomes are not independent (one Damage roll for
    everyone in a blast, say) computes it jointly."""

    key: str
    label: str
    distribution: tuple[float, ...]

    @property
    def expected(self) -> float:
        return sum(n * p for n, p in enumerate(self.distribution))


@dataclass(frozen=True, slots=True)
class AttackOdds:
    """Every line's odds. ``decisive``: P(at least one target removed from play), the
    headline figure; ``expected``: the expected number of lines with a decisive result on
    the main target (what a loadout is worth per point spent); ``detail``: the ruleset's
    own figures, JSON-ready (a whole round's distribution of what the target has left, say):
    the stateless ``/odds`` answer carries them beside the shared fields, and the ruleset's
    templates read them; ``tallies``: where figurines are counted (several targets, squads),
    the distribution of how many end wounded, out or destroyed over all targets."""

    lines: tuple[LineOdds, ...]
    decisive: float
    truncation_bound: float = 0.0
    expected: float = 0.0
    detail: Mapping[str, Any] = field(default_factory=dict)
    tallies: tuple[Tally, ...] = ()


@dataclass(frozen=True, slots=True)
class RolledDie:
    purpose: str
    sides: int
    natural: int
    value: int
    bonus: bool = False
    target: int | None = None
    figure: int = 0  # which figurine of a squad target (TargetInput.figures)


@dataclass(frozen=True, slots=True)
class Effect:
    """What a line did to one target: an outcome key of the odds, and the words for it."""

    target: int
    outcome: str
    words: str
    damage: int | None = None
    flags: tuple[str, ...] = ()  # extra outcome keys that happened (e.g. "on_fire")
    amount: int = 0  # how much of the outcome, where it comes in amounts (inches lost, say)
    figure: int = 0  # which figurine of a squad target (TargetInput.figures)


@dataclass(frozen=True, slots=True)
class LineRoll:
    label: str
    kind: str
    weapons: tuple[int, ...]
    dice: tuple[RolledDie, ...]
    effects: tuple[Effect, ...]
    skipped: str = ""
    notes: tuple[str, ...] = ()  # e.g. "jammed"


@dataclass(frozen=True, slots=True)
class AttackRoll:
    """The rolled lines in order. ``damage_after``: each target's damage as the roll leaves
    it, in the ruleset's own measure (empty when the ruleset keeps none); ``detail``: the
    ruleset's own, JSON-ready (what each target has left, say), carried by the stateless
    ``/roll`` answer beside the shared fields and read by its battles."""

    lines: tuple[LineRoll, ...]
    damage_after: tuple[float, ...] = ()
    detail: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TargetInput:
    """A target of an attack: the ruleset's unit, and its ``target_fields`` values (for
    every target after the first: where it stands, say). ``figures``: how many figurines
    of a squad (a roster unit of count N: 1..N) stand where the attack reaches (in the
    radius, along the Arc, in the location). An attack that strikes several targets counts
    each as a target of its own; one that strikes a single figurine strikes one of them."""

    unit: Any
    fields: Mapping[str, Any] = field(default_factory=dict)
    figures: int = 1


@dataclass(frozen=True, slots=True)
class AllyInput:
    """A unit joining the attacker's attack (a combined attack): the ruleset's unit and the
    weapons (positions) it fires."""

    unit: Any
    weapons: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SampleAttack:
    """An attack a ruleset names as typical of it: the conformance suite checks its odds
    against 20,000 seeded rolls, and guides and examples may show it. Units are as
    ``encode_unit`` writes them; ``situation`` as ``attack`` takes it."""

    name: str
    attacker: JSON
    weapons: tuple[int, ...]
    targets: tuple[JSON, ...]
    situation: Mapping[str, Any] = field(default_factory=dict)


class Attack(Protocol):
    """An attack ready to compute: exact odds, or a seeded roll (same seed, same dice)."""

    def inline(self) -> bool:
        """Small enough to compute where the request is handled (well under a millisecond);
        otherwise it goes to the calculation workers."""
        ...

    def odds(self) -> AttackOdds: ...

    def remember(self, odds: AttackOdds) -> None:
        """Keep the odds a calculation worker computed for this attack (its ``odds()`` ran
        in another process), so that an equal attack is ``inline()`` here next time. A
        ruleset that keeps no odds ignores them."""
        ...

    def roll(self, rng: random.Random) -> AttackRoll: ...

    # calculator
    def problems(self) -> tuple[str, ...]:
        """Why the attack cannot be made as declared (not enough Power, say), each a
        sentence; empty when it can. Cheap: checked before the odds are sent to a worker."""
        ...
