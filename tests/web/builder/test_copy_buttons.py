"""Issue 14 item 19: every shown-once link or token comes with a Copy button (app.js copies;
the Clipboard round trip itself is pinned in tests/browser/test_copy_and_invite.py)."""

from __future__ import annotations

import re

from tests.web.conftest import Member


def _api(member: Member, method: str, url: str, **kw):  # type: ignore[no-untyped-def]
    return member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)


def _copyable(page: str, value_id: str) -> str:
    code = re.search(rf'<code id="{value_id}">([^<]+)</code>', page)
    assert code, f"no #{value_id}"
    assert (
        f'<button type="button" class="small secondary" data-copy="{value_id}">Copy</button>'
        in page
    )
    assert f'data-copy-status="{value_id}" role="status" aria-live="polite"' in page
    return code.group(1)


def test_shown_once_links_and_tokens_have_a_copy_button(member: Member) -> None:
    club = _api(member, "POST", "/api/v1/clubs", json={"name": "Copy Club"}).json()
    page = member.form(f"/clubs/{club['id']}/invites").text
    assert "/clubs/join/" in _copyable(page, "new-invite-link")

    unit = {"name": "Trooper", "kind": "minifig", "weapons": [{"type": "short_ranged_weapon"}]}
    army_ids = []
    for name in ("Copied", "Other"):
        army = _api(member, "POST", "/api/v1/armies", json={"name": name, "budget": 50}).json()
        assert (
            _api(member, "POST", f"/api/v1/armies/{army['id']}/units", json=unit).status_code == 201
        )
        army_ids.append(army["id"])
    page = member.form(f"/armies/{army_ids[0]}/links").text
    assert "/shared/" in _copyable(page, "new-link")

    battle = _api(
        member, "POST", "/api/v1/battles", json={"name": "Copy Fight", "army_ids": army_ids}
    ).json()
    page = member.form(f"/battles/{battle['id']}/links").text
    assert "/battles/shared/" in _copyable(page, "new-link")

    fragment = member.htmx("/account/tokens", {"name": "bot"}).text
    assert _copyable(fragment, "new-token").startswith("bf_")
