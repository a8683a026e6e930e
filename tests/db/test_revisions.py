"""Revisions stored as changes read back exactly: every revision of a random run of edits
is the document the army was at that step, and the history stays small."""

from __future__ import annotations

import json
import random

import pytest
from sqlalchemy import func, select

from app.db.models import Army, ArmyRevision, User
from app.services import armies, builder, history, transfer
from app.services.army_document import export_json, join_doc, split_doc
from app.services.army_rows import load_rows


def _unit(rng: random.Random, i: int) -> dict[str, object]:
    if rng.random() < 0.5:
        return {
            "name": f'Trooper {i} “Ünïcode” "quoted" }},{{ \\',
            "kind": "minifig",
            "count": rng.choice([1, 1, 3]),
            "weapons": [{"type": "hand_weapon"}],
        }
    return {
        "name": f"Tank {i}",
        "size": rng.randint(2, 5),
        "structure_level": 2,
        "move": 6,
        "mind_die": 6,
        "weapons": [{"type": "gun", "size": rng.randint(1, 3)}],
    }


def _now(s, army: Army) -> str:  # type: ignore[no-untyped-def]
    s.refresh(army)
    return export_json(army, load_rows(s, army.id))


def _newest(s, army_id: int) -> int:  # type: ignore[no-untyped-def]
    return s.scalar(select(func.max(ArmyRevision.id)).where(ArmyRevision.army_id == army_id))  # type: ignore[no-any-return]


def _edit(s, rng: random.Random, user: User, army: Army, step: int) -> Army:  # type: ignore[no-untyped-def]
    """One random edit of the army (an import answers a new army)."""
    rows = load_rows(s, army.id)
    unit = rng.choice(rows) if rows else None
    roll = rng.random()
    if unit is None or roll < 0.25:
        builder.add_unit(s, user=user, army_id=army.id, data=_unit(rng, step))
    elif roll < 0.35:
        builder.delete_unit(s, user=user, army_id=army.id, unit_id=unit.id)
    elif roll < 0.5:
        builder.update_unit(
            s,
            user=user,
            army_id=army.id,
            unit_id=unit.id,
            data={"name": f"{unit.name[:60]} renamed {step}"},
            expected_version=unit.version,
        )
    elif roll < 0.6:
        builder.add_weapon(
            s,
            user=user,
            army_id=army.id,
            unit_id=unit.id,
            data={"type": "gun", "size": rng.randint(1, 3)},
        )
    elif roll < 0.65 and unit.weapons:
        builder.delete_weapon(
            s, user=user, army_id=army.id, unit_id=unit.id, weapon_id=unit.weapons[0].id
        )
    elif roll < 0.7:
        builder.duplicate_unit(s, user=user, army_id=army.id, unit_id=unit.id)
    elif roll < 0.75:
        builder.move_unit(
            s, user=user, army_id=army.id, unit_id=unit.id, offset=rng.choice([-1, 1])
        )
    elif roll < 0.85:
        armies.update_army(
            s,
            user=user,
            army_id=army.id,
            expected_version=army.version,
            name=f"Army at step {step}",
            budget=rng.randint(100, 5000),
            notes=rng.choice(["", "Hold the bridge", f"note {step}\nline two"]),
        )
    elif roll < 0.88:
        builder.set_house_rules(
            s,
            user=user,
            army_id=army.id,
            options={"allow_over_budget": rng.random() < 0.5},
            expected_version=army.version,
        )
    elif roll < 0.96:
        revisions = s.scalars(select(ArmyRevision.id).where(ArmyRevision.army_id == army.id)).all()
        history.restore(s, user=user, army_id=army.id, revision_id=rng.choice(revisions))
    else:
        return transfer.import_army(s, user=user, raw=_now(s, army).encode())
    return army


@pytest.mark.parametrize("chain", [4, history.CHAIN])
def test_every_revision_reads_back_exactly(app, monkeypatch, chain: int) -> None:  # type: ignore[no-untyped-def]
    """Each edit in its own session, as a request makes it; some are rolled back."""
    monkeypatch.setattr(history, "CHAIN", chain)
    rng = random.Random(chain)
    with app.state.sessionmaker() as s:
        user = User(email="history@example.com", display_name="H", password_hash="x")
        s.add(user)
        s.flush()
        army = armies.create_army(s, user=user, name="Run", ruleset_id="brikwars", budget=500)
        user_id, army_id = user.id, army.id
        expected = {_newest(s, army.id): (army.id, army.version, _now(s, army))}
        s.commit()
    for step in range(80):
        with app.state.sessionmaker() as s:
            user, army = s.get_one(User, user_id), s.get_one(Army, army_id)
            army = _edit(s, rng, user, army, step)
            if rng.random() < 0.1:
                s.rollback()  # a failed request: its revision was never written
                continue
            expected[_newest(s, army.id)] = (army.id, army.version, _now(s, army))
            s.commit()

    with app.state.sessionmaker() as s:
        user = s.get_one(User, user_id)
        forms = s.execute(
            select(ArmyRevision.snapshot_json.is_not(None), func.count()).group_by(
                ArmyRevision.snapshot_json.is_not(None)
            )
        ).all()
        assert dict(forms)[False] > 40  # most revisions are stored as changes
        for revision_id, (army_id, version, text) in expected.items():
            rev = history.revision(s, user=user, army_id=army_id, revision_id=revision_id)
            assert rev.document_json == text, revision_id
            assert rev.snapshot == json.loads(text)
            doc = json.loads(text)
            settings = {"name": doc["name"], "budget": doc["budget"], "notes": doc["notes"]}
            if history.settings_at(s, army_id, version) is not None:
                assert history.settings_at(s, army_id, version) == settings


def test_a_rename_stores_one_unit_and_chains_stay_short(app) -> None:  # type: ignore[no-untyped-def]
    with app.state.sessionmaker() as s:
        user = User(email="small@example.com", display_name="S", password_hash="x")
        s.add(user)
        s.flush()
        army = armies.create_army(s, user=user, name="Big", ruleset_id="brikwars", budget=9999)
        rng = random.Random(1)
        units = [
            builder.add_unit(s, user=user, army_id=army.id, data=_unit(rng, i)) for i in range(60)
        ]
        whole = len(_now(s, army))
        unit = units[30]
        builder.update_unit(
            s,
            user=user,
            army_id=army.id,
            unit_id=unit.id,
            data={"name": "Renamed"},
            expected_version=unit.version,
        )
        rename = s.scalar(select(ArmyRevision).order_by(ArmyRevision.id.desc()).limit(1))
        assert rename is not None and rename.snapshot_json is None
        assert rename.delta_json is not None and len(rename.delta_json) < 400 < whole
        change = json.loads(rename.delta_json)
        assert change["units"][:2] == [30, 1] and "Renamed" in change["units"][2][0]
        # No chain is longer than CHAIN revisions, its whole document included.
        rows = s.execute(
            select(ArmyRevision.id, ArmyRevision.base_id).where(ArmyRevision.army_id == army.id)
        ).all()
        bases = [base or rid for rid, base in rows]
        assert max(bases.count(b) for b in set(bases)) <= history.CHAIN


@pytest.mark.parametrize(
    "text",
    [
        join_doc('{"name": "a \\"units\\": [ },{"}', ['{"x": "]}"}', '{"y": [1, {"z": 2}]}']),
        join_doc("{}", []),
        json.dumps({"units": [{"a": 1}], "name": "first"}, indent=2),
    ],
)
def test_a_document_splits_into_its_head_and_units(text: str) -> None:
    head, units = split_doc(text)
    assert json.loads(join_doc(head, units)) == json.loads(text)
    assert [json.loads(u) for u in units] == json.loads(text)["units"]


def test_a_restore_rewrites_only_the_units_that_differ(app) -> None:  # type: ignore[no-untyped-def]
    with app.state.sessionmaker() as s:
        user = User(email="restore@example.com", display_name="R", password_hash="x")
        s.add(user)
        s.flush()
        army = armies.create_army(s, user=user, name="Few", ruleset_id="brikwars", budget=999)
        rng = random.Random(2)
        for i in range(4):
            builder.add_unit(s, user=user, army_id=army.id, data=_unit(rng, i))
        before = _newest(s, army.id)
        text = _now(s, army)
        rows = load_rows(s, army.id)
        builder.update_unit(
            s,
            user=user,
            army_id=army.id,
            unit_id=rows[1].id,
            data={"name": "Changed"},
            expected_version=rows[1].version,
        )
        builder.delete_unit(s, user=user, army_id=army.id, unit_id=rows[3].id)
        history.restore(s, user=user, army_id=army.id, revision_id=before)
        assert _now(s, army) == text
        after = load_rows(s, army.id)
        assert [row.id == old.id for row, old in zip(after, rows, strict=True)] == [
            True,
            False,  # renamed since: written again
            True,
            False,  # removed since: written again
        ]
