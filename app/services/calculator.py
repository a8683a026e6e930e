"""Attacks between saved units: the engine's attack built from stored rosters.

The attacker's and the target's armies are each checked for read access; the odds
and rolls are the engine's (``app.rules.brikwars.attacks``), with the attacker's
army's house rules.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

from sqlalchemy.orm import Session

from app.db.models import User
from app.rules.brikwars import attacks as atk
from app.services import builder
from app.services.errors import NotFound


@dataclass(frozen=True)
class SavedSituation:
    """Where and how the attack happens (chapter 5)."""

    distance: Fraction | None = None
    height: Fraction = Fraction(0)
    visible_sections: int = 3
    firing_blind: bool = False
    outnumbered: bool = False
    gunnery_support: int = 0
    gunner: bool = False
    charge: bool = False


@dataclass(frozen=True)
class SavedAttack:
    attacker: builder.UnitView
    weapon: builder.WeaponView
    target: builder.UnitView
    attack: atk.Attack


def saved_attack(
    session: Session,
    *,
    user: User,
    attacker_army: int,
    attacker_unit: int,
    weapon_id: int,
    target_army: int,
    target_unit: int,
    situation: SavedSituation,
) -> SavedAttack:
    """The attack of one saved unit's weapon on another saved unit."""
    own = builder.army_view(session, user=user, army_id=attacker_army)
    attacker = own.unit(attacker_unit)
    weapon = next((w for w in attacker.weapons if w.row.id == weapon_id), None)
    if weapon is None:
        raise NotFound("weapon")
    theirs = (
        own
        if target_army == attacker_army
        else builder.army_view(session, user=user, army_id=target_army)
    )
    target = theirs.unit(target_unit)
    attack = atk.attack_of(
        attacker.spec,
        weapon.spec,
        atk.target_of(target.spec, visible_sections=situation.visible_sections),
        distance=situation.distance,
        height=situation.height,
        situation=atk.Situation(
            firing_blind=situation.firing_blind,
            outnumbered=situation.outnumbered,
            gunnery_support=situation.gunnery_support,
        ),
        gunner=situation.gunner,
        charge=situation.charge,
        options=own.options,
    )
    return SavedAttack(attacker, weapon, target, attack)


def roll(saved: SavedAttack, seed: int) -> atk.AttackRoll:
    """One seeded resolution: the same seed gives the same dice."""
    return saved.attack.roll(random.Random(seed))  # noqa: S311  (a replayable game roll)
