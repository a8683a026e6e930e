"""An army: a named roster under one ruleset, owned by one user."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.db.base import Base, TimestampMixin

if TYPE_CHECKING:
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
    # Optimistic locking: every UPDATE checks and bumps it (StaleDataError on a race).
    version: Mapped[int] = mapped_column(Integer, default=1)

    owner: Mapped[User] = relationship(back_populates="armies", lazy="raise")

    __mapper_args__ = {"version_id_col": version}  # noqa: RUF012
