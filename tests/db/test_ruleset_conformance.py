"""What every rule system must do where it meets the database, checked the same way for each
registered ruleset and for the fake one written against the interface alone (the engine
half of the conformance suite is tests/rules/conformance/).

An export read back by import gives an equal export; a bad unit in a document is refused by
its path and nothing is saved; the builder's pages (the army, a unit's editor, a weapon's
preview, the roster sheet) render an army of the ruleset. The fake ruleset's own templates
are in tests/rules/conformance/templates/, put on the Jinja loader only here.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from jinja2 import ChoiceLoader, FileSystemLoader
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db.models import Army, User
from app.rules import registry
from app.rules.ruleset import Ruleset
from app.services import army_rows, transfer
from app.services.army_document import FORMAT, VERSION, export_json
from app.web import templating
from tests.rules.conformance.fake_ruleset import RULESET as FAKE
from tests.web.conftest import sign_up

TEST_TEMPLATES = Path(__file__).resolve().parents[1] / "rules" / "conformance" / "templates"

_ids = itertools.count(1)


@pytest.fixture(params=[*registry.RULESETS.values(), FAKE], ids=lambda r: r.id)
def ruleset(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Ruleset:
    rules: Ruleset = request.param
    monkeypatch.setitem(registry.RULESETS, rules.id, rules)
    return rules


@pytest.fixture
def test_templates(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test rulesets' templates (``rulesets/<id>/``) after the product's own."""
    loader = ChoiceLoader([templating.env.loader, FileSystemLoader(TEST_TEMPLATES)])  # type: ignore[list-item]
    monkeypatch.setattr(templating.env, "loader", loader)


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


def _document(rules: Ruleset) -> dict[str, object]:
    units = []
    for sample in rules.sample_attacks:
        for data in (sample.attacker, *sample.targets):
            units.append(rules.encode_unit(rules.decode_unit(data)))
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
    assert _export(session, again) == exported


def test_a_bad_unit_is_refused_by_its_path_and_nothing_is_saved(
    session: Session, ruleset: Ruleset
) -> None:
    user = _user(session)
    document = _document(ruleset)
    units = list(document["units"])  # type: ignore[call-overload]
    units[1] = {**units[1], "no_such_field": 1}
    before = session.scalar(select(func.count()).select_from(Army))
    with pytest.raises(transfer.ImportProblems) as err:
        transfer.import_army(
            session, user=user, raw=json.dumps(document | {"units": units}).encode()
        )
    assert [path for path, _ in err.value.problems] == ["units[1].no_such_field"]
    assert session.scalar(select(func.count()).select_from(Army)) == before


def test_the_builder_pages_render_an_army_of_the_ruleset(
    app: FastAPI, ruleset: Ruleset, test_templates: None
) -> None:
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
            assert f">{column.heading or column.label}</th>" in page.text
        for row, unit in zip(rows, figures, strict=True):
            assert f'id="unit-{row.id}"' in page.text
            assert unit.cost_text in page.text
        sheet = client.get(f"/armies/{army_id}/print?cards=true")
        assert sheet.status_code == 200, sheet.text
        assert all(unit.cost_text in sheet.text for unit in figures)
        editor = client.get(
            f"/armies/{army_id}/units/{armed.id}/editor", headers={"HX-Request": "true"}
        )
        assert editor.status_code == 200, editor.text
        weapon = dict(ruleset.encode_unit(ruleset.decode_unit(armed.as_dict()))["weapons"][0])
        preview = client.get(
            f"/armies/{army_id}/units/{armed.id}/weapon-preview",
            params={k: str(v) for k, v in weapon.items() if not isinstance(v, dict)},
            headers={"HX-Request": "true"},
        )
        assert preview.status_code == 200, preview.text
        assert 'class="error"' not in preview.text, preview.text
