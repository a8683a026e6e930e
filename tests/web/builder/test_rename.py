"""A fork renamed through "Edit name, budget and notes" (htmx): the answer carries the new
name in the heading and, for htmx to set, in the page's title; a plain form's full page has
one title, in its head."""

from __future__ import annotations

import re
from typing import Any

from tests.web.conftest import Member


def api(member: Member, method: str, url: str, **kw: Any) -> Any:
    return member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)


def test_a_fork_renamed_through_the_form_answers_with_its_new_name(member: Member) -> None:
    original = api(member, "POST", "/api/v1/armies/examples/brikwars").json()
    fork = member.form(f"/armies/{original['id']}/fork", follow_redirects=False)
    assert fork.status_code == 303, fork.text[:300]
    fork_id = int(fork.headers["location"].rsplit("/", 1)[1])
    version = api(member, "GET", f"/api/v1/armies/{fork_id}").json()["version"]
    form = {"version": str(version), "name": "Bayou raiders", "budget": "60", "notes": ""}
    r = member.htmx(f"/armies/{fork_id}", form)
    assert r.status_code == 200, r.text[:300]
    assert '<h1 id="army-name">Bayou raiders</h1>' in r.text
    assert re.findall(r"<title>([^<]*)</title>", r.text) == ["Bayou raiders · BrikForge"]
    assert "Saved." in r.text
    page = member.form(f"/armies/{fork_id}", {**form, "version": str(version + 1)})
    assert page.status_code == 200
    assert re.findall(r"<title>([^<]*)</title>", page.text) == ["Bayou raiders · BrikForge"]
    assert page.text.index("<title>") < page.text.index("</head>")
