"""Unique positions: one unit per place in an army, one weapon per place on a unit;
revisions record the army's version (the base of a stale edit's three-way merge).

Existing duplicates (left by racing adds) are renumbered first, keeping the order the
pages showed: by position, then by id.

Revision ID: 3c1f0a9d2b7e
Revises: fa72e9a66851
Create Date: 2026-12-01 04:50:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "3c1f0a9d2b7e"
down_revision: str | Sequence[str] | None = "fa72e9a66851"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _renumber(table_name: str, parent_name: str) -> None:
    """Positions 0, 1, 2... within each parent, in the order (position, id)."""
    conn = op.get_bind()
    table = sa.table(table_name, sa.column("id"), sa.column(parent_name), sa.column("position"))
    row_id, parent, position = table.c.id, table.c[parent_name], table.c.position
    rows = conn.execute(sa.select(row_id, parent, position).order_by(parent, position, row_id))
    previous, place = None, 0
    changes = []
    for found_id, parent_id, found_position in rows.all():
        place = place + 1 if parent_id == previous else 0
        previous = parent_id
        if found_position != place:
            changes.append({"row_id": found_id, "place": place})
    if changes:
        conn.execute(
            table.update()
            .where(row_id == sa.bindparam("row_id"))
            .values(position=sa.bindparam("place")),
            changes,
        )


def upgrade() -> None:
    """Renumber duplicate positions, then make positions unique.

    Unique indexes, not constraints: SQLite's batch mode would rebuild the unit table,
    and dropping the old one cascades to every weapon (foreign keys are on).
    """
    _renumber("unit", "army_id")
    _renumber("weapon", "unit_id")
    op.create_index("uq_unit_army_id_position", "unit", ["army_id", "position"], unique=True)
    op.create_index("uq_weapon_unit_id_position", "weapon", ["unit_id", "position"], unique=True)
    with op.batch_alter_table("army_revision", schema=None) as batch_op:
        batch_op.add_column(sa.Column("army_version", sa.Integer(), nullable=True))


def downgrade() -> None:
    """Drop the unique indexes (positions stay renumbered) and the revisions' versions."""
    with op.batch_alter_table("army_revision", schema=None) as batch_op:
        batch_op.drop_column("army_version")
    op.drop_index("uq_weapon_unit_id_position", table_name="weapon")
    op.drop_index("uq_unit_army_id_position", table_name="unit")
