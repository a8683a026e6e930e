"""Army cost: each army's total cost kept on its row, so a club's roster search filters by
cost in SQL, and an index that lists a club's rosters by name a page at a time (issue 15
item 4: a club of 10,000 rosters).

``history.record`` keeps it from now on; this fills it for the armies that exist, costing
their units with the rules engine (pure: values in, values out) from rows read as plain SQL,
so the migration does not depend on the app's models as they will later be. An army whose
ruleset this server does not know, or whose units its ruleset now refuses, keeps None (the
cost filter leaves it out; the next change to it fills it).

Revision ID: 9c3f1a5e7d20
Revises: 5a9d3c7e1f42
Create Date: 2026-12-01 20:00:00

"""

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "9c3f1a5e7d20"
down_revision: str | Sequence[str] | None = "5a9d3c7e1f42"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 500


def _json(value: Any) -> Any:
    # SQLite hands JSON columns back as text; PostgreSQL's driver parses them.
    return json.loads(value) if isinstance(value, str) else value


def _costs(conn: sa.Connection, armies: list[Any]) -> dict[int, float]:
    from app.rules.errors import RulesError
    from app.rules.registry import RULESETS

    ids = [army.id for army in armies]
    weapons: dict[int, list[dict[str, Any]]] = {}
    for unit_id, w_type, spec in conn.execute(
        sa.text(
            "SELECT w.unit_id, w.type, w.spec FROM weapon w JOIN unit u ON u.id = w.unit_id "
            "WHERE u.army_id IN :ids ORDER BY w.unit_id, w.position"
        ).bindparams(sa.bindparam("ids", expanding=True)),
        {"ids": ids},
    ):
        weapons.setdefault(unit_id, []).append({"type": w_type, **_json(spec)})
    units: dict[int, list[tuple[dict[str, Any], int]]] = {}
    for army_id, unit_id, name, kind, spec, count in conn.execute(
        sa.text(
            "SELECT army_id, id, name, kind, spec, count FROM unit WHERE army_id IN :ids "
            "ORDER BY army_id, position"
        ).bindparams(sa.bindparam("ids", expanding=True)),
        {"ids": ids},
    ):
        unit = {"name": name, "kind": kind, **_json(spec), "weapons": weapons.get(unit_id, [])}
        units.setdefault(army_id, []).append((unit, count))
    costs = {}
    for army in armies:
        rules = RULESETS.get(army.ruleset_id)
        if rules is None:
            continue
        try:
            options = rules.decode_options(_json(army.house_rules) or {})
            total = sum(
                (
                    rules.unit_figures(rules.decode_unit(unit), options).cost * count
                    for unit, count in units.get(army.id, [])
                ),
                0,
            )
            costs[army.id] = float(total)
        except (RulesError, OverflowError):
            continue
    return costs


def upgrade() -> None:
    op.add_column("army", sa.Column("cost", sa.Float(), nullable=True))
    op.create_index("ix_army_club_id_name", "army", ["club_id", "name", "id"])
    conn = op.get_bind()
    last = 0
    while True:
        armies = list(
            conn.execute(
                sa.text(
                    "SELECT id, ruleset_id, house_rules FROM army WHERE id > :last "
                    "ORDER BY id LIMIT :batch"
                ),
                {"last": last, "batch": BATCH},
            )
        )
        if not armies:
            break
        for army_id, cost in _costs(conn, armies).items():
            conn.execute(
                sa.text("UPDATE army SET cost = :cost WHERE id = :id"),
                {"cost": cost, "id": army_id},
            )
        last = armies[-1].id


def downgrade() -> None:
    op.drop_index("ix_army_club_id_name", table_name="army")
    op.drop_column("army", "cost")
