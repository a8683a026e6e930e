"""Writes as cheap as reads (issue 30 item 3): a change to some units is recorded from those
units alone, the army's stored cost stays the exact sum of its units' costs, and the view
after the change is made from the units this server kept, without reading the others."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from sqlalchemy import func, select

from app.db.models import Army, ArmyRevision, User
from app.services import armies, builder, history, transfer
from app.services.army_document import export_json
from app.services.army_figures import cost_value, total_cost
from app.services.army_rows import load_rows


def _unit(rng: random.Random, i: int) -> dict[str, object]:
    if rng.random() < 0.5:
        return {
            "name": f"Trooper {i}",
            "kind": "minifig",
            "count": rng.choice([1, 2, 3]),
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


def _edit(s, rng: random.Random, user: User, army: Army, step: int) -> None:  # type: ignore[no-untyped-def]
    """One random change of the army's units (its cost moves with most of them)."""
    rows = load_rows(s, army.id)
    unit = rng.choice(rows) if rows else None
    roll = rng.random()
    if unit is None or roll < 0.2:
        builder.add_unit(s, user=user, army_id=army.id, data=_unit(rng, step))
    elif roll < 0.3:
        builder.delete_unit(s, user=user, army_id=army.id, unit_id=unit.id)
    elif roll < 0.45:
        builder.update_unit(
            s,
            user=user,
            army_id=army.id,
            unit_id=unit.id,
            data={"name": f"Unit {step}", "count": rng.randint(1, 9)},
            expected_version=unit.version,
        )
    elif roll < 0.55:
        builder.add_weapon(
            s, user=user, army_id=army.id, unit_id=unit.id, data={"type": "gun", "size": 2}
        )
    elif roll < 0.7 and unit.weapons:
        weapon = rng.choice(unit.weapons)
        builder.update_weapon(
            s,
            user=user,
            army_id=army.id,
            unit_id=unit.id,
            weapon_id=weapon.id,
            data={"type": "gun", "size": rng.randint(1, 4)},
            expected_version=weapon.version,
        )
    elif roll < 0.78 and unit.weapons:
        builder.delete_weapon(
            s, user=user, army_id=army.id, unit_id=unit.id, weapon_id=unit.weapons[-1].id
        )
    elif roll < 0.86:
        builder.duplicate_unit(s, user=user, army_id=army.id, unit_id=unit.id)
    elif roll < 0.95:
        builder.move_unit(
            s, user=user, army_id=army.id, unit_id=unit.id, offset=rng.choice([-1, 1])
        )
    else:
        builder.set_house_rules(
            s,
            user=user,
            army_id=army.id,
            options={"allow_over_budget": rng.random() < 0.5},
            expected_version=army.version,
        )


def _new_army(app, email: str) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    with app.state.sessionmaker() as s:
        user = User(email=email, display_name="W", password_hash="x")
        s.add(user)
        s.flush()
        army = armies.create_army(s, user=user, name="Run", ruleset_id="brikwars", budget=900)
        s.commit()
        return user.id, army.id


def test_after_many_random_edits_the_stored_cost_is_the_sum_of_the_units(app) -> None:  # type: ignore[no-untyped-def]
    """Each change adds its units' cost difference to the army's exact cost: after 150 of
    them (some rolled back, as a failed request's), it is still the sum computed afresh."""
    user_id, army_id = _new_army(app, "cost@example.com")
    rng = random.Random(30)
    for step in range(150):
        with app.state.sessionmaker() as s:
            user, army = s.get_one(User, user_id), s.get_one(Army, army_id)
            _edit(s, rng, user, army, step)
            if rng.random() < 0.1:
                s.rollback()
                continue
            s.commit()
        with app.state.sessionmaker() as s:
            army = s.get_one(Army, army_id)
            exact = total_cost(army, load_rows(s, army_id))
            assert army.cost_exact is not None
            assert Fraction(army.cost_exact) == exact, step
            assert army.cost == cost_value(exact), step
    with app.state.sessionmaker() as s:
        # fractional costs (half-point minifigs) were among them, and most changes were
        # stored from their units alone
        assert Fraction(s.get_one(Army, army_id).cost_exact or "0").denominator in (1, 2)
        chained = s.scalar(
            select(func.count())
            .select_from(ArmyRevision)
            .where(ArmyRevision.army_id == army_id, ArmyRevision.delta_json.is_not(None))
        )
        assert chained is not None and chained > 100


def _fail(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("read every unit of the army")


def test_a_unit_change_reads_no_other_unit(app, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Recording a change of one unit, and the builder's view after it, read that unit and
    not the army's others (the view is made from the units this server kept), and the view
    is the one every unit read afresh gives."""
    user_id, built_id = _new_army(app, "cheap@example.com")
    rng = random.Random(3)
    with app.state.sessionmaker() as s:
        user = s.get_one(User, user_id)
        for i in range(30):
            builder.add_unit(s, user=user, army_id=built_id, data=_unit(rng, i))
        # imported: its first revision a whole document, so the changes below are chained
        built = s.get_one(Army, built_id)
        army_id = transfer.import_army(
            s, user=user, raw=export_json(built, load_rows(s, built_id)).encode()
        ).id
        s.commit()
    changes = [
        lambda s, user, unit: builder.update_unit(
            s,
            user=user,
            army_id=army_id,
            unit_id=unit.id,
            data={"name": "Renamed", "count": 4},
            expected_version=unit.version,
        ),
        lambda s, user, unit: builder.add_weapon(
            s, user=user, army_id=army_id, unit_id=unit.id, data={"type": "gun", "size": 3}
        ),
        lambda s, user, unit: builder.delete_weapon(
            s, user=user, army_id=army_id, unit_id=unit.id, weapon_id=unit.weapons[0].id
        ),
        lambda s, user, unit: builder.move_unit(
            s, user=user, army_id=army_id, unit_id=unit.id, offset=1
        ),
    ]
    for change in changes:
        with app.state.sessionmaker() as s:  # a page view keeps the army's units
            army = s.get_one(Army, army_id)
            builder.stored_view(s, army)
            unit = load_rows(s, army_id)[12]
            s.commit()
        with app.state.sessionmaker() as s, monkeypatch.context() as m:
            user, army = s.get_one(User, user_id), s.get_one(Army, army_id)
            for module in (history, builder):
                m.setattr(module, "load_rows", _fail)
            before = s.scalar(select(func.max(ArmyRevision.id)))
            change(s, user, unit)
            seen = builder.stored_view(s, army)
            s.commit()
            kept = builder.stored_view(s, army)  # committed: kept for the next page too
        with app.state.sessionmaker() as s:
            army = s.get_one(Army, army_id)
            fresh = builder.build_view(army, load_rows(s, army_id))
            rev = s.scalars(select(ArmyRevision).where(ArmyRevision.id > before)).one()
            assert rev.delta_json is not None and len(rev.delta_json) < 2000
        for view in (seen, kept):
            assert [u.row for u in view.units] == [u.row for u in fresh.units]
            assert view.total_cost == fresh.total_cost
            assert view.all_findings == fresh.all_findings
        assert Fraction(army.cost_exact or "x") == fresh.total_cost


@pytest.mark.parametrize("chain", [3])
def test_the_chain_still_ends_in_a_whole_document(app, monkeypatch, chain: int) -> None:  # type: ignore[no-untyped-def]
    """Changes recorded from their units alone still store a whole document every ``CHAIN``
    revisions, so rebuilding any of them reads one document and a few changes."""
    monkeypatch.setattr(history, "CHAIN", chain)
    user_id, built_id = _new_army(app, "chain@example.com")
    rng = random.Random(1)
    with app.state.sessionmaker() as s:
        user = s.get_one(User, user_id)
        for i in range(10):
            builder.add_unit(s, user=user, army_id=built_id, data=_unit(rng, i))
        built = s.get_one(Army, built_id)
        army = transfer.import_army(
            s, user=user, raw=export_json(built, load_rows(s, built_id)).encode()
        )
        unit = load_rows(s, army.id)[4]
        for i in range(7):
            builder.update_unit(
                s,
                user=user,
                army_id=army.id,
                unit_id=unit.id,
                data={"name": f"Name {i}"},
                expected_version=None,
            )
        s.commit()
        forms = s.execute(
            select(ArmyRevision.snapshot_json.is_not(None), ArmyRevision.chain_changes)
            .where(ArmyRevision.army_id == army.id)
            .order_by(ArmyRevision.id)
        ).all()
        last = history.revision(s, user=user, army_id=army.id, revision_id=_newest(s, army.id))
        assert last.document_json == export_json(army, load_rows(s, army.id))
    assert [(whole, n) for whole, n in forms] == [
        (True, 0),
        (False, 1),
        (False, 2),
        (True, 0),
        (False, 1),
        (False, 2),
        (True, 0),
        (False, 1),
    ]


def _newest(s, army_id: int) -> int:  # type: ignore[no-untyped-def]
    return s.scalar(select(func.max(ArmyRevision.id)).where(ArmyRevision.army_id == army_id))  # type: ignore[no-any-return]
