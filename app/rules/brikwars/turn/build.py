"""Building a turn's attack lines: which kind of line each chosen weapon fires (an
Explosive shot, a Burst, an Arc Fire or a single attack), and the single attacks and allies'
attacks summed into one Combined Attack when asked."""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from functools import partial
from typing import TYPE_CHECKING

from app.rules.brikwars.attacks import (
    ArcTarget,
    Attack,
    CombinedAttack,
    Situation,
    Target,
    arc_fire_of,
    attack_of,
    burst_of,
    explosive_shot_of,
    inches_out_of_range,
    target_of,
)
from app.rules.brikwars.attacks.blast import ring_of
from app.rules.brikwars.attacks.build import AUTO_WEAPONS, action_die_of
from app.rules.brikwars.catalogue import WeaponStats
from app.rules.brikwars.turn.lines import (
    BlastFollower,
    Line,
    combined_line,
    explosive_line,
    once,
    single_line,
    volley_line,
)
from app.rules.brikwars.turn.situation import TurnSituation
from app.rules.brikwars.units import UnitSpec, WeaponSpec, weapon_name, weapon_stats_of
from app.rules.errors import InvalidInput

if TYPE_CHECKING:  # the Turn calls this module to build its lines
    from app.rules.brikwars.turn.turn import Turn


@dataclass(frozen=True)
class _Fire:
    """What every weapon of the turn shares: the turn, the main target as aimed at, the
    chapter 5 modifiers and the attacker's Action die."""

    turn: Turn
    target: Target
    base: Situation
    die: int


def build_lines(turn: Turn, main: UnitSpec) -> tuple[Line, ...]:
    """The turn's lines against ``main`` (and the Arc followers), in the order of the chosen
    weapons; a Combined Attack takes the single attacks' place as the first line."""
    s = turn.situation
    fire = _Fire(
        turn,
        _target_view(main, s),
        s.engine_situation(),
        action_die_of(turn.attacker, gunner=s.gunner),
    )
    singles: list[tuple[int, Attack]] = []
    lines: list[Line] = []
    for index in turn.weapons:
        weapon_lines, single = _weapon_lines(fire, index)
        lines += weapon_lines
        if single is not None:
            singles.append((index, single))
    joined, names = _ally_attacks(fire)
    return tuple(_combine(fire, lines, singles, joined, names))


def _target_view(unit: UnitSpec, situation: TurnSituation, *, main: bool = True) -> Target:
    """The unit as a target; cover and aiming apply to the main target only."""
    if not main:
        return target_of(unit)
    sections = situation.visible_sections if unit.kind in ("minifig", "hero") else 3
    reach = None
    if situation.visible_size is not None:
        reach = min(unit.effective_size, situation.visible_size)
    return target_of(unit, reach=reach, small=situation.small, visible_sections=sections)


def _inches_out(distance: Fraction | None, stats: WeaponStats, height: Fraction) -> int:
    """Inches beyond the weapon's Range (0 when either is not known)."""
    if distance is None or stats.range_inches is None:
        return 0
    return inches_out_of_range(distance, stats.range_inches, height)


def _explodes(weapon: WeaponSpec, stats: WeaponStats) -> bool:
    """An Explosive, Rocket or Cannon, or a Launcher loaded with Explosives."""
    if stats.damage is not None:
        return stats.damage.explosion
    return weapon.payload is not None and weapon.payload.explosive is not None


def _weapon_lines(fire: _Fire, index: int) -> tuple[list[Line], Attack | None]:
    """The lines one weapon fires, and its attack when it is a single one (it may join a
    Combined Attack)."""
    turn, s = fire.turn, fire.turn.situation
    weapon = turn.attacker.weapons[index]
    name = weapon_name(weapon)
    stats = weapon_stats_of(weapon, fire.die, turn.options)
    auto = AUTO_WEAPONS.get(weapon.type)
    out = _inches_out(s.distance, stats, s.height)
    if _explodes(weapon, stats):
        return _explosive_lines(fire, index, weapon, stats, out), None
    if s.burst and auto == "machinegun":
        return [_burst_line(fire, index, weapon, out)], None
    # a BlastGun is always an Arc of 1: its Damage falls by each full inch to each target,
    # the first included (chapter 8, BlastGuns), which only the Arc's line counts
    # a FlameThrower's Arc (at least 1) sweeps a squad's figurines, each a target (T7)
    spray = auto == "blastgun" or (auto == "flamethrower" and turn.figures > 1)
    if auto is not None and (spray or turn.followers or s.arc > 1):
        return [_arc_line(fire, index, weapon, stats, out)], None
    attack = attack_of(
        turn.attacker,
        weapon,
        fire.target,
        distance=s.distance,
        height=s.height,
        situation=fire.base,
        gunner=s.gunner,
        charge=s.charge,
        options=turn.options,
    )
    return [single_line(index, name, attack, fire.target, s, out)], attack


def _explosive_lines(
    fire: _Fire, index: int, weapon: WeaponSpec, stats: WeaponStats, out: int
) -> list[Line]:
    turn, s = fire.turn, fire.turn.situation
    name = weapon_name(weapon)
    shot = explosive_shot_of(
        turn.attacker,
        weapon,
        distance=s.distance,
        height=s.height,
        situation=fire.base,
        gunner=s.gunner,
        options=turn.options,
    )
    # A Launcher's rounds fly together but each is its own attack: its own Action
    # roll and its own Explosion at its own point (chapter 8, Missile Racks; A19, T6).
    rounds = weapon.payload.per_launch if stats.damage is None and weapon.payload else 1
    shot_odds = once(partial(shot.odds, fire.target))
    scenarios = once(partial(shot.scenarios, fire.target))
    # further targets given a distance from the blast centre stand at their rings (T8)
    followers = tuple(
        BlastFollower(
            i,
            _target_view(f.unit, s, main=False),
            ring_of(f.blast_distance),
            f.figures,
            f"{float(f.blast_distance):g}",
        )
        for i, f in enumerate(turn.followers, start=1)
        if f.blast_distance is not None
    )
    reach = shot.explosion.ring_count + 1  # an Over-the-Top d10 adds a ring
    objects = ((fire.target, 0),) * turn.figures + tuple(
        (f.target, f.ring) for f in followers if f.ring < reach for _ in range(f.figures)
    )
    joint = once(partial(shot.blast_law, objects))
    lines = []
    for k in range(rounds):
        label = name if rounds == 1 else f"{name}: round {k + 1} of {rounds}"
        lines.append(
            explosive_line(
                index,
                label,
                shot,
                fire.target,
                s,
                out,
                shot_odds,
                turn.figures,
                scenarios,
                followers,
                joint,
            )
        )
    return lines


def _burst_line(fire: _Fire, index: int, weapon: WeaponSpec, out: int) -> Line:
    turn, s = fire.turn, fire.turn.situation
    if turn.followers:
        raise InvalidInput("burst", "a MachineGun fires a Burst or an Arc, not both")
    burst = burst_of(
        turn.attacker,
        weapon,
        fire.target,
        s.burst,
        situation=replace(fire.base, out_of_range=out),
        gunner=s.gunner,
        options=turn.options,
    )
    label = f"{weapon_name(weapon)}: Burst of {s.burst}"
    return volley_line(index, "burst", label, burst, s, out, fire.target)


def _arc_line(fire: _Fire, index: int, weapon: WeaponSpec, stats: WeaponStats, out: int) -> Line:
    turn, s = fire.turn, fire.turn.situation
    # a squad's figurines are targets of their own, one after another along the Arc, each
    # spanning what its target's field says (ruling T7)
    main = ArcTarget(fire.target, 0, s.distance or 0, out)
    arc_targets = [main] * turn.figures
    owners = [(0, k) for k in range(turn.figures)]
    for i, f in enumerate(turn.followers, start=1):
        f_target = _target_view(f.unit, s, main=False)
        f_out = _inches_out(f.distance, stats, s.height)
        arc_targets += [ArcTarget(f_target, f.spans, f.distance or 0, f_out)] * f.figures
        owners += [(i, k) for k in range(f.figures)]
    arc = arc_fire_of(
        turn.attacker,
        weapon,
        tuple(arc_targets),
        arc=s.arc,
        situation=fire.base,
        gunner=s.gunner,
        options=turn.options,
    )
    count = len(arc_targets)
    label = f"{weapon_name(weapon)}: Arc Fire over {count} target{'s' * (count != 1)}"
    return volley_line(index, "arc", label, arc, s, out, fire.target, tuple(owners))


def _ally_attacks(fire: _Fire) -> tuple[list[Attack], list[str]]:
    """The allies' attacks joining the Combined Attack, and who makes each."""
    turn, s = fire.turn, fire.turn.situation
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
                        fire.target,
                        distance=s.distance,
                        height=s.height,
                        situation=fire.base,
                        options=turn.options,
                    )
                )
            except InvalidInput:
                raise InvalidInput(
                    "allies",
                    f"{ally.unit.name}'s {weapon_name(weapon)} cannot join a "
                    "Combined Attack (direct attacks only)",
                ) from None
            names.append(f"{ally.unit.name}'s {weapon_name(weapon)}")
    return joined, names


def _combine(
    fire: _Fire,
    lines: list[Line],
    singles: list[tuple[int, Attack]],
    joined: list[Attack],
    names: list[str],
) -> list[Line]:
    """The lines with the single and joined attacks summed into one Combined Attack first,
    when the situation asks for it (or allies join) and there are at least two."""
    if (fire.turn.situation.combined or joined) and len(singles) + len(joined) >= 2:
        combined = CombinedAttack(tuple(att for _, att in singles) + tuple(joined))
        indexes = tuple(i for i, _ in singles)
        keep = [ln for ln in lines if ln.weapons[0] not in indexes]
        who = [weapon_name(fire.turn.attacker.weapons[i]) for i in indexes] + names
        keep.insert(0, combined_line(indexes, who, combined, fire.target))
        return keep
    if joined:
        raise InvalidInput("allies", "a Combined Attack needs a direct attack from the attacker")
    return lines
