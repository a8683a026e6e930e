"""Army rows stamp: a random number drawn anew by every recorded change of an army
(``history.record``), the key under which each server keeps the army's computed units
(``services.builder.stored_view``), so a page view reads no units while nothing changed.

Existing armies start at 0: no server has kept anything under a stamp before this column
existed, and the next change draws a random one.

Revision ID: 3e8b6d2a9f51
Revises: 9c3f1a5e7d20
Create Date: 2026-12-02 01:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "3e8b6d2a9f51"
down_revision: str | Sequence[str] | None = "9c3f1a5e7d20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "army", sa.Column("rows_stamp", sa.BigInteger(), nullable=False, server_default="0")
    )


def downgrade() -> None:
    op.drop_column("army", "rows_stamp")  # (not a batch: copying the army table on SQLite
    # would drop it, and with it every row that cascades from it)
