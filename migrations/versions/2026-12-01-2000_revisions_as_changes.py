"""Revisions as changes (issue 15 item 1): a revision holds the whole document or the
change from its parent revision.

Upgrade: every existing revision is carried across as it is, a whole document (each is
exactly the text it was); revisions recorded from now on are stored as changes. The newest
of each army, the parent of its next change, gets its units' lengths when its layout is the
one the app writes (so that change slices it rather than parsing it). The index
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
    # The newest revision of each army is the parent of its next change: its units' lengths
    # spare that change parsing it (when it is in the layout the app writes today).
    conn = op.get_bind()
    revisions = sa.table(
        "army_revision",
        sa.column("id", sa.Integer()),
        sa.column("army_id", sa.Integer()),
        sa.column("snapshot_json", sa.Text()),
        sa.column("unit_lengths", sa.Text()),
    )
    newest = sa.select(sa.func.max(revisions.c.id)).group_by(revisions.c.army_id)
    for rev_id, text in conn.execute(
        sa.select(revisions.c.id, revisions.c.snapshot_json).where(revisions.c.id.in_(newest))
    ).all():
        head, units = _split(text)
        if _join(head, units) == text:
            lengths = json.dumps([len(u) for u in units], separators=(",", ":"))
            conn.execute(
                revisions.update().where(revisions.c.id == rev_id).values(unit_lengths=lengths)
            )


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


# As app/services/army_document.py split_doc and join_doc on 2026-12-01.
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
