"""Which of a unit's weapons can be used together in one turn (Power limits, chapter 8).

A weapon needs Power equal to its Weapon Size (RULINGS §1.5). Weapons that need none (Armor
Plating, worn armour, shields of minifigs) and weapons on Small or Large Turrets (each powered
by its own turret) are usable every turn and belong to every set. The other weapons share the
unit's base Power; a weapon Too Big for it on its own belongs to no set (see
``validation.too_big`` for Diverting All Power and Teamwork).
"""

from __future__ import annotations

from fractions import Fraction

from app.rules.brikwars.options import DEFAULT_OPTIONS, BrikWarsOptions
from app.rules.brikwars.units import TURRET_OF_MOUNT, UnitSpec
from app.rules.errors import TooMuchWork

MAX_SETS = 10_000
"""More maximal sets than this is not a useful answer for a page; raise TooMuchWork."""


def activation_sets(
    unit: UnitSpec, *, moving: bool = False, options: BrikWarsOptions = DEFAULT_OPTIONS
) -> list[tuple[int, ...]]:
    """The maximal sets of weapon indexes whose Power needs fit the unit's current Power.

    Each set is sorted; the list is sorted. A unit with no usable weapon gets ``[()]``.
    A Compensating unit has 1" more Size for Power unless ``moving`` (chapter 8, The Heavy).

    >>> from app.rules.brikwars.units import UnitSpec, WeaponSpec
    >>> rex = UnitSpec(name="Scorpiosaurus Rex", size=3, structure_level=1, weapons=(
    ...     WeaponSpec("melee_weapon", size=5), WeaponSpec("melee_weapon", size=1),
    ...     WeaponSpec("melee_weapon", size=1)))
    >>> activation_sets(rex)
    [(0, 1), (0, 2), (1, 2)]
    """
    power = unit.base_power if moving else unit.standing_power_with(options)
    always: list[int] = []
    shared: list[tuple[Fraction, int]] = []
    for index, weapon in enumerate(unit.weapons):
        if weapon.mount in TURRET_OF_MOUNT:
            always.append(index)  # its own turret powers it (validation checks the limit)
            continue
        need = weapon.power_need_with(options)
        if need == 0:
            always.append(index)
        elif need <= power:
            shared.append((need, index))
    # Largest needs first: the pruning below bites sooner.
    shared.sort(key=lambda item: (-item[0], item[1]))
    needs = [need for need, _ in shared]
    suffix = [Fraction(0)] * (len(needs) + 1)
    for i in range(len(needs) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + needs[i]

    results: list[tuple[int, ...]] = []
    chosen: list[int] = []
    infinity = power + 1  # larger than any need that fits

    def walk(i: int, left: Fraction, smallest_skipped: Fraction) -> None:
        # A set is maximal when no skipped weapon fits in what is left. Power left only
        # shrinks, so once even taking every remaining weapon leaves room for the smallest
        # skipped one, no completion of this branch can be maximal.
        if left - suffix[i] >= smallest_skipped:
            return
        if i == len(needs):
            results.append(tuple(sorted(always + chosen)))
            if len(results) > MAX_SETS:
                raise TooMuchWork(f"more than {MAX_SETS} weapon combinations")
            return
        need, index = shared[i]
        if need <= left:
            chosen.append(index)
            walk(i + 1, left - need, smallest_skipped)
            chosen.pop()
        walk(i + 1, left, min(smallest_skipped, need))

    walk(0, power, infinity)
    return sorted(results)
