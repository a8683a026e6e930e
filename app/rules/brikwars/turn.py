"""One unit's attacks in one turn: the weapons it fires, whether its Power allows them, their
exact odds with a step-by-step breakdown, and a seeded roll.

This is what the calculator pages and battles call. A turn is a list of attack lines: each
weapon fires on its own (a single attack, an Arc Fire, a Burst or an Explosive shot), or the
single attacks are summed into one Combined Attack. Rolls resolve the lines in order against
the target as it is after the previous line (a Creation that lost Size has weaker Armour for
the next weapon; ruling T2).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import partial
from typing import Literal, TypeVar

from app.rules.brikwars.attacks import (
    ActionRoll,
    ArcFire,
    ArcTarget,
    Attack,
    AttackOdds,
    Burst,
    CombinedAttack,
    ExplosionObject,
    ExplosiveShot,
    ExplosiveShotOdds,
    LoggedDie,
    Outcome,
    ShotResult,
    Situation,
    Target,
    VolleyOdds,
    arc_fire_of,
    attack_of,
    burst_of,
    explosive_shot_of,
    inches_out_of_range,
    target_of,
)
from app.rules.brikwars.attacks.build import AUTO_WEAPONS, action_die_of
from app.rules.brikwars.attacks.common import SmallTarget
from app.rules.brikwars.catalogue import format_number
from app.rules.brikwars.options import DEFAULT_OPTIONS, BrikWarsOptions
from app.rules.brikwars.units import TURRET_OF_MOUNT, UnitSpec, weapon_stats_of
from app.rules.brikwars.validation import weapon_name
from app.rules.errors import InvalidInput

MAX_WEAPONS = 12
MAX_ARC_TARGETS = 12
MAX_DIVERT_TURNS = 20
LineKind = Literal["single", "combined", "arc", "burst", "explosive"]


def _inches(value: Fraction | int) -> str:
    return f'{format_number(value)}"'


# --------------------------------------------------------------------------- the request


@dataclass(frozen=True)
class TurnSituation:
    """Where and how the attacker fires this turn (chapters 5 and 8).

    ``distance`` to the target in inches (None: close combat or not measured); ``height``
    above the target; ``visible_sections`` of a minifig target; ``visible_size``: the inches of
    a larger target that are visible and in range (cover; None: all of it); ``small``: aiming
    at a 2x2 or 1x1 part of it (-1, -2); ``homing_in``: the Gunnery
    bonus kept from earlier turns on the same point; ``arc``: points of Arc for Arc Fire;
    ``burst``: shots of a MachineGun Burst (0: none); ``combined``: sum the single attacks'
    Damage against one Armour roll; ``divert_turns``: turns of Diverting All Power saved;
    ``teamwork``: Power the helpers add for one Too Big weapon.
    """

    distance: Fraction | None = None
    height: Fraction = Fraction(0)
    visible_sections: int = 3
    visible_size: Fraction | None = None
    small: SmallTarget | None = None
    firing_blind: bool = False
    outnumbered: bool = False
    gunnery_support: int = 0
    homing_in: int = 0
    gunner: bool = False
    charge: bool = False
    arc: int = 1
    burst: int = 0
    combined: bool = False
    divert_turns: int = 0
    teamwork: Fraction = Fraction(0)

    def __post_init__(self) -> None:
        if self.distance is not None and self.distance < 0:
            raise InvalidInput("distance", "must be at least 0")
        if self.height < 0:
            raise InvalidInput("height", "must be at least 0")
        if not 0 <= self.divert_turns <= MAX_DIVERT_TURNS:
            raise InvalidInput("divert_turns", f"must be from 0 to {MAX_DIVERT_TURNS}")
        if self.teamwork < 0:
            raise InvalidInput("teamwork", "must be at least 0")
        if not 1 <= self.arc <= MAX_ARC_TARGETS:
            raise InvalidInput("arc", f"must be from 1 to {MAX_ARC_TARGETS}")
        if self.homing_in < 0:
            raise InvalidInput("homing_in", "must be at least 0")
        if self.visible_size is not None and self.visible_size < 0:
            raise InvalidInput("visible_size", "must be at least 0")
        if self.small not in (None, "2x2", "1x1"):
            raise InvalidInput("small", "must be 2x2, 1x1 or none")

    def engine_situation(self) -> Situation:
        """The chapter 5 modifiers shared by every line (Out of Range is per weapon)."""
        return Situation(
            firing_blind=self.firing_blind,
            outnumbered=self.outnumbered,
            gunnery_support=self.gunnery_support + self.homing_in,
        )


@dataclass(frozen=True)
class ArcFollower:
    """A further target of Arc Fire, after the main target, in order along the Arc."""

    unit: UnitSpec
    distance: Fraction | None = None
    spans: int = 0


@dataclass(frozen=True)
class Ally:
    """Another unit joining the attacker's Combined Attack with its chosen weapons (direct
    attacks only: the Damage of all that hit is summed against one Armour roll)."""

    unit: UnitSpec
    weapons: tuple[int, ...]


# --------------------------------------------------------------------------- Power


@dataclass(frozen=True)
class PowerCheck:
    """Whether the chosen weapons fit the attacker's Power this turn (RULINGS §1.5).

    ``problems`` say which weapons and why; empty when the turn is allowed.
    """

    power: Fraction
    need: Fraction
    extra: Fraction
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def power_check(
    attacker: UnitSpec,
    weapons: tuple[int, ...],
    situation: TurnSituation = TurnSituation(),
    options: BrikWarsOptions = DEFAULT_OPTIONS,
) -> PowerCheck:
    """Check a turn's weapons against the attacker's Power.

    Turreted weapons bring their own Power and items that need none are free. Power saved by
    Diverting All Power (``divert_turns`` × Power) and Teamwork Power go to a single weapon
    activation (chapter 8, Gathering Power), so they cover at most the largest need.

    >>> from app.rules.brikwars.units import UnitSpec, WeaponSpec
    >>> rex = UnitSpec(name="Rex", size=3, structure_level=1, size_damage=1, weapons=(
    ...     WeaponSpec("melee_weapon", size=5), WeaponSpec("melee_weapon", size=1)))
    >>> print(power_check(rex, (0,)).problems[0])  # doctest: +NORMALIZE_WHITESPACE
    5" Melee Weapon needs 5" of Power; Rex has 4" (Effective Size 2"): Too Big.
    Divert All Power for 1 turn, or bring 1" of Teamwork.
    """
    power = attacker.standing_power_with(options)
    needs: list[tuple[Fraction, int]] = []
    for index in weapons:
        weapon = attacker.weapons[index]
        if weapon.mount in TURRET_OF_MOUNT:
            continue
        need = weapon.power_need_with(options)
        if need > 0:
            needs.append((need, index))
    saved = situation.divert_turns * power
    helpers = situation.teamwork
    largest = max((n for n, _ in needs), default=Fraction(0))
    extra = min(saved + helpers, largest)
    total = sum((n for n, _ in needs), Fraction(0))
    problems: list[str] = []
    who = (
        f"{attacker.name} has {_inches(power)} (Effective Size {_inches(attacker.effective_size)})"
    )
    for need, index in needs:
        if need > power + saved + helpers:
            name = weapon_name(attacker.weapons[index])
            if power > 0:
                turns = -(-need // power) - 1
                how = (
                    f"Divert All Power for {turns} turn{'s' * (turns != 1)}, or bring "
                    f"{_inches(need - power)} of Teamwork."
                )
            else:
                how = f"bring {_inches(need)} of Teamwork."
            if saved or helpers:
                how = f"saved and lent Power add only {_inches(saved + helpers)}; " + how
            problems.append(
                f"{name} needs {_inches(need)} of Power; {who}: Too Big. {how[0].upper()}{how[1:]}"
            )
    if not problems and total > power + extra:
        names = " + ".join(f"{weapon_name(attacker.weapons[i])} ({_inches(n)})" for n, i in needs)
        problems.append(
            f"Together {names} need {_inches(total)} of Power; {who}. Fire fewer weapons this turn."
        )
    return PowerCheck(power, total, extra, tuple(problems))


# --------------------------------------------------------------------------- lines


@dataclass(frozen=True)
class Step:
    """One line of a breakdown: what it is and its figure."""

    label: str
    value: str


@dataclass(frozen=True)
class TargetLine:
    """The odds of one line for one target (the main target is index 0)."""

    index: int
    miss: float
    no_effect: float
    something_bad: float
    destroyed: float
    size_damage: float
    on_fire: float

    def outcomes(self) -> dict[str, float]:
        return {
            "miss": self.miss,
            "no_effect": self.no_effect,
            "something_bad": self.something_bad,
            "destroyed": self.destroyed,
            "size_damage": self.size_damage,
        }


@dataclass(frozen=True)
class LineOdds:
    """Exact odds of one attack line.

    ``targets``: per target (index 0 the main one): the best result the line achieves on it.
    ``damage``: the Damage after Deflection given a hit, as (value, probability), for single
    and Combined attacks (empty otherwise); ``jam``: P(the gun ends Inoperative).
    """

    weapons: tuple[int, ...]
    kind: LineKind
    label: str
    targets: tuple[TargetLine, ...]
    damage: tuple[tuple[int, float], ...]
    over_the_top: float
    jam: float
    truncation_bound: float
    steps: tuple[Step, ...]

    @property
    def main(self) -> TargetLine:
        return self.targets[0]

    def at_least(self) -> tuple[tuple[int, float], ...]:
        """P(Damage >= N given a hit) for each N in the distribution."""
        out: list[tuple[int, float]] = []
        left = 1.0
        for value, p in self.damage:
            out.append((value, max(0.0, left)))
            left -= p
        return tuple(out)


@dataclass(frozen=True)
class TurnOdds:
    """The odds of every line, and P(at least one destroying hit on the main target):
    lines are independent given the target at the start of the turn (ruling T2)."""

    lines: tuple[LineOdds, ...]
    any_destroying: float
    truncation_bound: float

    @property
    def expected_destroying(self) -> float:
        """Expected destroying hits on the main target (destroyed, or 1" of Size Damage), at
        most one per line: the sum of each line's chance (ruling C1)."""
        return sum(ln.main.destroyed + ln.main.size_damage for ln in self.lines)


@dataclass(frozen=True)
class Effect:
    """What one line did to one target: ``size_damage`` inches of Size lost."""

    target: int
    outcome: Outcome
    size_damage: int = 0
    on_fire: bool = False
    damage: int | None = None


@dataclass(frozen=True)
class LineRoll:
    """One rolled line: every die in order, what it did, and whether its gun jammed."""

    weapons: tuple[int, ...]
    kind: LineKind
    label: str
    dice: tuple[LoggedDie, ...]
    effects: tuple[Effect, ...]
    jammed: bool = False
    natural_action: int | None = None
    skipped: str = ""


@dataclass(frozen=True)
class TurnRoll:
    """A rolled turn: the lines in order and the targets as they are afterwards."""

    lines: tuple[LineRoll, ...]
    targets_after: tuple[UnitSpec, ...]

    @property
    def jammed(self) -> tuple[int, ...]:
        """The weapons now Inoperative until Reloaded."""
        return tuple(i for line in self.lines if line.jammed for i in line.weapons)

    @property
    def critical_failure(self) -> bool:
        """Any natural 1 on an Action roll (Homing In starts over)."""
        return any(d.purpose == "action" and d.natural == 1 for ln in self.lines for d in ln.dice)


# --------------------------------------------------------------------------- the turn


@dataclass(frozen=True)
class Turn:
    """An attacker's chosen weapons against a target (and Arc followers) in a situation."""

    attacker: UnitSpec
    weapons: tuple[int, ...]
    target: UnitSpec
    situation: TurnSituation = TurnSituation()
    followers: tuple[ArcFollower, ...] = ()
    options: BrikWarsOptions = DEFAULT_OPTIONS
    inoperative: frozenset[int] = frozenset()
    allies: tuple[Ally, ...] = ()
    _built: list[tuple[_Line, ...]] = field(default_factory=list, compare=False, repr=False)

    def __post_init__(self) -> None:
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
        if len(self.followers) > MAX_ARC_TARGETS - 1:
            raise InvalidInput("followers", f"at most {MAX_ARC_TARGETS} targets in an Arc")
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

    def lines(self) -> tuple[_Line, ...]:
        """The attack lines against the target as it is now."""
        if not self._built:
            self._built.append(_lines(self, self.target))
        return self._built[0]

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
        return TurnOdds(lines, 1.0 - miss_all, bound)

    def roll(self, rng: random.Random) -> TurnRoll:
        """Roll the lines in order; each later line sees the target the earlier ones left."""
        self._require_power()
        targets = [self.target, *(f.unit for f in self.followers)]
        rolled: list[LineRoll] = []
        count = len(self.lines())
        for position in range(count):
            main = targets[0]
            if _gone(main):
                line = self.lines()[position]
                rolled.append(
                    LineRoll(
                        line.weapons, line.kind, line.label, (), (), skipped="target destroyed"
                    )
                )
                continue
            line = (
                _lines(self, main)[position] if main is not self.target else self.lines()[position]
            )
            result = line.roll(rng)
            for effect in result.effects:
                if effect.target < len(targets):
                    targets[effect.target] = _apply(targets[effect.target], effect)
            rolled.append(result)
        return TurnRoll(tuple(rolled), tuple(targets))


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


@dataclass(frozen=True)
class _Line:
    weapons: tuple[int, ...]
    kind: LineKind
    label: str
    steps: tuple[Step, ...]
    odds: Callable[[], LineOdds]
    roll: Callable[[random.Random], LineRoll]


def _target_view(unit: UnitSpec, situation: TurnSituation, *, main: bool = True) -> Target:
    """The unit as a target; cover and aiming apply to the main target only."""
    if not main:
        return target_of(unit)
    sections = situation.visible_sections if unit.kind in ("minifig", "hero") else 3
    reach = None
    if situation.visible_size is not None:
        reach = min(unit.effective_size, situation.visible_size)
    return target_of(unit, reach=reach, small=situation.small, visible_sections=sections)


def _action_steps(action: ActionRoll | None, parts: list[tuple[str, int]]) -> list[Step]:
    if action is None:
        return [Step("Action roll", "automatic hit")]
    steps = [Step("Action roll", f"d{action.die} against Use {action.use}")]
    steps += [Step(label, f"{value:+d}") for label, value in parts if value]
    rest = action.modifier - sum(value for _, value in parts)
    if rest:  # what the attack adds itself: the Auto Penalty of Arc Fire and Bursts
        steps.append(Step("Auto Penalty" if rest < 0 else "other modifiers", f"{rest:+d}"))
    need = action.use - action.modifier
    if need <= 1:
        text = "hits on 2 or more (a natural 1 always fails)"
    elif need >= action.die:
        text = f"hits only on a natural {action.die} (Critical Success)"
    else:
        text = f"needs a natural {need}+ (1 always fails, {action.die} always hits)"
    steps.append(Step("to hit", text))
    return steps


def _modifier_parts(
    situation: TurnSituation, target: Target | None, out_of_range: int
) -> list[tuple[str, int]]:
    return [
        ("target size and visibility", 0 if target is None else target.size_modifier),
        (f'Out of Range ({out_of_range}")', -out_of_range),
        ("Firing Blind", -5 * situation.firing_blind),
        ("Outnumbered", -situation.outnumbered),
        ("Gunnery Support", situation.gunnery_support),
        ("Homing In", situation.homing_in),
    ]


def _damage_steps(attack: Attack, target: Target) -> list[Step]:
    pool = attack.pool()
    armour = target.armour
    steps = [Step("Damage", _pool_text(pool))]
    steps.append(Step("against Armour", str(armour)))
    if attack.situation.out_of_range and not attack.damage.explosion:
        steps.append(Step("Out of Range", f"-{attack.situation.out_of_range} on each damage die"))
    steps.append(
        Step(
            "outcome",
            "Damage > Armour destroys"
            + (' (1" of Size Damage on this Creation)' if target.takes_size_damage else "")
            + "; equal: Something Bad; less: no effect",
        )
    )
    return steps


def _pool_text(pool: object) -> str:
    dice = getattr(pool, "dice", ())
    parts = []
    for d in dice:
        text = f"{d.count}d{d.sides}"
        if d.per_die:
            text += f" ({d.per_die:+d} per die)"
        parts.append(text)
    modifier = getattr(pool, "modifier", 0)
    return " + ".join(parts) + (f" {modifier:+d}" if modifier else "")


def _single_odds(attack: Attack) -> tuple[AttackOdds, TargetLine]:
    o = attack.odds()
    return o, TargetLine(
        0, o.miss, o.no_effect, o.something_bad, o.destroyed, o.size_damage, o.on_fire
    )


def _effect_of(target_index: int, outcome: Outcome, on_fire: bool, damage: int | None) -> Effect:
    return Effect(target_index, outcome, 1 if outcome == "size_damage" else 0, on_fire, damage)


def _lines(turn: Turn, main: UnitSpec) -> tuple[_Line, ...]:
    s, a, options = turn.situation, turn.attacker, turn.options
    target = _target_view(main, s)
    base = s.engine_situation()
    die = action_die_of(a, gunner=s.gunner)
    singles: list[tuple[int, Attack]] = []
    lines: list[_Line] = []
    for index in turn.weapons:
        weapon = a.weapons[index]
        name = weapon_name(weapon)
        stats = weapon_stats_of(weapon, die, options)
        auto = AUTO_WEAPONS.get(weapon.type)
        explosive = (stats.damage is not None and stats.damage.explosion) or (
            stats.damage is None and weapon.payload is not None and weapon.payload.explosive
        )
        out = 0
        if s.distance is not None and stats.range_inches is not None:
            out = inches_out_of_range(s.distance, stats.range_inches, s.height)
        if explosive:
            shot = explosive_shot_of(
                a,
                weapon,
                distance=s.distance,
                height=s.height,
                situation=base,
                gunner=s.gunner,
                options=options,
            )
            # A Launcher's rounds fly together but each is its own attack: its own Action
            # roll and its own Explosion at its own point (chapter 8, Missile Racks; A19, T6).
            rounds = weapon.payload.per_launch if stats.damage is None and weapon.payload else 1
            shot_odds = _memo(partial(shot.odds, target))
            for k in range(rounds):
                label = name if rounds == 1 else f"{name}: round {k + 1} of {rounds}"
                lines.append(_explosive_line(index, label, shot, target, s, out, shot_odds))
        elif s.burst and auto == "machinegun":
            if turn.followers:
                raise InvalidInput("burst", "a MachineGun fires a Burst or an Arc, not both")
            burst = burst_of(
                a,
                weapon,
                target,
                s.burst,
                situation=replace(base, out_of_range=out),
                gunner=s.gunner,
                options=options,
            )
            lines.append(
                _volley_line(index, "burst", f"{name}: Burst of {s.burst}", burst, s, out, target)
            )
        elif auto is not None and (turn.followers or (s.arc > 1 and auto != "blastgun")):
            arc_targets = [ArcTarget(target, 0, s.distance or 0, out)]
            for f in turn.followers:
                f_target = _target_view(f.unit, s, main=False)
                f_out = 0
                if f.distance is not None and stats.range_inches is not None:
                    f_out = inches_out_of_range(f.distance, stats.range_inches, s.height)
                arc_targets.append(ArcTarget(f_target, f.spans, f.distance or 0, f_out))
            arc = arc_fire_of(
                a,
                weapon,
                tuple(arc_targets),
                arc=s.arc,
                situation=base,
                gunner=s.gunner,
                options=options,
            )
            label = (
                f"{name}: Arc Fire over {len(arc_targets)} target{'s' * (len(arc_targets) != 1)}"
            )
            lines.append(_volley_line(index, "arc", label, arc, s, out, target))
        else:
            attack = attack_of(
                a,
                weapon,
                target,
                distance=s.distance,
                height=s.height,
                situation=base,
                gunner=s.gunner,
                charge=s.charge,
                options=options,
            )
            singles.append((index, attack))
            lines.append(_single_line(index, name, attack, target, s, out))
    joined: list[Attack] = []
    names: list[str] = []
    for ally in turn.allies:
        for index in ally.weapons:
            weapon = ally.unit.weapons[index]
            try:
                joined.append(
                    attack_of(
                        ally.unit,
                        weapon,
                        target,
                        distance=s.distance,
                        height=s.height,
                        situation=base,
                        options=options,
                    )
                )
            except InvalidInput:
                raise InvalidInput(
                    "allies",
                    f"{ally.unit.name}'s {weapon_name(weapon)} cannot join a "
                    "Combined Attack (direct attacks only)",
                ) from None
            names.append(f"{ally.unit.name}'s {weapon_name(weapon)}")
    if (s.combined or joined) and len(singles) + len(joined) >= 2:
        combined = CombinedAttack(tuple(att for _, att in singles) + tuple(joined))
        indexes = tuple(i for i, _ in singles)
        keep = [ln for ln in lines if ln.weapons[0] not in indexes]
        who = [weapon_name(a.weapons[i]) for i in indexes] + names
        keep.insert(0, _combined_line(indexes, who, combined, target))
        lines = keep
    elif joined:
        raise InvalidInput("allies", "a Combined Attack needs a direct attack from the attacker")
    return tuple(lines)


def _single_line(
    index: int, name: str, attack: Attack, target: Target, s: TurnSituation, out: int
) -> _Line:
    steps = tuple(
        _action_steps(attack.action_roll(), _modifier_parts(s, target, out))
        + _damage_steps(attack, target)
    )

    def odds() -> LineOdds:
        o, main = _single_odds(attack)
        return LineOdds(
            (index,),
            "single",
            name,
            (main,),
            o.damage_distribution,
            o.over_the_top,
            0.0,
            o.truncation_bound,
            steps,
        )

    def roll(rng: random.Random) -> LineRoll:
        r = attack.roll(rng)
        natural = r.dice[0].natural if attack.action is not None and r.dice else None
        return LineRoll(
            (index,),
            "single",
            name,
            r.dice,
            (_effect_of(0, r.outcome, r.on_fire, r.damage),),
            natural_action=natural,
        )

    return _Line((index,), "single", name, steps, odds, roll)


def _combined_line(
    indexes: tuple[int, ...], who: list[str], combined: CombinedAttack, target: Target
) -> _Line:
    label = "Combined Attack: " + " + ".join(who)
    each = []
    for name, attack in zip(who, combined.attacks, strict=True):
        action = attack.action_roll()
        if action is None:
            each.append(Step(name, f"automatic hit; Damage {_pool_text(attack.pool())}"))
            continue
        need = max(2, min(action.die, action.use - action.modifier))
        each.append(
            Step(
                name,
                f"d{action.die} against Use {action.use} ({action.modifier:+d}): "
                f"needs a natural {need}+; Damage {_pool_text(attack.pool())}",
            )
        )
    steps = (
        Step(
            "Combined Attack",
            "each weapon rolls its own Action roll; the Damage of those "
            "that hit is summed against one Armour roll",
        ),
        *each,
        Step("against Armour", str(target.armour)),
    )

    def odds() -> LineOdds:
        o = combined.odds()
        main = TargetLine(
            0, o.miss, o.no_effect, o.something_bad, o.destroyed, o.size_damage, o.on_fire
        )
        return LineOdds(
            indexes,
            "combined",
            label,
            (main,),
            o.damage_distribution,
            o.over_the_top,
            0.0,
            o.truncation_bound,
            steps,
        )

    def roll(rng: random.Random) -> LineRoll:
        r = combined.roll(rng)
        return LineRoll(
            indexes, "combined", label, r.dice, (_effect_of(0, r.outcome, r.on_fire, r.damage),)
        )

    return _Line(indexes, "combined", label, steps, odds, roll)


def _volley_line(
    index: int,
    kind: LineKind,
    label: str,
    volley: ArcFire | Burst,
    s: TurnSituation,
    out: int,
    target: Target,
) -> _Line:
    shots = volley.shots()
    first = shots[0].attack
    jam = (
        Step("Auto Penalty and jam", f"a natural roll below {shots[0].jam_below} jams the gun")
        if shots[0].jam_below
        else Step("jam", "this weapon never jams")
    )
    steps = (
        Step("shots", str(len(shots))),
        *_action_steps(first.action_roll(), _modifier_parts(s, target, out)),
        jam,
        *_damage_steps(first, target),
    )

    # A Creation larger than 1" loses Size rather than being destroyed: a volley's
    # "destroyed" on it is Size Damage.
    hit = [a.target for a in volley.targets] if isinstance(volley, ArcFire) else [volley.target]
    sized = [t.takes_size_damage for t in hit]

    def odds() -> LineOdds:
        o: VolleyOdds = volley.odds()
        targets = tuple(
            TargetLine(
                t.index,
                t.miss,
                t.no_effect,
                t.something_bad,
                0.0 if sized[t.index] else t.destroyed,
                t.destroyed if sized[t.index] else 0.0,
                t.on_fire,
            )
            for t in o.targets
        )
        return LineOdds(
            (index,), kind, label, targets, (), 0.0, o.inoperative, o.truncation_bound, steps
        )

    def roll(rng: random.Random) -> LineRoll:
        r = volley.roll(rng)
        hits: dict[int, list[ShotResult]] = {}
        for shot in r.shots:
            hits.setdefault(shot.target, []).append(shot)
        effects = []
        for t, shots_at in sorted(hits.items()):
            fired = [sh for sh in shots_at if not sh.lost]
            best = max((sh.outcome for sh in fired), key=_RANK.__getitem__, default=_MISS)
            size = sum(1 for sh in fired if sh.outcome == "size_damage")
            fire = any(sh.on_fire for sh in fired)
            damages = [sh.damage for sh in fired if sh.damage is not None]
            effects.append(Effect(t, best, size, fire, max(damages) if damages else None))
        natural = r.dice[0].natural if r.dice else None
        return LineRoll((index,), kind, label, r.dice, tuple(effects), r.inoperative, natural)

    return _Line((index,), kind, label, steps, odds, roll)


# A volley's effect on a target is the best of its shots' outcomes.
_RANK: dict[Outcome, int] = {
    "miss": 0,
    "no_effect": 1,
    "something_bad": 2,
    "size_damage": 3,
    "destroyed": 4,
}
_MISS: Outcome = "miss"

T = TypeVar("T")


def _memo(compute: Callable[[], T]) -> Callable[[], T]:
    """``compute`` run once, on the first call: a launch's rounds share one set of odds."""
    kept: list[T] = []

    def once() -> T:
        if not kept:
            kept.append(compute())
        return kept[0]

    return once


def _explosive_line(
    index: int,
    name: str,
    shot: ExplosiveShot,
    target: Target,
    s: TurnSituation,
    out: int,
    shot_odds: Callable[[], ExplosiveShotOdds],
) -> _Line:
    steps = (
        *_action_steps(shot.action, _modifier_parts(s, None, out)),
        Step("aimed at", 'the target (ring 0, within 2")'),
        Step("Explosion", str(shot.explosion.damage)),
        Step("against Armour", f"{target.armour} (rolled once)"),
        Step("a miss", "lands up to Use − roll inches away (the defender places it)"),
    )

    def odds() -> LineOdds:
        o = shot_odds()
        r = o.ring
        main = TargetLine(
            0,
            o.miss,
            o.hit * r.no_effect,
            o.hit * r.something_bad,
            o.hit * r.destroyed,
            o.hit * r.size_damage,
            o.hit * r.on_fire,
        )
        return LineOdds(
            (index,),
            "explosive",
            name,
            (main,),
            (),
            o.over_the_top,
            0.0,
            r.truncation_bound,
            steps,
        )

    def roll(rng: random.Random) -> LineRoll:
        r = shot.roll(rng, (ExplosionObject(target, 0),))
        if not r.hit or r.explosion is None:
            effect = Effect(0, "miss")
        else:
            obj = r.explosion.objects[0]
            effect = _effect_of(0, obj.outcome, obj.on_fire, obj.damage)
        natural = r.dice[0].natural if r.dice else None
        return LineRoll((index,), "explosive", name, r.dice, (effect,), natural_action=natural)

    return _Line((index,), "explosive", name, steps, odds, roll)
