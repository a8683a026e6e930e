"""Cheap writes (issue 30 item 3): what a unit's change needs to be recorded without reading
the whole army or rebuilding its last revision.

- ``army.cost_exact``: the army's total cost as exact text (``"7/2"``), kept beside the float
  ``cost`` the club search filters on, so that a change adds its unit's cost difference to it
  and the float stays the correctly rounded exact sum. None until the next change of the
  army computes it from all its units (the old code's way, once).
- ``army_revision.chain_changes``, ``chain_bytes``, ``doc_bytes``: the number of changes and
  their bytes since the chain's whole document, and the size of the revision's document, so
  the next change knows whether to store itself or a whole document without rebuilding the
  chain. None on the revisions written before: the next change rebuilds them (once).

Plain nullable ADD COLUMNs: no rows are rewritten.

Revision ID: 4c7e2a9d1b63
Revises: 3e8a1c5f7b42
Create Date: 2026-12-06 09:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "4c7e2a9d1b63"
down_revision: str | Sequence[str] | None = "3e8a1c5f7b42"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

REVISION_COLUMNS = ("chain_changes", "chain_bytes", "doc_bytes")


def upgrade() -> None:
    op.add_column("army", sa.Column("cost_exact", sa.Text(), nullable=True))
    for name in REVISION_COLUMNS:
        op.add_column("army_revision", sa.Column(name, sa.Integer(), nullable=True))


def downgrade() -> None:
    # (not batches: copying the army table on SQLite would drop it, and with it every row
    # that cascades from it; SQLite drops a plain column in place since 3.35)
    for name in REVISION_COLUMNS:
        op.drop_column("army_revision", name)
    op.drop_column("army", "cost_exact")
