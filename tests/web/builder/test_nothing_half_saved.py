"""A change and its revision are one transaction: a failure while the revision is written
(after the unit's change, its cost and its rows stamp were) leaves none of them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.services import history
from tests.web.builder.test_history_transfer import TANK
from tests.web.conftest import Member, sign_up


@pytest.fixture
def fragile(app) -> Iterator[Member]:  # type: ignore[no-untyped-def]
    with TestClient(app, raise_server_exceptions=False) as client:
        yield sign_up(client, name="Fragile")


def _api(member: Member, method: str, url: str, **kw):  # type: ignore[no-untyped-def]
    return member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)


@pytest.mark.parametrize("route", ["page", "api", "weapon"])
def test_a_failed_revision_write_keeps_neither_the_change_nor_the_revision(  # type: ignore[no-untyped-def]
    fragile: Member, monkeypatch, route: str
) -> None:
    army = _api(fragile, "POST", "/api/v1/armies", json={"name": "Brittle", "budget": 99}).json()
    base = f"/api/v1/armies/{army['id']}"
    unit = _api(fragile, "POST", f"{base}/units", json=TANK).json()
    before = _api(fragile, "GET", base).json()
    revisions = _api(fragile, "GET", f"{base}/history").json()
    written: list[str] = []
    real = history._new_revision

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        written.append("revision")
        real(*args, **kwargs)
        raise RuntimeError("the revision's INSERT failed")

    monkeypatch.setattr(history, "_new_revision", broken)
    if route == "page":
        r = fragile.htmx(
            f"/armies/{army['id']}/units/{unit['id']}", {"name": "Never saved", "count": "5"}
        )
    elif route == "api":
        r = _api(
            fragile,
            "PATCH",
            f"{base}/units/{unit['id']}",
            json={"name": "Never", "count": 5, "version": unit["version"]},
        )
    else:
        r = _api(
            fragile, "POST", f"{base}/units/{unit['id']}/weapons", json={"type": "gun", "size": 2}
        )
    assert r.status_code == 500
    assert written == ["revision"]  # it failed where meant: after the unit's change
    monkeypatch.setattr(history, "_new_revision", real)
    after = _api(fragile, "GET", base).json()
    assert after == before  # the unit, its weapons and the army's cost as they were
    assert _api(fragile, "GET", f"{base}/history").json() == revisions
    # ... and the next change is recorded from where the army really stands
    r = _api(
        fragile,
        "PATCH",
        f"{base}/units/{unit['id']}",
        json={"name": "Saved", "count": 2, "version": unit["version"]},
    )
    assert r.status_code == 200, r.text
    now = _api(fragile, "GET", base).json()
    assert now["units"][0]["name"] == "Saved"
    assert now["total_cost"] == 2 * before["total_cost"]
