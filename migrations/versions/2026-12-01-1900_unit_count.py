"""Unit count: a unit may stand for N identical figures (issue 14 item 10).

Existing units stand for one figure. A plain ADD COLUMN with a server default: on SQLite a
batch rebuild of ``unit`` would drop the table and, with foreign keys on, delete every
weapon. The bound (1 to 50) is checked by the builder service and the import, not by a
CHECK constraint, which SQLite could only add by that same rebuild.

Revision ID: 4e8c2a7d9b31
Revises: 7b2d4e6f8a10
Create Date: 2026-12-01 19:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "4e8c2a7d9b31"
down_revision: str | Sequence[str] | None = "7b2d4e6f8a10"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("unit", sa.Column("count", sa.Integer(), nullable=False, server_default="1"))


def downgrade() -> None:
    op.drop_column("unit", "count")
