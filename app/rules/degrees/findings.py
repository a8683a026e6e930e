"""Degrees build-time rules (RULINGS 2.3): costs in Degree Points and the findings of a unit,
its weapons and an army's budget. Pure functions of a decoded unit and the house rules.

- Cost (DP) = the unit's degree + each weapon's max degree (+1 for a Dousing Rod's real
  ammo); the ``costs`` house rule replaces a catalogue weapon's cost outright (flat DP).
- Findings, each with its severity: a weapon of a larger scale (warning: higher-order), of a
  smaller scale (error), a classical ballistic over 3° (error), a ballistic over 2° in space
  (error), real ammo on a non-Human unit (error), a gas gun whose max is above the unit's
  degree (warning), a weapon whose cheapest attack needs more AP than the unit has per round
  (error), an army over budget (error; a warning under ``allow_over_budget``).
"""

from __future__ import annotations

from app.rules.degrees.catalogue import (
    CLASSICAL_MAX,
    SCALE_SHORT,
    SCALES,
    SPACE_BALLISTIC_MAX,
)
from app.rules.degrees.options import DegreesOptions
from app.rules.degrees.units import DegreesUnit, DegreesWeapon
from app.rules.ruleset import Finding, Severity

GAS_GUN_NOTE = "most are 2-max guns, light enough for 2° units"


def format_dp(cost: int) -> str:
    """A cost in Degree Points: ``12 DP``."""
    return f"{cost} DP"


def format_dp_change(change: int) -> str:
    """A signed change of cost: ``+3 DP``, ``-3 DP`` (no change: ``+0 DP``)."""
    return f"{'-' if change < 0 else '+'}{abs(change)} DP"


def attack_degree(weapon: DegreesWeapon) -> int:
    """The degree its attacks reach at most: its max, +1 with a Dousing Rod's real ammo."""
    return weapon.degree + (1 if weapon.real_ammo else 0)


def cheapest_attack_ap(weapon: DegreesWeapon) -> int:
    """The AP of the cheapest attack with it: the type's attack AP plus what drawing it
    costs (a p-gun 2 + 1 = 3, a sensory dampener 0, a gas gun 1 with its pump carried from
    the last round, any other 1)."""
    return weapon.kind.attack_ap + weapon.kind.draw_ap


def weapon_cost(weapon: DegreesWeapon, options: DegreesOptions) -> int:
    """Its DP: its max degree (+1 for real ammo), or the house rule's flat cost."""
    replaced = options.costs.get(weapon.type)
    return attack_degree(weapon) if replaced is None else replaced


def unit_cost(unit: DegreesUnit, options: DegreesOptions) -> int:
    """Its DP: its degree plus every weapon's cost."""
    return unit.degree + sum(weapon_cost(w, options) for w in unit.weapons)


def weapon_findings(unit: DegreesUnit, index: int, options: DegreesOptions) -> list[Finding]:
    """What the build rules say of weapon ``index`` on the unit, in a fixed order."""
    weapon = unit.weapons[index]
    kind, entry = weapon.kind, weapon.entry
    found: list[Finding] = []

    def add(severity: Severity, code: str, message: str) -> None:
        found.append(Finding(severity, code, message, None, index))

    unit_scale, weapon_scale = SCALES[unit.scale], SCALES[entry.scale]
    unit_word, weapon_word = SCALE_SHORT[unit.scale], SCALE_SHORT[entry.scale]
    if weapon_scale.order > unit_scale.order:
        against = (
            ": it counts as 10° against personnel (RULINGS 2.3)"
            if unit.scale == "personnel"
            else ""
        )
        add(
            "warning",
            "higher_order",
            f"{weapon.name} is a higher-order weapon ({weapon_word}) on a {unit_word} "
            f"unit{against}.",
        )
    elif weapon_scale.order < unit_scale.order:
        add(
            "error",
            "scale",
            f"{weapon.name} is a {weapon_word} weapon: a {unit_word} unit carries "
            f"{unit_word} weapons (or higher-order ones).",
        )
    if kind.ballistic == "classical" and weapon.degree > CLASSICAL_MAX:
        add(
            "error",
            "classical_max",
            f"{weapon.name}: classical ballistics are 1°-{CLASSICAL_MAX}° only "
            "(chemical propellants).",
        )
    if options.in_space and kind.ballistic and attack_degree(weapon) > SPACE_BALLISTIC_MAX:
        ammo = " with real ammo" if weapon.real_ammo else ""
        add(
            "error",
            "space_ballistic",
            f"{weapon.name} attacks at {attack_degree(weapon)}°{ammo}: ballistics in space "
            f"are only ever 1° or {SPACE_BALLISTIC_MAX}° (house rule: the army fights in space).",
        )
    if weapon.real_ammo and not unit.human:
        add(
            "error",
            "real_ammo",
            f"{weapon.name}: only Human units may take real ammo; {unit.name} is not Human.",
        )
    if kind.gas and weapon.degree > unit.degree:
        add(
            "warning",
            "gas_gun_max",
            f"{weapon.name} is above {unit.name}'s degree ({unit.degree}°): {GAS_GUN_NOTE}.",
        )
    need = cheapest_attack_ap(weapon)
    if need > unit.ap:
        how = (
            f"{kind.attack_ap} to attack + {kind.draw_ap} to draw it"
            if kind.draw_ap
            else "to attack"
        )
        add(
            "error",
            "ap_limit",
            f"{weapon.name} needs {need} AP for its cheapest attack ({how}); {unit.name} has "
            f"{unit.ap} AP per round.",
        )
    return found


def weasel_findings(unit: DegreesUnit) -> list[Finding]:
    """A Least Weasel attacks once, with itself: "only get one attack before they are
    destroyed (they are destroyed on attack)". Any other weapon, or a second Weasel attack,
    is an error naming it."""
    found: list[Finding] = []
    attacks = 0
    for index, weapon in enumerate(unit.weapons):
        if weapon.kind.one_shot:
            attacks += 1
            if attacks == 1:
                continue
            why = "it gets only one attack before it is destroyed"
        else:
            why = "its only attack is itself (a Least Weasel, 6°)"
        found.append(
            Finding(
                "error",
                "weasel_weapon",
                f"{weapon.name} on {unit.name}: a Least Weasel carries no weapon; {why}.",
                None,
                index,
            )
        )
    return found


def unit_findings(unit: DegreesUnit, options: DegreesOptions) -> list[Finding]:
    """Every finding of the unit: its weapons' in their order (a unit's own fields are
    bounded when it is read, so none is about the unit alone), then a Least Weasel's."""
    found = [f for i in range(len(unit.weapons)) for f in weapon_findings(unit, i, options)]
    return found + (weasel_findings(unit) if unit.weasel else [])


def budget_findings(total: int, budget: int | None, options: DegreesOptions) -> list[Finding]:
    """Over budget: an error, or a warning under the house rule ``allow_over_budget``."""
    if budget is None or total <= budget:
        return []
    severity: Severity = "warning" if options.allow_over_budget else "error"
    return [
        Finding(
            severity,
            "over_budget",
            f"The army costs {format_dp(total)}, over its budget of {format_dp(budget)} by "
            f"{format_dp(total - budget)}.",
        )
    ]


WEASELS_PER_FERRET = 6  # "Ferrets are standard-issued six Least Weasels"


def is_ferret(unit: DegreesUnit) -> bool:
    """A Ferret, as the builder knows one: a unit (not itself a Weasel) that carries the
    tables' Least Weasel, the attack "Ferrets can fire [...] as any normal attack"."""
    return not unit.weasel and any(w.kind.one_shot for w in unit.weapons)


def roster_findings(units: list[tuple[DegreesUnit, int]]) -> list[Finding]:
    """More Least Weasels than six a Ferret (counts included) is an error: "Ferrets are
    standard-issued six Least Weasels" (9.5.3), and a Weasel is a Ferret's drone."""
    weasels = sum(count for unit, count in units if unit.weasel)
    ferrets = sum(count for unit, count in units if is_ferret(unit))
    if weasels <= WEASELS_PER_FERRET * ferrets:
        return []
    most = WEASELS_PER_FERRET * ferrets
    launchers = (
        f"its {ferrets} Ferret{'s' * (ferrets != 1)} field at most {most}"
        if ferrets
        else "it has no Ferret (a unit carrying the Least Weasel attack) to launch them"
    )
    return [
        Finding(
            "error",
            "weasels_per_ferret",
            f"The army fields {weasels} Least Weasels; Ferrets are standard-issued six "
            f"Least Weasels: {launchers}.",
        )
    ]
