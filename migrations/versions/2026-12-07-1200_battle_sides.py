"""Battle sides and players (issue 31): a battle's sides get a table of their own, each played
by a player or by the host (the battle's owner), and players are invited by link or as club
members (``battle_invite``).

Each existing battle gets one side per distinct side name of its units, in the order of their
first unit, named as before, played by the host (``player_id`` NULL), with the army of its
first unit; every battle unit points at its side, and the name moves there from
``battle_unit.side``. Only ``battle_unit`` is rebuilt (nothing references it): on SQLite a batch
rebuild drops the old table, and with foreign keys on that would delete every child row of a
parent table. Downgrade writes each unit's side name back.

Revision ID: 3e5a7c9b1d42
Revises: 4c7e2a9d1b63
Create Date: 2026-12-07 12:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "3e5a7c9b1d42"
down_revision: str | Sequence[str] | None = "4c7e2a9d1b63"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

battle = sa.table("battle", sa.column("id", sa.Integer()), sa.column("created_at", sa.DateTime()))
battle_unit = sa.table(
    "battle_unit",
    sa.column("id", sa.Integer()),
    sa.column("battle_id", sa.Integer()),
    sa.column("position", sa.Integer()),
    sa.column("army_id", sa.Integer()),
    sa.column("side", sa.String()),
    sa.column("side_id", sa.Integer()),
)
battle_side = sa.table(
    "battle_side",
    sa.column("id", sa.Integer()),
    sa.column("battle_id", sa.Integer()),
    sa.column("position", sa.Integer()),
    sa.column("name", sa.String()),
    sa.column("player_id", sa.Integer()),
    sa.column("army_id", sa.Integer()),
    sa.column("joined_at", sa.DateTime(timezone=True)),
)


def upgrade() -> None:
    op.create_table(
        "battle_side",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("battle_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("army_id", sa.Integer(), nullable=True),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["army_id"], ["army.id"], name=op.f("fk_battle_side_army_id_army"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["battle_id"],
            ["battle.id"],
            name=op.f("fk_battle_side_battle_id_battle"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["user_account.id"],
            name=op.f("fk_battle_side_player_id_user_account"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_battle_side")),
        sa.UniqueConstraint("battle_id", "position", name=op.f("uq_battle_side_battle_id")),
    )
    with op.batch_alter_table("battle_side", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_battle_side_army_id"), ["army_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_battle_side_player_id"), ["player_id"], unique=False)
    op.create_table(
        "battle_invite",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("battle_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=True),
        sa.Column("invited_user_id", sa.Integer(), nullable=True),
        sa.Column("created_by_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["battle_id"],
            ["battle.id"],
            name=op.f("fk_battle_invite_battle_id_battle"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["created_by_id"],
            ["user_account.id"],
            name=op.f("fk_battle_invite_created_by_id_user_account"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["invited_user_id"],
            ["user_account.id"],
            name=op.f("fk_battle_invite_invited_user_id_user_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_battle_invite")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_battle_invite_token_hash")),
    )
    with op.batch_alter_table("battle_invite", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_battle_invite_battle_id"), ["battle_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_battle_invite_invited_user_id"), ["invited_user_id"], unique=False
        )

    op.add_column("battle_unit", sa.Column("side_id", sa.Integer(), nullable=True))
    conn = op.get_bind()
    rows = conn.execute(
        sa.select(battle_unit.c.battle_id, battle_unit.c.side, battle_unit.c.army_id).order_by(
            battle_unit.c.battle_id, battle_unit.c.position, battle_unit.c.id
        )
    ).all()
    seen: dict[tuple[int, str], int] = {}
    count: dict[int, int] = {}
    for battle_id, name, army_id in rows:
        if (battle_id, name) in seen:
            continue
        position = count.get(battle_id, 0)
        count[battle_id] = position + 1
        side_id = conn.execute(
            battle_side.insert()
            .values(
                battle_id=battle_id,
                position=position,
                name=name,
                player_id=None,  # the host plays every side of a battle made before players
                army_id=army_id,
                joined_at=sa.select(battle.c.created_at)
                .where(battle.c.id == battle_id)
                .scalar_subquery(),
            )
            .returning(battle_side.c.id)
        ).scalar_one()
        seen[(battle_id, name)] = side_id
        conn.execute(
            battle_unit.update()
            .where(battle_unit.c.battle_id == battle_id, battle_unit.c.side == name)
            .values(side_id=side_id)
        )
    with op.batch_alter_table("battle_unit", schema=None) as batch_op:
        batch_op.alter_column("side_id", existing_type=sa.Integer(), nullable=False)
        batch_op.create_index(batch_op.f("ix_battle_unit_side_id"), ["side_id"], unique=False)
        batch_op.create_foreign_key(
            batch_op.f("fk_battle_unit_side_id_battle_side"),
            "battle_side",
            ["side_id"],
            ["id"],
            ondelete="CASCADE",
        )
        batch_op.drop_column("side")


def downgrade() -> None:
    op.add_column("battle_unit", sa.Column("side", sa.String(length=120), nullable=True))
    conn = op.get_bind()
    names = sa.select(battle_side.c.name).where(battle_side.c.id == battle_unit.c.side_id)
    conn.execute(battle_unit.update().values(side=names.scalar_subquery()))
    with op.batch_alter_table("battle_unit", schema=None) as batch_op:
        batch_op.drop_constraint("fk_battle_unit_side_id_battle_side", type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_battle_unit_side_id"))
        batch_op.drop_column("side_id")
        batch_op.alter_column("side", existing_type=sa.String(length=120), nullable=False)
    with op.batch_alter_table("battle_invite", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_battle_invite_invited_user_id"))
        batch_op.drop_index(batch_op.f("ix_battle_invite_battle_id"))
    op.drop_table("battle_invite")
    with op.batch_alter_table("battle_side", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_battle_side_player_id"))
        batch_op.drop_index(batch_op.f("ix_battle_side_army_id"))
    op.drop_table("battle_side")
