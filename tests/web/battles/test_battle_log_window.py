"""A long battle log is shown a window at a time (issue 15 item 4): the page and its JSON
twin carry the newest entries and a way to the older ones; Undo, the export and a roll's
permalink still reach the whole log."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import insert, select

from app.db.models import BattleEntry
from app.services.battles import LOG_WINDOW
from tests.web.battles.test_battles import _armies, api
from tests.web.conftest import Member

ENTRIES = LOG_WINDOW + 10


def _seqs(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<article class="entry" id="entry-(\d+)"', html)]


@pytest.fixture
def long_battle(app, member: Member) -> int:  # type: ignore[no-untyped-def]
    """A battle with one real roll and copies of it before, numbered 1 to ENTRIES (the
    real one last: what Undo removes)."""
    red, blue = _armies(member)
    body = api(member, "POST", "/api/v1/battles", json={"name": "Siege", "army_ids": [red, blue]})
    battle = body.json()
    units = {u["name"]: u["id"] for u in battle["units"]}
    roll = {"attacker_id": units["Tank"], "target_id": units["Walker"], "weapons": [0], "seed": 5}
    r = api(member, "POST", f"/api/v1/battles/{battle['id']}/rolls", json=roll)
    assert r.status_code == 201, r.text
    with app.state.sessionmaker.begin() as session:
        real = session.scalars(select(BattleEntry).where(BattleEntry.battle_id == battle["id"]))
        entry = real.one()
        entry.seq = ENTRIES
        session.flush()
        copied = ("actor_id", "kind", "seed", "summary", "request_json", "odds_json")
        copied += ("dice_json", "changes_json")
        session.execute(
            insert(BattleEntry),
            [
                {"battle_id": battle["id"], "seq": seq, **{c: getattr(entry, c) for c in copied}}
                for seq in range(1, ENTRIES)
            ],
        )
    return int(battle["id"])


def test_the_page_shows_the_newest_entries_and_links_to_older_ones(
    member: Member, long_battle: int
) -> None:
    page = member.client.get(f"/battles/{long_battle}")
    assert page.status_code == 200
    oldest_shown = ENTRIES - LOG_WINDOW + 1
    assert _seqs(page.text) == list(range(ENTRIES, oldest_shown - 1, -1))
    assert f"Undo #{ENTRIES}" in page.text
    assert f'href="/battles/{long_battle}?before={oldest_shown}#log"' in page.text

    older = member.client.get(f"/battles/{long_battle}?before={oldest_shown}")
    assert older.status_code == 200 and "<html" in older.text  # a whole page, opened directly
    assert _seqs(older.text) == list(range(oldest_shown - 1, 0, -1))
    assert f"Undo #{ENTRIES}" in older.text  # Undo still removes the newest entry
    assert "Newest entries" in older.text and "Older entries" not in older.text


def test_htmx_older_entries_brings_just_the_next_window(member: Member, long_battle: int) -> None:
    oldest_shown = ENTRIES - LOG_WINDOW + 1
    more = member.client.get(
        f"/battles/{long_battle}?before={oldest_shown}",
        headers={"HX-Request": "true", "HX-Target": "log-more"},
    )
    assert more.status_code == 200
    assert "<html" not in more.text and 'id="log"' not in more.text
    assert _seqs(more.text) == list(range(oldest_shown - 1, 0, -1))
    assert 'id="log-more"' not in more.text  # nothing older is left


def test_a_roll_permalink_shows_its_entry_outside_the_window(
    member: Member, long_battle: int
) -> None:
    page = member.client.get(f"/battles/{long_battle}?roll=3")
    result = page.text.split('id="result"', 1)[1].split("</section>", 1)[0]
    assert 'id="result-3" data-seq="3"' in result


def test_the_export_still_has_the_whole_log(member: Member, long_battle: int) -> None:
    text = member.client.get(f"/battles/{long_battle}/export.txt").text
    assert all(f"#{seq} " in text for seq in (1, 2, ENTRIES // 2, ENTRIES))


def test_the_json_twin_is_paginated_with_a_bounded_window(member: Member, long_battle: int) -> None:
    base = f"/api/v1/battles/{long_battle}"
    body = api(member, "GET", base).json()
    oldest_shown = ENTRIES - LOG_WINDOW + 1
    assert [e["seq"] for e in body["log"]] == list(range(oldest_shown, ENTRIES + 1))
    assert (body["log_count"], body["last_seq"]) == (ENTRIES, ENTRIES)
    assert body["older_before"] == oldest_shown
    older = api(member, "GET", base, params={"before": oldest_shown}).json()
    assert [e["seq"] for e in older["log"]] == list(range(1, oldest_shown))
    assert older["older_before"] is None
    small = api(member, "GET", base, params={"limit": 5}).json()
    assert [e["seq"] for e in small["log"]] == list(range(ENTRIES - 4, ENTRIES + 1))
    assert small["older_before"] == ENTRIES - 4
    for limit in (0, 201):
        assert api(member, "GET", base, params={"limit": limit}).status_code == 422


def test_the_read_only_link_shows_the_log_a_window_at_a_time(
    member: Member, long_battle: int
) -> None:
    token = api(member, "POST", f"/api/v1/battles/{long_battle}/share-link").json()["token"]
    oldest_shown = ENTRIES - LOG_WINDOW + 1
    shared = member.client.get(f"/battles/shared/{token}")
    assert len(_seqs(shared.text)) == LOG_WINDOW
    assert f'href="/battles/shared/{token}?before={oldest_shown}#log"' in shared.text
    older = member.client.get(f"/battles/shared/{token}?before={oldest_shown}")
    assert _seqs(older.text) == list(range(oldest_shown - 1, 0, -1))
    body = api(member, "GET", f"/api/v1/battles/shared/{token}").json()
    assert len(body["log"]) == LOG_WINDOW and body["older_before"] == oldest_shown
