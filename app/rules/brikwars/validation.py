"""Build validation: what is illegal (errors) or needs attention (warnings) in a unit or army.

Findings are data, not exceptions, so a page can show all of them at once next to the unit
and weapon they concern. ``unit`` and ``weapon`` index into the army's units and the unit's
weapons.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from app.rules.brikwars.catalogue import (
    format_cp,
    format_number,
    to_fraction,
    weapon_type,
)
from app.rules.brikwars.options import DEFAULT_OPTIONS, BrikWarsOptions
from app.rules.brikwars.units import (
    FLESH,
    MAX_STRUCTURE_LEVEL,
    TURRET_OF_MOUNT,
    HoldClass,
    UnitSpec,
    WeaponSpec,
    hold_class,
    weapon_name,
)
from app.rules.errors import InvalidInput
from app.rules.ruleset import Finding, Severity  # one shape for every ruleset


@dataclass(frozen=True, slots=True)
class TooBig:
    """How a Too Big weapon can still fire (RULINGS §1.5).

    ``divert_turns``: turns of Diverting All Power first (None when the unit has no Power);
    ``teamwork_power``: total Power the team must bring (the unit's own included);
    ``helpers_power``: what the helpers must add to the unit's Power.
    """

    need: Fraction
    power: Fraction
    divert_turns: int | None
    teamwork_power: Fraction
    helpers_power: Fraction


def too_big(need: Fraction, power: Fraction) -> TooBig | None:
    """None when ``need`` fits ``power``; else the Divert All Power and Teamwork numbers.

    >>> too_big(Fraction(5), Fraction(4)).divert_turns
    1
    """
    if need <= power:
        return None
    turns = math.ceil(need / power) - 1 if power > 0 else None
    return TooBig(
        need=need,
        power=power,
        divert_turns=turns,
        teamwork_power=need,
        helpers_power=need - power,
    )


_Add = Callable[[Severity, str, str], None]  # one finding: severity, code, message


def _weapon_findings(
    unit: UnitSpec, index: int, weapon: WeaponSpec, options: BrikWarsOptions
) -> list[Finding]:
    name = weapon_name(weapon)
    found: list[Finding] = []

    def add(severity: Severity, code: str, message: str) -> None:
        found.append(Finding(severity, code, message, None, index))

    standing_only: list[str] = []  # what works only while a Compensating unit stands still
    _holding_findings(unit, weapon, name, add, standing_only)
    _turret_findings(weapon, name, add)
    _ammo_findings(weapon, name, add)
    _payload_findings(weapon, name, add)
    _armour_findings(unit, weapon, name, add)
    _power_findings(unit, weapon, name, options, add, standing_only)
    if standing_only:
        add(
            "warning",
            "compensating_standing_still",
            f"{name} is {' and '.join(standing_only)} only while {unit.name} stands still "
            "(Compensating).",
        )
    return found


def _holding_findings(
    unit: UnitSpec, weapon: WeaponSpec, name: str, add: _Add, standing_only: list[str]
) -> None:
    """Holding (RULINGS §1.5, hand-held weapons; Compensating)."""
    held = hold_class(unit, weapon)
    if held is None:
        return
    ranged = weapon.entry.ranged
    if held == "too_big":
        add(
            "error",
            "too_big_to_hold",
            f"{name} is more than twice {unit.name}'s Size and cannot be held.",
        )
    elif held == "long" and ranged:
        add(
            "error",
            "ranged_held_long",
            f"{name} would be held as Long: a Ranged weapon may not be Long.",
        )
    if unit.has("compensating"):
        plain = hold_class(unit, weapon, compensating=False)
        if plain != held:
            moving = "cannot be held" if plain == "too_big" else f"is {plain}"
            if plain == "long" and ranged:
                moving += ", which a Ranged weapon may not be"
            standing_only.append(f"held as {held} (when moving it {moving})")


def _turret_findings(weapon: WeaponSpec, name: str, add: _Add) -> None:
    if weapon.mount in TURRET_OF_MOUNT:
        turret = weapon_type(TURRET_OF_MOUNT[weapon.mount])
        if weapon.measure > turret.turret_mount_limit:
            add(
                "error",
                "turret_limit",
                f"{name} is larger than the {turret.name}'s {turret.turret_mount_limit}\" limit.",
            )


def _ammo_findings(weapon: WeaponSpec, name: str, add: _Add) -> None:
    """Ammo (Cannon: X <= S; Bazooka: X <= 1)."""
    entry = weapon.entry
    if not entry.takes_ammo:
        return
    limit = entry.ammo_max_xsize(weapon.size)
    if weapon.ammo is None:
        add("warning", "no_ammo", f"{name} has no Ammo and cannot fire.")
    elif limit is not None and weapon.ammo.xsize > limit:
        add(
            "error",
            "ammo_too_big",
            f"{name} fires Ammo up to X{limit}; X{weapon.ammo.xsize} does not fit.",
        )


def _payload_findings(weapon: WeaponSpec, name: str, add: _Add) -> None:
    """Payload (Launcher: total X <= S, objects <= floor(S/2); RailGun: X <= 2, 1")."""
    entry = weapon.entry
    if not entry.takes_payload:
        return
    payload = weapon.payload
    if payload is None:
        add("warning", "no_payload", f"{name} has no Payload and cannot fire.")
    elif payload.explosive is not None:
        limit_x = entry.payload_max_xsize(weapon.size)
        assert limit_x is not None
        if payload.launch_xsize > limit_x:
            add(
                "error",
                "payload_too_big",
                f"{name} launches Explosives of total X{format_number(limit_x)}; "
                f"{payload.per_launch} × X{payload.explosive.xsize} does not fit.",
            )
        if payload.per_launch > payload.explosive.rounds:
            add(
                "warning",
                "payload_rounds",
                f"{name} launches {payload.per_launch} at once but carries only "
                f"{payload.explosive.rounds}.",
            )
    else:
        limit_o = entry.payload_max_object_size(weapon.size)
        assert limit_o is not None and payload.object_size is not None
        if payload.object_size > limit_o:
            add(
                "error",
                "payload_too_big",
                f'{name} launches objects up to {format_number(limit_o)}"; '
                f'{format_number(payload.object_size)}" does not fit.',
            )


def _armour_findings(unit: UnitSpec, weapon: WeaponSpec, name: str, add: _Add) -> None:
    if weapon.entry.id == "armor_plating":
        if unit.propulsion == "flying":
            add("error", "armor_plating_flying", "Armor Plating cannot fly.")
        if weapon.measure > unit.built_size:
            add("error", "armor_plating_area", f"{name} covers more than {unit.name}'s Size.")


def _power_findings(
    unit: UnitSpec,
    weapon: WeaponSpec,
    name: str,
    options: BrikWarsOptions,
    add: _Add,
    standing_only: list[str],
) -> None:
    """Power (not for turreted weapons: their turret powers them)."""
    if weapon.mount in TURRET_OF_MOUNT:
        return
    need = weapon.power_need_with(options)
    big = too_big(need, unit.standing_power_with(options))
    if big is not None:
        if big.divert_turns is None:
            how = "it cannot Divert All Power (no Power)"
        else:
            turns = big.divert_turns
            how = f"it must Divert All Power for {turns} turn{'s' * (turns != 1)} first"
        add(
            "warning",
            "too_big",
            f'{name} needs {format_number(need)}" of Power and {unit.name} has '
            f'{format_number(big.power)}": {how}, or use Teamwork with '
            f'{format_number(big.teamwork_power)}" of Power in all '
            f'(helpers add {format_number(big.helpers_power)}").',
        )
    elif need > unit.base_power:
        standing_only.append(f'powered ({format_number(need)}" of Power)')


def validate_unit(unit: UnitSpec, *, options: BrikWarsOptions = DEFAULT_OPTIONS) -> list[Finding]:
    """Every error and warning for one unit; ``unit`` is None and ``weapon`` its index.

    >>> from app.rules.brikwars.units import UnitSpec
    >>> [f.code for f in validate_unit(UnitSpec(name="Blob", size=2, structure_level=3))]
    ['structure_level_over_size']
    """
    found: list[Finding] = []
    level = unit.level
    if unit.kind == "creation":
        if level > MAX_STRUCTURE_LEVEL:
            found.append(
                Finding(
                    "error",
                    "structure_level_over_5",
                    f"Structure Level {format_number(level)} is over 5.",
                )
            )
        if level > unit.built_size and level != FLESH:
            found.append(
                Finding(
                    "error",
                    "structure_level_over_size",
                    f"Structure Level {format_number(level)} is over the Size "
                    f'{format_number(unit.built_size)}".',
                )
            )
    for index, weapon in enumerate(unit.weapons):
        found.extend(_weapon_findings(unit, index, weapon, options))
    return found


def hold_classes(unit: UnitSpec) -> list[HoldClass | None]:
    """The hand-held class of each weapon (None when mounted or not classed), for the UI."""
    return [hold_class(unit, w) for w in unit.weapons]


def army_cost(units: Sequence[UnitSpec], *, options: BrikWarsOptions = DEFAULT_OPTIONS) -> Fraction:
    """Total CP of an army under these house rules."""
    return sum((u.cost_with(options) for u in units), Fraction(0))


def validate_army(
    units: Sequence[UnitSpec],
    *,
    budget: object = None,
    options: BrikWarsOptions = DEFAULT_OPTIONS,
) -> list[Finding]:
    """Findings of every unit (with ``unit`` set) plus the army's budget check.

    Over budget is an error, or a warning under the house rule ``allow_over_budget``.
    ``budget`` None means no budget.

    >>> from app.rules.brikwars.units import minifig
    >>> [f.severity for f in validate_army([minifig(), minifig()], budget=7)]
    ['error']
    """
    found: list[Finding] = []
    for number, unit in enumerate(units):
        if not isinstance(unit, UnitSpec):
            raise InvalidInput("units", "each unit must be a UnitSpec")
        for finding in validate_unit(unit, options=options):
            found.append(
                Finding(finding.severity, finding.code, finding.message, number, finding.weapon)
            )
    if budget is not None:
        found.extend(budget_findings(army_cost(units, options=options), budget, options=options))
    return found


def budget_findings(
    total: Fraction, budget: object, *, options: BrikWarsOptions = DEFAULT_OPTIONS
) -> list[Finding]:
    """The army-level budget check for a total already known (``validate_army`` uses it).

    Over budget is an error, or a warning under the house rule ``allow_over_budget``.

    >>> [f.code for f in budget_findings(Fraction(9), 8)]
    ['over_budget']
    """
    limit = to_fraction(budget, "budget")
    if limit < 0:
        raise InvalidInput("budget", "must be 0 or more")
    if total <= limit:
        return []
    severity: Severity = "warning" if options.allow_over_budget else "error"
    return [
        Finding(
            severity,
            "over_budget",
            f"The army costs {format_cp(total)}, over its budget of "
            f"{format_cp(limit)} by {format_cp(total - limit)}.",
        )
    ]
