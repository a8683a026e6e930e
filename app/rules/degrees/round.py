"""A whole Degrees round: the attacker's shots in order against its targets, exactly.

Each shot is a line whose outcomes are each target's state after the shots so far (the last
line is the round). The state of the main target is tracked jointly with the attacker's gas
guns (their max drops when over-compression damages them); further targets are only hit by
area weapons, whose degree does not depend on anything rolled, so each is tracked alone; so
is each figurine of a squad (``figures``), alike ones once, and how many figurines end
destroyed, critically wounded or wounded (the tallies) is the convolution of independent
chances. Equal states are merged in a dict: the state space is small.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from app.rules.degrees.catalogue import SENSES
from app.rules.degrees.gas import pump_odds, pump_with
from app.rules.degrees.shot import (
    D10,
    Shot,
    Target,
    chance,
    outcomes,
    punch_front,
    resolve,
    second_die,
)
from app.rules.dice.independent import count_distribution
from app.rules.ruleset import (
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

OUTCOMES: tuple[tuple[str, str], ...] = (
    ("destroyed", "Destroyed"),
    ("critical", "Critically wounded"),
    ("wounded", "Wounded"),
    ("armour", "Armour lost"),
    ("drained", "AP lost"),
    ("unharmed", "Unharmed"),
)
LABELS = dict(OUTCOMES)
EXTRAS: tuple[tuple[str, str], ...] = (
    ("restrained", "Restrained"),
    ("dampened", "Dampened"),
    ("suppressed", "Suppressed"),
)
TALLIED = ("destroyed", "critical", "wounded")  # the outcomes AttackOdds.tallies count
# The odds' counted work (``Round.work_terms``, turned into ``app.rules.work`` units): the d10
# faces ``outcomes`` resolves for each state a chain reaches, the (state, outcome) transitions
# the chains enumerate, each line's target odds per group of alike figurines, and the tallies'
# count-distribution steps over the U figurines. The rates are a least-squares fit of what
# ``bench inline`` measured (the odds and their JSON, scaled to the yardstick machine): a
# transition 1.5 µs, a group's line 162 µs (its target odds and JSON), a step 0.11 µs, 59 µs
# whatever the round; the faces were lost in the noise (``outcomes`` is memoised); rounded up.
FACE_UNITS = 0.1
TRANSITION_UNITS = 1.6
GROUP_LINE_UNITS = 170
STEP_UNITS = 0.12
BASE_UNITS = 70


PURPOSES = {
    "attack": "attack",
    "compress": "over-compression",
    "penetrate": "back line",
    "environment": "incandescent bloom",
}


def die_purpose(purpose: str, against: int) -> str:
    """A d10's purpose as the log shows it, with what it is rolled against: 'attack vs 4°',
    'over-compression vs 3°', 'break free (a raw 1)'."""
    if purpose == "break_free":
        return "break free (a raw 1)"
    return f"{PURPOSES.get(purpose, purpose)} vs {against}°"


@dataclass(frozen=True, slots=True)
class PlannedShot:
    """One shot of the round. ``shots``: the shot against each target (None: it does not
    attack that target); a gas gun's shot is against the main target only and its degree is
    the pumped degree plus ``offset``. ``ap``: what it costs at most (all ``pump`` spent)."""

    weapon: int
    label: str
    shots: tuple[Shot | None, ...]
    ap: int
    gas: int = -1  # the gas slot of the gun, -1: not a gas gun
    start: int = 0  # pumped AP carried into it
    pump: int = 0
    compress_op: int = 0
    offset: int = 0
    range_need: int = 0
    steps: tuple[tuple[str, str], ...] = ()
    every_figure: bool = False  # an area shot: it attacks every figurine of a squad target
    reuses_ap: bool = False  # a Flashback: its AP are not spent when it misses
    reused: int = 0  # the AP a miss gives back (all its AP; house rule: the attack's only)


def outcome_key(before: Target, after: Target) -> str:
    """The target's outcome: what the attack so far did to it (mutually exclusive)."""
    if after.hp == 0:
        return "destroyed"
    if after.hp < before.hp:
        return "critical" if after.hp == 1 else "wounded"
    if after.armour < before.armour or after.back_armour < before.back_armour:
        return "armour"
    if after.ap_lost > before.ap_lost:
        return "drained"
    return "unharmed"


def outcome_words(before: Target, after: Target, senses: tuple[str, ...]) -> str:
    """The outcome in words: 'Armour 3 -> 0, HP 3 -> 1 (critically wounded)'."""
    parts = []
    if after.armour != before.armour:
        parts.append(f"Armour {before.armour} -> {after.armour}")
    if after.back_armour != before.back_armour:
        parts.append(f"back Armour {before.back_armour} -> {after.back_armour}")
    if after.hp != before.hp:
        parts.append(f"HP {before.hp} -> {after.hp}")
    if after.ap_lost != before.ap_lost:
        parts.append(f"{after.ap_lost - before.ap_lost} AP lost")
    if after.restrained and not before.restrained:
        parts.append("restrained")
    if after.dampened > before.dampened:
        lost = senses[before.dampened : after.dampened]
        parts.append("dampened: " + ", ".join(SENSES[sense].name for sense in lost))
    if after.suppressed and not before.suppressed:
        parts.append("suppressed")
    key = outcome_key(before, after)
    words = ", ".join(parts) if parts else "no effect"
    return (
        words
        if key in ("unharmed", "armour", "drained", "wounded")
        else f"{words} ({LABELS[key].lower()})"
    )


def _target_odds(
    index: int,
    before: Target,
    states: Mapping[Target, float],
    drains: bool,
    figure: int = 0,
    figures: int = 1,
    suppresses: bool = False,
) -> TargetOdds:
    p = dict.fromkeys(LABELS, 0.0)
    restrained = dampened = suppressed = 0.0
    for state, q in states.items():
        p[outcome_key(before, state)] += q
        if state.restrained and not before.restrained:
            restrained += q
        if state.dampened > before.dampened:
            dampened += q
        if state.suppressed and not before.suppressed:
            suppressed += q
    extras: tuple[Outcome, ...] = (
        Outcome("restrained", "Restrained", restrained),
        Outcome("dampened", "Dampened", dampened),
    )
    if suppresses:  # only where a dousing rod fires
        extras += (Outcome("suppressed", "Suppressed", suppressed),)
    return TargetOdds(
        index,
        tuple(Outcome(k, LABELS[k], p[k]) for k in LABELS),
        extras,
        () if drains else ("drained",),
        figure,
        figures,
    )


def _adder(
    into: dict[tuple[tuple[int, ...], Target, bool], float],
) -> Callable[[tuple[tuple[int, ...], Target, bool], float], None]:
    def add(key: tuple[tuple[int, ...], Target, bool], p: float) -> None:
        into[key] = into.get(key, 0.0) + p

    return add


def _dist(values: Mapping[int, float]) -> dict[str, float]:
    return {str(k): values[k] for k in sorted(values)}


Chain = list[dict[tuple[Target, bool], float]]


@dataclass(frozen=True, slots=True)
class Group:
    """Alike figurines: ``figures`` of target ``target`` from its ``figure``-th, each with the
    same odds after each shot (``chain``: (state, hit so far) after each line)."""

    target: int
    figure: int
    figures: int
    chain: Chain


@dataclass(frozen=True, slots=True)
class Round:
    """The round as planned: its shots, the targets as they stand, the gas guns' max (one
    slot per gas gun fired, ``gas_weapons`` their positions), each target's sense order,
    the AP it needs and has, and why it cannot be made (``problems``). ``figures``: each
    target's figurines (a squad; empty: one each): an area shot (``every_figure``) attacks
    each of them with dice of its own, any other shot only the first target's first."""

    shots: tuple[PlannedShot, ...]
    targets: tuple[Target, ...]
    senses: tuple[tuple[str, ...], ...]
    gas_max: tuple[int, ...] = ()
    gas_weapons: tuple[int, ...] = ()
    ap_needed: int = 0
    ap_available: int = 0
    carried: int = 0
    problem_list: tuple[str, ...] = ()
    extra_locations: int | None = None
    area: bool = False
    target_ap: tuple[int, ...] = ()  # each target's AP per round (what AP lost leaves)
    figures: tuple[int, ...] = ()
    reach: str = ""  # the locations the first area weapon may attack, in words
    # the attacker's visibility before the round and after it, where a classical ballistic
    # fired ("": none did, so the round neither reads nor changes it)
    visibility_before: str = ""
    visibility: str = ""
    # the attacker's dampened senses: what they do besides the odds, and Nociception's AP
    sense_notes: tuple[str, ...] = ()
    nociception_ap: int = 0
    more: tuple[tuple[str, Any], ...] = ()  # further keys of the odds' detail

    def figures_of(self, index: int) -> int:
        return self.figures[index] if self.figures else 1

    @property
    def units(self) -> int:
        """The figurines of all targets."""
        return sum(self.figures) if self.figures else len(self.targets)

    def work_terms(self) -> tuple[int, int, int, int]:
        """What the odds will enumerate at most, counted from the shots and the targets alone
        (nothing resolved): (d10 faces resolved, chain transitions, target odds of a group on
        a line, count-distribution steps). Each chain's states after a shot are bounded by
        the states before times the shot's distinct outcomes, and by the states its target
        can be in (``_state_bound``)."""
        faces = transitions = 0
        gas_states = 1
        for gun in self.gas_max:
            gas_states *= gun + 1
        # the main target's chain, jointly with the gas guns
        states = 1
        for planned in self.shots:
            shot = planned.shots[0]
            if shot is None:
                transitions += states
                continue
            pumps = 1
            if planned.gas >= 0:  # each way the pumping goes, fired at any degree
                pumps, shot = planned.pump * D10 + 1, replace(shot, degree=D10)
            faces += states * pumps * _faces(shot)
            transitions += states * pumps * _branches(shot)
            cap = _state_bound(self.targets[0], self.shots) * gas_states
            states = min(states * pumps * _branches(shot), cap)
        # the other chains: equal targets under equal shots share one
        chains = {
            (self.targets[i], tuple(self.shot_at(p, i, f) for p in self.shots))
            for i, f in self._chain_starts()
        }
        for target, shots in chains:
            states = 1
            for shot in shots:
                if shot is None:
                    continue
                faces += states * _faces(shot)
                transitions += states * _branches(shot)
                states = min(states * _branches(shot), _state_bound(target, self.shots))
        groups = len(self.targets) + (1 if self.figures_of(0) > 1 else 0)
        units = self.units
        tallies = (len(TALLIED) + (1 if self.area else 0)) if units > 1 else 0
        steps = tallies * units * (units + 1) // 2
        return faces, transitions, groups * len(self.shots), steps

    def _chain_starts(self) -> list[tuple[int, int]]:
        """The (target, figurine) whose chains ``_groups`` computes besides the main one."""
        starts = [(i, 0) for i in range(1, len(self.targets))]
        if self.figures_of(0) > 1 and not all(
            p.shots[0] is None or p.every_figure for p in self.shots
        ):
            starts.append((0, 1))
        return starts

    def work_units(self) -> float:
        """The odds' counted work in ``app.rules.work`` units."""
        faces, transitions, group_lines, steps = self.work_terms()
        return (
            BASE_UNITS
            + FACE_UNITS * faces
            + TRANSITION_UNITS * transitions
            + GROUP_LINE_UNITS * group_lines
            + STEP_UNITS * steps
        )

    def inline(self) -> bool:
        """Cheap enough to compute in the request: its counted work (``work_units``) under
        ``INLINE_WORK_UNITS``."""
        return inline_work(self.work_units())

    def remember(self, odds: AttackOdds) -> None:
        """Nothing kept: a shot's odds take microseconds."""

    def problems(self) -> tuple[str, ...]:
        return self.problem_list

    @property
    def drains(self) -> bool:
        return any(s is not None and s.drains_ap for p in self.shots for s in p.shots)

    @property
    def suppresses(self) -> bool:
        return any(s is not None and s.suppresses for p in self.shots for s in p.shots)

    def shot_at(self, planned: PlannedShot, index: int, figure: int) -> Shot | None:
        """The shot of ``planned`` at figurine ``figure`` of target ``index`` (None: none)."""
        if index == 0 and figure and not planned.every_figure:
            return None
        return planned.shots[index]

    # ------------------------------------------------------------------ odds
    def _main_chain(
        self,
    ) -> tuple[
        list[dict[tuple[tuple[int, ...], Target, bool], float]],
        list[dict[int, float]],
        list[float],
    ]:
        """The joint (gas guns' max, main target, hit so far) after each shot; each shot's
        damage given a hit and the chance it damaged a gas gun."""
        states: dict[tuple[tuple[int, ...], Target, bool], float] = {
            (self.gas_max, self.targets[0], False): 1.0
        }
        chain, damages, gun_damaged = [], [], []
        for planned in self.shots:
            shot = planned.shots[0]
            after: dict[tuple[tuple[int, ...], Target, bool], float] = {}
            damage: dict[int, float] = {}
            damaged = 0.0

            add = _adder(after)
            for (gas, target, hit), p in states.items():
                if shot is None:
                    add((gas, target, hit), p)
                    continue
                if planned.gas < 0:
                    for q, new, dealt in outcomes(shot, target):
                        add((gas, new, hit or dealt > 0), p * q)
                        if dealt:
                            damage[dealt] = damage.get(dealt, 0.0) + p * q
                    continue
                gun = gas[planned.gas]
                if gun <= 0:  # wrecked by an earlier shot
                    add((gas, target, hit), p)
                    continue
                for q, pumped in pump_odds(gun, planned.start, planned.pump, planned.compress_op):
                    new_gas = (*gas[: planned.gas], pumped.max, *gas[planned.gas + 1 :])
                    if pumped.max < gun:
                        damaged += p * q
                    if pumped.degree < planned.range_need:
                        add((new_gas, target, hit), p * q)
                        continue
                    fired = replace(shot, degree=pumped.degree + planned.offset)
                    for r, new, dealt in outcomes(fired, target):
                        add((new_gas, new, hit or dealt > 0), p * q * r)
                        if dealt:
                            damage[dealt] = damage.get(dealt, 0.0) + p * q * r
            states = after
            chain.append(states)
            damages.append(damage)
            gun_damaged.append(damaged)
        return chain, damages, gun_damaged

    @staticmethod
    def _chain(start: Target, shots: tuple[Shot | None, ...]) -> Chain:
        states: dict[tuple[Target, bool], float] = {(start, False): 1.0}
        chain = []
        for shot in shots:
            if shot is not None:
                after: dict[tuple[Target, bool], float] = {}
                for (target, hit), p in states.items():
                    for q, new, dealt in outcomes(shot, target):
                        key = (new, hit or dealt > 0)
                        after[key] = after.get(key, 0.0) + p * q
                states = after
            chain.append(states)
        return chain

    def _groups(self, main: list[dict[tuple[tuple[int, ...], Target, bool], float]]) -> list[Group]:
        """The figurines in groups of alike ones, in the targets' order; equal targets under
        equal shots share one chain."""
        chains: dict[tuple[Target, tuple[Shot | None, ...]], Chain] = {}

        def chain(index: int, figure: int) -> Chain:
            shots = tuple(self.shot_at(p, index, figure) for p in self.shots)
            key = (self.targets[index], shots)
            if key not in chains:
                chains[key] = self._chain(self.targets[index], shots)
            return chains[key]

        first: Chain = []
        for states in main:
            merged: dict[tuple[Target, bool], float] = {}
            for (_, target, hit), p in states.items():
                merged[(target, hit)] = merged.get((target, hit), 0.0) + p
            first.append(merged)
        squad = self.figures_of(0)
        alike = all(p.shots[0] is None or p.every_figure for p in self.shots)
        groups = [Group(0, 0, squad if alike else 1, first)]
        if squad > 1 and not alike:
            groups.append(Group(0, 1, squad - 1, chain(0, 1)))
        for index in range(1, len(self.targets)):
            groups.append(Group(index, 0, self.figures_of(index), chain(index, 0)))
        return groups

    def _reused(self) -> tuple[dict[int, float], list[float]]:
        """The AP of missed Flashback shots (9.5.2: "Flashbacks only shoot if they hit"), as
        a distribution over the round, and each shot's chance of a miss (0: not one). A
        shot's hit depends only on its degree, so the misses are independent."""
        reused: dict[int, float] = {0: 1.0}
        misses = []
        for planned in self.shots:
            shot = planned.shots[0]
            if not planned.reuses_ap or shot is None:
                misses.append(0.0)
                continue
            q = 1 - chance(shot.degree, shot.inverted)
            misses.append(q)
            after: dict[int, float] = {}
            for ap, p in reused.items():
                after[ap] = after.get(ap, 0.0) + p * (1 - q)
                after[ap + planned.reused] = after.get(ap + planned.reused, 0.0) + p * q
            reused = {ap: p for ap, p in after.items() if p > 0}
        return reused, misses

    def odds(self) -> AttackOdds:
        main, damages, gun_damaged = self._main_chain()
        reused, misses = self._reused()
        groups = self._groups(main)
        drains = self.drains
        units = self.units
        lines = []
        for n, planned in enumerate(self.shots):
            targets = []
            for group in groups:
                marginal: dict[Target, float] = {}
                for (target, _), p in group.chain[n].items():
                    marginal[target] = marginal.get(target, 0.0) + p
                targets.append(
                    _target_odds(
                        group.target,
                        self.targets[group.target],
                        marginal,
                        drains,
                        group.figure,
                        group.figures,
                        self.suppresses,
                    )
                )
            hit = sum(damages[n].values())
            lines.append(
                LineOdds(
                    label=planned.label,
                    kind=self._line_kind(planned),
                    weapons=(planned.weapon,) if planned.weapon >= 0 else (),
                    targets=tuple(targets),
                    damage=tuple((d, q / hit) for d, q in sorted(damages[n].items()))
                    if hit
                    else (),
                    steps=planned.steps,
                    notes=(Outcome("gun_damaged", "Gas gun damaged", gun_damaged[n]),)
                    if planned.gas >= 0
                    else (Outcome("ap_reused", "Missed: AP to reuse", misses[n]),)
                    if planned.reuses_ap
                    else (),
                )
            )
        final = main[-1] if main else {}
        ends = [
            (group, group.chain[-1] if group.chain else {(self.targets[group.target], False): 1.0})
            for group in groups
        ]
        chances: dict[str, list[float]] = {key: [] for key in (*TALLIED, "hit")}
        survive = 1.0
        for group, end in ends:
            start = self.targets[group.target]
            each = dict.fromkeys(chances, 0.0)
            for (state, hit), q in end.items():
                key = outcome_key(start, state)
                if key in each:
                    each[key] += q
                each["hit"] += q * hit
            for key, q in each.items():
                chances[key] += [q] * group.figures
            survive *= (1 - each["destroyed"]) ** group.figures
        detail = self._detail(final, chances["hit"])
        if any(p.reuses_ap for p in self.shots):
            spare = self.ap_available - self.ap_needed
            detail["ap_reused"] = _dist(reused)
            detail["attacker_ap_left"] = _dist({max(0, spare + k): p for k, p in reused.items()})
        tallies = (
            tuple(
                Tally(key, LABELS[key], tuple(count_distribution(chances[key]))) for key in TALLIED
            )
            if units > 1
            else ()
        )
        return AttackOdds(
            tuple(lines),
            1 - survive,
            expected=detail["destroyed"],
            detail=detail,
            tallies=tallies,
        )

    def _line_kind(self, planned: PlannedShot) -> str:
        if any(s is not None for s in planned.shots[1:]):
            return "area"
        return "area" if planned.every_figure and self.figures_of(0) > 1 else "single"

    def _detail(
        self,
        final: Mapping[tuple[tuple[int, ...], Target, bool], float],
        hits: list[float],
    ) -> dict[str, Any]:
        start = self.targets[0]
        hp: dict[int, float] = {}
        armour: dict[int, float] = {}
        back: dict[int, float] = {}
        ap_lost: dict[int, float] = {}
        ap_left: dict[int, float] = {}
        dampened: dict[int, float] = {}
        states: dict[tuple[int, int, int, int], float] = {}
        gun_max: list[dict[int, float]] = [{} for _ in self.gas_max]
        hit = destroyed = critical = expected = restrained = damaged = suppressed = 0.0
        for (gas, t, was_hit), p in final.items():
            hit += p * was_hit
            suppressed += p * (t.suppressed and not start.suppressed)
            destroyed += p * (t.hp == 0)
            critical += p * (t.hp == 1)
            restrained += p * t.restrained
            expected += p * (
                start.armour + start.back_armour + start.hp - t.armour - t.back_armour - t.hp
            )
            hp[t.hp] = hp.get(t.hp, 0.0) + p
            armour[t.armour] = armour.get(t.armour, 0.0) + p
            back[t.back_armour] = back.get(t.back_armour, 0.0) + p
            ap_lost[t.ap_lost] = ap_lost.get(t.ap_lost, 0.0) + p
            dampened[t.dampened] = dampened.get(t.dampened, 0.0) + p
            key = (t.armour, t.back_armour, t.hp, t.ap_lost)
            states[key] = states.get(key, 0.0) + p
            for slot, m in enumerate(gas):
                gun_max[slot][m] = gun_max[slot].get(m, 0.0) + p
            if any(m < g for m, g in zip(gas, self.gas_max, strict=True)):
                damaged += p
        for lost, p in ap_lost.items():
            left = max(0, (self.target_ap[0] if self.target_ap else 0) - lost)
            ap_left[left] = ap_left.get(left, 0.0) + p
        detail: dict[str, Any] = {
            "hit": hit,
            "destroyed": destroyed,
            "critically_wounded": critical,
            "expected_damage": expected,
            "hp_left": _dist(hp),
            "armour_left": _dist(armour),
            "back_armour_left": _dist(back),
            "ap_lost": _dist(ap_lost),
            "ap_left": _dist(ap_left),
            "restrained": restrained,
            "dampened": _dist(dampened),
            "senses_lost": [
                {"senses": [SENSES[s].name for s in self.senses[0][:k]], "p": p}
                for k, p in sorted(dampened.items())
                if k
            ],
            "states": [
                {"armour": a, "back_armour": b, "hp": h, "ap_lost": lost, "p": p}
                for (a, b, h, lost), p in sorted(states.items(), key=lambda kv: -kv[1])
            ],
            "ap_needed": self.ap_needed,
            "ap_available": self.ap_available,
        }
        detail.update(self.more)
        if self.sense_notes:
            detail["attacker_senses"] = list(self.sense_notes)
        if self.nociception_ap:
            detail["nociception_ap"] = self.nociception_ap
        if self.visibility:
            detail["attacker_visibility"] = self.visibility
            detail["attacker_visibility_before"] = self.visibility_before
        if self.suppresses:
            detail["suppressed"] = suppressed
        if self.gas_max:
            detail["gun_damaged"] = damaged
            detail["gun_max"] = {
                str(w): _dist(m) for w, m in zip(self.gas_weapons, gun_max, strict=True)
            }
        if self.area:
            detail["units_hit"] = _dist(dict(enumerate(count_distribution(hits))))
            detail["extra_locations"] = self.extra_locations
            detail["reach"] = self.reach
        return detail

    # ------------------------------------------------------------------ roll

    def roll(self, rng: random.Random) -> AttackRoll:
        gas = list(self.gas_max)
        squads = [self.figures_of(i) for i in range(len(self.targets))]
        states = [[t] * k for t, k in zip(self.targets, squads, strict=True)]
        lines = []
        ap_spent = -self.carried
        reused = 0  # a missed Flashback's AP, back for anything but a direct attack
        for planned in self.shots:
            dice: list[RolledDie] = []
            skipped = ""
            notes: list[str] = []
            ap_spent += planned.ap - planned.pump
            fired = planned
            if planned.gas >= 0:
                gun = gas[planned.gas]
                if gun <= 0:
                    skipped = "the gas gun is wrecked"
                    fired = replace(planned, shots=(None,) * len(planned.shots))
                    ap_spent -= planned.ap - planned.pump
                else:
                    rolled = pump_with(
                        gun,
                        planned.start,
                        planned.pump,
                        planned.compress_op,
                        lambda: rng.randint(1, D10),
                    )
                    ap_spent += rolled.ap
                    for natural, against in rolled.rolls:
                        purpose = die_purpose("compress", against)
                        dice.append(RolledDie(purpose, D10, natural, natural))
                    gas[planned.gas] = rolled.max
                    if rolled.max < gun:
                        notes.append("gun_damaged")
                    shot = planned.shots[0]
                    if rolled.degree < planned.range_need:
                        skipped = f"pumped to {rolled.degree}°: out of range"
                        fired = replace(planned, shots=(None,) * len(planned.shots))
                    elif shot is not None:
                        pumped = replace(shot, degree=rolled.degree + planned.offset)
                        fired = replace(planned, shots=(pumped, *planned.shots[1:]))
            effects = []
            for i, squad in enumerate(states):
                before = self.targets[i]
                for f, now in enumerate(squad):
                    shot = self.shot_at(fired, i, f)
                    if shot is not None:
                        natural = rng.randint(1, D10)
                        purpose = die_purpose("attack", shot.degree)
                        dice.append(RolledDie(purpose, D10, natural, natural, target=i, figure=f))
                        purpose = second_die(shot, now, natural)
                        second = 0
                        if purpose:
                            second = rng.randint(1, D10)
                            against = (
                                shot.degree - shot.penetrate_penalty
                                if purpose == "penetrate"
                                else 1
                            )
                            dice.append(
                                RolledDie(
                                    die_purpose(purpose, against),
                                    D10,
                                    second,
                                    second,
                                    target=i,
                                    figure=f,
                                )
                            )
                        dealt = shot.damage(natural) if shot.hits(natural) else None
                        if planned.reuses_ap and i == 0 and f == 0 and dealt is None:
                            # a Flashback only shoots if it hits: the AP are the unit's again
                            ap_spent -= planned.reused
                            reused += planned.reused
                            notes.append("ap_reused")
                        why = punch_front(shot, now, natural)
                        squad[f] = resolve(shot, now, natural, second)
                    else:
                        dealt = None
                        why = ""
                    after = squad[f]
                    flags = tuple(
                        k
                        for k, on in (
                            ("restrained", after.restrained and not before.restrained),
                            ("dampened", after.dampened > before.dampened),
                            ("suppressed", after.suppressed and not before.suppressed),
                        )
                        if on
                    )
                    words = outcome_words(before, after, self.senses[i])
                    effects.append(
                        Effect(
                            i,
                            outcome_key(before, after),
                            "; ".join(w for w in (words, why) if w),
                            dealt,
                            flags,
                            after.ap_lost - before.ap_lost,
                            figure=f,
                        )
                    )
            lines.append(
                LineRoll(
                    planned.label,
                    self._line_kind(planned),
                    (planned.weapon,) if planned.weapon >= 0 else (),
                    tuple(dice),
                    tuple(effects),
                    skipped,
                    tuple(notes),
                )
            )
        detail = {
            "targets": [
                _rolled_target(squad, start, senses)
                for squad, start, senses in zip(states, self.targets, self.senses, strict=True)
            ],
            "attacker": {
                "ap_spent": max(0, ap_spent),
                "gas": {str(w): {"max": m} for w, m in zip(self.gas_weapons, gas, strict=True)},
                "pumped_left": 0,
                **({"visibility": self.visibility} if self.visibility else {}),
                **({"ap_reused": reused} if reused else {}),
            },
        }
        return AttackRoll(tuple(lines), detail=detail)


def _faces(shot: Shot) -> int:
    """The d10 faces ``outcomes`` resolves for one state: ten, and ten more after each
    natural that may roll a second die (a punch gun's penetrating roll, a break-free roll)."""
    hits = 0 if shot.degree <= 0 else 1 if shot.inverted else min(shot.degree, D10)
    if shot.punch and shot.penetrate:
        return D10 + D10 * min(hits, max(shot.penetrates_on, 0))
    if shot.restrains and shot.break_free:
        return D10 + D10 * hits
    return D10


def _branches(shot: Shot) -> int:
    """The most distinct outcomes of one state under ``shot``: one per natural that hits
    (two where a second die decides), and the miss."""
    hits = 0 if shot.degree <= 0 else 1 if shot.inverted else min(shot.degree, D10)
    second = (shot.punch and shot.penetrate) or (shot.restrains and shot.break_free)
    return hits * (2 if second else 1) + (1 if hits < D10 else 0)


def _state_bound(target: Target, shots: tuple[PlannedShot, ...]) -> int:
    """The most (state, hit so far) a target can be in under these shots: its Armour, back
    Armour and HP each from its value down to 0, and the flags and counters the shots may
    change (AP lost up to what they may drain)."""
    bound = (target.armour + 1) * (target.back_armour + 1) * (target.hp + 1) * 2
    fired = [s for p in shots for s in p.shots if s is not None]
    if any(s.drains_ap for s in fired):
        per = D10 + max(s.back_line_bonus + s.nociception for s in fired)
        bound *= per * len(shots) + 1
    if any(s.restrains for s in fired):
        bound *= 2
    if any(s.senses for s in fired):
        bound *= len(SENSES) + 1
    if any(s.suppresses for s in fired):
        bound *= 2
    return bound


def _rolled_state(t: Target, start: Target, senses: tuple[str, ...]) -> dict[str, Any]:
    suppressed = {"suppressed": True} if t.suppressed else {}  # a dousing rod hit it
    return suppressed | {
        "armour": t.armour,
        "back_armour": t.back_armour,
        "hp": t.hp,
        "ap_lost": t.ap_lost - start.ap_lost,
        "restrained": t.restrained,
        "dampened": list(senses[: t.dampened]),
    }


def _rolled_target(squad: list[Target], start: Target, senses: tuple[str, ...]) -> dict[str, Any]:
    """A target as the roll leaves it: its first figurine's state and, for a squad, every
    figurine's (``figures``)."""
    out = _rolled_state(squad[0], start, senses)
    if len(squad) > 1:
        out["figures"] = [_rolled_state(t, start, senses) for t in squad]
    return out
