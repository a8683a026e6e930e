"""One Degrees shot against one target: the d10 against the final degree, the damage the
natural roll deals and where it lands (RULINGS 2.1-2.2 and the types of 9.5).

Everything is a function of the dice: ``resolve`` gives the target's state after a shot from
its natural roll and, where the shot rolls a second die (a punch gun's penetrating roll, a
stun gun's break-free roll), that one too. The odds (``outcomes``) enumerate the same dice,
so a seeded roll and the exact odds cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from app.rules.degrees.catalogue import SENSES, WeaponType

D10 = 10
INVERTED_DAMAGE = 10  # an AM converter's natural 1 reads as the d10's 10 (rulings)
SENSE_COUNT = len(SENSES)


class Target(NamedTuple):
    """What a target has left: front Armour, back-line Armour, HP; the AP it has lost in
    this attack, whether it is restrained, how many senses (of its order) are dampened and
    whether it is suppressed (a dousing rod's hit)."""

    armour: int
    back_armour: int
    hp: int
    ap_lost: int = 0
    restrained: bool = False
    dampened: int = 0
    suppressed: bool = False


def succeeds(natural: int, degree: int, inverted: bool = False) -> bool:
    """A roll against ``degree``: a natural roll of the degree or less (never at 0 or below,
    always at 10 or above); an inverted roll (AM converters) only on a natural 1."""
    if degree <= 0:
        return False
    if inverted:
        return natural == 1
    return natural <= degree


def chance(degree: int, inverted: bool = False) -> float:
    """P(a roll against ``degree`` succeeds)."""
    if degree <= 0:
        return 0.0
    if inverted:
        return 1 / D10
    return min(degree, D10) / D10


@dataclass(frozen=True, slots=True)
class Shot:
    """A shot as rolled: its final degree and the rules of its type that decide the damage.

    ``penetrate``: the attacker takes the back line when that is worse for the target
    (False: always the front). ``break_free``: the target tries a raw 1 against a stun gun's
    restraint."""

    degree: int
    penetrates_on: int = 1
    never_penetrates: bool = False
    first_point_back: bool = False
    punch: bool = False
    penetrate_penalty: int = 0
    drains_ap: bool = False
    restrains: bool = False
    back_line_bonus: int = 0
    senses: bool = False
    inverted: bool = False
    penetrate: bool = True
    break_free: bool = False
    suppresses: bool = False
    # house rule ``nociception_at_hit``: the target's Nociception's place in its order (a
    # hit that dampens it costs that many AP more at once; 0: not charged at the hit)
    nociception: int = 0

    @classmethod
    def of(
        cls, kind: WeaponType, degree: int, *, penetrate: bool = True, break_free: bool = False
    ) -> Shot:
        """A shot with a weapon type's rules at ``degree``."""
        return cls(
            degree=degree,
            penetrates_on=kind.penetrates_on,
            never_penetrates=kind.never_penetrates,
            first_point_back=kind.first_point_back,
            punch=kind.punch,
            penetrate_penalty=kind.penetrate_penalty,
            drains_ap=kind.drains_ap,
            restrains=kind.restrains,
            back_line_bonus=kind.back_line_bonus,
            senses=kind.senses,
            inverted=kind.inverted,
            penetrate=penetrate,
            break_free=break_free and kind.restrains,
            suppresses=kind.suppresses,
        )

    def hits(self, natural: int) -> bool:
        return succeeds(natural, self.degree, self.inverted)

    def damage(self, natural: int) -> int:
        """The damage (or AP) a hit on ``natural`` deals, before a stun gun's back-line +1."""
        return INVERTED_DAMAGE if self.inverted else natural

    def penetrating(self, natural: int) -> bool:
        """May the hit on ``natural`` go to the back line?"""
        return (
            not self.never_penetrates
            and not self.inverted
            and self.penetrates_on > 0
            and natural <= self.penetrates_on
        )


def on_back(target: Target, damage: int) -> Target:
    """``damage`` on the back line: back-line Armour first, then HP."""
    if damage <= 0:
        return target
    absorbed = min(target.back_armour, damage)
    return target._replace(
        back_armour=target.back_armour - absorbed, hp=max(0, target.hp - (damage - absorbed))
    )


def on_front(target: Target, damage: int) -> Target:
    """``damage`` on the front: front Armour first, the rest to the back line."""
    if damage <= 0:
        return target
    absorbed = min(target.armour, damage)
    return on_back(target._replace(armour=target.armour - absorbed), damage - absorbed)


def harm(target: Target) -> tuple[bool, int, int]:
    """How badly off a target is, larger is worse: destroyed, then HP lost (as -HP), then
    Armour lost (as -Armour)."""
    return (target.hp == 0, -target.hp, -(target.armour + target.back_armour))


def _punch_back(shot: Shot, target: Target, damage: int) -> bool:
    """Does the attacker go for the back line with a punch gun's penetrating hit of
    ``damage`` (``penetrate``)?
    Only when that is worse for the target in expectation: P(destroyed), then E[HP lost],
    then E[Armour lost]. Never when the penetrating roll's degree is 0 or less: it cannot
    succeed (RULINGS 2.1), so no second die is rolled and the point stays on the front."""
    if not shot.penetrate or shot.degree - shot.penetrate_penalty <= 0:
        return False
    front = on_front(target, damage)
    back = on_back(target, damage)
    q = chance(shot.degree - shot.penetrate_penalty)

    def expected(after: Target, p: float) -> tuple[float, float, float]:
        lost_armour = (target.armour + target.back_armour) - (after.armour + after.back_armour)
        return (p * (after.hp == 0), p * (target.hp - after.hp), p * lost_armour)

    return expected(back, q) > expected(front, 1.0)


def punch_front(shot: Shot, target: Target, natural: int) -> str:
    """Why a punch gun's penetrating hit on ``natural`` stays on the front line, in words for
    the roll ('' when it is not such a hit, or the attacker makes the penetrating roll)."""
    if not (shot.punch and shot.penetrate and shot.hits(natural) and shot.penetrating(natural)):
        return ""
    if _punch_back(shot, target, shot.damage(natural)):
        return ""
    against = shot.degree - shot.penetrate_penalty
    if against <= 0:
        return f"the point on the front: a back-line roll at {against}° cannot succeed"
    return f"the point on the front: safer than a back-line roll at {against}°"


def second_die(shot: Shot, target: Target, natural: int) -> str:
    """The purpose of the second d10 the shot rolls after ``natural`` ('' when none)."""
    if not shot.hits(natural):
        return ""
    if shot.punch and shot.penetrating(natural) and _punch_back(shot, target, natural):
        return "penetrate"
    if shot.restrains and shot.break_free:
        return "break_free"
    return ""


def resolve(shot: Shot, target: Target, natural: int, second: int = 0) -> Target:
    """The target after the shot rolls ``natural`` (and ``second``, where ``second_die``
    asks for one); a dousing rod's hit also suppresses it ("Suppresses on any hit")."""
    after = _resolve(shot, target, natural, second)
    if shot.suppresses and shot.hits(natural):
        return after._replace(suppressed=True)
    return after


def _resolve(shot: Shot, target: Target, natural: int, second: int) -> Target:
    if not shot.hits(natural):
        return target
    damage = shot.damage(natural)
    if shot.drains_ap:
        back = shot.penetrate and shot.penetrating(natural)
        lost = damage + (shot.back_line_bonus if back else 0)
        after = target._replace(ap_lost=target.ap_lost + lost)
        if shot.senses:
            after = after._replace(dampened=max(after.dampened, min(damage, SENSE_COUNT)))
            if target.dampened < shot.nociception <= after.dampened:
                after = after._replace(ap_lost=after.ap_lost + shot.nociception)
        if shot.restrains:
            freed = shot.break_free and second == 1
            after = after._replace(restrained=target.restrained or not freed)
        if back and shot.back_line_bonus:
            after = after._replace(hp=max(0, after.hp - 1))
        return after
    if shot.punch and shot.penetrating(natural):
        # the penetrating attack is a second roll at -2° (RULINGS 2.2): never a free back-line
        # hit; not tried (the point stays on the front) where it cannot succeed or is not worth it
        if not _punch_back(shot, target, damage):
            return on_front(target, damage)
        if succeeds(second, shot.degree - shot.penetrate_penalty):
            return on_back(target, damage)
        return target
    if shot.first_point_back:
        front = on_front(on_back(target, 1), damage - 1)
    else:
        front = on_front(target, damage)
    if shot.penetrate and shot.penetrating(natural):
        all_back = on_back(target, damage)
        if harm(all_back) > harm(front):
            return all_back
    return front


@lru_cache(maxsize=65536)
def outcomes(shot: Shot, target: Target) -> tuple[tuple[float, Target, int], ...]:
    """Every (probability, target after, damage dealt: 0 on a miss) of the shot, equal
    outcomes merged; enumerates the d10s ``resolve`` reads."""
    merged: dict[tuple[Target, int], float] = {}
    for natural in range(1, D10 + 1):
        hit = shot.hits(natural)
        dealt = shot.damage(natural) if hit else 0
        if second_die(shot, target, natural):
            for second in range(1, D10 + 1):
                key = (resolve(shot, target, natural, second), dealt)
                merged[key] = merged.get(key, 0.0) + 1 / (D10 * D10)
        else:
            key = (resolve(shot, target, natural), dealt)
            merged[key] = merged.get(key, 0.0) + 1 / D10
    return tuple((p, after, dealt) for (after, dealt), p in merged.items())
