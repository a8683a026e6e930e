"""Revisions as changes (issue 15 item 1): a revision holds the whole document or the
change from its parent revision.

Upgrade: existing revisions (each a whole document) are carried across exactly: each army's,
oldest first, become changes as the app now records them (a whole document every 50, or
when the changes outweigh it), wherever that reads back to the very same text: a document
in the layout the app writes, following one such. Any other stays whole as it was. The index
on ``army_id`` becomes one on ``(army_id, id)``: an army's newest revision, and a chain of
revisions by range.

Downgrade: each change is rebuilt into the whole document it stands for (in id order, a
parent before its children), then the new columns go. Self-contained: the few lines that
rebuild a document are copied here, as the app's code may change later.

Revision ID: 9d3b6f1c2e47
Revises: 4e8c2a7d9b31
Create Date: 2026-12-01 20:00:00

"""

import json
import re
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "9d3b6f1c2e47"
down_revision: str | Sequence[str] | None = "4e8c2a7d9b31"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ONE_FORM = "(snapshot_json IS NULL) <> (delta_json IS NULL)"


def upgrade() -> None:
    with op.batch_alter_table("army_revision", schema=None) as batch_op:
        batch_op.add_column(sa.Column("delta_json", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("unit_lengths", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("parent_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("base_id", sa.Integer(), nullable=True))
        batch_op.alter_column("snapshot_json", existing_type=sa.Text(), nullable=True)
        batch_op.create_check_constraint("one_form", ONE_FORM)
        batch_op.drop_index("ix_army_revision_army_id")
        batch_op.create_index("ix_army_revision_army_id_id", ["army_id", "id"], unique=False)
    _compact(op.get_bind())


# As app/services/history.py CHAIN on 2026-12-01.
CHAIN = 50


def _compact(conn: sa.Connection) -> None:
    """Each army's revisions, oldest first, become changes where that reads back exactly:
    a document in the layout the app writes, following one such. The first of a chain, and
    any other layout, stays the whole document (with its units' lengths when it can have
    them)."""
    revisions = sa.table(
        "army_revision",
        sa.column("id", sa.Integer()),
        sa.column("army_id", sa.Integer()),
        sa.column("snapshot_json", sa.Text()),
        sa.column("delta_json", sa.Text()),
        sa.column("unit_lengths", sa.Text()),
        sa.column("parent_id", sa.Integer()),
        sa.column("base_id", sa.Integer()),
    )
    army_ids = conn.execute(sa.select(revisions.c.army_id).distinct()).scalars().all()
    for army_id in army_ids:
        parent = None  # (id, base id, head, units, changes, bytes of changes) of a chain
        for rev_id, text in conn.execute(
            sa.select(revisions.c.id, revisions.c.snapshot_json)
            .where(revisions.c.army_id == army_id)
            .order_by(revisions.c.id)
        ).all():
            head, units = _split(text)
            if _join(head, units) != text:
                parent = None  # kept whole as it was, and no chain starts on it
                continue
            change = None
            if parent is not None and parent[4] + 1 < CHAIN:
                change = _change(parent[2], parent[3], head, units)
                if parent[5] + len(change) > len(head) + sum(len(u) + 1 for u in units):
                    change = None
            if change is None or parent is None:
                lengths = json.dumps([len(u) for u in units], separators=(",", ":"))
                values: dict[str, object] = {"unit_lengths": lengths}
                parent = (rev_id, rev_id, head, units, 0, 0)
            else:
                values = {
                    "snapshot_json": None,
                    "delta_json": change,
                    "parent_id": parent[0],
                    "base_id": parent[1],
                }
                parent = (rev_id, parent[1], head, units, parent[4] + 1, parent[5] + len(change))
            conn.execute(revisions.update().where(revisions.c.id == rev_id).values(**values))


def downgrade() -> None:
    conn = op.get_bind()
    revisions = sa.table(
        "army_revision",
        sa.column("id", sa.Integer()),
        sa.column("parent_id", sa.Integer()),
        sa.column("snapshot_json", sa.Text()),
        sa.column("delta_json", sa.Text()),
    )
    documents: dict[int, tuple[str, list[str]]] = {}
    changes = conn.execute(
        sa.select(revisions.c.id, revisions.c.parent_id, revisions.c.delta_json)
        .where(revisions.c.delta_json.is_not(None))
        .order_by(revisions.c.id)
    ).all()
    for rev_id, parent_id, change_json in changes:
        if parent_id not in documents:
            whole = conn.scalar(
                sa.select(revisions.c.snapshot_json).where(revisions.c.id == parent_id)
            )
            documents[parent_id] = _split(whole)
        head, units = documents[parent_id]
        change = json.loads(change_json)
        head = change.get("head", head)
        units = list(units)
        if "units" in change:
            at, removed, added = change["units"]
            units[at : at + removed] = added
        documents[rev_id] = head, units
        conn.execute(
            revisions.update()
            .where(revisions.c.id == rev_id)
            .values(snapshot_json=_join(head, units), delta_json=None)
        )
    with op.batch_alter_table("army_revision", schema=None) as batch_op:
        batch_op.drop_index("ix_army_revision_army_id_id")
        batch_op.create_index("ix_army_revision_army_id", ["army_id"], unique=False)
        batch_op.drop_constraint("one_form", type_="check")
        batch_op.alter_column("snapshot_json", existing_type=sa.Text(), nullable=False)
        batch_op.drop_column("base_id")
        batch_op.drop_column("parent_id")
        batch_op.drop_column("unit_lengths")
        batch_op.drop_column("delta_json")


# As app/services/history.py _change, and app/services/army_document.py split_doc and
# join_doc, on 2026-12-01.
def _change(old_head: str, old: list[str], head: str, units: list[str]) -> str:
    lo, old_hi, new_hi = 0, len(old), len(units)
    while lo < old_hi and lo < new_hi and old[lo] == units[lo]:
        lo += 1
    while old_hi > lo and new_hi > lo and old[old_hi - 1] == units[new_hi - 1]:
        old_hi -= 1
        new_hi -= 1
    change: dict[str, object] = {}
    if head != old_head:
        change["head"] = head
    if (lo, lo) != (old_hi, new_hi):
        change["units"] = [lo, old_hi - lo, units[lo:new_hi]]
    return json.dumps(change, ensure_ascii=False, separators=(",", ":"))


_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def _join(head: str, units: list[str]) -> str:
    members = head.strip()[1:-1].strip()
    return f'{{{members}{", " if members else ""}"units": [{",".join(units)}]}}'


def _split(text: str) -> tuple[str, list[str]]:
    def skip(pos: int) -> int:
        return _SPACE.match(text, pos).end()  # type: ignore[union-attr]

    members: list[str] = []
    units: list[str] = []
    pos = skip(skip(0) + 1)  # past "{"
    while text[pos] != "}":
        start = pos
        key, pos = _DECODER.raw_decode(text, pos)
        pos = skip(skip(pos) + 1)  # past ":"
        if key == "units":
            pos = skip(pos + 1)  # past "["
            while text[pos] != "]":
                _, end = _DECODER.raw_decode(text, pos)
                units.append(text[pos:end])
                pos = skip(end)
                if text[pos] == ",":
                    pos = skip(pos + 1)
            pos = skip(pos + 1)
        else:
            _, pos = _DECODER.raw_decode(text, pos)
            members.append(text[start:pos])
            pos = skip(pos)
        if text[pos] == ",":
            pos = skip(pos + 1)
    return "{" + ", ".join(members) + "}", units
