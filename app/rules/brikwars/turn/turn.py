"""The Turn: an attacker's chosen weapons against a target, checked, with its lines built
once, their combined odds, and a roll that resolves the lines in order."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from app.rules.brikwars.attacks import cheap
from app.rules.brikwars.options import DEFAULT_OPTIONS, BrikWarsOptions
from app.rules.brikwars.turn.build import build_lines
from app.rules.brikwars.turn.lines import Line
from app.rules.brikwars.turn.power import PowerCheck, power_check
from app.rules.brikwars.turn.results import (
    Effect,
    LineOdds,
    LineRoll,
    Step,
    TurnOdds,
    TurnRoll,
)
from app.rules.brikwars.turn.situation import (
    DEFAULT_SITUATION,
    MAX_ARC_TARGETS,
    MAX_FIGURINES,
    MAX_WEAPONS,
    Ally,
    ArcFollower,
    TurnSituation,
)
from app.rules.brikwars.turn.tally import MAX_TALLY_SCENARIOS, tally
from app.rules.brikwars.units import UnitSpec, weapon_name
from app.rules.errors import InvalidInput


@dataclass(frozen=True)
class Turn:
    """An attacker's chosen weapons against a target (and Arc followers) in a situation."""

    attacker: UnitSpec
    weapons: tuple[int, ...]
    target: UnitSpec
    situation: TurnSituation = DEFAULT_SITUATION
    followers: tuple[ArcFollower, ...] = ()
    options: BrikWarsOptions = DEFAULT_OPTIONS
    inoperative: frozenset[int] = frozenset()
    allies: tuple[Ally, ...] = ()
    # figurines of the main target (a squad) where the attack reaches: an Arc or a blast
    # strikes each, a single shot one of them (ruling T7)
    figures: int = 1
    # the lines, built once (not an argument: a turn copied with `replace` builds its own)
    _built: list[tuple[Line, ...]] = field(
        default_factory=list, init=False, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        self._check_weapons()
        if len(self.followers) > MAX_ARC_TARGETS - 1:
            raise InvalidInput("followers", f"at most {MAX_ARC_TARGETS} targets in an Arc")
        self._check_figures()
        self._check_allies()

    def _check_figures(self) -> None:
        """Each target 1 figurine or more, at most MAX_FIGURINES over them all."""
        counts = (self.figures, *(f.figures for f in self.followers))
        names = ("figures", *(f"followers.{i}.figures" for i in range(len(self.followers))))
        total = 0
        for name, count in zip(names, counts, strict=True):
            if isinstance(count, bool) or not isinstance(count, int) or count < 1:
                raise InvalidInput(name, "needs a whole number of figurines, at least 1")
            total += count
            if total > MAX_FIGURINES:
                raise InvalidInput(name, f"at most {MAX_FIGURINES} figurines over all the targets")

    def figurines(self) -> tuple[tuple[int, int], ...]:
        """Every figurine of every target: (target, figure)."""
        counts = (self.figures, *(f.figures for f in self.followers))
        return tuple((t, k) for t, n in enumerate(counts) for k in range(n))

    def _check_weapons(self) -> None:
        if not self.weapons:
            raise InvalidInput("weapons", "choose at least one weapon to fire")
        if len(self.weapons) > MAX_WEAPONS:
            raise InvalidInput("weapons", f"at most {MAX_WEAPONS} weapons in one turn")
        if len(set(self.weapons)) != len(self.weapons):
            raise InvalidInput("weapons", "each weapon fires once a turn")
        for index in self.weapons:
            if not 0 <= index < len(self.attacker.weapons):
                raise InvalidInput("weapons", f"{self.attacker.name} has no weapon {index + 1}")
            if index in self.inoperative:
                name = weapon_name(self.attacker.weapons[index])
                raise InvalidInput("weapons", f"{name} is Inoperative until Reloaded")

    def _check_allies(self) -> None:
        if len(self.weapons) + sum(len(a.weapons) for a in self.allies) > MAX_WEAPONS:
            raise InvalidInput("allies", f"at most {MAX_WEAPONS} weapons in one Combined Attack")
        for ally in self.allies:
            if not ally.weapons:
                raise InvalidInput("allies", f"{ally.unit.name} needs a weapon to join")
            for index in ally.weapons:
                if not 0 <= index < len(ally.unit.weapons):
                    raise InvalidInput("allies", f"{ally.unit.name} has no weapon {index + 1}")

    def power(self) -> PowerCheck:
        """The attacker's Power check, with any ally's problems added (allies fire at their
        own plain Power: Diverted Power and Teamwork are the attacker's)."""
        check = power_check(self.attacker, self.weapons, self.situation, self.options)
        extra = tuple(
            p
            for a in self.allies
            for p in power_check(a.unit, a.weapons, options=self.options).problems
        )
        return replace(check, problems=check.problems + extra) if extra else check

    def lines(self) -> tuple[Line, ...]:
        """The attack lines against the target as it is now."""
        if not self._built:
            self._built.append(build_lines(self, self.target))
        return self._built[0]

    def inline(self) -> bool:
        """Small enough to compute where the request is handled: single attacks only (a
        Combined Attack, a volley or an Explosive goes to the calculation workers), with
        few dice between them. Figurines count: a single attack strikes one figurine of a
        squad, so its tally is one law per figurine, while the lines that strike several
        (an Arc, a blast) are never inline."""
        lines = self._built[0] if self._built else build_lines(self, self.target)
        attacks = [line.attack for line in lines if line.attack is not None]
        one_each = all(line.kind in ("single", "combined") for line in lines)
        small = one_each and len(attacks) == len(lines) and cheap(attacks)
        if small and not self._built:
            self._built.append(lines)  # computed here, so built once; kept out of a turn
            # sent to a worker, which must pickle (the lines hold closures)
        return small

    def _require_power(self) -> None:
        check = self.power()
        if not check.ok:
            raise InvalidInput("weapons", " ".join(check.problems))

    def odds(self) -> TurnOdds:
        """Exact odds of every line (raises InvalidInput when Power does not allow the turn)."""
        self._require_power()
        lines = tuple(line.odds() for line in self.lines())
        miss_all = 1.0
        for line in lines:
            miss_all *= 1.0 - (line.main.destroyed + line.main.size_damage)
        bound = sum(line.truncation_bound for line in lines)
        sized = self.target.kind == "creation" or any(
            f.unit.kind == "creation" for f in self.followers
        )
        tallies: tuple[tuple[str, str, tuple[float, ...]], ...] = ()
        if all(line.joint() is not None for line in lines):  # a blast's may be left out
            tallies = tally(self.figurines(), lines, sized=sized)
            if not tallies:
                lines = _note_cap(lines)
        return TurnOdds(lines, 1.0 - miss_all, bound, tallies)

    def roll(self, rng: random.Random) -> TurnRoll:
        """Roll the lines in order; each later line sees the target the earlier ones left."""
        self._require_power()
        units = [self.target, *(f.unit for f in self.followers)]
        # each figurine as the lines leave it; the lines are built against the main
        # target's first (a single shot strikes it)
        state = {fig: units[fig[0]] for fig in self.figurines()}
        rolled: list[LineRoll] = []
        count = len(self.lines())
        for position in range(count):
            main = state[(0, 0)]
            if _gone(main):
                line = self.lines()[position]
                rolled.append(
                    LineRoll(
                        line.weapons, line.kind, line.label, (), (), skipped="target destroyed"
                    )
                )
                continue
            line = (
                build_lines(self, main)[position]
                if main is not self.target
                else self.lines()[position]
            )
            result = line.roll(rng)
            for effect in result.effects:
                fig = (effect.target, effect.figure)
                if fig in state:
                    state[fig] = _apply(state[fig], effect)
            rolled.append(result)
        return TurnRoll(tuple(rolled), tuple(state[(t, 0)] for t in range(len(units))))


def _note_cap(lines: tuple[LineOdds, ...]) -> tuple[LineOdds, ...]:
    """The lines, the one where the scenarios combine past the tally's bound saying so."""
    combined = 1
    out = list(lines)
    for i, line in enumerate(lines):
        joint = line.joint()
        combined *= 1 if joint is None else len(joint[0])
        if combined > MAX_TALLY_SCENARIOS:
            why = Step(
                "tally",
                f"not computed: more than {MAX_TALLY_SCENARIOS:,} combinations of how the "
                "shared dice fall (this line's, with the lines before it)",
            )
            out[i] = replace(line, steps=(*line.steps, why))
            break
    return tuple(out)


def _gone(unit: UnitSpec) -> bool:
    return unit.effective_size <= 0


def _apply(unit: UnitSpec, effect: Effect) -> UnitSpec:
    """The unit after an effect: Size Damage lowers Effective Size; destroyed takes it all."""
    if effect.outcome == "destroyed":
        return replace(unit, size_damage=unit.built_size)
    if effect.size_damage:
        lost = min(unit.built_size, unit.size_damage + effect.size_damage)
        return replace(unit, size_damage=lost)
    return unit
