"""BrikWars attacks (chapters 5 and 8): exact odds and seeded, logged rolls.

Every attack is a frozen dataclass with ``odds()`` (the exact distribution of its outcomes,
with the ``truncation_bound`` of the Bonus-dice chains) and ``roll(rng)`` (one resolution
listing every die in the order rolled). Pure Python plus the dice core (numpy).
"""

from app.rules.brikwars.attacks.area import (
    ArcFire,
    ArcTarget,
    Burst,
    Shot,
    ShotResult,
    TargetOdds,
    VolleyOdds,
    VolleyRoll,
    roll_volley,
    volley_odds,
)
from app.rules.brikwars.attacks.build import (
    action_die_of,
    arc_fire_of,
    attack_of,
    burst_of,
    explosion_of,
    target_of,
)
from app.rules.brikwars.attacks.common import (
    ACTION_DICE,
    OUTCOMES,
    ActionRoll,
    LoggedDie,
    Outcome,
    Situation,
    Target,
    damage_pool,
    inches_out_of_range,
    over_the_top,
)
from app.rules.brikwars.attacks.explosion import (
    Explosion,
    ExplosionObject,
    ExplosionOdds,
    ExplosionRollResult,
    ObjectResult,
    RingOdds,
)
from app.rules.brikwars.attacks.melee import Collision, CollisionOdds, CollisionRoll
from app.rules.brikwars.attacks.single import (
    Attack,
    AttackOdds,
    AttackRoll,
    CombinedAttack,
    FaceOutcomes,
    Parry,
    parry_modifier,
)

__all__ = [
    "ACTION_DICE",
    "OUTCOMES",
    "ActionRoll",
    "ArcFire",
    "ArcTarget",
    "Attack",
    "AttackOdds",
    "AttackRoll",
    "Burst",
    "Collision",
    "CollisionOdds",
    "CollisionRoll",
    "CombinedAttack",
    "Explosion",
    "ExplosionObject",
    "ExplosionOdds",
    "ExplosionRollResult",
    "FaceOutcomes",
    "LoggedDie",
    "ObjectResult",
    "Outcome",
    "Parry",
    "RingOdds",
    "Shot",
    "ShotResult",
    "Situation",
    "Target",
    "TargetOdds",
    "VolleyOdds",
    "VolleyRoll",
    "action_die_of",
    "arc_fire_of",
    "attack_of",
    "burst_of",
    "damage_pool",
    "explosion_of",
    "inches_out_of_range",
    "over_the_top",
    "parry_modifier",
    "roll_volley",
    "target_of",
    "volley_odds",
]
