"""An army: a named roster under one ruleset, owned by one user."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import JSON, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.db.base import Base, TimestampMixin

if TYPE_CHECKING:
    from app.db.models.unit import Unit
    from app.db.models.user import User


class Army(TimestampMixin, Base):
    __tablename__ = "army"

    id: Mapped[int] = mapped_column(primary_key=True)
    owner_id: Mapped[int] = mapped_column(
        ForeignKey("user_account.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(120))
    ruleset_id: Mapped[str] = mapped_column(String(32))
    budget: Mapped[int] = mapped_column(Integer)
    notes: Mapped[str] = mapped_column(Text, default="")
    # The rule options (house rules) the army is built under, as the ruleset's to_dict().
    house_rules: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict, server_default="{}")
    # Optimistic locking: every UPDATE checks and bumps it (StaleDataError on a race).
    version: Mapped[int] = mapped_column(Integer, default=1)

    owner: Mapped[User] = relationship(back_populates="armies", lazy="raise")
    units: Mapped[list[Unit]] = relationship(
        back_populates="army",
        lazy="raise",
        order_by="Unit.position",
        cascade="all, delete-orphan",
        passive_deletes=True,
    )

    __mapper_args__ = {"version_id_col": version}  # noqa: RUF012
