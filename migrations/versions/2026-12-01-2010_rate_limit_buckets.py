"""Rate-limit token buckets in the database, shared by every app server.

Revision ID: 5a9d3c7e1f42
Revises: 9d3b6f1c2e47
Create Date: 2026-12-01 20:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5a9d3c7e1f42"
down_revision: str | Sequence[str] | None = "9d3b6f1c2e47"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    # Disposable state written on every calculator request: UNLOGGED on PostgreSQL skips the
    # write-ahead log (and its flush at each commit); a crash empties it, which lets clients
    # start again with a full bucket.
    unlogged = ["UNLOGGED"] if op.get_bind().dialect.name == "postgresql" else []
    op.create_table(
        "rate_limit_bucket",
        sa.Column("key", sa.String(length=100), nullable=False),
        sa.Column("tokens", sa.Float(), nullable=False),
        sa.Column("taken", sa.Integer(), nullable=False),
        sa.Column("drawn_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_rate_limit_bucket")),
        prefixes=unlogged,
    )
    op.create_index(op.f("ix_rate_limit_bucket_drawn_at"), "rate_limit_bucket", ["drawn_at"])


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_index(op.f("ix_rate_limit_bucket_drawn_at"), table_name="rate_limit_bucket")
    op.drop_table("rate_limit_bucket")
