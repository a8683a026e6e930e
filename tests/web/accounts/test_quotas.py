"""What one account may create, and how fast one address may sign up."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db.models import Army, User
from app.services import builder
from app.settings import get_settings
from tests.web.conftest import PASSWORD, Member, page_csrf


@pytest.fixture
def limits(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Set a limit for one test: ``limits(max_armies_per_user=2)``."""

    def set_limits(**values: int) -> None:
        for name, value in values.items():
            monkeypatch.setattr(get_settings(), name, value)

    return set_limits


def _api(member: Member, path: str, body: dict[str, Any] | None = None):  # type: ignore[no-untyped-def]
    return member.client.post(path, json=body or {}, headers={"X-CSRF-Token": member.csrf})


def _refused(r, what: str) -> None:  # type: ignore[no-untyped-def]
    assert r.status_code == 422, r.text
    (problem,) = r.json()["detail"]
    assert f"you already have 2 {what}, the most allowed" in problem["reason"], problem


def _refused_in_place(r, what: str) -> None:  # type: ignore[no-untyped-def]
    """An htmx form over the limit: the message out of band, nothing else swapped."""
    assert r.status_code == 422 and r.headers["HX-Reswap"] == "none", r.text
    assert 'id="flash"' in r.text and "hx-swap-oob" in r.text
    assert f"You already have 2 {what}, the most allowed" in r.text


def test_api_tokens_are_capped(member: Member, limits) -> None:  # type: ignore[no-untyped-def]
    limits(max_api_tokens_per_user=2)
    assert _api(member, "/api/v1/tokens", {"name": "a"}).status_code == 201
    assert member.htmx("/account/tokens", {"name": "b"}).status_code == 200
    _refused(_api(member, "/api/v1/tokens", {"name": "c"}), "API tokens")
    _refused_in_place(member.htmx("/account/tokens", {"name": "c"}), "API tokens")
    assert len(member.client.get("/api/v1/tokens").json()) == 2
    # Without JavaScript: a page that says why.
    r = member.form("/account/tokens", {"name": "c"})
    assert r.status_code == 422 and "You already have 2 API tokens" in r.text


def test_clubs_are_capped(member: Member, limits) -> None:  # type: ignore[no-untyped-def]
    limits(max_clubs_per_user=2)
    assert _api(member, "/api/v1/clubs", {"name": "One"}).status_code == 201
    assert member.form("/clubs", {"name": "Two"}, follow_redirects=False).status_code == 303
    _refused(_api(member, "/api/v1/clubs", {"name": "Three"}), "clubs of your own")
    _refused_in_place(member.htmx("/clubs", {"name": "Three"}), "clubs of your own")


def test_armies_are_capped_whether_created_imported_or_forked(member: Member, limits) -> None:  # type: ignore[no-untyped-def]
    limits(max_armies_per_user=2)
    first = _api(member, "/api/v1/armies", {"name": "One", "budget": 100}).json()
    doc = member.client.get(f"/api/v1/armies/{first['id']}/export").content
    r = member.client.post(
        "/api/v1/armies/import",
        content=doc,
        headers={"X-CSRF-Token": member.csrf, "Content-Type": "application/json"},
    )
    assert r.status_code == 201, r.text
    _refused(_api(member, "/api/v1/armies", {"name": "Three", "budget": 100}), "armies")
    _refused(_api(member, f"/api/v1/armies/{first['id']}/fork"), "armies")
    r = member.client.post(
        "/api/v1/armies/import",
        content=doc,
        headers={"X-CSRF-Token": member.csrf, "Content-Type": "application/json"},
    )
    _refused(r, "armies")
    _refused_in_place(member.htmx("/armies", {"name": "Three", "budget": "100"}), "armies")
    _refused_in_place(member.htmx(f"/armies/{first['id']}/fork"), "armies")
    assert len(member.client.get("/api/v1/armies").json()) == 2


def test_live_share_links_are_capped_per_army(member: Member, limits) -> None:  # type: ignore[no-untyped-def]
    limits(max_share_links_per_army=2)
    army = _api(member, "/api/v1/armies", {"name": "Shared", "budget": 100}).json()
    links = f"/api/v1/armies/{army['id']}/share-links"
    first = _api(member, links)
    assert first.status_code == 201 and _api(member, links).status_code == 201
    _refused(_api(member, links), "live links to this army")
    _refused_in_place(member.htmx(f"/armies/{army['id']}/links"), "live links to this army")
    # A revoked link makes room.
    r = member.client.delete(f"{links}/{first.json()['id']}", headers={"X-CSRF-Token": member.csrf})
    assert r.status_code == 204
    assert _api(member, links).status_code == 201


def test_open_invitations_are_capped_per_club(member: Member, limits) -> None:  # type: ignore[no-untyped-def]
    limits(max_open_invitations_per_club=2)
    club = _api(member, "/api/v1/clubs", {"name": "Club"}).json()
    invites = f"/api/v1/clubs/{club['id']}/invites"
    assert _api(member, invites).status_code == 201
    assert _api(member, invites).status_code == 201
    _refused(_api(member, invites), "open invitations to this club")
    _refused_in_place(member.htmx(f"/clubs/{club['id']}/invites"), "open invitations to this club")


def test_battles_are_capped(app, member: Member, limits) -> None:  # type: ignore[no-untyped-def]
    limits(max_battles_per_user=2)
    ids = []
    for name in ("Red", "Blue"):
        army = _api(member, "/api/v1/armies", {"name": name, "budget": 100}).json()
        ids.append(army["id"])
    with app.state.sessionmaker() as s:
        user = s.scalar(select(User).where(User.email == member.email))
        for army in s.scalars(select(Army).where(Army.id.in_(ids))):
            builder.add_unit(
                s, user=user, army_id=army.id, data={"name": "Trooper", "kind": "minifig"}
            )
        s.commit()
    body = {"name": "Skirmish", "army_ids": ids}
    assert _api(member, "/api/v1/battles", body).status_code == 201
    form = {"name": "Skirmish", **{f"army.{i}": "on" for i in ids}}
    assert member.form("/battles", form, follow_redirects=False).status_code == 303
    _refused(_api(member, "/api/v1/battles", body), "battles")
    _refused_in_place(member.htmx("/battles", form), "battles")


def _sign_up(client: TestClient, n: int, **kw: Any):  # type: ignore[no-untyped-def]
    data = {
        "csrf_token": page_csrf(client, "/register"),
        "email": f"burst{n}@example.com",
        "password": PASSWORD,
        "display_name": f"Burst {n}",
    }
    return client.post("/register", data=data, follow_redirects=False, **kw)


def test_sign_up_is_throttled_per_address(app, limits) -> None:  # type: ignore[no-untyped-def]
    limits(signup_max_per_address=3)
    for n in range(3):
        assert _sign_up(TestClient(app, client=("10.3.3.3", 1)), n).status_code == 303
    r = _sign_up(TestClient(app, client=("10.3.3.3", 1)), 3, headers={"HX-Request": "true"})
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    assert "Too many sign-ups from your address" in r.text and 'id="register-form"' in r.text
    r = TestClient(app, client=("10.3.3.3", 1)).post(
        "/api/v1/auth/register",
        json={"email": "api@example.com", "password": PASSWORD, "display_name": "Api"},
    )
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    assert _sign_up(TestClient(app, client=("10.3.3.4", 1)), 4).status_code == 303
    with app.state.sessionmaker() as s:
        assert len(s.scalars(select(User)).all()) == 4


def test_rows_an_account_holds_are_capped_with_a_422_naming_the_quota(  # type: ignore[no-untyped-def]
    member: Member, limits
) -> None:
    limits(max_units_per_user=2, max_weapons_per_user=2)
    army = _api(member, "/api/v1/armies", {"name": "Red", "budget": 900}).json()
    units = f"/api/v1/armies/{army['id']}/units"
    trooper = {"name": "Trooper", "kind": "minifig", "weapons": [{"type": "hand_weapon"}]}
    assert _api(member, units, trooper).status_code == 201
    tank = {
        "name": "Tank",
        "size": 4,
        "structure_level": 2,
        "weapons": [{"type": "gun", "size": 3}, {"type": "machinegun", "size": 2}],
    }
    r = _api(member, units, tank)
    assert r.status_code == 422, r.text
    (problem,) = r.json()["detail"]
    assert problem["field"] == "weapons"
    assert problem["reason"].startswith("an account may hold at most 2 weapons; it holds 1")
    assert _api(member, units, trooper).status_code == 201
    r = _api(member, units, {"name": "Bare", "kind": "minifig"})
    assert r.status_code == 422, r.text
    (problem,) = r.json()["detail"]
    assert problem == {**problem, "field": "units"}
    assert problem["reason"] == "an account may hold at most 2 units; it holds 2"
    doc = member.client.get(f"/api/v1/armies/{army['id']}/export").json()
    assert [u["name"] for u in doc["units"]] == ["Trooper", "Trooper"]
