"""A D20 attack as declared: ``plan`` turns the attacker, its chosen weapons, the targets
as they stand and the situation into a ``D20Attack`` (``attack.py``), with every reason it
cannot be made as declared (a shot beyond the Reach, a grenade thrown by a figurine that is
not an SU...)."""

from __future__ import annotations

from collections.abc import Sequence

from app.rules.d20.attack import D20Attack
from app.rules.d20.catalogue import (
    AUTO_MIN_TARGETS,
    AUTO_PENALTY_MAX,
    AUTO_PENALTY_STEP,
    CLUB_POWER,
    GRENADE_HEIGHT_CM,
)
from app.rules.d20.options import D20Options
from app.rules.d20.situation import EXPLOSIVES, D20Situation, Placed, read_objects
from app.rules.d20.strike import Strike
from app.rules.d20.units import D20Figurine, D20Weapon


def auto_penalty(position: int) -> int:
    """The modifier of automatic fire on the figurine at ``position`` of the Arc (0: the
    first): -1, -2, -3, then -4 for every further one."""
    return -min(AUTO_PENALTY_STEP * (position + 1), AUTO_PENALTY_MAX)


def figurines(placed: Sequence[Placed], squads: bool) -> list[tuple[int, int, Placed]]:
    """The figurines struck, in order, each as (target, figurine of the target, target):
    with ``squads`` (automatic fire, an explosion), each of a squad's ``figures``, the
    targets in their given order and a squad's figurines one after another (so in automatic
    fire's Arc); without (a shot, a blow, a defusing), one per target."""
    return [(n, k, t) for n, t in enumerate(placed) for k in range(t.figures if squads else 1)]


def plan(
    attacker: D20Figurine,
    weapons: tuple[int, ...],
    placed: Sequence[Placed],
    situation: D20Situation,
    options: D20Options,
) -> D20Attack:
    """The attack, with every reason it cannot be made as declared."""
    problems: list[str] = []
    chosen = [attacker.weapons[i] for i in weapons]
    guns = [w for w in chosen if w.type == "gun"]
    several = situation.mode in ("automatic", "explosion")
    struck = figurines(placed, several)
    if len(guns) >= 2 and len(struck) >= 2:
        problems.append(
            f"{attacker.name} carries two ranged weapons: it shoots one target per turn."
        )
    if situation.mode in ("shot", "blow", "automatic"):
        return _plan_strike(
            attacker, weapons, chosen, len(placed), struck, situation, options, problems
        )
    if situation.mode == "defuse":
        return _plan_defuse(attacker, weapons, chosen, struck, situation, problems)
    return _plan_explosion(attacker, weapons, chosen, struck, situation, options, problems)


def _plan_strike(
    attacker: D20Figurine,
    weapons: tuple[int, ...],
    chosen: list[D20Weapon],
    targets: int,
    struck: list[tuple[int, int, Placed]],
    situation: D20Situation,
    options: D20Options,
    problems: list[str],
) -> D20Attack:
    """A shot, a blow or automatic fire: one weapon (or bare hands) against each figurine
    struck (a shot's or a blow's: one figurine of its target, a squad's or not)."""
    mode, mods = situation.mode, situation.modifier
    if len(chosen) > 1:
        problems.append("Attack with one weapon at a time.")
    weapon = chosen[0] if chosen else None
    if mode == "blow":
        stat, stat_name = attacker.hth, "HtH"
        power, name = _blow_weapon(weapon, situation, problems)
        if targets > 1:
            problems.append("A blow strikes one target.")
    else:
        stat, stat_name = attacker.shot, "Shot"
        power, name = _shot_weapon(weapon, targets, len(struck), situation, problems)
    penalties = tuple(auto_penalty(i) if mode == "automatic" else 0 for i in range(len(struck)))
    bonus = stat + power + mods
    strikes = tuple(
        Strike(
            bonus + pen,
            t.defence,
            t.cp,
            margin_wounds=options.margin_wounds,
            naturals=options.naturals,
        )
        for (_, _, t), pen in zip(struck, penalties, strict=True)
    )
    steps = (
        (stat_name, str(stat)),
        ("Power", f"{power} ({name})"),
        ("modifier", f"{mods:+d}"),
        *(
            (("automatic fire", ", ".join(f"{p:+d}" for p in penalties)),)
            if mode == "automatic"
            else ()
        ),
        ("+ 1D20 against", "PD + Evasion"),
    )
    label = {"shot": "Shot", "blow": "Blow", "automatic": "Automatic fire"}[mode]
    return D20Attack(
        mode,
        f"{label}: {name}",
        strikes,
        penalties,
        power=power,
        weapons=weapons,
        steps=steps,
        refused=tuple(problems),
        owners=tuple((n, k) for n, k, _ in struck),
    )


def _blow_weapon(
    weapon: D20Weapon | None, situation: D20Situation, problems: list[str]
) -> tuple[int, str]:
    """A blow's Power and what strikes it (a gun swung as a club; bare hands)."""
    if weapon is None:
        power, name = 0, "bare hands"
    elif weapon.type == "hth":
        power, name = weapon.power, weapon.name
    elif weapon.type == "gun":
        power, name = CLUB_POWER, f"{weapon.name} as a club"
    else:
        power, name = 0, weapon.name
        problems.append(f"{weapon.name} is not a hand-to-hand weapon.")
    if situation.distance > 0:
        problems.append("A blow is struck in base contact (distance 0 cm).")
    return power, name


def _shot_weapon(
    weapon: D20Weapon | None,
    targets: int,
    figures: int,
    situation: D20Situation,
    problems: list[str],
) -> tuple[int, str]:
    """A shot's or automatic fire's Power and gun, with why it cannot fire as declared
    (automatic fire counts the figurines, a squad's each; a shot the targets)."""
    automatic = situation.mode == "automatic"
    if weapon is None or weapon.type != "gun":
        power, name = (weapon.power, weapon.name) if weapon else (0, "no weapon")
        problems.append(
            f"{'Automatic fire' if automatic else 'A shot'} needs a gun"
            f"{'' if weapon is None else f'; {weapon.name} is not one'}."
        )
    else:
        power, name = weapon.power, weapon.name
        if situation.distance > weapon.reach:
            problems.append(
                f"{situation.distance} cm is beyond {weapon.name}'s Reach ({weapon.reach} cm)."
            )
    if automatic:
        if weapon is not None and weapon.type == "gun" and not weapon.automatic:
            problems.append(f"{weapon.name} has no automatic fire.")
        if figures < AUTO_MIN_TARGETS:
            problems.append("Automatic fire needs at least two targets.")
    elif targets > 1:
        problems.append("A single shot strikes one target (automatic fire: several).")
    return power, name


def _plan_defuse(
    attacker: D20Figurine,
    weapons: tuple[int, ...],
    chosen: list[D20Weapon],
    struck: list[tuple[int, int, Placed]],
    situation: D20Situation,
    problems: list[str],
) -> D20Attack:
    """Defusing a charge: Dexterity + 1D20 against its DL (given, or the chosen charges')."""
    charges = [w for w in chosen if w.equipment.category == "charge"]
    dl = situation.dl
    if dl is None:
        dl = sum(w.power for w in charges)
        if not charges:
            problems.append("Give the charge's DL, or choose the charges to defuse.")
    strikes = tuple(Strike(0, t.defence, t.cp, hit=False) for _, _, t in struck)
    return D20Attack(
        situation.mode,
        f"Defuse DL {dl}",
        strikes,
        owners=tuple((n, k) for n, k, _ in struck),
        dexterity=attacker.dexterity,
        dl=dl,
        weapons=weapons,
        steps=(("Dexterity", str(attacker.dexterity)), ("+ 1D20 greater than DL", str(dl))),
        refused=tuple(problems),
    )


def _plan_explosion(
    attacker: D20Figurine,
    weapons: tuple[int, ...],
    chosen: list[D20Weapon],
    struck: list[tuple[int, int, Placed]],
    situation: D20Situation,
    options: D20Options,
    problems: list[str],
) -> D20Attack:
    """A grenade, a mine or charges set together, against everyone in the radius: Power +
    1D20 against each figurine's PD alone, Evasion or not (RULINGS 3.3); each figurine of
    a squad in the radius rolls its own."""
    objects = read_objects(situation.objects)
    mods = situation.modifier
    _explosive_problems(attacker, chosen, situation, problems)
    grenade = bool(chosen) and chosen[0].equipment.category == "grenade"
    entries = [w.equipment for w in chosen]
    power = sum(w.power for w in chosen)
    rolled = all(e.roll for e in entries) if entries else True
    cover_counts = all(e.cover for e in entries) if entries else False
    shakes = any(e.shakes for e in entries)
    flat = max((e.flat_cp for e in entries), default=0)
    strikes = tuple(
        Strike(
            power + mods,
            # PD alone: "Power of the explosion + 1 D20 / Physical Defense" (RULINGS 3.3)
            t.pd + (options.cover_bonus if t.cover and cover_counts else 0),
            t.cp,
            rolled=rolled,
            hit=not (grenade and t.height > GRENADE_HEIGHT_CM),
            flat_cp=flat,
            shakes=shakes,
            margin_wounds=options.margin_wounds,
            naturals=options.naturals,
        )
        for _, _, t in struck
    )
    name = " + ".join(w.name for w in chosen) or "nothing"
    radius = max((e.radius or 0 for e in entries), default=0)
    steps = (
        ("Power", f"{power} ({name})"),
        ("radius", f"r{radius}"),
        ("modifier", f"{mods:+d}"),
        ("+ 1D20 against", "PD" + (" (+ cover)" if cover_counts else "")),
    )
    return D20Attack(
        situation.mode,
        f"Explosion: {name}",
        strikes,
        power=power + mods,
        objects=objects,
        weapons=weapons,
        steps=steps,
        refused=tuple(problems),
        owners=tuple((n, k) for n, k, _ in struck),
    )


def _explosive_problems(
    attacker: D20Figurine, chosen: list[D20Weapon], situation: D20Situation, problems: list[str]
) -> None:
    """Why the chosen equipment cannot explode as declared."""
    kinds = {w.equipment.category for w in chosen}
    if not chosen:
        problems.append("Choose the grenade, mine or charges that explode.")
    elif not kinds <= set(EXPLOSIVES):
        problems.append("Only grenades, mines and charges explode.")
    elif len(kinds) > 1 or (kinds != {"charge"} and len(chosen) > 1):
        problems.append("Only charges set together explode together (their Power adds).")
    if chosen and chosen[0].equipment.category == "grenade":
        if not attacker.su:
            problems.append(f"Only SUs carry grenades; {attacker.name} is not an SU.")
        reach = chosen[0].reach
        if situation.distance > reach:
            problems.append(
                f"{situation.distance} cm is beyond {chosen[0].name}'s Reach ({reach} cm)."
            )
