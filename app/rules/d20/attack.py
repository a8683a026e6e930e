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
    count_distribution,
    defuse_chance,
    defuses,
    destroyed_chance,
    destroys,
)
from app.rules.ruleset import (
    AttackOdds,
    AttackRoll,
    Effect,
    LineOdds,
    LineRoll,
    Outcome,
    RolledDie,
    TargetOdds,
)

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


def _dist(values: dict[int, float]) -> dict[str, float]:
    return {str(k): v for k, v in sorted(values.items()) if v > 0}


@dataclass(frozen=True, slots=True)
class D20Attack:
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
        return True

    def problems(self) -> tuple[str, ...]:
        return self.refused

    # ------------------------------------------------------------------ odds

    def _target_odds(self, index: int, strike: Strike) -> TargetOdds:
        out = strike.out()
        wound = strike.wound()
        return TargetOdds(
            index,
            (
                Outcome("out", LABELS["out"], out),
                Outcome("wounded", LABELS["wounded"], max(0.0, wound - out)),
                Outcome("unhurt", LABELS["unhurt"], max(0.0, 1.0 - wound)),
            ),
            (Outcome("shaken", "Shaken", strike.shaken()),),
        )

    def _target_detail(self, index: int, strike: Strike) -> dict[str, Any]:
        lost = strike.cp_lost()
        return {
            "wound": strike.wound(),
            "out": strike.out(),
            "shaken": strike.shaken(),
            "hit": strike.hit,
            "rolled": strike.hit and strike.rolled,
            "bonus": strike.bonus,
            "defence": strike.defence,
            "modifier": self.penalties[index] if index < len(self.penalties) else 0,
            "needs": strike.needs if strike.hit and strike.rolled else None,
            "cp": strike.cp,
            "cp_lost": _dist(lost),
            "cp_left": _dist({strike.cp - k: p for k, p in lost.items()}),
            "margin": _dist(strike.margins()),
        }

    def odds(self) -> AttackOdds:
        targets = tuple(self._target_odds(i, s) for i, s in enumerate(self.strikes))
        main = self.strikes[0]
        wounded_given = {
            k: p / max(main.wound(), 1e-300) for k, p in main.cp_lost().items() if k > 0
        }
        notes: tuple[Outcome, ...] = ()
        detail: dict[str, Any] = {
            "mode": self.mode,
            "power": self.power,
            "targets": [self._target_detail(i, s) for i, s in enumerate(self.strikes)],
        }
        counts = count_distribution(s.wound() for s in self.strikes)
        detail["wounded_count"] = {str(k): p for k, p in enumerate(counts)}
        detail["out_count"] = {
            str(k): p for k, p in enumerate(count_distribution(s.out() for s in self.strikes))
        }
        detail["expected_wounded"] = sum(s.wound() for s in self.strikes)
        detail["objects"] = [
            {"dl": dl, "destroyed": destroyed_chance(self.power, dl)} for dl in self.objects
        ]
        if self.mode == "defuse":
            defused = defuse_chance(self.dexterity, self.dl)
            detail["defused"] = defused
            detail["dl"] = self.dl
            detail["dexterity"] = self.dexterity
            notes = (Outcome("defused", "Defused", defused),)
        none_out = 1.0
        for s in self.strikes:
            none_out *= 1.0 - s.out()
        line = LineOdds(
            self.label,
            KINDS[self.mode],
            self.weapons,
            targets,
            damage=tuple(sorted(wounded_given.items())) if main.wound() > 0 else (),
            steps=self.steps,
            notes=notes,
        )
        return AttackOdds(
            (line,),
            decisive=1.0 - none_out,
            expected=targets[0].probability("out"),
            detail=detail,
        )

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
