"""A battle's log only grows (issue 31, deliverable 2): Undo is an entry of its own, and the
entry it undid stays, marked with the undo's number (``battle_entry.undone_by_seq``).

A nullable column, so every existing entry stands as it is (none was undone: Undo used to
delete). A plain ADD COLUMN, as for the battle status: a batch rebuild on SQLite would drop
the table.

Revision ID: 3e8a1c5f7b42
Revises: 9b2d4f6a8c31
Create Date: 2026-12-07 11:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "3e8a1c5f7b42"
down_revision: str | Sequence[str] | None = "9b2d4f6a8c31"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("battle_entry", sa.Column("undone_by_seq", sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column("battle_entry", "undone_by_seq")  # (not a batch: see above)
