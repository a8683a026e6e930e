"""Unit notes: every unit, in every ruleset, has the player's own free text (issue 26).

Existing units get empty notes. A plain ADD COLUMN with a server default, as for the unit
count: on SQLite a batch rebuild of ``unit`` would drop the table and, with foreign keys on,
delete every weapon. The bound (``army_rows.MAX_NOTES`` characters) is checked by the
builder service and the import, not by a CHECK constraint.

Revision ID: 5a7c9e1b3d24
Revises: 3e8b6d2a9f51
Create Date: 2026-12-04 22:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5a7c9e1b3d24"
down_revision: str | Sequence[str] | None = "3e8b6d2a9f51"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("unit", sa.Column("notes", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    op.drop_column("unit", "notes")  # (not a batch: see above)
