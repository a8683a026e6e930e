"""A battle's live streams in one process: what a stream is owed when it opens (the entries
after the number it names, in order, once), as each role may see it, and who may open one.

The suite's streams end once they have sent what they owe (``LIVE_STREAM_SECONDS=0`` in
tests/conftest.py): an answer read whole is every event the stream had for its opener. Streams
that stay open while others roll are tested between servers (test_multi_server.py) and in a
browser (tests/browser/test_live.py).
"""

from __future__ import annotations

import json
import re

from tests.db.test_d20_battles import Game, game  # noqa: F401  (the fixture)
from tests.web.battles.test_battles import _form, api, battle  # noqa: F401  (the fixture)
from tests.web.conftest import Member


def events(text: str, presence: bool = False) -> list[tuple[int, str, str]]:
    """Each event of a stream's text as (id, event, data); "presence" events (who has the
    battle open: a stream's own opening can bring one) only if asked for."""
    out = []
    for block in text.split("\n\n"):
        fields: dict[str, list[str]] = {}
        for line in block.split("\n"):
            name, _, value = line.partition(": ")
            if name in ("id", "event", "data"):
                fields.setdefault(name, []).append(value)
        if "id" in fields and (presence or fields["event"][0] != "presence"):
            out.append((int(fields["id"][0]), fields["event"][0], "\n".join(fields["data"])))
    return out


def _forms_in_paragraphs(html: str) -> list[str]:
    """Each <p> holding a form: the browser's parser ends the paragraph at the form, so the
    form is not inside it (nor in what a swap of the paragraph by its id replaces)."""
    return [p for p in re.findall(r"<p\b[^>]*>.*?</p>", html, re.S) if "<form" in p]


def _rolls(member: Member, fight: dict[str, int], n: int) -> None:
    for seed in range(1, n + 1):
        r = member.form(
            f"/battles/{fight['id']}/rolls", _form(fight, seed=str(seed)), follow_redirects=False
        )
        assert r.status_code == 303, r.text


def test_a_stream_sends_the_entries_after_the_last_seen_in_order_once(
    member: Member,
    battle: dict[str, int],  # noqa: F811
) -> None:
    _rolls(member, battle, 3)
    url = f"/battles/{battle['id']}/events"
    r = member.client.get(url, params={"after": 1})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    assert r.headers["cache-control"] == "no-store"
    got = events(r.text)
    assert [(seq, kind) for seq, kind, _ in got] == [(2, "entry"), (3, "entry")]
    # each carries its entry on top of the log and the units it changed, swapped by id
    for seq, _, data in got:
        assert 'hx-swap-oob="afterbegin:#log-list"' in data
        assert f'id="entry-{seq}"' in data and f"<strong>#{seq}</strong>" in data
        assert f'id="unit-{battle["walker"]}"' in data and 'hx-swap-oob="true"' in data
    # the host's forms in it carry this session's CSRF token
    assert f'value="{member.csrf}"' in got[-1][2] and "Undo #3" in got[-1][2]
    # inside the log's actions that the event swaps (a browser ends a paragraph at a form)
    actions = re.search(r'<div class="actions" id="log-actions" hx-swap-oob="true">(.*?)</div>',
                        got[-1][2], re.S)  # fmt: skip
    assert actions is not None and "Undo #3" in actions.group(1)
    assert 'id="end-battle"' in actions.group(1)
    for _, _, data in got:
        assert _forms_in_paragraphs(data) == []
    assert _forms_in_paragraphs(member.client.get(f"/battles/{battle['id']}").text) == []
    # the browser's own reconnection names the last it saw (the newer of the two counts)
    again = events(member.client.get(url, params={"after": 1}, headers={"Last-Event-ID": "2"}).text)
    assert [seq for seq, _, _ in again] == [3]
    assert events(member.client.get(url, params={"after": 3}).text) == []
    # a junk Last-Event-ID counts as none
    junk = member.client.get(url, params={"after": 2}, headers={"Last-Event-ID": "x"})
    assert [seq for seq, _, _ in events(junk.text)] == [3]


def test_the_page_opens_its_stream_after_the_newest_entry_it_shows(
    member: Member,
    battle: dict[str, int],  # noqa: F811
) -> None:
    _rolls(member, battle, 2)
    page = member.client.get(f"/battles/{battle['id']}").text
    live = re.search(r'<p id="live"[^>]*>', page)
    assert live is not None
    assert f'sse-connect="/battles/{battle["id"]}/events?after=2"' in live.group(0)
    assert 'sse-close="ended"' in live.group(0)
    assert "/static/vendor/htmx-ext-sse/sse.min.js" in page and "/static/js/live.js" in page
    # an older window of the log is no place for new entries: no stream
    older = member.client.get(f"/battles/{battle['id']}", params={"before": 2}).text
    assert 'id="live"' not in older


def test_the_json_twin_sends_each_entry_and_the_units_it_changed(
    member: Member,
    battle: dict[str, int],  # noqa: F811
) -> None:
    _rolls(member, battle, 2)
    r = api(member, "GET", f"/api/v1/battles/{battle['id']}/events", params={"after": 0})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    got = events(r.text)
    assert [seq for seq, _, _ in got] == [1, 2]
    body = json.loads(got[1][2])
    assert body["seq"] == 2 and body["entry"]["seq"] == 2 and body["last_seq"] == 2
    changed = sorted(int(k) for k in body["entry"]["changes"])
    assert battle["walker"] in changed and [u["id"] for u in body["units"]] == changed
    detail = api(member, "GET", f"/api/v1/battles/{battle['id']}").json()
    assert body["units"] == [u for u in detail["units"] if u["id"] in changed]


def test_a_strangers_stream_is_a_404_and_a_visitors_asks_to_log_in(
    member: Member,
    stranger: Member,
    battle: dict[str, int],  # noqa: F811
) -> None:
    for url in (f"/battles/{battle['id']}/events", f"/api/v1/battles/{battle['id']}/events"):
        assert api(stranger, "GET", url).status_code == 404
    assert api(stranger, "GET", "/battles/shared/nope/events").status_code == 404
    member.client.cookies.clear()
    assert member.client.get(f"/api/v1/battles/{battle['id']}/events").status_code == 401
    r = member.client.get(f"/battles/{battle['id']}/events", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/login")


def test_a_link_stream_ends_with_the_link(
    member: Member,
    battle: dict[str, int],  # noqa: F811
) -> None:
    _rolls(member, battle, 1)
    token = api(member, "POST", f"/api/v1/battles/{battle['id']}/share-link").json()["token"]
    url = f"/battles/shared/{token}/events"
    member.client.cookies.clear()  # a visitor with the link
    got = events(member.client.get(url, params={"after": 0}).text)
    assert [seq for seq, _, _ in got] == [1]
    assert "csrf" not in got[0][2] and "Undo" not in got[0][2]  # no forms for a spectator
    page = member.client.get(f"/battles/shared/{token}").text
    assert f'sse-connect="/battles/shared/{token}/events?after=1"' in page


def test_a_spectator_never_receives_a_secret_countdown(game: Game) -> None:  # noqa: F811
    r = game.act(
        "Sapper",
        "place_charge",
        charge_weapons="2, 3",
        charge_timer="countdown",
        charge_turns=2,
        charge_secret=True,
    )
    assert r.status_code == 201, r.text
    host = events(game.client.get(f"/battles/{game.battle}/events").text)
    assert "2 turns left" in host[0][2]
    token = game.client.post(f"{game.url}/share-link", headers=game.headers).json()["token"]
    for url in (f"/battles/shared/{token}/events", f"{game.url}/events"):
        # the host's stream renders first: the spectator's must not be served from it
        got = events(game.client.get(url).text)
        assert [seq for seq, _, _ in got] == [1]
    spectator = events(game.client.get(f"/battles/shared/{token}/events").text)
    assert "secret countdown (0 turns counted)" in spectator[0][2]
    assert "2 turns left" not in spectator[0][2]


def test_the_vendored_sse_extension_carries_its_licence_and_fits_our_htmx(client) -> None:  # type: ignore[no-untyped-def]
    script = client.get("/static/vendor/htmx-ext-sse/sse.min.js")
    assert script.status_code == 200 and 'htmx.defineExtension("sse"' in script.text
    licence = client.get("/static/vendor/htmx-ext-sse/LICENSE")
    assert licence.status_code == 200 and "BSD Zero Clause License" in licence.text
    readme = client.get("/static/vendor/htmx-ext-sse/README.md").text
    htmx = client.get("/static/vendor/htmx/README.md").text
    # the extension is for htmx 2, and ours is the version its README names
    version = re.search(r"htmx (2\.\d+\.\d+)", htmx)
    assert version is not None and f"ours is htmx {version.group(1)}" in readme
