"""Read-only views of an army (issue 14 item 5): what a share-link viewer and a club reader
see leads somewhere. Every same-origin link and form on the page is followed, as the viewer;
none may answer 401, 403, 404 or 405, or send the viewer to log in."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

from fastapi.testclient import TestClient

from tests.web.conftest import PASSWORD, Member, page_csrf, sign_up

DEAD_ENDS = (401, 403, 404, 405)
# Log out ends the session the rest of the crawl needs; it is checked elsewhere.
SKIPPED = ("/logout",)


def api(member: Member, method: str, url: str, **kw):  # type: ignore[no-untyped-def]
    return member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)


class _Targets(HTMLParser):
    """Every (method, url, form fields) a page's links, forms and htmx attributes lead to."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str, dict[str, str]]] = []
        self._form: tuple[str, str, dict[str, str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "a" and "href" in a:
            self.found.append(("GET", a["href"], {}))
        for key, method in (("hx-get", "GET"), ("hx-post", "POST")):
            if key in a:
                self.found.append((method, a[key], {}))
        if tag == "form":
            self._form = (a.get("method", "get").upper(), a.get("action", ""), {})
            self.found.append(self._form)
        if tag == "input" and self._form is not None and a.get("name"):
            self._form[2][a["name"]] = a.get("value", "")
        if tag == "button" and "formaction" in a and self._form is not None:
            self.found.append((self._form[0], a["formaction"], self._form[2]))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None


def crawl(client: TestClient, url: str) -> list[str]:
    """Fetch ``url`` and follow each same-origin target on it once; the dead ends found."""
    page = client.get(url)
    assert page.status_code == 200, (url, page.status_code)
    parser = _Targets()
    parser.feed(page.text)
    dead = []
    seen = set()
    for method, target, fields in parser.found:
        if target.startswith(("#", "mailto:", "javascript:")):
            continue
        full = urljoin(f"http://testserver{url}", target)
        parts = urlsplit(full)
        if parts.netloc != "testserver" or parts.path in SKIPPED:
            continue
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        if (method, path) in seen:
            continue
        seen.add((method, path))
        if method == "POST":
            r = client.post(path, data=fields, follow_redirects=False)
        else:
            r = client.get(path, follow_redirects=False)
        location = r.headers.get("location", "")
        if r.status_code in DEAD_ENDS or location.startswith("/login"):
            dead.append(f"{method} {path} -> {r.status_code} {location}")
        elif r.status_code == 303:  # where a form lands must open too
            landed = client.get(location, follow_redirects=False)
            if landed.status_code != 200:
                dead.append(f"{method} {path} -> {location} -> {landed.status_code}")
    assert parser.found, "nothing to follow on the page"
    return dead


def _roster(app, owner: Member, reader: Member) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    """Alice's army with a Creation and a minifig, shared with a club Carol reads, and a link."""
    club = api(owner, "POST", "/api/v1/clubs", json={"name": "Brick Club"}).json()
    token = api(owner, "POST", f"/api/v1/clubs/{club['id']}/invites").json()["token"]
    assert api(reader, "POST", "/api/v1/clubs/join", json={"token": token}).status_code == 200
    army = api(owner, "POST", "/api/v1/armies", json={"name": "Linked", "budget": 90}).json()
    tank = {
        "name": "Tank",
        "size": 3,
        "structure_level": 2,
        "weapons": [{"type": "cannon", "size": 3, "ammo": {"xsize": 2, "rounds": 2}}],
    }
    trooper = {"name": "Trooper", "kind": "minifig", "weapons": [{"type": "gun", "size": 1}]}
    for unit in (tank, trooper):
        r = api(owner, "POST", f"/api/v1/armies/{army['id']}/units", json=unit)
        assert r.status_code == 201, r.text
    shared = api(owner, "PUT", f"/api/v1/armies/{army['id']}/sharing", json={"club_id": club["id"]})
    assert shared.status_code == 200, shared.text
    link = api(owner, "POST", f"/api/v1/armies/{army['id']}/share-links").json()
    return army["id"], link["token"]


def test_a_share_link_leads_an_anonymous_visitor_nowhere_dead(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    with TestClient(app) as c:
        reader = sign_up(c, name="Carol")
        army_id, token = _roster(app, member, reader)
    with TestClient(app) as anonymous:
        page = anonymous.get(f"/shared/{token}").text
        assert "A read-only army shared by link" in page
        assert "club roster" not in page
        # each unit opens in the open calculator, filled in as attacker or as target
        link = r'href="(/calculator/open\?[^"]+)"[^>]*>Attack (with this|this)<'
        attacks = re.findall(link, page)
        assert len(attacks) == 4 and {kind for _, kind in attacks} == {"with this", "this"}
        opened = anonymous.get(html.unescape(attacks[0][0]))
        assert opened.status_code == 200, opened.text
        assert 'value="Tank"' in opened.text and "/calculator?" not in attacks[0][0]
        assert f"/armies/{army_id}" not in page  # no unit, edit, history or delete links
        for offered in ("Print roster", "Forum text", "Export JSON", "Log in to fork"):
            assert offered in page, offered
        assert crawl(anonymous, f"/shared/{token}") == []
        assert crawl(anonymous, f"/shared/{token}/print") == []


def test_log_in_to_fork_comes_back_to_the_link_and_forks(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    with TestClient(app) as c:
        reader = sign_up(c, name="Carol")
        _, token = _roster(app, member, reader)
    with TestClient(app) as c:
        guest = sign_up(c, name="Guest")
        guest.client.post("/logout", data={"csrf_token": guest.csrf})
        login = guest.client.get(f"/shared/{token}").text
        assert f'href="/login?next=/shared/{token}"' in login
        csrf = page_csrf(guest.client, f"/login?next=/shared/{token}")
        r = guest.client.post(
            "/login",
            data={
                "csrf_token": csrf,
                "email": guest.email,
                "password": PASSWORD,
                "next": f"/shared/{token}",
            },
            follow_redirects=False,
        )
        assert r.status_code == 303 and r.headers["location"] == f"/shared/{token}"
        page = guest.client.get(f"/shared/{token}").text
        assert f'action="/shared/{token}/fork"' in page and "Log in to fork" not in page
        csrf = page_csrf(guest.client, f"/shared/{token}")
        r = guest.client.post(
            f"/shared/{token}/fork", data={"csrf_token": csrf}, follow_redirects=False
        )
        assert r.status_code == 303
        assert "Linked (fork)" in guest.client.get(r.headers["location"]).text


def test_a_share_link_leads_another_player_nowhere_dead(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    with TestClient(app) as c:
        reader = sign_up(c, name="Carol")
        _, token = _roster(app, member, reader)
    with TestClient(app) as c:
        stranger = sign_up(c, name="Mallory")
        page = stranger.client.get(f"/shared/{token}").text
        assert "A read-only army shared by link" in page
        assert "/calculator?" not in page and "/calculator/open?" in page  # no saved unit ids
        assert crawl(stranger.client, f"/shared/{token}") == []


def test_a_club_reader_meets_no_dead_end(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    with TestClient(app) as c:
        reader = sign_up(c, name="Carol")
        army_id, token = _roster(app, member, reader)
        roster = reader.client.get(f"/armies/{army_id}").text
        assert "Read only: a club roster shared with you" in roster
        assert crawl(reader.client, f"/armies/{army_id}") == []
        unit_id = api(reader, "GET", f"/api/v1/armies/{army_id}").json()["units"][0]["id"]
        assert crawl(reader.client, f"/armies/{army_id}/units/{unit_id}") == []
        assert crawl(reader.client, f"/armies/{army_id}/print") == []
        assert crawl(reader.client, f"/shared/{token}") == []


def test_a_linked_army_exports_through_its_link(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    with TestClient(app) as c:
        reader = sign_up(c, name="Carol")
        army_id, token = _roster(app, member, reader)
    with TestClient(app) as anonymous:
        sheet = anonymous.get(f"/shared/{token}/print")
        assert sheet.status_code == 200 and "Tank" in sheet.text
        assert f'href="/shared/{token}"' in sheet.text  # back to the link, not the builder
        text = anonymous.get(f"/shared/{token}/export.txt").text
        assert text.startswith("Linked — BrikWars")
        download = anonymous.get(f"/shared/{token}/export.json")
        assert download.headers["content-disposition"] == 'attachment; filename="linked.json"'
        owners = api(member, "GET", f"/api/v1/armies/{army_id}/export").json()
        assert download.json() == owners
        assert anonymous.get(f"/api/v1/shared/{token}/export").json() == owners
        api_text = anonymous.get(f"/api/v1/shared/{token}/export", params={"format": "text"})
        assert api_text.text == text
        assert anonymous.get("/shared/not-a-token/print").status_code == 404
