"""Work that grows with an army's size (issue 30 F2, F3; rulings G10, G11): the army page a
page of units at a time, exports streamed byte for byte as before, and heavy requests past an
account's bound refused with a 503 and Retry-After while other accounts' still get through."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.responses import JSONResponse
from sqlalchemy import select

from app.db.models import Army, User
from app.services import builder, heavy_gate, transfer
from app.services.keyed_gate import KeyedGate
from app.settings import get_settings
from tests.web.conftest import Member

GUNSHIP: dict[str, Any] = {
    "name": "Skyhammer",
    "size": 4,
    "structure_level": 2,
    "propulsion": "flying",
    "move": 8,
    "weapons": [
        {"type": "cannon", "size": 3, "ammo": {"xsize": 2, "variant": "standard", "rounds": 2}}
    ]
    * 6
    + [{"type": "gun", "size": 2}] * 5
    + [{"type": "armor_plating", "size": 1}],
}
UNIT_ID = re.compile(r'<tbody id="unit-(\d+)"')


def _document(units: list[dict[str, Any]]) -> bytes:
    doc = {"format": "brikforge-army", "version": 2, "ruleset": "brikwars", "name": "Armada"}
    return json.dumps(doc | {"budget": 1_000_000, "units": units}).encode()


def _import(member: Member, units: list[dict[str, Any]]) -> int:
    r = member.form(
        "/armies/import",
        files={"file": ("army.json", _document(units), "application/json")},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    return int(r.headers["location"].rsplit("/", 1)[1])


def _gunships(n: int) -> list[dict[str, Any]]:
    return [dict(GUNSHIP, name=f"Skyhammer {i}") for i in range(1, n + 1)]


def _troopers(n: int) -> list[dict[str, Any]]:
    return [
        {
            "name": f"Trooper {i}",
            "kind": "minifig",
            "weapons": [{"type": "gun", "size": 1}],
            "count": 1 + i % 3,
            "notes": f"Holds the ford\nthen wait {i}" if i % 2 else "",
        }
        for i in range(1, n + 1)
    ]


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The process's settings, changed for one test (monkeypatch puts them back)."""
    yield _Setter(monkeypatch)


class _Setter:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch

    def __call__(self, **values: object) -> None:
        for name, value in values.items():
            self.monkeypatch.setattr(get_settings(), name, value)


# ------------------------------------------------------------------------------ paging


def test_the_pages_show_every_unit_exactly_once_in_order_and_totals_count_them_all(
    member: Member, settings: _Setter
) -> None:
    settings(army_page_units=3)
    army_id = _import(member, _troopers(7))
    seen: list[int] = []
    for page in (1, 2, 3):
        body = member.client.get(f"/armies/{army_id}?page={page}").text
        on_page = [int(i) for i in UNIT_ID.findall(body)]
        assert len(on_page) == (3 if page < 3 else 1)
        seen += on_page
        assert "7 units" in body  # the whole army's totals on every page
        assert f'aria-current="page" class="current">{page}<' in body
        assert f"Units {3 * page - 2}–{min(3 * page, 7)} of 7" in body
    assert len(seen) == 7 and len(set(seen)) == 7 and seen == sorted(seen)
    # past the last page: the last page; an unreadable number: the first
    assert UNIT_ID.findall(member.client.get(f"/armies/{army_id}?page=99").text) == [str(seen[-1])]
    first = member.client.get(f"/armies/{army_id}?page=x").text
    assert [int(i) for i in UNIT_ID.findall(first)] == seen[:3]
    # next and previous links, keyboard-reachable plain links
    page2 = member.client.get(f"/armies/{army_id}?page=2").text
    assert f'href="/armies/{army_id}#units" rel="prev"' in page2
    assert f'href="/armies/{army_id}?page=3#units" rel="next"' in page2


def test_an_army_of_one_page_has_no_pager(member: Member) -> None:
    army_id = _import(member, _troopers(4))
    body = member.client.get(f"/armies/{army_id}").text
    assert len(UNIT_ID.findall(body)) == 4 and 'class="pager"' not in body


def test_an_htmx_edit_redraws_the_page_the_user_was_on(member: Member, settings: _Setter) -> None:
    settings(army_page_units=3)
    army_id = _import(member, _troopers(7))
    page2 = [int(i) for i in UNIT_ID.findall(member.client.get(f"/armies/{army_id}?page=2").text)]
    r = member.client.post(
        f"/armies/{army_id}/units/{page2[0]}/move",
        data={"offset": "1"},
        headers={
            "HX-Request": "true",
            "X-CSRF-Token": member.csrf,
            "HX-Current-URL": f"http://testserver/armies/{army_id}?page=2",
        },
    )
    assert r.status_code == 200, r.text
    assert [int(i) for i in UNIT_ID.findall(r.text)] == [page2[1], page2[0], page2[2]]


def test_a_large_armys_page_stays_under_its_bound(member: Member) -> None:
    # 200 gunships of 12 weapons: every unit drawn, the page was about 2 MB (1,000: 9.9 MB)
    army_id = _import(member, _gunships(200))
    body = member.client.get(f"/armies/{army_id}").content
    assert len(UNIT_ID.findall(body.decode())) == 50
    assert len(body) < 600_000
    assert b"200 units" in body


def test_the_shared_links_page_is_paged_too(member: Member, settings: _Setter) -> None:
    settings(army_page_units=3)
    army_id = _import(member, _troopers(5))
    r = member.form(f"/armies/{army_id}/links", follow_redirects=True)
    token = re.search(r"/shared/([A-Za-z0-9_-]{20,})", r.text)
    assert token, r.text
    body = member.client.get(f"/shared/{token.group(1)}?page=2").text
    assert len(UNIT_ID.findall(body)) == 2
    assert f'href="/shared/{token.group(1)}#units" rel="prev"' in body


# ------------------------------------------------------------------------------ streaming


def _stored(app: Any, army_id: int) -> tuple[Army, list[builder.UnitRow]]:
    with app.state.sessionmaker() as session:
        army = session.get(Army, army_id)
        assert army is not None
        session.expunge(army)
        return army, builder.load_rows(session, army_id)


def test_streamed_exports_are_byte_for_byte_the_whole_documents(
    app: Any, member: Member, monkeypatch: pytest.MonkeyPatch
) -> None:
    army_id = _import(member, _troopers(7))
    army, rows = _stored(app, army_id)
    whole_json = JSONResponse(transfer.export_doc(army, rows)).body
    monkeypatch.setattr(transfer, "CHUNK_UNITS", 10_000)  # one chunk: the text as it was
    whole_text = member.client.get(f"/armies/{army_id}/export.txt").content
    monkeypatch.setattr(transfer, "CHUNK_UNITS", 2)  # four chunks of units
    for url in (f"/armies/{army_id}/export.json", f"/api/v1/armies/{army_id}/export"):
        r = member.client.get(url)
        assert r.status_code == 200 and r.content == whole_json
        assert r.headers["content-type"] == "application/json"
    for url in (f"/armies/{army_id}/export.txt", f"/api/v1/armies/{army_id}/export?format=text"):
        r = member.client.get(url)
        assert r.status_code == 200 and r.content == whole_text
        assert r.headers["content-type"] == "text/plain; charset=utf-8"
    assert whole_text.count(b"Trooper") == 7 and whole_text.endswith(b"\n")
    assert json.loads(whole_json)["units"][6]["name"] == "Trooper 7"


# ------------------------------------------------------------------------------ the gate


def _user_id(app: Any, email: str) -> int:
    with app.state.sessionmaker() as session:
        return int(session.scalar(select(User.id).where(User.email == email)) or 0)


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> KeyedGate:
    """A fresh gate of the default shape, with no wait (a full account is refused at once)."""
    fresh = heavy_gate._gate.__wrapped__(3, 2, 0.0, 0, 0)
    monkeypatch.setattr(heavy_gate, "gate", lambda: fresh)
    return fresh  # type: ignore[no-any-return]


def test_past_an_accounts_bound_a_heavy_request_is_a_503_while_others_get_through(
    app: Any, member: Member, stranger: Member, gate: KeyedGate, settings: _Setter
) -> None:
    settings(heavy_army_rows=10)
    mine = _import(member, _troopers(6))  # 12 rows: heavy
    small = _import(member, _troopers(2))  # 4 rows: light
    theirs = _import(stranger, _troopers(6))
    key = f"account:{_user_id(app, member.email)}"
    gate.enter(key)
    gate.enter(key)  # the account's two heavy turns taken (two exports running, say)
    try:
        for url in (f"/armies/{mine}/export.txt", f"/armies/{mine}", f"/armies/{mine}/print"):
            r = member.client.get(url)
            assert r.status_code == 503, url
            assert r.headers["retry-after"] == "1"
            assert "<h1>Server busy</h1>" in r.text and "Your account already has" in r.text
        r = member.client.get(f"/api/v1/armies/{mine}/export")
        assert r.status_code == 503 and r.headers["retry-after"] == "1"
        assert "your account already has" in json.dumps(r.json())
        # the account's light work, and another account's heavy work, go on
        assert member.client.get(f"/armies/{small}/export.txt").status_code == 200
        assert member.client.get("/armies").status_code == 200
        assert stranger.client.get(f"/armies/{theirs}/export.txt").status_code == 200
        assert gate.state() == (1, 0)  # the stranger's turn given back once it was sent
    finally:
        gate.leave(key)
        gate.leave(key)
    assert member.client.get(f"/armies/{mine}/export.txt").status_code == 200
    assert gate.state() == (3, 0)


def test_an_accounts_heavy_request_elsewhere_on_the_machine_refuses_its_next_at_once(
    app: Any,
    member: Member,
    stranger: Member,
    gate: KeyedGate,
    settings: _Setter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ruling G13: while another server process runs one of the account's heavy requests
    (here: another handle holding its machine turn), the next is a 503 at once, never
    entering this process's gate; another account's goes on; given back, it works again."""
    settings(heavy_army_rows=10)
    mine = _import(member, _troopers(6))
    theirs = _import(stranger, _troopers(6))
    turns = heavy_gate.MachineTurns(tmp_path, "this database")
    monkeypatch.setattr(heavy_gate, "machine", lambda: turns)
    key = f"account:{_user_id(app, member.email)}"
    elsewhere = heavy_gate.MachineTurns(tmp_path, "this database").take(key)
    try:
        r = member.client.get(f"/armies/{mine}/export.txt")
        assert r.status_code == 503 and r.headers["retry-after"] == "1"
        assert "Your account already has" in r.text
        r = member.client.get(f"/api/v1/armies/{mine}/export")
        assert r.status_code == 503 and "your account already has" in json.dumps(r.json())
        assert gate.state() == (3, 0)  # it never took a place of this process's gate
        assert stranger.client.get(f"/armies/{theirs}/export.txt").status_code == 200
    finally:
        elsewhere()
    assert member.client.get(f"/armies/{mine}/export.txt").status_code == 200
    turns.take(key)()  # the request gave its machine turn back once it was sent


def test_a_stranger_gets_the_same_404_for_a_large_army_with_no_turns_left(
    app: Any, member: Member, stranger: Member, gate: KeyedGate, settings: _Setter
) -> None:
    """Access is checked before the army is weighed: a stranger with no heavy turns left
    gets a 404 for another's large army (never a 503 that would tell it is there)."""
    settings(heavy_army_rows=10)
    large = _import(member, _troopers(6))
    key = f"account:{_user_id(app, stranger.email)}"
    gate.enter(key)
    gate.enter(key)
    try:
        for url in (f"/armies/{large}", f"/armies/{large}/export.txt", f"/armies/{large}/print"):
            assert stranger.client.get(url).status_code == 404, url
        assert stranger.client.get(f"/api/v1/armies/{large}/export").status_code == 404
    finally:
        gate.leave(key)
        gate.leave(key)


def test_a_large_import_takes_a_turn_refused_when_the_account_has_none(
    app: Any, member: Member, gate: KeyedGate, settings: _Setter
) -> None:
    settings(heavy_import_bytes=1000)
    small = _document(_troopers(1))
    large = _document(_troopers(30))
    assert len(small) < 1000 <= len(large)
    key = f"account:{_user_id(app, member.email)}"
    gate.enter(key)
    gate.enter(key)
    try:
        page = member.form("/armies/import", files={"file": ("a.json", large, "application/json")})
        assert page.status_code == 503 and page.headers["retry-after"] == "1"
        api = member.client.post(
            "/api/v1/armies/import", content=large, headers={"X-CSRF-Token": member.csrf}
        )
        assert api.status_code == 503
        small_import = member.client.post(
            "/api/v1/armies/import", content=small, headers={"X-CSRF-Token": member.csrf}
        )
        assert small_import.status_code == 201, small_import.text
    finally:
        gate.leave(key)
        gate.leave(key)
    api = member.client.post(
        "/api/v1/armies/import", content=large, headers={"X-CSRF-Token": member.csrf}
    )
    assert api.status_code == 201 and gate.state() == (3, 0)


def test_an_armys_rows_are_counted_alike_from_the_database_and_from_the_kept_units(
    app: Any, member: Member
) -> None:
    army_id = _import(member, _troopers(6) + _gunships(2))  # 6 + 6 + 2 + 24 rows
    builder._KEPT_UNITS.cache_clear()
    with app.state.read_sessionmaker() as session:
        army = session.get(Army, army_id)
        assert army is not None and builder.kept_row_count(session, army) is None
        assert heavy_gate.army_rows(session, army_id) == 38
    assert member.client.get(f"/armies/{army_id}").status_code == 200  # keeps its units
    with app.state.read_sessionmaker() as session:
        army = session.get(Army, army_id)
        assert army is not None and builder.kept_row_count(session, army) == 38
        assert heavy_gate.army_rows(session, army_id) == 38
