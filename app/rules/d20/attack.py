"""A D20 attack ready to compute: a shot or blow, automatic fire, an explosion or a defusing.

Every figurine struck is rolled for separately (its own D20), so the odds are exact per
figurine and the number wounded is the convolution of independent chances. Objects in an
explosion each take their own D20 against their DL. The same ``Strike`` decides a seeded
roll and the odds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from app.rules.d20.catalogue import D20
from app.rules.d20.strike import (
    Strike,
    defuse_chance,
    defuses,
    destroyed_chance,
    destroys,
)
from app.rules.dice.independent import count_distribution
from app.rules.ruleset import (
    AttackBase,
    AttackOdds,
    AttackRoll,
    Effect,
    LineOdds,
    LineRoll,
    Outcome,
    RolledDie,
    TargetOdds,
)

INLINE_TARGETS = 8
OUTCOMES: tuple[tuple[str, str], ...] = (
    ("out", "Out"),
    ("wounded", "Wounded"),
    ("unhurt", "Unhurt"),
)
LABELS = dict(OUTCOMES)
EXTRAS: tuple[tuple[str, str], ...] = (("shaken", "Shaken"),)
KINDS = {
    "shot": "shot",
    "blow": "blow",
    "automatic": "automatic fire",
    "explosion": "explosion",
    "defuse": "defusing",
}


@dataclass(frozen=True, slots=True)
class D20Attack(AttackBase):
    """An attack as declared: its ``mode``, a label, the strike on each target in order
    (with the modifier it was made at), the objects' DLs with the explosion's ``power``, and
    for a defusing the defuser's Dexterity against the charge's ``dl``. ``refused``: why it
    cannot be made (``problems``); ``steps``: the breakdown shown."""

    mode: str
    label: str
    strikes: tuple[Strike, ...]
    penalties: tuple[int, ...] = ()
    power: int = 0
    objects: tuple[int, ...] = ()
    dexterity: int = 0
    dl: int = 0
    weapons: tuple[int, ...] = ()
    steps: tuple[tuple[str, str], ...] = ()
    refused: tuple[str, ...] = ()

    def inline(self) -> bool:
        """Cheap enough to compute in the request: a figurine is some 30 µs of odds (a
        worker's odds are not kept: ``AttackBase.remember``)."""
        return len(self.strikes) <= INLINE_TARGETS

    def problems(self) -> tuple[str, ...]:
        return self.refused

    # ------------------------------------------------------------------ odds

    def _target(self, index: int, strike: Strike) -> tuple[TargetOdds, dict[str, Any]]:
        t = strike.tally()
        wound, out, shaken = t.wound / D20, t.out / D20, t.shaken / D20
        odds = TargetOdds(
            index,
            (
                Outcome("out", LABELS["out"], out),
                Outcome("wounded", LABELS["wounded"], (t.wound - t.out) / D20),
                Outcome("unhurt", LABELS["unhurt"], (D20 - t.wound) / D20),
            ),
            (Outcome("shaken", "Shaken", shaken),),
        )
        rolled = strike.hit and strike.rolled
        detail = {
            "wound": wound,
            "out": out,
            "shaken": shaken,
            "hit": strike.hit,
            "rolled": rolled,
            "bonus": strike.bonus,
            "defence": strike.defence,
            "modifier": self.penalties[index] if index < len(self.penalties) else 0,
            "needs": t.needs if rolled else None,
            "cp": strike.cp,
            "cp_lost": {str(k): v / D20 for k, v in t.lost.items()},
            "cp_left": {str(strike.cp - k): v / D20 for k, v in reversed(t.lost.items())},
            "margin": {str(k): v / D20 for k, v in sorted(t.margins.items())},
        }
        return odds, detail

    def odds(self) -> AttackOdds:
        pairs = [self._target(i, s) for i, s in enumerate(self.strikes)]
        targets = tuple(odds for odds, _ in pairs)
        details = [detail for _, detail in pairs]
        wounds = [d["wound"] for d in details]
        outs = [d["out"] for d in details]
        main = self.strikes[0].tally()
        damage = tuple((k, v / main.wound) for k, v in main.lost.items() if k > 0 and main.wound)
        notes: tuple[Outcome, ...] = ()
        detail: dict[str, Any] = {
            "mode": self.mode,
            "power": self.power,
            "targets": details,
            "wounded_count": {str(k): p for k, p in enumerate(count_distribution(wounds))},
            "out_count": {str(k): p for k, p in enumerate(count_distribution(outs))},
            "expected_wounded": sum(wounds),
            "objects": [
                {"dl": dl, "destroyed": destroyed_chance(self.power, dl)} for dl in self.objects
            ],
        }
        if self.mode == "defuse":
            defused = defuse_chance(self.dexterity, self.dl)
            detail |= {"defused": defused, "dl": self.dl, "dexterity": self.dexterity}
            notes = (Outcome("defused", "Defused", defused),)
        none_out = 1.0
        for p in outs:
            none_out *= 1.0 - p
        line = LineOdds(
            self.label,
            KINDS[self.mode],
            self.weapons,
            targets,
            damage=damage,
            steps=self.steps,
            notes=notes,
        )
        return AttackOdds((line,), decisive=1.0 - none_out, expected=outs[0], detail=detail)

    # ------------------------------------------------------------------ roll

    def roll(self, rng: random.Random) -> AttackRoll:
        dice: list[RolledDie] = []
        effects: list[Effect] = []
        rolled_targets: list[dict[str, Any]] = []
        for index, strike in enumerate(self.strikes):
            natural: int | None = None
            if strike.hit and strike.rolled and self.mode != "defuse":
                natural = rng.randint(1, D20)
            hit = strike.resolve(natural)
            if hit.natural is not None and hit.total is not None:
                dice.append(
                    RolledDie(
                        f"vs defence {strike.defence}", D20, hit.natural, hit.total, target=index
                    )
                )
            lost = min(hit.cp_lost, strike.cp)
            key = "out" if lost >= strike.cp else "wounded" if lost else "unhurt"
            effects.append(
                Effect(
                    index,
                    key,
                    _words(key, lost, hit.shaken, strike.hit),
                    damage=lost,
                    flags=("shaken",) if hit.shaken else (),
                    amount=lost,
                )
            )
            rolled_targets.append({"cp_lost": lost, "shaken": hit.shaken, "wounded": lost > 0})
        objects: list[dict[str, Any]] = []
        for dl in self.objects:
            natural = rng.randint(1, D20)
            dice.append(RolledDie(f"object DL {dl}", D20, natural, self.power + natural))
            objects.append({"dl": dl, "destroyed": destroys(self.power, natural, dl)})
        detail: dict[str, Any] = {"targets": rolled_targets, "objects": objects}
        notes: tuple[str, ...] = ()
        if self.mode == "defuse":
            natural = rng.randint(1, D20)
            dice.append(RolledDie(f"defuse DL {self.dl}", D20, natural, self.dexterity + natural))
            detail["defused"] = defuses(self.dexterity, natural, self.dl)
            notes = ("defused",) if detail["defused"] else ("not defused",)
        line = LineRoll(self.label, KINDS[self.mode], self.weapons, tuple(dice), tuple(effects))
        if notes:
            line = LineRoll(
                self.label, KINDS[self.mode], self.weapons, tuple(dice), tuple(effects), notes=notes
            )
        return AttackRoll((line,), detail=detail)


def _words(key: str, lost: int, shaken: bool, hit: bool) -> str:
    if not hit:
        words = "not caught"
    elif key == "unhurt":
        words = "unhurt"
    else:
        words = f"{lost} CP" + (", out" if key == "out" else "")
    return words + (", Shaken" if shaken else "")
