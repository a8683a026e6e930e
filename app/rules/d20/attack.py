"""A D20 attack ready to compute: a shot or blow, automatic fire, an explosion or a defusing.

Every figurine struck is rolled for separately (its own D20), so the odds are exact per
figurine and the number wounded (or out) over all of them is the convolution of independent
chances. A squad target (``TargetInput.figures``) is that many figurines in automatic fire
and explosions: alike figurines of a target share one ``TargetOdds``. Objects in an
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
from app.rules.d20.strike import Tally as Faces  # one strike's 20 faces counted
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
    Tally,
    TargetOdds,
)
from app.rules.work import inline_work

# The odds' counted work (``D20Attack.work_terms``, turned into ``app.rules.work`` units): a
# D20's faces resolved once per distinct strike, a target's detail per run of alike strikes,
# and the two count distributions' steps over the N figurines struck (N(N+1) in all). The
# rates are a least-squares fit of what ``bench inline`` measured (the odds and their JSON,
# scaled to the yardstick machine): a face 0.8 µs, a run 69 µs (its target's detail and
# JSON), a step 0.13 µs, 93 µs whatever the attack; rounded up.
FACE_UNITS = 1.0
RUN_UNITS = 75
STEP_UNITS = 0.15
BASE_UNITS = 100
OUTCOMES: tuple[tuple[str, str], ...] = (
    ("out", "Out"),
    ("wounded", "Wounded"),
    ("unhurt", "Unhurt"),
)
LABELS = dict(OUTCOMES)
# ``AttackOdds.tallies``: figurines over all targets that lost 1 CP or more, that are out
TALLY_LABELS = {"wounded": "Wounded (1 CP or more lost)", "out": "Out"}
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
    """An attack as declared: its ``mode``, a label, the strike on each figurine struck in
    order (with the modifier it was made at), the objects' DLs with the explosion's
    ``power``, and for a defusing the defuser's Dexterity against the charge's ``dl``.
    ``owners``: each strike's (target, figurine of the target), empty for one strike per
    target; ``refused``: why it cannot be made (``problems``); ``steps``: the breakdown
    shown."""

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
    owners: tuple[tuple[int, int], ...] = ()

    def work_terms(self) -> tuple[int, int, int]:
        """What the odds will enumerate, counted from the strikes alone (nothing resolved):
        (faces resolved, runs of alike strikes, count-distribution steps)."""
        n = len(self.strikes)
        faces = sum(D20 if s.hit and s.rolled else 1 for s in set(self.strikes))
        return faces, len(self.runs()), n * (n + 1)

    def work_units(self) -> float:
        """The odds' counted work in ``app.rules.work`` units."""
        faces, runs, steps = self.work_terms()
        return BASE_UNITS + FACE_UNITS * faces + RUN_UNITS * runs + STEP_UNITS * steps

    def inline(self) -> bool:
        """Cheap enough to compute in the request: its counted work (``work_units``) under
        ``INLINE_WORK_UNITS`` (a worker's odds are not kept: ``AttackBase.remember``)."""
        return inline_work(self.work_units())

    def owner(self, index: int) -> tuple[int, int]:
        """Strike ``index``'s (target, figurine of the target)."""
        return self.owners[index] if self.owners else (index, 0)

    def runs(self) -> list[tuple[int, int, int]]:
        """The strikes as (first strike, target, how many): one figurine's after another of
        one target struck alike (a squad in a blast; automatic fire's -4 tail) share one."""
        out: list[tuple[int, int, int]] = []
        for index in range(len(self.strikes)):
            target, _ = self.owner(index)
            if out:
                first, last_target, count = out[-1]
                if last_target == target and self._alike(first, index):
                    out[-1] = (first, target, count + 1)
                    continue
            out.append((index, target, 1))
        return out

    def _alike(self, a: int, b: int) -> bool:
        return self.strikes[a] == self.strikes[b] and self._penalty(a) == self._penalty(b)

    def _penalty(self, index: int) -> int:
        return self.penalties[index] if index < len(self.penalties) else 0

    def problems(self) -> tuple[str, ...]:
        return self.refused

    # ------------------------------------------------------------------ odds

    def _target(
        self, first: int, target: int, count: int, t: Faces
    ) -> tuple[TargetOdds, dict[str, Any]]:
        """The odds of ``count`` alike figurines of ``target``, from strike ``first``."""
        strike = self.strikes[first]
        figure = self.owner(first)[1]
        wound, out, shaken = t.wound / D20, t.out / D20, t.shaken / D20
        odds = TargetOdds(
            target,
            (
                Outcome("out", LABELS["out"], out),
                Outcome("wounded", LABELS["wounded"], (t.wound - t.out) / D20),
                Outcome("unhurt", LABELS["unhurt"], (D20 - t.wound) / D20),
            ),
            (Outcome("shaken", "Shaken", shaken),),
            figure=figure,
            figures=count,
        )
        rolled = strike.hit and strike.rolled
        detail = {
            "target": target,
            "figure": figure,
            "figures": count,
            "wound": wound,
            "out": out,
            "shaken": shaken,
            "hit": strike.hit,
            "rolled": rolled,
            "bonus": strike.bonus,
            "defence": strike.defence,
            "modifier": self._penalty(first),
            "needs": t.needs if rolled else None,
            "cp": strike.cp,
            "cp_lost": {str(k): v / D20 for k, v in t.lost.items()},
            "cp_left": {str(strike.cp - k): v / D20 for k, v in reversed(t.lost.items())},
            "margin": {str(k): v / D20 for k, v in sorted(t.margins.items())},
        }
        return odds, detail

    def odds(self) -> AttackOdds:
        faces: dict[Strike, Faces] = {}
        pairs = []
        for first, target, count in self.runs():
            strike = self.strikes[first]
            if strike not in faces:
                faces[strike] = strike.tally()
            pairs.append(self._target(first, target, count, faces[strike]))
        targets = tuple(odds for odds, _ in pairs)
        details = [detail for _, detail in pairs]
        # each figurine's chances, in strike order (a group's figurines alike)
        wounds = [d["wound"] for d in details for _ in range(d["figures"])]
        outs = [d["out"] for d in details for _ in range(d["figures"])]
        wounded_count = count_distribution(wounds)
        out_count = count_distribution(outs)
        main = faces[self.strikes[0]]
        damage = tuple((k, v / main.wound) for k, v in main.lost.items() if k > 0 and main.wound)
        notes: tuple[Outcome, ...] = ()
        detail: dict[str, Any] = {
            "mode": self.mode,
            "power": self.power,
            "targets": details,
            "wounded_count": {str(k): p for k, p in enumerate(wounded_count)},
            "out_count": {str(k): p for k, p in enumerate(out_count)},
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
        tallies = (
            Tally("wounded", TALLY_LABELS["wounded"], tuple(wounded_count)),
            Tally("out", TALLY_LABELS["out"], tuple(out_count)),
        )
        return AttackOdds(
            (line,), decisive=1.0 - none_out, expected=outs[0], detail=detail, tallies=tallies
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
            target, figure = self.owner(index)
            if hit.natural is not None and hit.total is not None:
                dice.append(
                    RolledDie(
                        f"vs defence {strike.defence}",
                        D20,
                        hit.natural,
                        hit.total,
                        target=target,
                        figure=figure,
                    )
                )
            lost = min(hit.cp_lost, strike.cp)
            key = "out" if lost >= strike.cp else "wounded" if lost else "unhurt"
            effects.append(
                Effect(
                    target,
                    key,
                    _words(key, lost, hit.shaken, strike.hit),
                    damage=lost,
                    flags=("shaken",) if hit.shaken else (),
                    amount=lost,
                    figure=figure,
                )
            )
            # one per figurine struck, in the effects' order (a battle's targets: one each)
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
