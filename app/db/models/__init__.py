"""All models, imported here so Alembic and the mappers see every table."""

from app.db.models.army import Army, ArmyEditor, ArmyRevision, ShareLink
from app.db.models.battle import (
    Battle,
    BattleEntry,
    BattleInvite,
    BattlePresence,
    BattleSide,
    BattleUnit,
)
from app.db.models.club import Club, ClubInvite, ClubMember
from app.db.models.rate_limit import RateLimitBucket
from app.db.models.unit import Unit, Weapon
from app.db.models.user import ApiToken, LoginFailure, SignupAttempt, User, UserSession

__all__ = [
    "ApiToken",
    "Army",
    "ArmyEditor",
    "ArmyRevision",
    "Battle",
    "BattleEntry",
    "BattleInvite",
    "BattlePresence",
    "BattleSide",
    "BattleUnit",
    "Club",
    "ClubInvite",
    "ClubMember",
    "LoginFailure",
    "RateLimitBucket",
    "ShareLink",
    "SignupAttempt",
    "Unit",
    "User",
    "UserSession",
    "Weapon",
]
