"""Hostile input never costs more than a check, and never answers 500 (issue 10, items 1, 4-6).

Long and huge numbers, booleans for numbers, ids past the database's integer range and
control characters are all refused with a 422 naming the field (a 404 for a page's path),
on SQLite and PostgreSQL alike, and nothing is saved.
"""

from __future__ import annotations

import json
import re

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, func, select
from starlette.routing import Route

from app.db.models import ApiToken, Army, Battle, Club, Unit, User
from app.rules.registry import DEFAULT_RULESET
from app.web.api.calculator import situation_in
from tests.web.conftest import PASSWORD, Member, page_csrf

HUGE_IDS = [2**31, 2**63, 2**70, -1, 0]


def api(member: Member, method: str, url: str, **kw):  # type: ignore[no-untyped-def]
    return member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)


def new_army(member: Member) -> int:
    r = api(member, "POST", "/api/v1/armies", json={"name": "Hostile", "budget": 100})
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def fields(r) -> dict[str, str]:  # type: ignore[no-untyped-def]
    assert r.status_code == 422, r.text[:500]
    detail = r.json()["detail"]
    assert isinstance(detail, list), detail
    return {d["field"]: d["reason"] for d in detail}


def count(app, model) -> int:  # type: ignore[no-untyped-def]
    with app.state.sessionmaker() as s:
        return int(s.scalar(select(func.count()).select_from(model)) or 0)


# ------------------------------------------------------------------------------ 1. numbers

HOSTILE_SIZES = [
    "1e-100000",  # pinned a core for > 12 minutes
    "0." + "0" * 20000 + "1",  # a 500 after ~15 s
    "9" * 5000,
    "1e308",
    "1e99",
    "nan",
    "inf",
    "-Infinity",
    "0.001",
    "1/1000",
    1e308,
    1e-300,
    True,
]


@pytest.mark.parametrize(
    "size", HOSTILE_SIZES, ids=lambda v: repr(v)[:20] if not isinstance(v, str) else v[:20]
)
def test_hostile_sizes_are_a_fast_422_on_the_api(app, member: Member, size: object) -> None:  # type: ignore[no-untyped-def]
    army_id = new_army(member)
    body = {"name": "Blob", "kind": "creation", "size": size, "structure_level": 1}
    r = api(member, "POST", f"/api/v1/armies/{army_id}/units", json=body)
    assert "size" in fields(r)
    weapon = {"name": "G", "size": 3, "structure_level": 1, "weapons": [{"type": "gun"}]}
    weapon["weapons"][0]["size"] = size  # type: ignore[index]
    r = api(member, "POST", f"/api/v1/armies/{army_id}/units", json=weapon)
    assert set(fields(r)) & {"weapons.0.size", "weapons.0"}
    assert count(app, Unit) == 0


@pytest.mark.parametrize(
    "raw",
    [
        '{"name": "Blob", "size": 1' + "0" * 5000 + ', "structure_level": 1}',  # 10**5000
        '{"name": "Blob", "size": 1e400, "structure_level": 1}',  # inf to Python's json
        '{"name": "Blob", "size": NaN, "structure_level": 1}',
    ],
    ids=["10**5000", "1e400", "NaN"],
)
def test_huge_json_numbers_are_a_422(app, member: Member, raw: str) -> None:  # type: ignore[no-untyped-def]
    army_id = new_army(member)
    r = member.client.post(
        f"/api/v1/armies/{army_id}/units",
        content=raw,
        headers={"Content-Type": "application/json", "X-CSRF-Token": member.csrf},
    )
    assert set(fields(r)) & {"size", "body"}
    assert count(app, Unit) == 0


@pytest.mark.parametrize("size", ["1e-100000", "0." + "0" * 20000 + "1", "nan", "inf", "0.001"])
def test_hostile_sizes_are_a_422_inline_on_the_page_form(app, member: Member, size: str) -> None:  # type: ignore[no-untyped-def]
    army_id = new_army(member)
    r = member.htmx(
        f"/armies/{army_id}/units",
        {"name": "Blob", "kind": "creation", "size": size, "structure_level": "1"},
    )
    assert r.status_code == 422
    assert r.text.lstrip().startswith('<form id="add-unit-form"')
    assert re.search(r"must be|too precise|exponent", r.text)
    assert count(app, Unit) == 0


def test_hostile_numbers_in_an_import_are_listed_by_path(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    doc = {
        "format": "brikforge-army",
        "version": 1,
        "ruleset": "brikwars",
        "name": "Imported",
        "budget": 100,
        "units": [{"name": "Blob", "kind": "creation", "size": "1e-100000", "structure_level": 1}],
    }
    exported = api(member, "GET", f"/api/v1/armies/{new_army(member)}/export").json()
    doc["format"], doc["version"] = exported["format"], exported["version"]
    r = api(member, "POST", "/api/v1/armies/import", content=json.dumps(doc))
    assert r.status_code == 422
    assert "units[0].size" in json.dumps(r.json())
    assert count(app, Army) == 1  # only the one exported


def test_calculator_distances_take_the_same_number_format(client: TestClient) -> None:
    situation = situation_in(DEFAULT_RULESET)
    with pytest.raises(ValueError, match="too precise"):
        situation.model_validate({"distance": 0.001})
    with pytest.raises(ValueError, match="number"):
        situation.model_validate({"distance": True})
    assert situation.model_validate({"distance": "2.5"}).distance == 2.5


# ------------------------------------------------------------------------------ 4. booleans


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"damage": {"dice": True, "sides": 6}, "armor": {"fixed": 4}}, "damage.dice"),
        ({"damage": {"dice": 2, "sides": 6}, "armor": {"fixed": False}}, "armor.fixed"),
        ({"damage": {"dice": 2, "sides": 6, "modifier": True}, "armor": {"fixed": 4}}, None),
        (
            {
                "action": {"die": 6, "use": True},
                "damage": {"dice": 1, "sides": 6},
                "armor": {"fixed": 1},
            },
            "action.use",
        ),
        ({"damage": {"dice": 1, "sides": 6}, "armor": {"fixed": 4}, "deflection": True}, None),
    ],
)
def test_booleans_are_not_numbers_in_the_odds_api(
    client: TestClient, body: dict, field: str | None
) -> None:  # type: ignore[type-arg]
    r = client.post("/api/v1/brikwars/odds", json=body)
    got = fields(r)
    if field is not None:
        assert field in got and "true or false" in got[field]


def test_booleans_are_not_numbers_in_the_builder_and_battles(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    r = api(member, "POST", "/api/v1/armies", json={"name": "B", "budget": True})
    assert "budget" in fields(r)
    army_id = new_army(member)
    r = api(
        member,
        "POST",
        f"/api/v1/armies/{army_id}/units",
        json={"name": "B", "kind": "creation", "size": True, "structure_level": 1},
    )
    assert "size" in fields(r)
    r = api(
        member,
        "POST",
        f"/api/v1/armies/{army_id}/units",
        json={"name": "B", "kind": "minifig", "mind_die": True},
    )
    assert "mind_die" in fields(r)
    r = api(member, "PATCH", f"/api/v1/armies/{army_id}", json={"version": True, "budget": 5})
    assert "version" in fields(r)
    unit = api(
        member, "POST", f"/api/v1/armies/{army_id}/units", json={"name": "U", "kind": "minifig"}
    ).json()
    r = api(
        member, "POST", f"/api/v1/armies/{army_id}/units/{unit['id']}/move", json={"offset": True}
    )
    assert "offset" in fields(r)
    r = api(member, "POST", "/api/v1/battles", json={"name": "B", "army_ids": [True]})
    assert "army_ids.0" in fields(r)
    r = api(
        member,
        "POST",
        "/api/v1/calculator/odds",
        json={"attacker": {"unit_id": True}, "target": {"unit_id": 1}},
    )
    assert "attacker.unit_id" in fields(r)
    assert count(app, Unit) == 1


# ------------------------------------------------------------------------------ 5. ids


def _id_routes(app) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """Every (method, path) with an ``..._id`` path parameter, through included routers."""
    out = []

    def walk(routes, prefix: str) -> None:  # type: ignore[no-untyped-def]
        for route in routes:
            if isinstance(route, Route):
                if "_id}" in route.path_format:
                    out.extend(
                        (m, prefix + route.path_format)
                        for m in sorted(route.methods or ())
                        if m != "HEAD"
                    )
            elif hasattr(route, "original_router"):  # FastAPI's included router
                walk(route.original_router.routes, prefix + route.include_context.prefix)

    walk(app.routes, "")
    return out


def test_every_id_route_is_checked(app) -> None:  # type: ignore[no-untyped-def]
    routes = _id_routes(app)
    assert len(routes) > 40
    assert ("GET", "/api/v1/armies/{army_id}") in routes


@pytest.mark.parametrize("bad", HUGE_IDS)
def test_ids_past_the_integer_range_are_422_or_404_never_500(app, member: Member, bad: int) -> None:  # type: ignore[no-untyped-def]
    army_id = new_army(member)
    for method, path in _id_routes(app):
        url = re.sub(
            r"\{(\w+_id)\}", lambda m: str(bad if m.group(1) != "army_id" else army_id), path
        )
        if url == path.replace("{army_id}", str(army_id)):
            url = path.replace("{army_id}", str(bad))
        url = re.sub(r"\{\w+\}", "x", url)  # tokens and other non-id parameters
        headers = {"X-CSRF-Token": member.csrf, "HX-Request": "true"}
        kw = {"json": {}} if path.startswith("/api/") and method != "GET" else {}
        r = member.client.request(method, url, headers=headers, follow_redirects=False, **kw)
        # A page answers 404; the API 422 (a negative number is no id path at all: 404)
        expected = (422,) if path.startswith("/api/") and bad >= 0 else (404,)
        assert r.status_code in expected, (method, url, r.status_code, r.text[:200])
    assert count(app, Army) == 1


@pytest.mark.parametrize("bad", [2**31, 2**63, 2**70])
def test_ids_in_bodies_forms_and_queries_are_bounded(app, member: Member, bad: int) -> None:  # type: ignore[no-untyped-def]
    r = api(member, "POST", "/api/v1/armies", json={"name": "A", "budget": 10, "club_id": bad})
    assert "club_id" in fields(r)
    r = api(member, "POST", "/api/v1/battles", json={"name": "B", "army_ids": [bad]})
    assert "army_ids.0" in fields(r)
    r = api(
        member,
        "POST",
        "/api/v1/calculator/odds",
        json={"attacker": {"unit_id": 1, "weapon_ids": [bad]}, "target": {"unit_id": bad}},
    )
    assert {"attacker.weapon_ids.0", "target.unit_id"} <= set(fields(r))
    army_id = new_army(member)
    r = api(member, "PATCH", f"/api/v1/armies/{army_id}", json={"version": bad, "budget": 5})
    assert "version" in fields(r)
    r = api(
        member,
        "POST",
        "/api/v1/calculator/roll",
        json={"attacker": {"unit_id": 1}, "target": {"unit_id": 2}, "seed": 2**70},
    )
    assert "seed" in fields(r)
    # Pages that read ids from forms and query strings by hand.
    r = member.form("/battles", {"name": "B", f"army.{bad}": "on"}, follow_redirects=False)
    assert r.status_code in (303, 422)
    r = member.form(
        f"/armies/{army_id}/sharing",
        {"club_id": str(bad), f"editor.{bad}": "on"},
        follow_redirects=False,
    )
    assert r.status_code in (303, 422)
    r = member.client.get("/calculator", params={"attacker": str(bad), "target": "²"})
    assert r.status_code in (200, 422)
    r = member.form(f"/armies/{army_id}/units", {"name": "T", "kind": "minifig", "mind_die": "²"})
    assert r.status_code in (303, 422)


# ---------------------------------------------------------------- 6. control characters

NUL = "a\x00b"


def test_sign_up_with_nul_is_422_and_saves_nothing(app, client: TestClient) -> None:  # type: ignore[no-untyped-def]
    for field, value in (
        ("email", "nul\x00@example.com"),
        ("password", PASSWORD + "\x00"),
        ("display_name", NUL),
    ):
        data = {"email": "ok@example.com", "password": PASSWORD, "display_name": "Ok", field: value}
        r = client.post("/api/v1/auth/register", json=data)
        assert field in fields(r)
        r = client.post(
            "/register",
            data={"csrf_token": page_csrf(client, "/register"), **data},
            headers={"HX-Request": "true"},
        )
        assert (r.status_code == 422 and "control characters" in r.text) or field == "email"
    assert count(app, User) == 0


def test_login_with_nul_is_422(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    c = TestClient(app)
    r = c.post("/api/v1/auth/login", json={"email": "a\x00@example.com", "password": PASSWORD})
    assert "email" in fields(r)
    r = c.post("/api/v1/auth/login", json={"email": member.email, "password": "x\x00y"})
    assert "password" in fields(r)
    r = c.post(
        "/login",
        data={"csrf_token": page_csrf(c), "email": "a\x00@b.c", "password": "p", "next": ""},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 422 and "control characters" in r.text


def test_army_unit_club_notes_with_nul_are_422_and_save_nothing(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    r = api(member, "POST", "/api/v1/armies", json={"name": NUL, "budget": 10})
    assert "name" in fields(r)
    r = api(member, "POST", "/api/v1/armies", json={"name": "N", "budget": 10, "notes": NUL})
    assert "notes" in fields(r)
    ok = api(member, "POST", "/api/v1/armies", json={"name": "N", "budget": 10, "notes": "a\n\tb"})
    assert ok.status_code == 201  # tab and line breaks are fine in notes
    army_id = ok.json()["id"]
    r = member.htmx("/armies", {"name": NUL, "budget": "10", "notes": ""})
    assert r.status_code == 422 and "control characters" in r.text
    r = member.htmx(
        f"/armies/{army_id}", {"name": "N", "budget": "10", "notes": "x\x00", "version": "1"}
    )
    assert r.status_code == 422 and "control characters" in r.text
    r = api(
        member, "POST", f"/api/v1/armies/{army_id}/units", json={"name": NUL, "kind": "minifig"}
    )
    assert "name" in fields(r)
    r = member.htmx(f"/armies/{army_id}/units", {"name": NUL, "kind": "minifig"})
    assert r.status_code == 422 and "control characters" in r.text
    r = api(
        member,
        "POST",
        f"/api/v1/armies/{army_id}/units",
        json={"name": "T", "size": 3, "weapons": [{"type": "gun", "size": 1, "label": NUL}]},
    )
    assert "weapons.0.label" in fields(r)
    r = api(member, "POST", "/api/v1/clubs", json={"name": NUL})
    assert "name" in fields(r)
    r = member.htmx("/clubs", {"name": NUL})
    assert r.status_code == 422 and "control characters" in r.text
    r = api(member, "POST", "/api/v1/battles", json={"name": NUL, "army_ids": [army_id]})
    assert "name" in fields(r)
    r = member.htmx("/battles", {"name": NUL, f"army.{army_id}": "on"})
    assert r.status_code == 422 and "control characters" in r.text
    assert count(app, Army) == 1 and count(app, Unit) == 0 and count(app, Club) == 0
    assert count(app, Battle) == 0
    with app.state.sessionmaker() as s:
        assert s.scalar(select(Army.notes)) == "a\n\tb"


def test_import_and_search_with_nul_are_422(app, member: Member) -> None:  # type: ignore[no-untyped-def]
    army_id = new_army(member)
    doc = api(member, "GET", f"/api/v1/armies/{army_id}/export").json()
    for path, value in (("name", NUL), ("notes", NUL), ("unit", NUL), ("label", NUL)):
        bad = json.loads(json.dumps(doc))
        bad["units"] = [{"name": "T", "kind": "creation", "size": 3, "structure_level": 1}]
        if path in ("name", "notes"):
            bad[path] = value
        elif path == "unit":
            bad["units"][0]["name"] = value
        else:
            bad["units"][0]["weapons"] = [{"type": "gun", "size": 1, "label": value}]
        r = api(member, "POST", "/api/v1/armies/import", content=json.dumps(bad))
        assert r.status_code == 422 and "control characters" in r.text, path
    club = api(member, "POST", "/api/v1/clubs", json={"name": "C"}).json()
    r = api(member, "GET", f"/api/v1/clubs/{club['id']}", params={"name": NUL})
    assert "name" in fields(r)
    r = api(member, "GET", f"/api/v1/clubs/{club['id']}", params={"owner": NUL})
    assert "owner" in fields(r)
    r = member.client.get(f"/clubs/{club['id']}", params={"name": NUL})
    assert r.status_code == 422 and "control characters" in r.text
    r = api(member, "POST", "/api/v1/tokens", json={"name": NUL})
    assert "name" in fields(r)
    assert count(app, Army) == 1 and count(app, ApiToken) == 0


# ------------------------------------------------------------------------------ 1. token use


def test_a_recently_used_token_is_not_written_and_its_use_is_committed_apart(
    app, member: Member
) -> None:  # type: ignore[no-untyped-def]
    token = api(member, "POST", "/api/v1/tokens", json={"name": "bot"}).json()["token"]
    bot = TestClient(app, headers={"Authorization": f"Bearer {token}"})
    # The first use is recorded even though the request itself fails and is rolled back:
    # the write has a short transaction of its own, not the request's.
    assert bot.post("/api/v1/armies", json={"name": "A", "budget": -1}).status_code == 422
    with app.state.sessionmaker() as s:
        assert s.scalar(select(ApiToken.last_used_at)) is not None
    statements: list[str] = []

    def record(conn, cursor, statement, *args):  # type: ignore[no-untyped-def]
        statements.append(statement)

    event.listen(app.state.engine, "before_cursor_execute", record)
    try:
        for _ in range(3):
            assert bot.get("/api/v1/armies").status_code == 200
    finally:
        event.remove(app.state.engine, "before_cursor_execute", record)
    writes = [s for s in statements if not s.lstrip().upper().startswith(("SELECT", "BEGIN"))]
    assert writes == []


def test_the_bounds_reach_the_openapi_schema(app) -> None:  # type: ignore[no-untyped-def]
    """Bounds are standard JSON Schema (minimum/maximum), not pydantic's ge/le left over."""
    schema = app.openapi()
    leftovers: list[str] = []

    def walk(node: object, path: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("ge", "le", "gt", "lt", "min_length", "max_length"):
                    leftovers.append(f"{path}/{key}")
                walk(value, f"{path}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{path}/{i}")

    walk(schema, "")
    assert leftovers == []
    army = schema["paths"]["/api/v1/armies/{army_id}"]["patch"]["parameters"][0]["schema"]
    assert army["minimum"] == 1 and army["maximum"] == 2**31 - 1
