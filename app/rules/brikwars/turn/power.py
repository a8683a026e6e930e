"""Whether the chosen weapons fit the attacker's Power this turn (RULINGS §1.5)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from app.rules.brikwars.catalogue import format_number
from app.rules.brikwars.options import DEFAULT_OPTIONS, BrikWarsOptions
from app.rules.brikwars.turn.situation import DEFAULT_SITUATION, TurnSituation
from app.rules.brikwars.units import TURRET_OF_MOUNT, UnitSpec, weapon_name


def _inches(value: Fraction | int) -> str:
    return f'{format_number(value)}"'


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
    situation: TurnSituation = DEFAULT_SITUATION,
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
    needs = _needs(attacker, weapons, options)
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
            how = _how_to_afford(need, power, saved, helpers)
            problems.append(
                f"{name} needs {_inches(need)} of Power; {who}: Too Big. {how[0].upper()}{how[1:]}"
            )
    if not problems and total > power + extra:
        names = " + ".join(f"{weapon_name(attacker.weapons[i])} ({_inches(n)})" for n, i in needs)
        problems.append(
            f"Together {names} need {_inches(total)} of Power; {who}. Fire fewer weapons this turn."
        )
    return PowerCheck(power, total, extra, tuple(problems))


def _needs(
    attacker: UnitSpec, weapons: tuple[int, ...], options: BrikWarsOptions
) -> list[tuple[Fraction, int]]:
    """(Power needed, weapon index) of each chosen weapon that draws on the attacker's Power."""
    needs: list[tuple[Fraction, int]] = []
    for index in weapons:
        weapon = attacker.weapons[index]
        if weapon.mount in TURRET_OF_MOUNT:
            continue
        need = weapon.power_need_with(options)
        if need > 0:
            needs.append((need, index))
    return needs


def _how_to_afford(need: Fraction, power: Fraction, saved: Fraction, helpers: Fraction) -> str:
    """How a Too Big weapon could fire: turns of Diverting All Power, or Teamwork."""
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
    return how
