"""Every route, called as a visitor, a stranger, a club member, an organiser and the owner.

Alice owns a club and an army shared with it; Bob is an organiser, Carol a member,
Mallory a stranger. The table must list every route the app serves (see
``test_table_covers_every_route``), with the answer each role gets. Each (route,
role) call runs against a fresh world, so a success by one role cannot hide
another's answer. Where a role may not read the roster, nothing of it may appear
in the body.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db.models import BattleUnit
from app.main import served_routes
from app.services import accounts, armies, battles, builder, clubs, sessions, sharing
from tests.web.conftest import PASSWORD, page_csrf

SECRETS = ("Secret Army Zeta", "Secret Tank")
ROLES = ("visitor", "stranger", "member", "organiser", "owner")
UNIT = {"name": "Hijacked", "kind": "creation", "size": 2, "structure_level": 1}
WEAPON = {"type": "gun", "size": 1}
SAVED_ATTACK = {
    "attacker": {"army_id": "{army_id}", "unit_id": "{unit_id}", "weapon_id": "{weapon_id}"},
    "target": {"army_id": "{army_id}", "unit_id": "{unit_id}"},
}
DUEL = {
    "attacker": {"unit_id": "{unit_id}", "weapon_ids": ["{weapon_id}"]},
    "target": {"unit_id": "{scout_id}"},
}
ODDS = {"action": {"die": 6, "use": 4}, "damage": {"dice": 1, "sides": 6}, "armor": {"fixed": 4}}
_ids = itertools.count(1)

# Expected answers: "ok" (2xx or a redirect that is not to the login page), "login"
# (303 to /login for pages, 401 for the API), or a status code.
PUBLIC = dict.fromkeys(ROLES, "ok")
USER = {"visitor": "login"} | dict.fromkeys(ROLES[1:], "ok")
READ = {"visitor": "login", "stranger": 404, "member": "ok", "organiser": "ok", "owner": "ok"}
EDIT = {"visitor": "login", "stranger": 404, "member": 403, "organiser": "ok", "owner": "ok"}
OWNER = {"visitor": "login", "stranger": 404, "member": 403, "organiser": 403, "owner": "ok"}
MANAGE = EDIT
CLUB_OWNER = OWNER
ACCOUNT = {"visitor": "login", "stranger": 404, "member": 404, "organiser": 404, "owner": "ok"}
LEAVE = {"visitor": "login", "stranger": 404, "member": "ok", "organiser": "ok", "owner": 422}
# The page shows an owner's refused Leave as a message on the club page (a redirect).
LEAVE_PAGE = LEAVE | {"owner": "ok"}
# A battle is its owner's (the host, who rolls for every side) and its players' (Carol, the
# member, plays a side of her own; Bob, the organiser, is invited but has not joined): anyone
# else gets a 404, and sees it only through its read-only link (issue 31, ruling P1).
BATTLE = ACCOUNT | {"member": "ok"}  # read by a player
# Acting for the owner's units (the table's attacker and unit are the owner's): Carol's 422.
ACT = ACCOUNT | {"member": 422}
# The host's alone (ruling P3): a player knows the battle, so hers is a 403.
HOST = ACCOUNT | {"member": 403}
# End turn in a battle played free (the world's) is refused alike to its player and its host
TURN = ACCOUNT | {"member": 422, "owner": 422}
# A club member's invitation (Bob's): anyone else's is a 404.
INVITED = {"visitor": "login", "stranger": 404, "member": 404, "organiser": "ok", "owner": 404}
# An invitation link's army must be the joiner's own (the table brings the owner's army), the
# host does not join their own battle and Carol plays already: each a 422.
JOIN = {"visitor": "login"} | dict.fromkeys(ROLES[1:], 422)

A = "/armies/{army_id}"
U = A + "/units/{unit_id}"
W = U + "/weapons/{weapon_id}"
C = "/clubs/{club_id}"
API = "/api/v1"
BT = "/battles/{battle_id}"
BU = BT + "/units/{battle_unit_id}"
ATTACK = {"attacker_id": "{battle_attacker_id}", "weapons": [0], "target_id": "{battle_unit_id}"}
ATTACK_FORM = {
    "attacker_id": "{battle_attacker_id}",
    "target_id": "{battle_unit_id}",
    "weapon.0": "on",
    "distance": 2,
}
ROUTES: list[tuple[str, str, dict, dict]] = [  # type: ignore[type-arg]
    ("GET", "/", {}, PUBLIC),
    ("GET", "/glossary", {}, PUBLIC),
    ("GET", "/healthz", {}, PUBLIC),
    ("HEAD", "/healthz", {}, PUBLIC),
    ("GET", "/docs", {}, PUBLIC),
    ("GET", "/favicon.ico", {}, PUBLIC),
    ("GET", "/register", {}, PUBLIC),
    ("POST", "/register", {}, {r: 422 for r in ROLES}),
    ("GET", "/login", {}, PUBLIC),
    ("POST", "/login", {}, {r: 422 for r in ROLES}),
    ("POST", "/logout", {}, PUBLIC),
    ("GET", "/armies", {}, USER),
    ("POST", "/armies", {"name": "New", "budget": 10}, USER),
    ("GET", "/armies/import", {}, USER),
    ("POST", "/armies/import", {}, {"visitor": "login"} | dict.fromkeys(ROLES[1:], 422)),
    ("POST", "/armies/examples/{ruleset}", {}, USER),
    ("GET", A, {}, READ),
    ("POST", A, {"version": 1, "name": "Hijacked", "budget": 1}, EDIT),
    ("GET", A + "/delete", {}, OWNER),
    ("POST", A + "/delete", {}, OWNER),
    ("GET", A + "/history", {}, READ),
    ("GET", A + "/history/{revision_id}", {}, READ),
    ("POST", A + "/history/{revision_id}/restore", {}, EDIT),
    ("GET", A + "/print", {}, READ),
    ("GET", A + "/export.txt", {}, READ),
    ("GET", A + "/export.json", {}, READ),
    ("POST", A + "/fork", {}, READ),
    ("GET", A + "/sharing", {}, OWNER),
    ("POST", A + "/sharing", {"club_id": "{club_id}"}, OWNER),
    ("POST", A + "/links", {}, OWNER),
    ("POST", A + "/links/{link_id}/revoke", {}, OWNER),
    ("POST", A + "/units", UNIT, EDIT),
    ("GET", A + "/units/new", {"kind": "creation"}, EDIT),
    ("GET", U, {}, READ),
    ("POST", U, {"version": 1, "name": "Hijacked"}, EDIT),
    ("GET", U + "/editor", {}, READ),
    ("POST", U + "/duplicate", {}, EDIT),
    ("POST", U + "/move", {"offset": 1}, EDIT),
    ("POST", U + "/delete", {}, EDIT),
    ("POST", U + "/weapons", WEAPON, EDIT),
    ("POST", W, {"version": 1, "label": "Hijacked"}, EDIT),
    ("POST", W + "/delete", {}, EDIT),
    ("GET", U + "/weapon-preview", {}, READ),
    ("POST", A + "/house-rules", {"version": 1}, EDIT),
    ("GET", "/shared/{link_token}", {}, PUBLIC),
    ("POST", "/shared/{link_token}/fork", {}, USER),
    ("GET", "/shared/{link_token}/print", {}, PUBLIC),
    ("GET", "/shared/{link_token}/export.txt", {}, PUBLIC),
    ("GET", "/shared/{link_token}/export.json", {}, PUBLIC),
    ("GET", "/battles", {}, USER),
    ("POST", "/battles", {"name": "B", "army.{army_id}": "on", "army.{army2_id}": "on"}, READ),
    ("GET", BT, {}, BATTLE),
    ("GET", BT + "/events", {}, BATTLE),  # its live stream (a player's too)
    # (a refused attack's preview is a 200: see ``battle_odds``)
    ("GET", BT + "/odds", ATTACK_FORM, BATTLE),
    ("POST", BT + "/rolls", ATTACK_FORM, ACT),
    ("POST", BT + "/undo", {}, ACT),  # the last entry is the owner's
    ("POST", BT + "/end", {}, HOST),
    ("POST", BT + "/turns", {}, TURN),
    ("POST", BT + "/mode", {"mode": "turns"}, HOST),
    ("POST", BU + "/reload", {}, ACT),
    ("POST", BU + "/divert", {}, ACT),
    ("POST", BU + "/burning", {}, ACT),
    ("GET", BT + "/export.txt", {}, BATTLE),
    ("GET", BT + "/delete", {}, HOST),
    ("POST", BT + "/delete", {}, HOST),
    ("POST", BT + "/links", {}, HOST),
    ("POST", BT + "/links/revoke", {}, HOST),
    ("POST", BT + "/invites", {}, HOST),
    ("POST", BT + "/invites/{battle_invite_id}/revoke", {}, HOST),
    # Bob is invited already (the owner's 422 names ``user_id``)
    ("POST", BT + "/invites/member", {"user_id": "{organiser_id}"}, HOST | {"owner": 422}),
    ("GET", BT + "/sides/{side_id}/remove", {}, HOST),
    ("POST", BT + "/sides/{side_id}/remove", {}, HOST),
    ("GET", "/battles/join/{battle_invite_token}", {}, PUBLIC),  # a visitor's landing page
    ("POST", "/battles/join/{battle_invite_token}", {"army_id": "{army_id}"}, JOIN),
    # (a refused acceptance is a message on the battles list: a redirect)
    ("POST", "/battles/invitations/{member_invite_id}/accept", {"army_id": "{army_id}"}, INVITED),
    ("POST", "/battles/invitations/{member_invite_id}/decline", {}, INVITED),
    ("GET", "/battles/shared/{battle_token}", {}, PUBLIC),
    ("GET", "/battles/shared/{battle_token}/events", {}, PUBLIC),
    ("GET", "/clubs", {}, USER),
    ("POST", "/clubs", {"name": "Another club"}, USER),
    ("GET", C, {}, READ),
    ("GET", C + "/invites", {}, READ),  # the club page; only managers see the invitations
    ("POST", C + "/invites", {}, MANAGE),
    ("POST", C + "/invites/{invite_id}/revoke", {}, MANAGE),
    ("GET", "/clubs/join/{invite_token}", {}, PUBLIC),  # a visitor's landing page
    ("POST", "/clubs/join/{invite_token}", {}, USER),
    ("POST", C + "/leave", {}, LEAVE_PAGE),
    ("POST", C + "/members/{member_id}/remove", {}, MANAGE),
    ("POST", C + "/members/{member_id}/role", {"role": "organiser"}, CLUB_OWNER),
    ("POST", C + "/transfer", {"member_id": "{organiser_id}"}, CLUB_OWNER),
    ("POST", C + "/house-rules/{ruleset_id}", {}, MANAGE),
    ("GET", C + "/delete", {}, CLUB_OWNER),
    ("POST", C + "/delete", {}, CLUB_OWNER),
    ("GET", "/account", {}, USER),
    ("POST", "/account/tokens", {"name": "t"}, USER),
    ("POST", "/account/tokens/{token_id}/revoke", {}, ACCOUNT),
    ("POST", "/account/password", {"current_password": PASSWORD, "new_password": "n" * 12}, USER),
    ("POST", "/account/sessions/{session_id}/end", {}, ACCOUNT),
    ("POST", "/account/sessions/end-others", {}, USER),
    ("POST", "/account/sessions/end-all", {}, USER),
    ("POST", "/account/name", {"display_name": "Renamed"}, USER),
    ("GET", "/account/delete", {}, USER),
    # The club's owner has members: handing the club over comes first.
    ("POST", "/account/delete", {"password": PASSWORD}, USER | {"owner": 422}),
    ("POST", API + "/auth/register", {}, {r: 422 for r in ROLES}),
    ("POST", API + "/auth/login", {}, {r: 422 for r in ROLES}),
    ("POST", API + "/auth/logout", {}, {"visitor": "login"} | dict.fromkeys(ROLES[1:], "ok")),
    ("GET", API + "/me", {}, USER),
    ("PATCH", API + "/me", {"display_name": "Renamed"}, USER),
    ("GET", API + "/me/deletion", {}, USER),
    ("POST", API + "/me/delete", {"password": PASSWORD}, USER | {"owner": 422}),
    (
        "POST",
        API + "/auth/password",
        {"current_password": PASSWORD, "new_password": "n" * 12},
        USER,
    ),
    ("GET", API + "/auth/sessions", {}, USER),
    ("DELETE", API + "/auth/sessions/{session_id}", {}, ACCOUNT),
    ("POST", API + "/auth/sessions/end-others", {}, USER),
    ("POST", API + "/auth/sessions/end-all", {}, USER),
    ("GET", API + "/tokens", {}, USER),
    ("POST", API + "/tokens", {"name": "t"}, USER),
    ("DELETE", API + "/tokens/{token_id}", {}, ACCOUNT),
    ("GET", API + "/rulesets", {}, PUBLIC),
    ("GET", API + "/rulesets/{ruleset}", {}, PUBLIC),
    ("GET", API + "/rulesets/{ruleset}/catalogue", {}, PUBLIC),
    ("GET", API + "/rulesets/{ruleset}/glossary", {}, PUBLIC),
    ("POST", API + "/rulesets/{ruleset}/odds", ODDS, PUBLIC),
    ("POST", API + "/rulesets/{ruleset}/roll", {**ODDS, "seed": 7}, PUBLIC),
    ("POST", API + "/brikwars/weapon-stats", WEAPON, PUBLIC),
    ("GET", API + "/brikwars/catalogue", {}, PUBLIC),
    ("POST", API + "/brikwars/odds", ODDS, PUBLIC),
    ("POST", API + "/brikwars/roll", {**ODDS, "seed": 7}, PUBLIC),
    (
        "POST",
        API + "/brikwars/explosion-odds",
        {"dice": 2, "sides": 10, "armor": {"fixed": 4}},
        PUBLIC,
    ),
    # a visitor's saved calculator is the open calculator (issue 29 item 8)
    (
        "GET",
        "/calculator",
        {"attacker": "{unit_id}", "target": "{unit_id}"},
        READ | {"visitor": "ok"},
    ),
    ("POST", "/calculator/roll", {"query": "attacker={unit_id}&target={scout_id}"}, READ),
    ("GET", "/calculator/open", {"a.kind": "minifig", "t.kind": "hero"}, PUBLIC),
    (
        "POST",
        "/calculator/open/save",
        {"query": "a.kind=minifig&t.kind=hero", "army_id": "{army_id}"},
        EDIT,
    ),
    ("POST", API + "/calculator/odds", SAVED_ATTACK, READ),
    ("GET", API + "/calculator/open", {}, PUBLIC),
    (
        "POST",
        API + "/calculator/open/save",
        {"query": "a.kind=minifig&t.kind=hero", "army_id": "{army_id}"},
        EDIT | {"visitor": "login"},
    ),
    ("POST", API + "/calculator/battle", DUEL, READ),
    ("POST", API + "/calculator/roll", {**SAVED_ATTACK, "seed": 3}, READ),
    ("GET", API + "/armies", {}, USER),
    ("POST", API + "/armies", {"name": "New", "budget": 10}, USER),
    ("POST", API + "/armies/import", {}, {"visitor": "login"} | dict.fromkeys(ROLES[1:], 422)),
    ("POST", API + "/armies/examples/{ruleset}", {}, USER),
    ("GET", API + A, {}, READ),
    ("PATCH", API + A, {"version": 1, "name": "Hijacked"}, EDIT),
    ("DELETE", API + A, {}, OWNER),
    ("PUT", API + A + "/house-rules", {"version": 1, "options": {}}, EDIT),
    ("GET", API + A + "/sharing", {}, OWNER),
    ("PUT", API + A + "/sharing", {"club_id": None}, OWNER),
    ("POST", API + A + "/share-links", {}, OWNER),
    ("DELETE", API + A + "/share-links/{link_id}", {}, OWNER),
    ("POST", API + A + "/fork", {}, READ),
    ("GET", API + A + "/history", {}, READ),
    ("GET", API + A + "/history/{revision_id}", {}, READ),
    ("POST", API + A + "/history/{revision_id}/restore", {}, EDIT),
    ("GET", API + A + "/export", {}, READ),
    ("POST", API + A + "/units", UNIT, EDIT),
    ("GET", API + U, {}, READ),
    ("PATCH", API + U, {"version": 1, "name": "Hijacked"}, EDIT),
    ("DELETE", API + U, {}, EDIT),
    ("POST", API + U + "/duplicate", {}, EDIT),
    ("POST", API + U + "/move", {"offset": 1}, EDIT),
    ("POST", API + U + "/weapons", WEAPON, EDIT),
    ("PATCH", API + W, {"version": 1, "label": "Hijacked"}, EDIT),
    ("DELETE", API + W, {}, EDIT),
    ("POST", API + U + "/weapon-preview", WEAPON, READ),
    ("GET", API + "/shared/{link_token}", {}, PUBLIC),
    ("POST", API + "/shared/{link_token}/fork", {}, USER),
    ("GET", API + "/shared/{link_token}/export", {}, PUBLIC),
    ("GET", API + "/battles", {}, USER),
    ("POST", API + "/battles", {"name": "B", "army_ids": ["{army_id}", "{army2_id}"]}, READ),
    ("GET", API + "/battles/shared/{battle_token}", {}, PUBLIC),
    ("GET", API + BT, {}, BATTLE),
    ("GET", API + BT + "/events", {}, BATTLE),
    ("POST", API + BT + "/odds", ATTACK, ACT),
    ("POST", API + BT + "/rolls", {**ATTACK, "seed": 4}, ACT),
    ("DELETE", API + BT + "/rolls/last", {}, ACT),  # the last entry is the owner's
    ("POST", API + BT + "/undo", {}, ACT),
    ("POST", API + BT + "/end", {}, HOST),
    ("POST", API + BT + "/turns", {}, TURN),
    ("PUT", API + BT + "/mode", {"mode": "turns"}, HOST),
    ("POST", API + BU + "/reload", {}, ACT),
    ("POST", API + BU + "/divert", {}, ACT),
    ("POST", API + BU + "/burning", {"seed": 2}, ACT),
    ("GET", API + BT + "/export", {}, BATTLE),
    ("DELETE", API + BT, {}, HOST),
    ("POST", API + BT + "/share-link", {}, HOST),
    ("DELETE", API + BT + "/share-link", {}, HOST),
    ("GET", API + BT + "/sides", {}, BATTLE),
    ("GET", API + BT + "/invites", {}, HOST),
    ("POST", API + BT + "/invites", {}, HOST),
    ("GET", API + BT + "/invitable", {}, HOST),
    ("POST", API + BT + "/invites/member", {"user_id": "{organiser_id}"}, HOST | {"owner": 422}),
    ("DELETE", API + BT + "/invites/{battle_invite_id}", {}, HOST),
    ("DELETE", API + BT + "/sides/{side_id}/player", {}, HOST),
    (
        "POST",
        API + "/battles/join",
        {"token": "{battle_invite_token}", "army_id": "{army_id}"},
        JOIN,
    ),
    ("GET", API + "/battles/invitations", {}, USER),
    (
        "POST",
        API + "/battles/invitations/{member_invite_id}/accept",
        {"army_id": "{army_id}"},
        INVITED | {"organiser": 422},  # the owner's army is not Bob's to bring
    ),
    ("DELETE", API + "/battles/invitations/{member_invite_id}", {}, INVITED),
    ("GET", API + "/clubs", {}, USER),
    ("POST", API + "/clubs", {"name": "Another club"}, USER),
    ("GET", API + C, {}, READ),
    ("POST", API + C + "/invites", {}, MANAGE),
    ("GET", API + C + "/invites", {}, MANAGE),
    ("DELETE", API + C + "/invites/{invite_id}", {}, MANAGE),
    ("POST", API + "/clubs/join", {"token": "{invite_token}"}, USER),
    ("POST", API + C + "/leave", {}, LEAVE),
    ("DELETE", API + C + "/members/{member_id}", {}, MANAGE),
    ("PATCH", API + C + "/members/{member_id}", {"role": "organiser"}, CLUB_OWNER),
    ("POST", API + C + "/transfer", {"member_id": "{organiser_id}"}, CLUB_OWNER),
    ("PUT", API + C + "/house-rules", {"options": {}}, MANAGE),
    ("PUT", API + C + "/house-rules/{ruleset_id}", {"options": {"cover_bonus": 3}}, MANAGE),
    ("DELETE", API + C, {}, CLUB_OWNER),
]


def test_table_covers_every_route() -> None:
    def served_form(path: str) -> str:  # the table names which token or unit goes in
        for name in ("{link_token}", "{invite_token}", "{battle_token}", "{battle_invite_token}"):
            path = path.replace(name, "{token}")
        for name in ("{battle_invite_id}", "{member_invite_id}"):
            path = path.replace(name, "{invite_id}")
        path = path.replace("{battle_unit_id}", "{unit_id}")
        for action in ("reload", "divert", "burning"):  # one route serves every unit action
            path = path.replace("{unit_id}/" + action, "{unit_id}/{action}")
        return path

    assert served_routes() == {(m, served_form(p)) for m, p, _, _ in ROUTES}


@dataclass
class World:
    ids: dict[str, object]
    users: dict[str, str]  # role -> email


def make_world(app) -> World:  # type: ignore[no-untyped-def]
    n = next(_ids)
    with app.state.sessionmaker() as s:
        users = {
            role: accounts.register(
                s, email=f"{role}{n}@example.com", password=PASSWORD, display_name=role.capitalize()
            )
            for role in ("owner", "organiser", "member", "stranger")
        }
        owner = users["owner"]
        club = clubs.create_club(s, user=owner, name="Brick Club")
        for role in ("organiser", "member"):
            _, token = clubs.create_invite(s, user=owner, club_id=club.id)
            clubs.join(s, user=users[role], token=token)
        clubs.set_role(
            s, user=owner, club_id=club.id, member_id=users["organiser"].id, role="organiser"
        )
        army = armies.create_army(
            s, user=owner, name=SECRETS[0], ruleset_id="brikwars", budget=100, club_id=club.id
        )
        unit = builder.add_unit(
            s,
            user=owner,
            army_id=army.id,
            data={
                "name": SECRETS[1],
                "size": 3,
                "structure_level": 2,
                "weapons": [{"type": "gun", "size": 2}],
            },
        )
        s.flush()
        army2 = armies.create_army(
            s, user=owner, name="Second army", ruleset_id="brikwars", budget=100, club_id=club.id
        )
        scout = builder.add_unit(
            s,
            user=owner,
            army_id=army2.id,
            data={"name": "Scout", "kind": "minifig", "weapons": [{"type": "short_ranged_weapon"}]},
        )
        battle = battles.create_battle(s, user=owner, name="Skirmish", army_ids=[army.id, army2.id])
        tank_copy, scout_copy = s.scalars(
            select(BattleUnit)
            .where(BattleUnit.battle_id == battle.id)
            .order_by(BattleUnit.position)
        ).all()
        # the scout is burning and its gun jammed: Reload and the Burning Roll have work to do
        scout_copy.state = {**scout_copy.state, "on_fire": True, "inoperative": [0]}
        battle_token = battles.share_link(s, user=owner, battle_id=battle.id)
        # Carol plays a side of her own (joined before the owner's divert: the last entry is
        # his); Bob, a club mate, is invited and has not answered.
        battle_invite, battle_invite_token = battles.create_invite(
            s, user=owner, battle_id=battle.id
        )
        carol = armies.create_army(
            s, user=users["member"], name="Carol's", ruleset_id="brikwars", budget=100
        )
        builder.add_unit(
            s, user=users["member"], army_id=carol.id, data={"name": "Raider", "kind": "minifig"}
        )
        side = battles.join_by_link(
            s, user=users["member"], token=battle_invite_token, army_id=carol.id
        )
        member_invite = battles.invite_member(
            s, user=owner, battle_id=battle.id, member_id=users["organiser"].id
        )
        battles.unit_action(
            s, user=owner, battle_id=battle.id, unit_id=tank_copy.id, action="divert"
        )
        token, _ = accounts.create_api_token(s, user=owner, name="mine")
        elsewhere, _ = sessions.start(s, user=owner, user_agent="phone", client_address="10.1.1.1")
        invite, invite_token = clubs.create_invite(s, user=owner, club_id=club.id)
        link, link_token = sharing.create_link(s, user=owner, army_id=army.id)
        from app.services import history

        revision = history.revisions(s, user=owner, army_id=army.id)[-1][0]
        ids = {
            "army_id": army.id,
            "unit_id": unit.id,
            "weapon_id": unit.weapons[0].id,
            "club_id": club.id,
            "token_id": token.id,
            "session_id": elsewhere.id,
            "invite_id": invite.id,
            "invite_token": invite_token,
            "link_id": link.id,
            "link_token": link_token,
            "revision_id": revision.id,
            "member_id": users["member"].id,
            "organiser_id": users["organiser"].id,
            "army2_id": army2.id,
            "scout_id": scout.id,
            "battle_id": battle.id,
            "battle_attacker_id": tank_copy.id,
            "battle_unit_id": scout_copy.id,
            "battle_token": battle_token,
            "battle_invite_id": battle_invite.id,
            "battle_invite_token": battle_invite_token,
            "member_invite_id": member_invite.id,
            "side_id": side.id,
            "ruleset": "brikwars",
            "ruleset_id": "d20",  # a club's house rules for another ruleset than its rosters'
        }
        s.commit()
        return World(ids, {r: u.email for r, u in users.items()})


def _client(app, world: World, role: str) -> tuple[TestClient, str]:  # type: ignore[no-untyped-def]
    client = TestClient(app)
    if role == "visitor":
        return client, page_csrf(client, "/login")
    r = client.post("/api/v1/auth/login", json={"email": world.users[role], "password": PASSWORD})
    assert r.status_code == 200, r.text
    return client, r.json()["csrf_token"]


def _fill(value: object, ids: dict[str, object]) -> object:
    if isinstance(value, dict):
        return {k.format(**ids): _fill(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, ids) for v in value]
    if isinstance(value, list):
        return [_fill(v, ids) for v in value]
    if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        return ids[value[1:-1]]
    if isinstance(value, str) and "{" in value:  # placeholders inside a text (a query)
        return value.format(**ids)
    return value


def _call(
    client: TestClient,
    csrf: str,
    method: str,
    path: str,
    body: dict,  # type: ignore[type-arg]
    ids: dict[str, object],
):  # type: ignore[no-untyped-def]
    url = path.format(**ids)
    body = {k.format(**ids): _fill(v, ids) for k, v in body.items()}
    if url.startswith("/api/"):
        headers = {"X-CSRF-Token": csrf}
        if method in ("GET", "DELETE"):
            return client.request(method, url, headers=headers, follow_redirects=False)
        return client.request(method, url, json=body, headers=headers, follow_redirects=False)
    if method in ("GET", "HEAD"):
        params = {k: str(v) for k, v in body.items()}
        return client.request(method, url, params=params, follow_redirects=False)
    data = {"csrf_token": csrf, **{k: str(v) for k, v in body.items()}}
    return client.post(url, data=data, follow_redirects=False)


@pytest.mark.parametrize(
    ("method", "path", "body", "expected"), ROUTES, ids=[f"{m} {p}" for m, p, _, _ in ROUTES]
)
def test_route_answers_each_role(app, method: str, path: str, body: dict, expected: dict) -> None:  # type: ignore[no-untyped-def]
    for role in ROLES:
        world = make_world(app)
        client, csrf = _client(app, world, role)
        r = _call(client, csrf, method, path, body, world.ids)
        want = expected[role]
        where = (role, method, path, r.status_code, r.text[:200])
        if want == "login":
            if path.startswith("/api/"):
                assert r.status_code == 401, where
            else:
                assert r.status_code == 303, where
                assert r.headers["location"].startswith("/login?next="), where
        elif want == "ok":
            assert r.status_code in (200, 201, 204, 303), where
            if r.status_code == 303:
                assert not r.headers["location"].startswith("/login?next="), where
        else:
            assert r.status_code == want, where
        # Whatever a visitor or stranger is answered, Alice's roster is not in it (except
        # through its share link, which exists to show it).
        if role in ("visitor", "stranger") and "/shared/" not in path:
            for secret in SECRETS:
                assert secret not in r.text, where


def test_strangers_see_no_club_rosters_in_lists(app) -> None:  # type: ignore[no-untyped-def]
    world = make_world(app)
    client, _ = _client(app, world, "stranger")
    for url in ("/armies", "/api/v1/armies", "/clubs", "/api/v1/clubs"):
        page = client.get(url)
        assert page.status_code == 200
        assert all(secret not in page.text for secret in SECRETS)
        assert "Brick Club" not in page.text


def test_members_see_the_club_roster_and_cannot_change_it(app) -> None:  # type: ignore[no-untyped-def]
    world = make_world(app)
    client, _ = _client(app, world, "member")
    page = client.get(f"/clubs/{world.ids['club_id']}")
    assert SECRETS[0] in page.text
    army = client.get(f"/armies/{world.ids['army_id']}")
    assert SECRETS[1] in army.text and "Read only" in army.text
    assert 'id="add-unit-form"' not in army.text and "Delete army" not in army.text


def test_an_owner_cannot_leave_without_handing_over(app) -> None:  # type: ignore[no-untyped-def]
    world = make_world(app)
    client, csrf = _client(app, world, "owner")
    club = world.ids["club_id"]
    r = client.post(f"/clubs/{club}/leave", data={"csrf_token": csrf}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/clubs/{club}"
    page = client.get(f"/clubs/{club}")
    assert "You cannot leave yet: transfer the ownership" in page.text
    assert "You are the owner" in page.text
