"""What every rule system must do where it meets the database, checked the same way for each
registered ruleset and for the fake one written against the interface alone (the engine
half of the conformance suite is tests/rules/conformance/).

An export read back by import gives an equal export; a bad unit in a document is refused by
its path and nothing is saved; the builder's pages (the army, a unit's editor, a weapon's
preview, the roster sheet) render an army of the ruleset; a battle of three rolls and an
Undo restores the units' state; the battle page renders. The fake ruleset has no page
templates of its own: the generic ones (``templates/rulesets/default/``) draw its forms from
its declared fields; the ``ruleset`` fixture adds it to the registry.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db.models import Army, BattleEntry, BattleUnit, User
from app.rules import registry
from app.rules.errors import InvalidInput
from app.rules.ruleset import Ruleset
from app.services import army_rows, battles, transfer
from app.services.army_document import FORMAT, VERSION, export_json
from app.services.errors import NotFound
from tests.rules.conformance.fake_ruleset import RULESET as FAKE
from tests.web.conftest import page_csrf, sign_up

_ids = itertools.count(1)


@pytest.fixture(params=[*registry.RULESETS.values(), FAKE], ids=lambda r: r.id)
def ruleset(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Ruleset:
    """The ruleset, registered."""
    rules: Ruleset = request.param
    monkeypatch.setitem(registry.RULESETS, rules.id, rules)
    return rules


@pytest.fixture
def session(app) -> Iterator[Session]:  # type: ignore[no-untyped-def]
    with app.state.sessionmaker() as s:
        yield s
        s.rollback()


def _user(session: Session) -> User:
    user = User(email=f"rules{next(_ids)}@example.com", display_name="R", password_hash="x")
    session.add(user)
    session.flush()
    return user


def _changed_options(rules: Ruleset) -> dict[str, object]:
    """The default options with the first option changed (so a lost option shows)."""
    options = rules.encode_options(rules.decode_options(None))
    for field in rules.option_fields:
        if field.kind == "flag":
            return options | {field.name: not field.default}
        if field.kind == "choice":
            other = next(v for v in field.choice_values if v != field.default)
            return options | {field.name: other}
    return options


# Every unit has notes, whatever its ruleset: the builder's, beside what the ruleset reads.
NOTES = "Hold the <bridge> & wait\nfor the signal"


def _document(rules: Ruleset) -> dict[str, object]:
    units = []
    for sample in rules.sample_attacks:
        for data in (sample.attacker, *sample.targets):
            notes = NOTES if not units else ""
            units.append(rules.encode_unit(rules.decode_unit(data)) | {"notes": notes})
    return {
        "format": FORMAT,
        "version": VERSION,
        "ruleset": rules.id,
        "rules_version": rules.rules_version,
        "name": "Round trip",
        "budget": 500,
        "notes": "",
        "house_rules": _changed_options(rules),
        "units": units,
    }


def _export(session: Session, army: Army) -> dict[str, object]:
    doc: dict[str, object] = json.loads(export_json(army, army_rows.load_rows(session, army.id)))
    return doc


def test_export_then_import_gives_an_equal_export(session: Session, ruleset: Ruleset) -> None:
    user = _user(session)
    document = _document(ruleset)
    first = transfer.import_army(session, user=user, raw=json.dumps(document).encode())
    exported = _export(session, first)
    assert exported["ruleset"] == ruleset.id
    assert exported["rules_version"] == ruleset.rules_version
    assert exported["house_rules"] == document["house_rules"]
    assert exported["units"] == document["units"]
    again = transfer.import_army(session, user=user, raw=json.dumps(exported).encode())
    # the same user's second copy is told apart by its name ("... (2)"); all else is equal
    assert _export(session, again) == exported | {"name": f"{exported['name']} (2)"}


def test_a_bad_unit_is_refused_by_its_path_and_nothing_is_saved(
    session: Session, ruleset: Ruleset
) -> None:
    user = _user(session)
    document = _document(ruleset)
    units = list(document["units"])  # type: ignore[call-overload]
    units[1] = {**units[1], "no_such_field": 1, "colour": "red"}  # each named
    before = session.scalar(select(func.count()).select_from(Army))
    with pytest.raises(transfer.ImportProblems) as err:
        transfer.import_army(
            session, user=user, raw=json.dumps(document | {"units": units}).encode()
        )
    paths = sorted(path for path, _ in err.value.problems)
    assert paths == ["units[1].colour", "units[1].no_such_field"]
    assert session.scalar(select(func.count()).select_from(Army)) == before


def test_the_builder_pages_render_an_army_of_the_ruleset(app: FastAPI, ruleset: Ruleset) -> None:
    with TestClient(app) as client:
        member = sign_up(client, email=f"pages{next(_ids)}@example.com")
        with app.state.sessionmaker() as session:
            user = session.scalar(select(User).where(User.email == member.email))
            assert user is not None
            army = transfer.import_army(
                session, user=user, raw=json.dumps(_document(ruleset)).encode()
            )
            session.commit()
            army_id = army.id
            rows = army_rows.load_rows(session, army_id)
        options = ruleset.decode_options(None)
        figures = [ruleset.unit_figures(ruleset.decode_unit(r.as_dict()), options) for r in rows]
        armed = next(r for r in rows if r.weapons)

        page = client.get(f"/armies/{army_id}")
        assert page.status_code == 200, page.text
        for column in ruleset.unit_columns:
            heading = column.heading or column.label
            # a heading in the ruleset's glossary is a link to its entry, any other plain text
            assert f">{heading}</th>" in page.text or f">{heading}</a>" in page.text, heading
        for row, unit in zip(rows, figures, strict=True):
            assert f'id="unit-{row.id}"' in page.text
            assert unit.cost_text in page.text
        # the first unit's notes, escaped, under it on the page, the sheet and in the text
        shown = "Hold the &lt;bridge&gt; &amp; wait\nfor the signal"
        assert rows[0].notes == NOTES and page.text.count(shown) == 1
        text = client.get(f"/armies/{army_id}/export.txt")
        assert text.status_code == 200, text.text
        for number, row in enumerate(rows, start=1):
            assert f"{number}. {row.name}" in text.text
        assert "   Notes: Hold the <bridge> & wait\n   for the signal\n" in text.text
        assert text.text.count("Notes:") == 1
        sheet = client.get(f"/armies/{army_id}/print?cards=true")
        assert sheet.status_code == 200, sheet.text
        assert all(unit.cost_text in sheet.text for unit in figures)
        assert sheet.text.count(shown) == 2  # the roster's line and the stat card
        editor = client.get(
            f"/armies/{army_id}/units/{armed.id}/editor", headers={"HX-Request": "true"}
        )
        assert editor.status_code == 200, editor.text
        # the unit form asks every declared field of the unit's kind; the weapon forms each
        # field of a weapon's type (the generic forms draw them from the declarations)
        for field in ruleset.unit_fields:
            if ruleset.unit_form.applies(field.name, armed.kind):
                assert f'name="{field.name}"' in editor.text, field.name
        entries = {entry.id: entry for entry in ruleset.catalogue()}
        for field in entries[armed.weapons[0].type].fields:
            if ruleset.weapon_form.applies(field.name, armed.weapons[0].type):
                assert f'name="{field.name}"' in editor.text, field.name
        weapon = dict(ruleset.encode_unit(ruleset.decode_unit(armed.as_dict()))["weapons"][0])
        preview = client.get(
            f"/armies/{army_id}/units/{armed.id}/weapon-preview",
            params={k: str(v) for k, v in weapon.items() if not isinstance(v, dict)},
            headers={"HX-Request": "true"},
        )
        assert preview.status_code == 200, preview.text
        assert 'class="error"' not in preview.text, preview.text


# ------------------------------------------------------------------------ battles


def _battle(session: Session, user: User, rules: Ruleset) -> tuple[int, dict[str, list[int]]]:
    """A battle of two armies holding every unit of the ruleset's sample attacks: its id,
    and its unit ids by side then name."""
    document = _document(rules)
    armies = [
        transfer.import_army(session, user=user, raw=json.dumps(document | {"name": n}).encode())
        for n in ("Red", "Blue")
    ]
    battle = battles.create_battle(
        session, user=user, name="Conformance", army_ids=[a.id for a in armies]
    )
    ids: dict[str, list[int]] = {}
    rows = session.scalars(
        select(BattleUnit).where(BattleUnit.battle_id == battle.id).order_by(BattleUnit.position)
    )
    for row in rows:
        ids.setdefault(f"{row.side}/{row.name}", []).append(row.id)
    return battle.id, ids


def _states(session: Session, battle_id: int) -> dict[int, Any]:
    session.expire_all()
    rows = session.scalars(select(BattleUnit).where(BattleUnit.battle_id == battle_id))
    return {row.id: dict(row.state) for row in rows}


def _roll(session: Session, user: User, rules: Ruleset, battle_id: int, ids, seed: int) -> None:  # type: ignore[no-untyped-def]
    """The first sample attack, by Red's attacker, on Blue's target (another Blue unit once
    that one is out of the fight)."""
    sample = rules.sample_attacks[0]
    attacker = ids[f"Red/{sample.attacker['name']}"][0]
    view = battles.battle_view(session, user=user, battle_id=battle_id)
    wanted = ids[f"Blue/{sample.targets[0]['name']}"]
    blue = [u.row.id for u in view.units if u.row.side == "Blue" and not u.out]
    target = next((i for i in wanted if i in blue), blue[0])
    battles.roll_attack(
        session,
        user=user,
        battle_id=battle_id,
        attacker_id=attacker,
        weapons=sample.weapons,
        target_id=target,
        situation=dict(sample.situation),
        seed=seed,
    )


def test_three_rolls_then_undo_restore_the_state(session: Session, ruleset: Ruleset) -> None:
    """Three logged rolls that each changed some unit's state (a roll that changed nothing
    is undone and rolled again with the next seed); each Undo gives back the state before."""
    user = _user(session)
    battle_id, ids = _battle(session, user, ruleset)
    fresh = _states(session, battle_id)
    seen = [fresh]
    for turn in range(3):
        for seed in range(100 * turn, 100 * turn + 80):
            _roll(session, user, ruleset, battle_id, ids, seed)
            if _states(session, battle_id) != seen[-1]:
                break
            battles.undo_last(session, user=user, battle_id=battle_id)
            assert _states(session, battle_id) == seen[-1]
        else:
            pytest.fail(f"no roll of turn {turn + 1} changed anything")
        seen.append(_states(session, battle_id))
    view = battles.battle_view(session, user=user, battle_id=battle_id, limit=None)
    standing = _standing(view)
    assert len(standing) == 3 and all(e.odds and e.dice for e in standing)
    text = battles.export_text(view)
    assert "Conformance" in text and all(e.row.summary in text for e in standing)
    for before in reversed(seen[:-1]):
        battles.undo_last(session, user=user, battle_id=battle_id)
        assert _states(session, battle_id) == before
    view = battles.battle_view(session, user=user, battle_id=battle_id, limit=None)
    assert _standing(view) == [] and view.undo_seq is None


def _standing(view: battles.BattleView) -> list[battles.LogEntry]:
    """The entries that stand: the log only grows, an undo and what it undid stay."""
    return [e for e in view.entries if e.undone_by is None and e.row.kind != "undo"]


def test_a_named_unit_action_is_logged_or_refused_by_field(
    session: Session, ruleset: Ruleset
) -> None:
    user = _user(session)
    battle_id, ids = _battle(session, user, ruleset)
    unit = next(iter(ids.values()))[0]
    for action in ruleset.unit_actions:
        try:
            entry = battles.unit_action(
                session, user=user, battle_id=battle_id, unit_id=unit, action=action.name
            )
        except InvalidInput as err:
            assert err.field and err.reason
        else:
            assert entry.kind == action.name and entry.summary
            battles.undo_last(session, user=user, battle_id=battle_id)
    with pytest.raises(NotFound):
        battles.unit_action(
            session, user=user, battle_id=battle_id, unit_id=unit, action="no_such_action"
        )


def test_the_battle_page_renders(app: Any, ruleset: Ruleset) -> None:
    with TestClient(app) as client:
        member = sign_up(client, name="Conformer")
        with app.state.sessionmaker() as session:
            user = session.scalars(select(User).where(User.email == member.email)).one()
            battle_id, ids = _battle(session, user, ruleset)
            _roll(session, user, ruleset, battle_id, ids, 7)
            session.commit()
        page = client.get(f"/battles/{battle_id}")
        assert page.status_code == 200, page.text[:2000]
        assert "Roll it!" in page.text and 'id="entry-1"' in page.text
        assert "Cannot roll this" not in page.text, page.text
        assert 'class="odds-table"' in page.text or "odds-table" in page.text
        odds = client.get(f"/battles/{battle_id}/odds", headers={"HX-Request": "true"})
        assert odds.status_code in (200, 422)
        export = client.get(f"/battles/{battle_id}/export.txt")
        assert export.status_code == 200 and "#1 attack" in export.text


def _armies_of_every_ruleset(app: FastAPI, client: TestClient) -> dict[str, int]:
    """An army of each registered ruleset (the fake one too), owned by a new member."""
    member = sign_up(client, email=f"api{next(_ids)}@example.com")
    with app.state.sessionmaker() as session:
        user = session.scalar(select(User).where(User.email == member.email))
        assert user is not None
        armies = {
            rules.id: transfer.import_army(
                session, user=user, raw=json.dumps(_document(rules)).encode()
            ).id
            for rules in registry.RULESETS.values()
        }
        session.commit()
    return armies


def test_the_army_api_answers_for_an_army_of_every_ruleset(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every unit carries the shared fields and its ruleset's own (``unit_json``)."""
    monkeypatch.setitem(registry.RULESETS, FAKE.id, FAKE)
    with TestClient(app) as client:
        for ruleset_id, army_id in _armies_of_every_ruleset(app, client).items():
            rules = registry.RULESETS[ruleset_id]
            r = client.get(f"/api/v1/armies/{army_id}")
            assert r.status_code == 200, r.text
            options = rules.decode_options(None)
            for unit in r.json()["units"]:
                assert {"id", "name", "kind", "cost", "findings", "weapons"} <= set(unit)
                spec = rules.decode_unit(
                    {"name": unit["name"], "kind": unit["kind"]}
                    | {
                        **unit["spec"],
                        "weapons": [{"type": w["type"], **w["spec"]} for w in unit["weapons"]],
                    }
                )
                figures = rules.unit_figures(spec, options)
                assert set(rules.unit_json(figures)) <= set(unit)


def test_the_army_api_adds_a_unit_of_every_ruleset(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A unit as the ruleset encodes it is a body the API takes, for every ruleset; a field
    the ruleset does not know is refused by name, and nothing is saved."""
    monkeypatch.setitem(registry.RULESETS, FAKE.id, FAKE)
    with TestClient(app) as client:
        armies = _armies_of_every_ruleset(app, client)
        headers = {"X-CSRF-Token": page_csrf(client, "/account")}
        for ruleset_id, army_id in armies.items():
            unit = dict(registry.RULESETS[ruleset_id].sample_attacks[0].attacker)
            url = f"/api/v1/armies/{army_id}/units"
            before = len(client.get(f"/api/v1/armies/{army_id}").json()["units"])
            bad = client.post(url, json=unit | {"no_such_field": 1}, headers=headers)
            assert bad.status_code == 422, (ruleset_id, bad.text)
            assert bad.json()["detail"][0]["field"] == "no_such_field"
            # every wrong field at once (InvalidFields), each by its path
            worse = unit | {"no_such_field": 1, "colour": "red"}
            worse["weapons"] = [{**unit["weapons"][0], "no_such_field": 1}]
            bad = client.post(url, json=worse, headers=headers)
            assert bad.status_code == 422, (ruleset_id, bad.text)
            named = {d["field"] for d in bad.json()["detail"]}
            assert {"no_such_field", "colour", "weapons.0.no_such_field"} <= named, bad.text
            if ruleset_id == FAKE.id:  # every wrong field at once (InvalidFields)
                worse = unit | {"colour": "red", "hits": 9, "weapons": [{"type": "laser"}]}
                bad = client.post(url, json=worse, headers=headers)
                assert bad.status_code == 422, bad.text
                fields = [d["field"] for d in bad.json()["detail"]]
                assert fields == ["colour", "hits", "weapons.0.type"], bad.text
            added = client.post(url, json=unit, headers=headers)
            assert added.status_code == 201, (ruleset_id, added.text)
            body = added.json()
            assert body["name"] == unit["name"]
            assert [w["type"] for w in body["weapons"]] == [w["type"] for w in unit["weapons"]]
            after = client.get(f"/api/v1/armies/{army_id}").json()["units"]
            assert len(after) == before + 1


def test_a_player_acts_only_for_their_own_side(session: Session, ruleset: Ruleset) -> None:
    """Issue 31: a player who joined with Blue rolls and acts for Blue's units only (a 422
    naming the unit's field otherwise, nothing logged); the host, for every side."""
    host, player = _user(session), _user(session)
    document = _document(ruleset)
    red = transfer.import_army(
        session, user=host, raw=json.dumps(document | {"name": "Red"}).encode()
    )
    more = transfer.import_army(
        session, user=host, raw=json.dumps(document | {"name": "Gold"}).encode()
    )
    blue = transfer.import_army(
        session, user=player, raw=json.dumps(document | {"name": "Blue"}).encode()
    )
    battle = battles.create_battle(session, user=host, name="Two", army_ids=[red.id, more.id])
    _, token = battles.create_invite(session, user=host, battle_id=battle.id)
    battles.join_by_link(session, user=player, token=token, army_id=blue.id)
    ids: dict[str, list[int]] = {}
    for row in session.scalars(select(BattleUnit).where(BattleUnit.battle_id == battle.id)):
        ids.setdefault(f"{row.side}/{row.name}", []).append(row.id)
    sample = ruleset.sample_attacks[0]
    attack = {
        "weapons": sample.weapons,
        "situation": dict(sample.situation),
        "battle_id": battle.id,
        "seed": 5,
    }
    red_attacker = ids[f"Red/{sample.attacker['name']}"][0]
    blue_attacker = ids[f"Blue/{sample.attacker['name']}"][0]
    red_target = ids[f"Red/{sample.targets[0]['name']}"][0]
    blue_target = ids[f"Blue/{sample.targets[0]['name']}"][0]
    with pytest.raises(InvalidInput) as err:
        battles.roll_attack(
            session, user=player, attacker_id=red_attacker, target_id=blue_target, **attack
        )
    assert err.value.field == "attacker_id" and "on Red's side" in err.value.reason
    for action in ruleset.unit_actions:
        with pytest.raises(InvalidInput) as err:
            battles.unit_action(
                session, user=player, battle_id=battle.id, unit_id=red_attacker, action=action.name
            )
        assert err.value.field == "unit_id" and "on Red's side" in err.value.reason
    kinds = session.scalars(select(BattleEntry.kind).where(BattleEntry.battle_id == battle.id))
    assert list(kinds) == ["join"]
    mine = battles.roll_attack(
        session, user=player, attacker_id=blue_attacker, target_id=red_target, **attack
    )
    assert (
        battles.undo_last(session, user=player, battle_id=battle.id).request["undoes"] == mine.seq
    )
    hosts = battles.roll_attack(
        session, user=host, attacker_id=blue_attacker, target_id=red_target, **attack
    )
    assert (mine.actor_id, hosts.actor_id) == (player.id, host.id)
