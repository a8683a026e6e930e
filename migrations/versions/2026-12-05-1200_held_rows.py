"""Rows an account holds: counters of its armies' units and weapons and its battles' log
entries (issue 30 F5), kept by the app in the same transaction as each insert and delete.

Existing accounts get their counts now (one UPDATE with a COUNT for each). Plain ADD COLUMNs
with a server default, as for the battle status: a batch rebuild of ``user_account`` on
SQLite would drop the table and, with foreign keys on, everything that hangs on it.

Revision ID: 9b2d4f6a8c31
Revises: 7d1f3b5c9e20
Create Date: 2026-12-05 12:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "9b2d4f6a8c31"
down_revision: str | Sequence[str] | None = "7d1f3b5c9e20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = ("held_units", "held_weapons", "held_entries")


def upgrade() -> None:
    for name in COLUMNS:
        op.add_column(
            "user_account", sa.Column(name, sa.Integer(), nullable=False, server_default="0")
        )
    op.execute(
        "UPDATE user_account SET"
        " held_units = (SELECT COUNT(*) FROM unit JOIN army ON army.id = unit.army_id"
        " WHERE army.owner_id = user_account.id),"
        " held_weapons = (SELECT COUNT(*) FROM weapon JOIN unit ON unit.id = weapon.unit_id"
        " JOIN army ON army.id = unit.army_id WHERE army.owner_id = user_account.id),"
        " held_entries = (SELECT COUNT(*) FROM battle_entry"
        " JOIN battle ON battle.id = battle_entry.battle_id"
        " WHERE battle.owner_id = user_account.id)"
    )


def downgrade() -> None:
    for name in reversed(COLUMNS):
        op.drop_column("user_account", name)  # (not a batch: see above)
