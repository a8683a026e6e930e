"""The army page's content comes from a memo keyed on what it shows (issue 15, item 2).

Every kind of change, by the owner or a club editor, must show on the very next view, and
each viewer sees their own rights and their own CSRF token: the memoised page must equal the
page rendered afresh, after every change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.web import templating
from tests.conftest import CSRF_RE
from tests.web.conftest import Member, sign_up

WEAPON = {"type": "short_ranged_weapon"}


def _api(member: Member, method: str, url: str, **kw: Any) -> Any:
    r = member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)
    assert r.status_code < 300, (url, r.status_code, r.text[:300])
    return r.json() if r.content else None


def _page(member: Member, army: int) -> str:
    r = member.client.get(f"/armies/{army}")
    assert r.status_code == 200, r.text[:300]
    return r.text


def _fresh(member: Member, army: int) -> str:
    templating._CONTENTS.cache_clear()
    return _page(member, army)


@pytest.fixture
def club_army(app) -> Any:  # type: ignore[no-untyped-def]
    """Alice's army shared with her club; Bob is an editor, Carol a reader."""
    with TestClient(app) as a, TestClient(app) as b, TestClient(app) as c:
        alice, bob, carol = (
            sign_up(a, name="Alice"),
            sign_up(b, name="Bob"),
            sign_up(c, name="Carol"),
        )
        club = _api(alice, "POST", "/api/v1/clubs", json={"name": "Brick Club"})["id"]
        for other in (bob, carol):
            token = _api(alice, "POST", f"/api/v1/clubs/{club}/invites")["token"]
            _api(other, "POST", "/api/v1/clubs/join", json={"token": token})
        army = _api(alice, "POST", "/api/v1/armies", json={"name": "Host", "budget": 100})["id"]
        for name in ("Trooper", "Scout"):
            unit = {"name": name, "kind": "minifig", "weapons": [WEAPON]}
            _api(alice, "POST", f"/api/v1/armies/{army}/units", json=unit)
        members = {"alice": alice, "bob": bob, "carol": carol}
        yield army, club, members


def _share(members: dict[str, Member], army: int, club: int, *, editors: list[str]) -> None:
    """Alice shares the army with the club, with these members as its editors."""
    ids = [_api(members[name], "GET", "/api/v1/me")["id"] for name in editors]
    body = {"club_id": club, "editor_ids": ids}
    _api(members["alice"], "PUT", f"/api/v1/armies/{army}/sharing", json=body)


def _detail(member: Member, army: int) -> Any:
    return _api(member, "GET", f"/api/v1/armies/{army}")


def _first_unit(member: Member, army: int) -> Any:
    return _detail(member, army)["units"][0]


CHANGES: dict[str, Callable[[Member, int, int, dict[str, Member]], None]] = {
    "add a unit": lambda m, army, club, ms: _api(
        m, "POST", f"/api/v1/armies/{army}/units", json={"name": "Sniper", "kind": "minifig"}
    ),
    "rename a unit": lambda m, army, club, ms: _api(
        m,
        "PATCH",
        f"/api/v1/armies/{army}/units/{(u := _first_unit(m, army))['id']}",
        json={"version": u["version"], "name": "Renamed"},
    ),
    "add a weapon": lambda m, army, club, ms: _api(
        m, "POST", f"/api/v1/armies/{army}/units/{_first_unit(m, army)['id']}/weapons", json=WEAPON
    ),
    "duplicate a unit": lambda m, army, club, ms: _api(
        m, "POST", f"/api/v1/armies/{army}/units/{_first_unit(m, army)['id']}/duplicate"
    ),
    "move a unit": lambda m, army, club, ms: _api(
        m,
        "POST",
        f"/api/v1/armies/{army}/units/{_first_unit(m, army)['id']}/move",
        json={"offset": 1},
    ),
    "settings": lambda m, army, club, ms: _api(
        m,
        "PATCH",
        f"/api/v1/armies/{army}",
        json={"version": _detail(m, army)["version"], "budget": 77, "notes": "Hold the bridge"},
    ),
    "house rules": lambda m, army, club, ms: _api(
        m,
        "PUT",
        f"/api/v1/armies/{army}/house-rules",
        json={"version": _detail(m, army)["version"], "options": {"bonus_die": "none"}},
    ),
    "remove a unit": lambda m, army, club, ms: _api(
        m, "DELETE", f"/api/v1/armies/{army}/units/{_first_unit(m, army)['id']}"
    ),
}


@pytest.mark.parametrize("change", list(CHANGES))
@pytest.mark.parametrize("who", ["alice", "bob"])
def test_every_change_shows_at_once_to_every_viewer(club_army, change, who) -> None:  # type: ignore[no-untyped-def]
    army, club, members = club_army
    _share(members, army, club, editors=["bob"])
    before = {name: _page(m, army) for name, m in members.items()}  # the memo holds these
    CHANGES[change](members[who], army, club, members)
    for name, member in members.items():
        memoised = _page(member, army)
        if name == "alice":  # (a reader may see no difference: the house rules, say)
            assert memoised != before[name], change
        assert memoised == _fresh(member, army), (change, name)


def test_each_viewer_gets_their_rights_and_their_own_token(club_army, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    army, club, members = club_army
    bob = members["bob"]
    _share(members, army, club, editors=[])
    templating._CONTENTS.cache_clear()
    pages = {name: _page(m, army) for name, m in members.items()}
    assert templating._CONTENTS.cache_info().currsize == 2  # the owner's; a reader's
    found = []
    real_get = templating._CONTENTS.get
    monkeypatch.setattr(templating._CONTENTS, "get", lambda key: found.append(real_get(key)))
    again = {name: _page(m, army) for name, m in members.items()}
    assert len(found) == 3 and all(found)  # every view found its content in the memo
    assert again == pages
    for name, member in members.items():
        tokens = set(CSRF_RE.findall(pages[name]))
        assert tokens == {member.csrf}, name
    assert "Read only: a club roster shared with you." in pages["bob"]
    assert "Read only" in pages["carol"]
    assert "Delete army…" in pages["alice"] and "Delete army…" not in pages["bob"]
    # Bob made an editor: his page changes (his rights are in the key), Carol's does not
    _share(members, army, club, editors=["bob"])
    assert "You may edit this club roster." in _page(bob, army)
    assert _page(members["carol"], army) == pages["carol"]


def test_a_name_that_spells_the_content_placeholder_stays_text(app) -> None:  # type: ignore[no-untyped-def]
    # The page is rendered around a placeholder where its memoised content goes; an army's
    # name is in the page's title too, and must not be taken for it.
    with TestClient(app) as client:
        owner = sign_up(client)
        name = "<!--brikforge:page-content-->"
        army = _api(owner, "POST", "/api/v1/armies", json={"name": name, "budget": 100})["id"]
        _page(owner, army)  # into the memo
        page = _page(owner, army)
        assert page == _fresh(owner, army)
        assert name not in page and "&lt;!--brikforge:page-content--&gt;" in page
        assert page.count('id="builder"') == 1 and page.index("<title>") < page.index("<main")
