"""The Alembic migrations are the schema: they match the models and run both ways."""

from __future__ import annotations

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

from app.db.base import Base
from app.db.session import make_engine
from tests.conftest import alembic_config, another_database_url


def _diff(url: str) -> list[object]:
    engine = make_engine(url)
    with engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True})
        diff = compare_metadata(ctx, Base.metadata)
    engine.dispose()
    return diff


def test_models_and_migrations_agree(migrated: str) -> None:
    assert _diff(migrated) == []
    command.check(alembic_config(migrated))  # raises if autogenerate would write anything


def test_upgrade_downgrade_upgrade_round_trip() -> None:
    url = another_database_url()
    cfg = alembic_config(url)
    command.upgrade(cfg, "head")
    engine = make_engine(url)
    tables = set(inspect(engine).get_table_names())
    assert {"user_account", "army", "api_token", "login_failure"} <= tables

    command.downgrade(cfg, "base")
    engine.dispose()
    engine = make_engine(url)
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}

    command.upgrade(cfg, "head")
    engine.dispose()
    assert _diff(url) == []


def test_single_head() -> None:
    script = ScriptDirectory.from_config(alembic_config())
    assert len(script.get_heads()) == 1


def test_unique_positions_migration_renumbers_duplicates_in_order() -> None:
    """Armies left with duplicate unit and weapon positions keep their order, now unique."""
    from sqlalchemy import text
    from sqlalchemy.exc import IntegrityError

    url = another_database_url()
    cfg = alembic_config(url)
    command.upgrade(cfg, "fa72e9a66851")  # the revision before unique positions
    engine = make_engine(url)
    now = "2026-12-01 00:00:00+00:00"
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO user_account (id, email, display_name, password_hash, created_at,"
                " updated_at) VALUES (1, 'd@example.com', 'D', 'x', :now, :now)"
            ),
            {"now": now},
        )
        for army_id in (1, 2):
            conn.execute(
                text(
                    "INSERT INTO army (id, owner_id, name, ruleset_id, budget, notes, house_rules,"
                    " version, created_at, updated_at)"
                    " VALUES (:id, 1, 'A', 'brikwars', 100, '', '{}', 1, :now, :now)"
                ),
                {"id": army_id, "now": now},
            )
        # Army 1: positions 0, 0, 1, 1, 5 (ids 1..5); army 2: already fine.
        units = [(1, 1, 0), (2, 1, 0), (3, 1, 1), (4, 1, 1), (5, 1, 5), (6, 2, 0), (7, 2, 1)]
        for unit_id, army_id, position in units:
            conn.execute(
                text(
                    "INSERT INTO unit (id, army_id, position, name, kind, spec, version,"
                    " created_at, updated_at)"
                    " VALUES (:id, :army, :pos, :name, 'minifig', '{}', 1, :now, :now)"
                ),
                {
                    "id": unit_id,
                    "army": army_id,
                    "pos": position,
                    "name": f"U{unit_id}",
                    "now": now,
                },
            )
        for weapon_id, position in [(1, 2), (2, 2), (3, 0)]:
            conn.execute(
                text(
                    "INSERT INTO weapon (id, unit_id, position, type, spec, version, created_at,"
                    " updated_at) VALUES (:id, 1, :pos, 'pistol', '{}', 1, :now, :now)"
                ),
                {"id": weapon_id, "pos": position, "now": now},
            )
    engine.dispose()

    command.upgrade(cfg, "head")
    engine = make_engine(url)
    with engine.connect() as conn:
        units_now = conn.execute(text("SELECT id, army_id, position FROM unit ORDER BY id")).all()
        weapons_now = conn.execute(text("SELECT id, position FROM weapon ORDER BY id")).all()
    assert [tuple(r) for r in units_now] == [
        (1, 1, 0),
        (2, 1, 1),
        (3, 1, 2),
        (4, 1, 3),
        (5, 1, 4),
        (6, 2, 0),
        (7, 2, 1),
    ]
    assert [tuple(r) for r in weapons_now] == [(1, 1), (2, 2), (3, 0)]
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(text("UPDATE unit SET position = 0 WHERE id = 2"))
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(text("UPDATE weapon SET position = 0 WHERE id = 1"))
    engine.dispose()

    command.downgrade(cfg, "fa72e9a66851")
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE unit SET position = 0 WHERE id = 2"))  # allowed again
    engine.dispose()


BEFORE_NEUTRAL_BATTLES = "3c1f5a9e7d20"  # the revision before ruleset-neutral battles
NOW = "2026-12-01 00:00:00+00:00"


def _insert(conn, table_name: str, **values: object) -> int:  # type: ignore[no-untyped-def]
    """A row by its values (lists and dicts as JSON), its new id returned."""
    import sqlalchemy as sa

    columns = [
        sa.column(k, sa.JSON()) if isinstance(v, list | dict) else sa.column(k)
        for k, v in values.items()
    ]
    table = sa.table(table_name, sa.column("id"), *columns)
    return conn.execute(sa.insert(table).values(**values).returning(table.c.id)).scalar_one()  # type: ignore[no-any-return]


def _army_with_a_gunner(conn, email: str, **unit: object) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """A user's army of one minifig with a Gun, as the tables stood before a migration
    (``unit``: that revision's further unit columns): the army's and the unit's ids."""
    stamps = {"created_at": NOW, "updated_at": NOW}
    user = _insert(conn, "user_account", email=email, display_name="U", password_hash="x", **stamps)
    army = _insert(
        conn, "army", owner_id=user, name="Red", ruleset_id="brikwars", budget=100,
        notes="", house_rules={}, version=1, **stamps,
    )  # fmt: skip
    unit_id = _insert(
        conn, "unit", army_id=army, position=0, name="Trooper", kind="minifig", spec={},
        version=1, **unit, **stamps,
    )  # fmt: skip
    _insert(
        conn, "weapon", unit_id=unit_id, position=0, type="gun", spec={"size": 1}, version=1,
        **stamps,
    )  # fmt: skip
    return army, unit_id


def test_ruleset_neutral_battles_migration_carries_battles_and_clubs_across() -> None:
    """Battles, their units' BrikWars state, their log and clubs' house rules made before the
    change arrive whole; the migrated battle still rolls and undoes; downgrade brings the
    columns back."""
    import json
    from fractions import Fraction

    from sqlalchemy import text
    from sqlalchemy.orm import Session

    from app.db.models import Battle, BattleUnit, Club, User
    from app.rules.brikwars.options import DEFAULT_OPTIONS
    from app.rules.brikwars.serialize import unit_to_dict
    from app.rules.brikwars.turn import TurnSituation
    from app.rules.brikwars.units import UnitSpec, WeaponSpec
    from app.services import battles

    url = another_database_url()
    cfg = alembic_config(url)
    command.upgrade(cfg, BEFORE_NEUTRAL_BATTLES)
    engine = make_engine(url)
    tank = UnitSpec(name="Tank", size=4, structure_level=2, weapons=(WeaponSpec("gun", size=3),))
    walker = UnitSpec(name="Walker", size=3, structure_level=3)
    pinned = {**DEFAULT_OPTIONS.to_dict(), "bonus_die": "d6"}
    stamps = {"created_at": NOW, "updated_at": NOW}
    with engine.begin() as conn:
        user = _insert(
            conn, "user_account", email="m@example.com", display_name="M", password_hash="x",
            **stamps,
        )  # fmt: skip
        army = _insert(
            conn, "army", owner_id=user, name="Red", ruleset_id="brikwars", budget=100,
            notes="", house_rules={}, version=1, **stamps,
        )  # fmt: skip
        club = _insert(conn, "club", name="Pinned", house_rules=pinned, **stamps)
        bare = _insert(conn, "club", name="Bare", house_rules={}, **stamps)
        battle = _insert(conn, "battle", owner_id=user, name="Ford", version=3, **stamps)
        common = {
            "battle_id": battle, "side": "Red", "army_id": army,
            "options_json": json.dumps(DEFAULT_OPTIONS.to_dict()),
        }  # fmt: skip
        tank_id = _insert(
            conn, "battle_unit", position=0, name="Tank", spec_json=json.dumps(unit_to_dict(tank)),
            size_damage="1.5", destroyed=False, on_fire=True, inoperative=[0], diverted_turns=2,
            homing_in=0, homed_weapons=[], limbs_lost=0, **common,
        )  # fmt: skip
        walker_id = _insert(
            conn, "battle_unit", position=1, name="Walker",
            spec_json=json.dumps(unit_to_dict(walker)), size_damage="1", destroyed=False,
            on_fire=False, inoperative=[], diverted_turns=0, homing_in=0, homed_weapons=[],
            limbs_lost=3, **common,
        )  # fmt: skip
        conn.execute(
            text(
                "UPDATE battle_unit SET homing_in = 2, homed_on_id = :walker, homed_weapons = :w"
                " WHERE id = :tank"
            ),
            {"walker": walker_id, "tank": tank_id, "w": "[0]"},
        )
        old_state = {
            "size_damage": 0, "destroyed": False, "on_fire": False, "inoperative": [],
            "diverted_turns": 0, "homing_in": 0, "homed_on": None, "homed_weapons": [],
            "limbs_lost": 3,
        }  # fmt: skip
        walker_now = {**old_state, "size_damage": 1}
        _insert(
            conn, "battle_entry", battle_id=battle, seq=1, created_at=NOW, actor_id=user,
            kind="attack", seed=7, summary="Tank attacks Walker", request_json="{}",
            odds_json="null", dice_json="[]",
            changes_json=json.dumps({str(walker_id): {"before": old_state, "after": walker_now}}),
        )  # fmt: skip
    engine.dispose()

    command.upgrade(cfg, "head")
    engine = make_engine(url)
    with Session(engine) as session:
        assert session.get(Battle, battle).ruleset_id == "brikwars"  # type: ignore[union-attr]
        assert session.get(BattleUnit, tank_id).state == {  # type: ignore[union-attr]
            "size_damage": "1.5", "destroyed": False, "on_fire": True, "inoperative": [0],
            "diverted_turns": 2, "homing_in": 2, "homed_on": walker_id, "homed_weapons": [0],
            "limbs_lost": 0,
        }  # fmt: skip
        assert session.get(BattleUnit, walker_id).state == walker_now  # type: ignore[union-attr]
        assert session.get(Club, club).house_rules == {"brikwars": pinned}  # type: ignore[union-attr]
        assert session.get(Club, bare).house_rules == {}  # type: ignore[union-attr]

        # The migrated battle plays on: its old entry undoes, a new roll logs and undoes.
        owner = session.get(User, user)
        assert owner is not None
        view = battles.battle_view(session, user=owner, battle_id=battle)
        assert view.unit(tank_id).badges == [
            "on Fire", '3" Gun Inoperative', "2 turns of Power saved", "Homing In +2"
        ]  # fmt: skip
        assert view.unit(tank_id).cells["effective_size"] == '2.5"'
        battles.undo_last(session, user=owner, battle_id=battle)
        assert session.get(BattleUnit, walker_id).state == old_state  # type: ignore[union-attr]
        battles.unit_action(session, user=owner, battle_id=battle, unit_id=tank_id, action="reload")
        entry = battles.roll_attack(
            session, user=owner, battle_id=battle, attacker_id=tank_id, weapons=(0,),
            target_id=walker_id, situation=TurnSituation(distance=Fraction(2)), seed=1,
        )  # fmt: skip
        # the log only grows: #2 undid #1, #3 reloaded
        assert entry.seq == 4 and entry.summary.startswith("Tank attacks Walker")
        log = battles.battle_view(session, user=owner, battle_id=battle).entries
        assert [e.undone_by for e in log] == [2, None, None, None]
        battles.undo_last(session, user=owner, battle_id=battle)
        battles.undo_last(session, user=owner, battle_id=battle)
        tank_state = session.get(BattleUnit, tank_id).state  # type: ignore[union-attr]
        assert tank_state["inoperative"] == [0] and tank_state["size_damage"] == "1.5"
        session.commit()

    command.downgrade(cfg, BEFORE_NEUTRAL_BATTLES)
    engine.dispose()
    engine = make_engine(url)
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT id, size_damage, on_fire, diverted_turns, homing_in, homed_on_id,"
                " limbs_lost FROM battle_unit ORDER BY position"
            )
        ).all()
        rules = dict(conn.execute(text("SELECT id, house_rules FROM club")).all())
    assert [(r[0], r[1], bool(r[2]), *r[3:]) for r in rows] == [
        (tank_id, "1.5", True, 2, 2, walker_id, 0),
        (walker_id, "0", False, 0, 0, None, 3),
    ]
    assert {k: json.loads(v) if isinstance(v, str) else v for k, v in rules.items()} == {
        club: pinned,
        bare: {},
    }
    with engine.begin() as conn:  # the battle still deletes with its units and log
        conn.execute(text("DELETE FROM battle WHERE id = :id"), {"id": battle})
        assert conn.execute(text("SELECT count(*) FROM battle_unit")).scalar_one() == 0
        assert conn.execute(text("SELECT count(*) FROM battle_entry")).scalar_one() == 0
    engine.dispose()


def test_unit_count_migration_gives_existing_units_one_figure() -> None:
    """Issue 14 item 10: units made before the count stand for one figure, and keep their
    weapons (the column is added without rebuilding the table)."""
    from sqlalchemy import text

    url = another_database_url()
    cfg = alembic_config(url)
    command.upgrade(cfg, "7b2d4e6f8a10")  # the revision before the unit count
    engine = make_engine(url)
    with engine.begin() as conn:
        _army_with_a_gunner(conn, "c@example.com")
    command.upgrade(cfg, "head")
    with engine.begin() as conn:
        assert conn.execute(text("SELECT count FROM unit")).scalar_one() == 1
        assert conn.execute(text("SELECT COUNT(*) FROM weapon")).scalar_one() == 1
    command.downgrade(cfg, "7b2d4e6f8a10")
    assert "count" not in {c["name"] for c in inspect(engine).get_columns("unit")}
    engine.dispose()


BEFORE_REVISION_CHANGES = "4e8c2a7d9b31"  # the revision before revisions as changes


def test_revisions_as_changes_migration_carries_old_revisions_across() -> None:
    """Issue 15 item 1: revisions stored whole before the change read back exactly, the
    next change is stored as a change against the newest of them, and a downgrade turns
    every change back into the whole document."""
    import json

    from sqlalchemy import select, text
    from sqlalchemy.orm import Session

    from app.db.models import ArmyRevision, User
    from app.services import builder, history

    url = another_database_url()
    cfg = alembic_config(url)
    command.upgrade(cfg, BEFORE_REVISION_CHANGES)
    engine = make_engine(url)
    stamps = {"created_at": NOW, "updated_at": NOW}
    head = {
        "format": "brikforge-army", "version": 1, "ruleset": "brikwars", "rules_version": 1,
        "name": "Red", "budget": 100, "notes": "", "house_rules": {},
    }  # fmt: skip
    trooper = {"name": "Trooper", "kind": "minifig", "weapons": [{"type": "gun", "size": 1}]}
    scout = {"name": "Scout", "kind": "minifig", "weapons": []}
    spy = {**scout, "name": "Spy"}
    documents = [
        json.dumps({**head, "units": []}),
        json.dumps({**head, "notes": "line\nbreak", "units": [trooper]}, indent=2),
        # the layout the app writes (units joined by "," alone), then one change of it
        json.dumps(head)[:-1] + f', "units": [{json.dumps(trooper)},{json.dumps(scout)}]}}',
        json.dumps(head)[:-1] + f', "units": [{json.dumps(trooper)},{json.dumps(spy)}]}}',
    ]
    with engine.begin() as conn:
        user = _insert(
            conn, "user_account", email="h@example.com", display_name="H", password_hash="x",
            **stamps,
        )  # fmt: skip
        army = _insert(
            conn, "army", owner_id=user, name="Red", ruleset_id="brikwars", budget=100,
            notes="", house_rules={}, version=3, **stamps,
        )  # fmt: skip
        for position, unit in enumerate([trooper, scout]):
            unit_id = _insert(
                conn, "unit", army_id=army, position=position, name=unit["name"],
                kind="minifig", spec={}, version=1, **stamps,
            )  # fmt: skip
            for w_position, weapon in enumerate(unit["weapons"]):  # type: ignore[arg-type]
                _insert(
                    conn, "weapon", unit_id=unit_id, position=w_position, type=weapon["type"],
                    spec={"size": weapon["size"]}, version=1, **stamps,
                )  # fmt: skip
        old = [
            _insert(
                conn,
                "army_revision",
                army_id=army,
                user_id=user,
                created_at=NOW,
                summary=f"step {i}",
                snapshot_json=doc,
                army_version=i + 1,
            )
            for i, doc in enumerate(documents)
        ]
    engine.dispose()

    command.upgrade(cfg, "head")
    engine = make_engine(url)
    with Session(engine) as session:
        owner = session.get_one(User, user)
        for revision_id, doc in zip(old, documents, strict=True):
            rev = history.revision(session, user=owner, army_id=army, revision_id=revision_id)
            assert rev.document_json == doc
        # Stored as changes where that reads back exactly: the indented one stays whole, the
        # next starts a chain, the last is a change of it (one unit).
        stored = [session.get_one(ArmyRevision, r) for r in old]
        assert [r.snapshot_json is None for r in stored] == [False, False, False, True]
        assert stored[3].parent_id == old[2] and stored[3].base_id == old[2]
        assert json.loads(stored[3].delta_json or "") == {"units": [1, 1, [json.dumps(spy)]]}
        lengths = f"[{len(json.dumps(trooper))},{len(json.dumps(scout))}]"
        assert [r.unit_lengths for r in stored] == ["[]", None, lengths, None]
        settings = {"name": "Red", "budget": 100, "notes": "line\nbreak"}
        assert history.settings_at(session, army, 2) == settings
        # The next changes chain on: the first stored whole (the old documents lack the
        # defaults the builder writes), the second as a change against it.
        unit_id = session.scalar(text("SELECT id FROM unit WHERE name = 'Scout'"))
        for version, name in enumerate(["Agent", "Sniper"], start=1):
            builder.update_unit(
                session, user=owner, army_id=army, unit_id=unit_id, data={"name": name},
                expected_version=version,
            )  # fmt: skip
            session.commit()
        renamed, agent = session.scalars(
            select(ArmyRevision)
            .where(ArmyRevision.army_id == army)
            .order_by(ArmyRevision.id.desc())
        ).all()[:2]
        assert renamed.snapshot_json is None and renamed.parent_id == agent.id
        rebuilt = history.revision(session, user=owner, army_id=army, revision_id=renamed.id)
        assert [u["name"] for u in rebuilt.snapshot["units"]] == ["Trooper", "Sniper"]
        assert rebuilt.document_json == agent.snapshot_json.replace('"Agent"', '"Sniper"')  # type: ignore[union-attr]
        sniper = rebuilt.document_json
        with pytest.raises(Exception, match=r"(?i)check|constraint"):  # one form, never neither
            session.execute(
                text("UPDATE army_revision SET delta_json = NULL WHERE id = :id"),
                {"id": renamed.id},
            )
            session.flush()
        session.rollback()
    engine.dispose()

    command.downgrade(cfg, BEFORE_REVISION_CHANGES)
    engine = make_engine(url)
    with engine.connect() as conn:
        stored = conn.execute(text("SELECT snapshot_json FROM army_revision ORDER BY id")).all()
    assert [row[0] for row in stored[:4]] == documents
    assert stored[5][0] == sniper
    assert "delta_json" not in {c["name"] for c in inspect(engine).get_columns("army_revision")}


BEFORE_ARMY_COST = "5a9d3c7e1f42"  # the revision before the stored army cost


def test_army_cost_migration_costs_existing_armies() -> None:
    """Issue 15 item 4: armies made before the stored cost get it, as the builder computes
    it (counts included); an army of an unknown ruleset keeps none."""
    from sqlalchemy import text

    from app.db.models import Army
    from app.services.army_figures import total_cost
    from app.services.army_rows import load_rows_of

    url = another_database_url()
    cfg = alembic_config(url)
    command.upgrade(cfg, BEFORE_ARMY_COST)
    engine = make_engine(url)
    stamps = {"created_at": NOW, "updated_at": NOW}
    army = {"budget": 100, "notes": "", "house_rules": {}, "version": 1, **stamps}
    with engine.begin() as conn:
        user = _insert(
            conn, "user_account", email="d@example.com", display_name="D", password_hash="x",
            **stamps,
        )  # fmt: skip
        red = _insert(conn, "army", owner_id=user, name="Red", ruleset_id="brikwars", **army)
        empty = _insert(conn, "army", owner_id=user, name="Bare", ruleset_id="brikwars", **army)
        odd = _insert(conn, "army", owner_id=user, name="Odd", ruleset_id="chess", **army)
        for position, (count, kind, spec) in enumerate(
            [(3, "minifig", {}), (1, "creation", {"size": 4, "structure_level": 2})]
        ):
            unit = _insert(
                conn, "unit", army_id=red, position=position, name=f"U{position}", kind=kind,
                spec=spec, count=count, version=1, **stamps,
            )  # fmt: skip
            _insert(
                conn, "weapon", unit_id=unit, position=0, type="gun", spec={"size": 2},
                version=1, **stamps,
            )  # fmt: skip
    command.upgrade(cfg, "head")
    with engine.begin() as conn:
        costs = dict(conn.execute(text("SELECT id, cost FROM army")).all())
    from sqlalchemy.orm import Session

    with Session(engine) as session:
        rows = load_rows_of(session, [red])[red]
        expected = total_cost(session.get_one(Army, red), rows)
    assert len(rows) == 2 and expected > 0
    assert costs == {red: float(expected), empty: 0.0, odd: None}
    command.downgrade(cfg, BEFORE_ARMY_COST)
    assert "cost" not in {c["name"] for c in inspect(engine).get_columns("army")}
    engine.dispose()


BEFORE_UNIT_NOTES = "3e8b6d2a9f51"  # the revision before unit notes


def test_unit_notes_migration_gives_existing_units_empty_notes() -> None:
    """Issue 26: units made before notes have none, and keep their weapons (the column is
    added without rebuilding the table); a downgrade takes the column away again."""
    from sqlalchemy import text

    url = another_database_url()
    cfg = alembic_config(url)
    command.upgrade(cfg, BEFORE_UNIT_NOTES)
    engine = make_engine(url)
    stamps = {"created_at": NOW, "updated_at": NOW}
    with engine.begin() as conn:
        army, _ = _army_with_a_gunner(conn, "n@example.com", count=2)
    command.upgrade(cfg, "head")
    with engine.begin() as conn:
        assert conn.execute(text("SELECT notes, count FROM unit")).one() == ("", 2)
        assert conn.execute(text("SELECT COUNT(*) FROM weapon")).scalar_one() == 1
        # a unit written without notes (an older server's INSERT) gets the empty default
        _insert(
            conn, "unit", army_id=army, position=1, name="Sentry", kind="minifig", spec={},
            version=1, **stamps,
        )  # fmt: skip
        assert conn.execute(text("SELECT notes FROM unit WHERE position = 1")).scalar_one() == ""
    command.downgrade(cfg, BEFORE_UNIT_NOTES)
    assert "notes" not in {c["name"] for c in inspect(engine).get_columns("unit")}
    with engine.begin() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM weapon")).scalar_one() == 1
    engine.dispose()


def test_held_rows_migration_counts_what_each_account_already_holds() -> None:
    """Existing accounts' counters start at what they hold: units and weapons of the armies
    they own, log entries of the battles they own (not of the battles they only wrote in)."""
    import sqlalchemy as sa

    url = another_database_url()
    cfg = alembic_config(url)
    command.upgrade(cfg, "7d1f3b5c9e20")  # the revision before the counters
    engine = make_engine(url)
    stamps = {"created_at": NOW, "updated_at": NOW}
    with engine.begin() as conn:
        army, unit = _army_with_a_gunner(conn, "a@example.com", count=1, notes="")
        _insert(conn, "weapon", unit_id=unit, position=1, type="gun", spec={}, version=1, **stamps)
        owner = conn.execute(sa.text("SELECT owner_id FROM army WHERE id = :a"), {"a": army})
        holder = owner.scalar_one()
        _army_with_a_gunner(conn, "b@example.com", count=1, notes="")
        other = conn.execute(
            sa.text("SELECT id FROM user_account WHERE email = 'b@example.com'")
        ).scalar_one()
        battle = _insert(
            conn, "battle", owner_id=holder, name="Ford", ruleset_id="brikwars", version=1,
            **stamps,
        )  # fmt: skip
        for seq in (1, 2, 3):
            _insert(
                conn, "battle_entry", battle_id=battle, seq=seq, created_at=NOW, actor_id=other,
                kind="attack", summary="x", request_json="{}", odds_json="null",
                dice_json="[]", changes_json="{}",
            )  # fmt: skip
        empty = _insert(conn, "user_account", email="c@example.com", display_name="C",
                        password_hash="x", **stamps)  # fmt: skip
    engine.dispose()

    command.upgrade(cfg, "head")
    engine = make_engine(url)
    with engine.connect() as conn:
        held = {
            row[0]: tuple(row[1:])
            for row in conn.execute(
                sa.text("SELECT id, held_units, held_weapons, held_entries FROM user_account")
            )
        }
    assert held == {holder: (1, 2, 3), other: (1, 1, 0), empty: (0, 0, 0)}
    engine.dispose()
    command.downgrade(cfg, "7d1f3b5c9e20")
    engine = make_engine(url)
    columns = {c["name"] for c in inspect(engine).get_columns("user_account")}
    assert not columns & {"held_units", "held_weapons", "held_entries"}
    engine.dispose()


def test_log_grows_migration_keeps_every_entry_standing() -> None:
    """Existing log entries stand (none was undone: Undo used to delete) and the battle plays
    on; downgrade drops the mark and keeps the entries."""
    import sqlalchemy as sa

    url = another_database_url()
    cfg = alembic_config(url)
    command.upgrade(cfg, "9b2d4f6a8c31")  # the revision before the mark
    engine = make_engine(url)
    stamps = {"created_at": NOW, "updated_at": NOW}
    with engine.begin() as conn:
        army, _unit = _army_with_a_gunner(conn, "a@example.com", count=1, notes="")
        owner = conn.execute(sa.text("SELECT owner_id FROM army WHERE id = :a"), {"a": army})
        battle = _insert(
            conn, "battle", owner_id=owner.scalar_one(), name="Ford", ruleset_id="brikwars",
            version=1, **stamps,
        )  # fmt: skip
        for seq in (1, 2):
            _insert(
                conn, "battle_entry", battle_id=battle, seq=seq, created_at=NOW, actor_id=None,
                kind="attack", summary="x", request_json="{}", odds_json="null",
                dice_json="[]", changes_json="{}",
            )  # fmt: skip
    engine.dispose()

    command.upgrade(cfg, "head")
    engine = make_engine(url)
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT seq, undone_by_seq FROM battle_entry ORDER BY seq"))
        assert [tuple(r) for r in rows] == [(1, None), (2, None)]
    engine.dispose()
    command.downgrade(cfg, "9b2d4f6a8c31")
    engine = make_engine(url)
    assert "undone_by_seq" not in {c["name"] for c in inspect(engine).get_columns("battle_entry")}
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM battle_entry")).scalar_one() == 2
    engine.dispose()


BEFORE_SIDES = "4c7e2a9d1b63"  # the revision before battle sides (cheap writes)


def test_battle_sides_migration_gives_each_side_name_a_side_played_by_the_host() -> None:
    """Issue 31: a battle made before sides gets one side per side name of its units, in the
    order of their first unit, with the army of its first unit and no player (the host plays
    it); it plays on (a roll and an Undo); downgrade writes the names back."""
    import json

    from sqlalchemy import select, text
    from sqlalchemy.orm import Session

    from app.db.models import BattleSide, BattleUnit, User
    from app.services import battles

    url = another_database_url()
    cfg = alembic_config(url)
    command.upgrade(cfg, BEFORE_SIDES)
    engine = make_engine(url)
    tank = {
        "name": "Tank",
        "size": 4,
        "structure_level": 2,
        "weapons": [{"type": "gun", "size": 3}],
    }
    stamps = {"created_at": NOW, "updated_at": NOW}
    state = {"size_damage": "0", "destroyed": False, "on_fire": False, "inoperative": []}
    with engine.begin() as conn:
        user = _insert(
            conn, "user_account", email="s@example.com", display_name="S", password_hash="x",
            **stamps,
        )  # fmt: skip
        red, blue = (
            _insert(
                conn,
                "army",
                owner_id=user,
                name=name,
                ruleset_id="brikwars",
                budget=100,
                notes="",
                house_rules={},
                version=1,
                **stamps,
            )
            for name in ("Red", "Blue")
        )
        battles_ids = [
            _insert(
                conn,
                "battle",
                owner_id=user,
                name=n,
                ruleset_id="brikwars",
                version=1,
                status="open",
                **stamps,
            )
            for n in ("Ford", "Bridge")
        ]
        units = {}
        for battle, side, army, position, name in (
            (battles_ids[0], "Blue", blue, 0, "Tank B"),
            (battles_ids[0], "Red", red, 1, "Tank R"),
            (battles_ids[0], "Blue", blue, 2, "Tank B2"),
            (battles_ids[1], "Red", None, 0, "Tank X"),
            (battles_ids[1], "Blue", None, 1, "Tank Y"),
        ):
            units[name] = _insert(
                conn, "battle_unit", battle_id=battle, position=position, side=side, army_id=army,
                name=name, spec_json=json.dumps(tank), options_json="{}", state=state,
            )  # fmt: skip
    engine.dispose()

    command.upgrade(cfg, "head")
    engine = make_engine(url)
    with Session(engine) as session:
        sides = session.scalars(
            select(BattleSide).order_by(BattleSide.battle_id, BattleSide.position)
        ).all()
        assert [(s.battle_id, s.position, s.name, s.army_id, s.player_id) for s in sides] == [
            (battles_ids[0], 0, "Blue", blue, None),
            (battles_ids[0], 1, "Red", red, None),
            (battles_ids[1], 0, "Red", None, None),
            (battles_ids[1], 1, "Blue", None, None),
        ]
        by_name = {s.id: s.name for s in sides}
        for name, unit_id in units.items():
            row = session.get(BattleUnit, unit_id)
            assert row is not None and row.side == by_name[row.side_id]
            assert row.side == {"Tank B": "Blue", "Tank B2": "Blue", "Tank Y": "Blue"}.get(
                name, "Red"
            )
        owner = session.get(User, user)
        assert owner is not None
        view = battles.battle_view(session, user=owner, battle_id=battles_ids[0])
        assert [(s.name, [u.row.name for u in s.units]) for s in view.sides] == [
            ("Blue", ["Tank B", "Tank B2"]),
            ("Red", ["Tank R"]),
        ]
        assert view.viewer.role == "host"
        entry = battles.roll_attack(
            session, user=owner, battle_id=battles_ids[0], attacker_id=units["Tank R"],
            weapons=(0,), target_id=units["Tank B"], situation={"distance": 2}, seed=1,
        )  # fmt: skip
        assert entry.summary.startswith("Tank R attacks Tank B")
        battles.undo_last(session, user=owner, battle_id=battles_ids[0])
        session.commit()
        assert BattleSide.__tablename__ in inspect(engine).get_table_names()

    command.downgrade(cfg, BEFORE_SIDES)
    engine.dispose()
    engine = make_engine(url)
    tables = set(inspect(engine).get_table_names())
    assert "battle_side" not in tables and "battle_invite" not in tables
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT name, side FROM battle_unit ORDER BY id")).all()
    assert [tuple(r) for r in rows] == [
        ("Tank B", "Blue"),
        ("Tank R", "Red"),
        ("Tank B2", "Blue"),
        ("Tank X", "Red"),
        ("Tank Y", "Blue"),
    ]
    engine.dispose()
