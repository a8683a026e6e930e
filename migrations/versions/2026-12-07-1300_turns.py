"""Turns and the score (issue 31, deliverable 4): a battle is played ``free`` (the default) or
by ``turns`` (its round and whose turn it is); each battle unit keeps the side credited with
putting it out (the score); who is connected is a heartbeat per battle and user.

Plain ADD COLUMNs with server defaults and no foreign keys of their own, as for the battle's
status: on SQLite a batch rebuild of ``battle`` or ``battle_unit`` would drop the table and,
with foreign keys on, delete every child row (the side ids are checked by the code; a side is
only ever deleted with its battle). Existing battles are free, round 0, nobody's turn.

Revision ID: 6b2d4f8a1c37
Revises: 3e5a7c9b1d42
Create Date: 2026-12-07 13:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "6b2d4f8a1c37"
down_revision: str | Sequence[str] | None = "3e5a7c9b1d42"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "battle", sa.Column("mode", sa.String(length=8), nullable=False, server_default="free")
    )
    op.add_column("battle", sa.Column("round", sa.Integer(), nullable=False, server_default="0"))
    op.add_column("battle", sa.Column("turn_side_id", sa.Integer(), nullable=True))
    op.add_column("battle_unit", sa.Column("out_by_side_id", sa.Integer(), nullable=True))
    op.create_table(
        "battle_presence",
        sa.Column("battle_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["battle_id"],
            ["battle.id"],
            name=op.f("fk_battle_presence_battle_id_battle"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user_account.id"],
            name=op.f("fk_battle_presence_user_id_user_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("battle_id", "user_id", name=op.f("pk_battle_presence")),
    )
    with op.batch_alter_table("battle_presence", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_battle_presence_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("battle_presence", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_battle_presence_user_id"))
    op.drop_table("battle_presence")
    op.drop_column("battle_unit", "out_by_side_id")  # (not a batch: see above)
    op.drop_column("battle", "turn_side_id")
    op.drop_column("battle", "round")
    op.drop_column("battle", "mode")
