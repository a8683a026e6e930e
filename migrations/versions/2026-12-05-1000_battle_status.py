"""Battle status: a battle is open, or ended by its End battle action (issue 28).

Existing battles are open. A plain ADD COLUMN with a server default, as for the unit notes:
on SQLite a batch rebuild of ``battle`` would drop the table and, with foreign keys on,
delete every battle unit and log entry. Undo of the End battle entry reopens it.

Revision ID: 7d1f3b5c9e20
Revises: 5a7c9e1b3d24
Create Date: 2026-12-05 10:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "7d1f3b5c9e20"
down_revision: str | Sequence[str] | None = "5a7c9e1b3d24"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "battle", sa.Column("status", sa.String(length=8), nullable=False, server_default="open")
    )


def downgrade() -> None:
    op.drop_column("battle", "status")  # (not a batch: see above)
