"""Units of an army and the weapons they carry, each in the army's order.

The rules engine owns the meaning of a unit: ``spec`` holds its JSON form
(``app.rules.<ruleset>`` ``unit_to_dict`` without name, kind and weapons), exact
numbers included, so nothing is rounded on the way to the database.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.db.base import Base, TimestampMixin

if TYPE_CHECKING:
    from app.db.models.army import Army


class Unit(TimestampMixin, Base):
    __tablename__ = "unit"
    # One unit per place in the list. A unique index rather than a constraint: SQLite adds
    # it without rebuilding the table (a rebuild would cascade-delete the weapons). Moves
    # pass through negative positions (``builder._shift``): uniqueness is checked row by row.
    __table_args__ = (Index("uq_unit_army_id_position", "army_id", "position", unique=True),)

    id: Mapped[int] = mapped_column(primary_key=True)
    army_id: Mapped[int] = mapped_column(ForeignKey("army.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(120))
    kind: Mapped[str] = mapped_column(String(32))
    spec: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # How many identical figures the unit stands for (a battle fields each one apart).
    count: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    # The player's own words on the unit, whatever the ruleset ("holds the bridge"): the
    # builder's, not the ruleset's, so ``spec`` never holds them (bounded by the service).
    notes: Mapped[str] = mapped_column(Text, default="", server_default="")
    version: Mapped[int] = mapped_column(Integer, default=1)

    army: Mapped[Army] = relationship(back_populates="units", lazy="raise")
    weapons: Mapped[list[Weapon]] = relationship(
        back_populates="unit",
        lazy="raise",
        order_by="Weapon.position",
        cascade="all, delete-orphan",
        passive_deletes=True,
    )

    __mapper_args__ = {"version_id_col": version}  # noqa: RUF012


class Weapon(TimestampMixin, Base):
    __tablename__ = "weapon"
    __table_args__ = (Index("uq_weapon_unit_id_position", "unit_id", "position", unique=True),)

    id: Mapped[int] = mapped_column(primary_key=True)
    unit_id: Mapped[int] = mapped_column(ForeignKey("unit.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(40))
    spec: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    version: Mapped[int] = mapped_column(Integer, default=1)

    unit: Mapped[Unit] = relationship(back_populates="weapons", lazy="raise")

    __mapper_args__ = {"version_id_col": version}  # noqa: RUF012
