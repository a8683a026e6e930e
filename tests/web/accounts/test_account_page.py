"""Issue 14 item 20: the account page changes the name and password, and deletes the account
with everything it owns after a confirmation that names it."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db.models import ApiToken, Army, Battle, Club, ClubMember, User, UserSession
from tests.web.conftest import PASSWORD, Member, sign_up


def _api(member: Member, method: str, url: str, **kw):  # type: ignore[no-untyped-def]
    return member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)


def _club(owner: Member, name: str, *others: Member) -> int:
    club = _api(owner, "POST", "/api/v1/clubs", json={"name": name}).json()
    for other in others:
        token = _api(owner, "POST", f"/api/v1/clubs/{club['id']}/invites").json()["token"]
        assert _api(other, "POST", "/api/v1/clubs/join", json={"token": token}).status_code == 200
    return int(club["id"])


def _army(member: Member, name: str) -> int:
    r = _api(member, "POST", "/api/v1/armies", json={"name": name, "budget": 100})
    assert r.status_code == 201, r.text
    army_id = int(r.json()["id"])
    unit = {"name": "Trooper", "kind": "minifig", "weapons": [{"type": "short_ranged_weapon"}]}
    r = _api(member, "POST", f"/api/v1/armies/{army_id}/units", json=unit)
    assert r.status_code == 201, r.text
    return army_id


def _count(app, model, *where) -> int:  # type: ignore[no-untyped-def]
    with app.state.sessionmaker() as s:
        return int(s.scalar(select(func.count()).select_from(model).where(*where)) or 0)


def _user_id(app, email: str) -> int | None:  # type: ignore[no-untyped-def]
    with app.state.sessionmaker() as s:
        return s.scalar(select(User.id).where(User.email == email))


def test_change_display_name_on_the_page_and_by_api(member: Member) -> None:
    page = member.client.get("/account")
    assert 'action="/account/name"' in page.text
    r = member.form("/account/name", {"display_name": "  Alice the Bold "}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/account"
    assert member.client.get("/api/v1/me").json()["display_name"] == "Alice the Bold"
    assert "Your display name is now Alice the Bold." in member.client.get("/account").text

    bad = member.htmx("/account/name", {"display_name": "   "})
    assert bad.status_code == 422
    assert 'id="e-display_name"' in bad.text and 'id="profile"' in bad.text
    assert _api(member, "PATCH", "/api/v1/me", json={"display_name": "x" * 121}).status_code == 422
    r = _api(member, "PATCH", "/api/v1/me", json={"display_name": "Al"})
    assert r.status_code == 200 and r.json()["display_name"] == "Al"


def test_password_change_ends_other_sessions_and_says_tokens_are_kept(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    assert "Your API tokens keep working" in member.client.get("/account").text
    token = _api(member, "POST", "/api/v1/tokens", json={"name": "bot"}).json()["token"]
    with TestClient(app) as other:
        login = {"email": member.email, "password": PASSWORD}
        assert other.post("/api/v1/auth/login", json=login).status_code == 200
        r = member.form(
            "/account/password",
            {"current_password": PASSWORD, "new_password": "a new long password"},
            follow_redirects=False,
        )
        assert r.status_code == 303
        assert other.get("/api/v1/me").status_code == 401
    assert member.client.get("/api/v1/me").status_code == 200
    with TestClient(app) as bot:
        me = bot.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
        assert me.status_code == 200


def test_delete_account_names_everything_then_deletes_it(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    with TestClient(app) as c:
        bob = sign_up(c, name="Bob")
        alpha, beta = _army(member, "Alpha Legion"), _army(member, "Beta Wing")
        battle = _api(
            member, "POST", "/api/v1/battles", json={"name": "Skirmish", "army_ids": [alpha, beta]}
        )
        assert battle.status_code == 201, battle.text
        _club(member, "Lonely Club")
        bobs_club = _club(bob, "Bob's Club", member)
        _api(member, "POST", f"/api/v1/armies/{alpha}/fork")  # a second army of one's own

        page = member.client.get("/account/delete")
        assert page.status_code == 200
        text = page.text.replace("&#39;", "'")
        for words in (
            "3 armies",
            "“Alpha Legion”",
            "“Beta Wing”",
            "1 battle",
            "“Skirmish”",
            "the only member of: “Lonely Club”",
            "your membership of “Bob's Club”",
        ):
            assert words in text, words

        wrong = member.form("/account/delete", {"password": "not my password"})
        assert wrong.status_code == 422 and "is not your password" in wrong.text
        no_csrf = member.client.post("/account/delete", data={"password": PASSWORD})
        assert no_csrf.status_code == 403
        user_id = _user_id(app, member.email)
        assert user_id is not None and _count(app, Army, Army.owner_id == user_id) == 3

        done = member.form("/account/delete", {"password": PASSWORD}, follow_redirects=False)
        assert done.status_code == 303 and done.headers["location"] == "/"
        assert _user_id(app, member.email) is None
        for model, where in (
            (Army, Army.owner_id == user_id),
            (Battle, Battle.owner_id == user_id),
            (ClubMember, ClubMember.user_id == user_id),
            (ApiToken, ApiToken.user_id == user_id),
            (UserSession, UserSession.user_id == user_id),
            (Club, Club.name == "Lonely Club"),
        ):
            assert _count(app, model, where) == 0, model
        assert _count(app, Club, Club.id == bobs_club) == 1
        assert member.client.get("/account", follow_redirects=False).status_code == 303
        home = member.client.get("/")
        assert "Your account and everything it owned are deleted." in home.text


def test_a_club_owned_with_other_members_stops_the_deletion(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    with TestClient(app) as c:
        bob = sign_up(c, name="Bob")
        club_id = _club(member, "Shared Club", bob)
        page = member.client.get("/account/delete")
        assert "Shared Club" in page.text and "make one of them the owner" in page.text
        assert 'action="/account/delete"' not in page.text
        r = member.form("/account/delete", {"password": PASSWORD})
        assert r.status_code == 422 and "Shared Club" in r.text
        api = _api(member, "POST", "/api/v1/me/delete", json={"password": PASSWORD})
        assert api.status_code == 422
        assert _user_id(app, member.email) is not None
        assert _count(app, Club, Club.id == club_id) == 1


def test_delete_account_by_api(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    _army(member, "Gamma")
    plan = member.client.get("/api/v1/me/deletion").json()
    assert plan == {
        "armies": ["Gamma"],
        "battles": [],
        "clubs_deleted": [],
        "clubs_blocking": [],
        "memberships": [],
    }
    wrong = _api(member, "POST", "/api/v1/me/delete", json={"password": "nope nope"})
    assert wrong.status_code == 422
    assert _api(member, "POST", "/api/v1/me/delete", json={"password": PASSWORD}).status_code == 204
    assert _user_id(app, member.email) is None
    assert member.client.get("/api/v1/me").status_code == 401
