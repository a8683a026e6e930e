"""All models, imported here so Alembic and the mappers see every table."""

from app.db.models.army import Army
from app.db.models.unit import Unit, Weapon
from app.db.models.user import ApiToken, LoginFailure, User

__all__ = ["ApiToken", "Army", "LoginFailure", "Unit", "User", "Weapon"]
