"""Ruleset-neutral battles: each battle names its ruleset, a battle unit's state is one JSON
column written by its ruleset's engine, and club house rules are kept per ruleset.

Existing battles are BrikWars battles; the nine BrikWars state columns become the JSON of
``app.rules.brikwars.battle_state.state_to_dict`` (the shape log entries already keep before
and after, so old entries still undo). Clubs' pinned options become ``{"brikwars": options}``.

No parent table is rebuilt: on SQLite a batch rebuild drops the old table, and with foreign
keys on that deletes every child row (battle -> battle_unit, battle_entry). ``battle`` gets
its column by a plain ADD COLUMN; only ``battle_unit`` is rebuilt, and nothing references it
but its own (dropped) ``homed_on_id``.

Revision ID: 7b2d4e6f8a10
Revises: 3c1f5a9e7d20
Create Date: 2026-12-01 10:30:00

"""

import json
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "7b2d4e6f8a10"
down_revision: str | Sequence[str] | None = "3c1f5a9e7d20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BRIKWARS = "brikwars"
# The BrikWars state columns, in the order of the state's JSON keys.
STATE_COLUMNS = (
    "size_damage",
    "destroyed",
    "on_fire",
    "inoperative",
    "diverted_turns",
    "homing_in",
    "homed_on_id",
    "homed_weapons",
    "limbs_lost",
)

battle_unit = sa.table(
    "battle_unit",
    sa.column("id", sa.Integer()),
    sa.column("state", sa.JSON()),
    sa.column("size_damage", sa.String()),
    sa.column("destroyed", sa.Boolean()),
    sa.column("on_fire", sa.Boolean()),
    sa.column("inoperative", sa.JSON()),
    sa.column("diverted_turns", sa.Integer()),
    sa.column("homing_in", sa.Integer()),
    sa.column("homed_on_id", sa.Integer()),
    sa.column("homed_weapons", sa.JSON()),
    sa.column("limbs_lost", sa.Integer()),
)
club = sa.table("club", sa.column("id", sa.Integer()), sa.column("house_rules", sa.JSON()))


def _size_damage_json(text: str | None) -> int | str:
    """The stored text was the engine's exact number text: whole numbers become JSON ints
    (as ``number_to_json`` writes them), others ("1.5", "1/3") stay as they are."""
    value = Fraction(text or "0")
    return int(value) if value.denominator == 1 else str(text)


def _loaded(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _state_of(row: Any) -> dict[str, Any]:
    return {
        "size_damage": _size_damage_json(row.size_damage),
        "destroyed": bool(row.destroyed),
        "on_fire": bool(row.on_fire),
        "inoperative": sorted(int(i) for i in _loaded(row.inoperative) or ()),
        "diverted_turns": int(row.diverted_turns or 0),
        "homing_in": int(row.homing_in or 0),
        "homed_on": row.homed_on_id,
        "homed_weapons": [int(i) for i in _loaded(row.homed_weapons) or ()],
        "limbs_lost": int(row.limbs_lost or 0),
    }


def _columns_of(state: dict[str, Any]) -> dict[str, Any]:
    return {
        "size_damage": str(state.get("size_damage", 0)),
        "destroyed": bool(state.get("destroyed", False)),
        "on_fire": bool(state.get("on_fire", False)),
        "inoperative": list(state.get("inoperative", [])),
        "diverted_turns": int(state.get("diverted_turns", 0)),
        "homing_in": int(state.get("homing_in", 0)),
        "homed_on_id": state.get("homed_on"),
        "homed_weapons": list(state.get("homed_weapons", [])),
        "limbs_lost": int(state.get("limbs_lost", 0)),
    }


def _rewrite_house_rules(change: Any) -> None:
    conn = op.get_bind()
    for club_id, rules in conn.execute(sa.select(club.c.id, club.c.house_rules)).all():
        rules = _loaded(rules) or {}
        new = change(rules)
        if new != rules:
            conn.execute(club.update().where(club.c.id == club_id).values(house_rules=new))


def upgrade() -> None:
    """Add ``battle.ruleset_id`` and ``battle_unit.state``, carry the state over, drop the
    BrikWars columns, and key the clubs' house rules by ruleset."""
    conn = op.get_bind()
    op.add_column(
        "battle",
        sa.Column("ruleset_id", sa.String(length=40), nullable=False, server_default=BRIKWARS),
    )
    if conn.dialect.name != "sqlite":  # (SQLite cannot drop a default without a rebuild)
        op.alter_column("battle", "ruleset_id", server_default=None)

    op.add_column("battle_unit", sa.Column("state", sa.JSON(), nullable=True))
    rows = conn.execute(sa.select(battle_unit.c.id, *(battle_unit.c[c] for c in STATE_COLUMNS)))
    for row in rows.all():
        conn.execute(
            battle_unit.update().where(battle_unit.c.id == row.id).values(state=_state_of(row))
        )
    with op.batch_alter_table("battle_unit", schema=None) as batch_op:
        batch_op.alter_column("state", existing_type=sa.JSON(), nullable=False)
        batch_op.drop_constraint("fk_battle_unit_homed_on_id_battle_unit", type_="foreignkey")
        for name in STATE_COLUMNS:
            batch_op.drop_column(name)

    _rewrite_house_rules(lambda rules: {BRIKWARS: rules} if rules else {})


def downgrade() -> None:
    """Back to the BrikWars columns (the state's JSON spread over them) and one options dict
    per club (its BrikWars house rules; those of other rulesets are lost)."""
    conn = op.get_bind()
    _rewrite_house_rules(lambda rules: dict(rules.get(BRIKWARS) or {}))

    with op.batch_alter_table("battle_unit", schema=None) as batch_op:
        batch_op.add_column(sa.Column("size_damage", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("destroyed", sa.Boolean(), nullable=True))
        batch_op.add_column(sa.Column("on_fire", sa.Boolean(), nullable=True))
        batch_op.add_column(sa.Column("inoperative", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("diverted_turns", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("homing_in", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("homed_on_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("homed_weapons", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("limbs_lost", sa.Integer(), nullable=True))
    unit_ids = set(conn.execute(sa.select(battle_unit.c.id)).scalars())
    homed_on: dict[int, int | None] = {}
    for unit_id, state in conn.execute(sa.select(battle_unit.c.id, battle_unit.c.state)).all():
        values = _columns_of(_loaded(state) or {})
        if values["homed_on_id"] not in unit_ids:  # the foreign key comes back
            values["homed_on_id"] = None
        homed_on[unit_id] = values["homed_on_id"]
        conn.execute(battle_unit.update().where(battle_unit.c.id == unit_id).values(**values))
    with op.batch_alter_table("battle_unit", schema=None) as batch_op:
        for name in STATE_COLUMNS:
            if name != "homed_on_id":
                batch_op.alter_column(name, nullable=False)
        batch_op.create_foreign_key(
            "fk_battle_unit_homed_on_id_battle_unit",
            "battle_unit",
            ["homed_on_id"],
            ["id"],
            ondelete="SET NULL",
        )
        batch_op.drop_column("state")
    # SQLite's rebuild drops the old table after copying it, and the copy's new foreign key
    # (ON DELETE SET NULL) empties every homed_on_id: set them again.
    for unit_id, target in homed_on.items():
        if target is not None:
            conn.execute(
                battle_unit.update().where(battle_unit.c.id == unit_id).values(homed_on_id=target)
            )

    # A plain DROP COLUMN (SQLite 3.35+), not a batch rebuild of the parent table.
    op.drop_column("battle", "ruleset_id")
