"""The builder pages and API: figures from the engine, partial swaps, bad input, no N+1."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import event, func, select

from app.db.models import Unit, Weapon
from tests.web.builder.test_armies import create
from tests.web.conftest import Member

TANK = {
    "name": "Tank",
    "size": 3,
    "structure_level": 2,
    "move": 4,
    "mind_die": 6,
    "weapons": [{"type": "gun", "size": 3}],
}


# A 3" Gun (RULINGS §1.4): 3CP per inch, Use S+2, Range 4×S+2", S d6, Power S.
GUN_3 = {
    "use": 5,
    "range_inches": 14,
    "cost": 9,
    "power": 3,
    "deflection": None,
    "damage": {
        "dice": 3,
        "sides": 6,
        "modifier": 0,
        "text": "3d6",
        "minus_distance": False,
        "fire": False,
        "explosion": False,
    },
}


def api(member: Member, method: str, url: str, **kw):  # type: ignore[no-untyped-def]
    return member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)


def add_unit(member: Member, army_id: int, body: dict) -> dict:  # type: ignore[type-arg]
    r = api(member, "POST", f"/api/v1/armies/{army_id}/units", json=body)
    assert r.status_code == 201, r.text
    return r.json()


@contextmanager
def count_queries(app) -> Iterator[list[str]]:  # type: ignore[no-untyped-def]
    statements: list[str] = []

    def record(conn, cursor, statement, *args):  # type: ignore[no-untyped-def]
        statements.append(statement)

    event.listen(app.state.engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        event.remove(app.state.engine, "before_cursor_execute", record)


def test_army_api_has_every_derived_figure(member: Member) -> None:
    army_id = create(member, budget="100")
    add_unit(member, army_id, {"name": "Trooper", "kind": "minifig"})
    add_unit(member, army_id, TANK)
    army = api(member, "GET", f"/api/v1/armies/{army_id}").json()
    assert army["budget"] == 100 and army["total_cost"] == 4 + (6 + 2 + 1 + 9)
    trooper, tank = army["units"]
    assert (trooper["armor"]["text"], trooper["move"], trooper["power"], trooper["cost"]) == (
        "4",
        5,
        2,
        4,
    )
    assert tank["armor"] == {"dice": 2, "sides": 10, "fixed": 0, "deflection": 0, "text": "2d10"}
    assert (tank["move"], tank["power"], tank["cost"]) == (4, 6, 18)
    gun = tank["weapons"][0]
    assert gun["stats"] == GUN_3
    assert army["findings"] == [] and tank["activation_sets"] == [[0]]


def test_weapon_stats_endpoint(client) -> None:  # type: ignore[no-untyped-def]
    r = client.post("/api/v1/brikwars/weapon-stats", json={"type": "gun", "size": 3})
    assert r.json() == GUN_3
    # The Ripper Blade (chapter 8): a 4" Melee Weapon, 8CP, Use 5, 4 Action dice.
    r = client.post(
        "/api/v1/brikwars/weapon-stats", json={"type": "melee_weapon", "size": 4, "action_die": 8}
    ).json()
    assert (r["cost"], r["use"], r["range_inches"]) == (8, 5, None)
    assert (r["damage"]["dice"], r["damage"]["sides"]) == (4, 8)
    r = client.post("/api/v1/brikwars/weapon-stats", json={"type": "rocket", "xsize": 3}).json()
    assert (r["use"], r["range_inches"], r["cost"], r["damage"]["dice"]) == (6, 18, 6, 3)
    r = client.post("/api/v1/brikwars/weapon-stats", json={"type": "cannon", "size": 2}).json()
    assert r["damage"] is None and r["use"] == 5


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"type": "gun", "size": 0}, "size"),
        ({"type": "gun", "size": -2}, "size"),
        ({"type": "gun", "size": "big"}, "size"),
        ({"type": "gun", "size": 101}, "size"),
        ({"type": "laser", "size": 1}, "type"),
        ({"type": "explosive", "xsize": 0}, "xsize"),
    ],
)
def test_weapon_stats_bad_input_names_the_field(client, body, field) -> None:  # type: ignore[no-untyped-def]
    r = client.post("/api/v1/brikwars/weapon-stats", json=body)
    assert r.status_code == 422
    assert r.json()["detail"][0]["field"] == field


def test_catalogue_lists_formulas(client) -> None:  # type: ignore[no-untyped-def]
    entries = {e["id"]: e for e in client.get("/api/v1/brikwars/catalogue").json()}
    assert entries["gun"]["cost_text"] == "3×S" and entries["gun"]["range_text"] == '4×S+2"'
    assert {
        "melee_weapon",
        "melee_shield",
        "blastgun",
        "machinegun",
        "flamethrower",
        "explosive",
        "rocket",
        "cannon",
        "launcher",
        "armor_plating",
        "small_turret",
        "large_turret",
    } <= set(entries)


@pytest.mark.parametrize(
    ("weapon", "field", "reason"),
    [
        ({"type": "gun", "size": "0"}, "size", "must be greater than 0"),
        ({"type": "gun", "size": "abc"}, "size", "must be a number"),
        ({"type": "gun", "size": "250"}, "size", "must be at most 100"),
        ({"type": "gun", "size": "-1"}, "size", "must be greater than 0"),
        ({"type": "death_ray", "size": "2"}, "type", ""),
        ({"type": "gun", "size": "2", "ammo.xsize": "1"}, "ammo", "Gun takes no Ammo"),
        (
            {
                "type": "launcher",
                "size": "2",
                "payload.explosive.xsize": "1",
                "payload.explosive.variant": "antimatter",
            },
            "payload.explosive.variant",
            "",
        ),
    ],
)
def test_bad_weapon_form_is_422_inline_and_saves_nothing(
    member: Member,
    app,
    weapon: dict,
    field: str,
    reason: str,  # type: ignore[no-untyped-def]
) -> None:
    army_id = create(member)
    unit = add_unit(member, army_id, {"name": "Tank", "size": 3, "structure_level": 2})
    r = member.htmx(
        f"/armies/{army_id}/units/{unit['id']}/weapons", {"csrf_token": member.csrf, **weapon}
    )
    assert r.status_code == 422, r.text[:300]
    assert r.text.lstrip().startswith(f'<tbody id="unit-{unit["id"]}"')
    # The reason stands next to the input that caused it.
    error = re.search(
        rf'<p class="error" id="add-weapon-{unit["id"]}-[^"]*-err">([^<]*)</p>', r.text
    )
    assert error and reason in error.group(1), r.text
    described = re.search(rf'name="{re.escape(field)}"[^>]*aria-invalid="true"', r.text)
    assert described or field in ("ammo", "payload"), field
    with app.state.sessionmaker() as s:
        assert s.scalar(select(func.count(Weapon.id))) == 0


def test_api_bad_weapon_names_the_nested_field(member: Member) -> None:
    army_id = create(member)
    unit = add_unit(member, army_id, {"name": "Tank", "size": 3, "structure_level": 2})
    url = f"/api/v1/armies/{army_id}/units/{unit['id']}/weapons"
    r = api(member, "POST", url, json={"type": "cannon", "size": 2, "ammo": {"xsize": 0}})
    assert r.status_code == 422
    assert r.json()["detail"][0]["field"] == "ammo.xsize"
    r = api(member, "POST", url, json={"type": "gun", "size": 2, "payload": {"per_launch": 1}})
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "payload"
    r = api(member, "POST", url, json={"type": "gun", "size": 2, "colour": "red"})
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "colour"
    assert api(member, "GET", f"/api/v1/armies/{army_id}").json()["units"][0]["weapons"] == []


@pytest.mark.parametrize(
    ("body", "field", "reason"),
    [
        ({"name": "Tank", "colour": "red"}, "colour", "is not a known field"),
        ({"name": "Tank", "kind": "dragon"}, "kind", ""),
        ({"name": "Tank", "size": True, "structure_level": 2}, "size", ""),
        ({"name": "Tank", "size": "1e-100000", "structure_level": 2}, "size", ""),
        ({"name": "Tank", "weapons": [{"type": "gun", "size": 1, "hue": 2}]}, "weapons.0.hue", ""),
        ({"name": "Tank", "weapons": [{"size": 1}]}, "weapons.0.type", "is required"),
        ({"name": "", "size": 3}, "name", ""),
    ],
)
def test_api_unit_bodies_are_read_by_the_armys_ruleset(
    member: Member,
    app,
    body: dict,
    field: str,
    reason: str,  # type: ignore[no-untyped-def, type-arg]
) -> None:
    """The body's own fields are the ruleset's (the API checks only the shared ones): a bad
    one is still a 422 naming it, and nothing is saved."""
    army_id = create(member)
    r = api(member, "POST", f"/api/v1/armies/{army_id}/units", json=body)
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert any(d["field"] == field and d["reason"].startswith(reason) for d in detail), detail
    assert api(member, "GET", f"/api/v1/armies/{army_id}").json()["units"] == []


def test_bad_unit_form_is_422_on_the_add_form(member: Member, app) -> None:  # type: ignore[no-untyped-def]
    army_id = create(member)
    r = member.htmx(
        f"/armies/{army_id}/units",
        {"name": "Blob", "kind": "creation", "size": "2", "structure_level": "lots"},
    )
    assert r.status_code == 422
    assert r.headers["HX-Retarget"] == "#add-unit-form"
    assert r.text.lstrip().startswith('<form id="add-unit-form"')
    assert "Structure Level" in r.text and 'value="Blob"' in r.text  # input kept
    r = member.htmx(f"/armies/{army_id}/units", {"name": "Blob", "kind": "creation"})
    assert r.status_code == 422 and "a Creation needs a Size" in r.text
    with app.state.sessionmaker() as s:
        assert s.scalar(select(func.count(Unit.id))) == 0
    # A legal-but-impossible build is saved and flagged: SL 4 on a 2" Creation.
    r = member.htmx(
        f"/armies/{army_id}/units",
        {"name": "Blob", "kind": "creation", "size": "2", "structure_level": "4"},
    )
    assert r.status_code == 200 and 'data-code="structure_level_over_size"' in r.text


def test_weapon_change_swaps_the_unit_and_totals_only(member: Member) -> None:
    army_id = create(member, budget="100")
    add_unit(member, army_id, {"name": "Other", "kind": "minifig"})
    tank = add_unit(member, army_id, {"name": "Tank", "size": 3, "structure_level": 2})
    r = member.htmx(f"/armies/{army_id}/units/{tank['id']}/weapons", {"type": "gun", "size": "2"})
    assert r.status_code == 200
    body = r.text
    assert body.lstrip().startswith(f'<tbody id="unit-{tank["id"]}"')
    assert "Other" not in body.split('id="findings"')[0]  # the other unit is not re-rendered
    assert 'id="army-totals"' in body and 'hx-swap-oob="true"' in body
    assert re.search(r'<strong id="total-cost">16CP</strong>', body)  # 4 + 6 + 6
    assert 'id="findings"' in body


def test_page_query_count_does_not_grow_with_units(member: Member, app) -> None:  # type: ignore[no-untyped-def]
    army_id = create(member, budget="10000")
    add_unit(member, army_id, TANK)
    with count_queries(app) as few:
        assert member.client.get(f"/armies/{army_id}").status_code == 200
    for i in range(12):
        add_unit(member, army_id, {**TANK, "name": f"Tank {i}"})
    with count_queries(app) as many:
        page = member.client.get(f"/armies/{army_id}")
    assert page.text.count('class="unit') >= 13
    assert len(many) == len(few) <= 5, many


def test_duplicate_move_and_remove_units(member: Member) -> None:
    army_id = create(member, budget="100")
    a = add_unit(member, army_id, {"name": "A", "kind": "minifig"})
    b = add_unit(member, army_id, TANK)
    r = member.htmx(f"/armies/{army_id}/units/{b['id']}/duplicate")
    assert r.status_code == 200 and r.text.lstrip().startswith('<section id="builder"')

    def names() -> list[str]:
        return [u["name"] for u in api(member, "GET", f"/api/v1/armies/{army_id}").json()["units"]]

    assert names() == ["A", "Tank", "Tank (copy)"]
    copy = api(member, "GET", f"/api/v1/armies/{army_id}").json()["units"][2]
    assert copy["weapons"][0]["type"] == "gun" and copy["cost"] == 18
    member.htmx(f"/armies/{army_id}/units/{a['id']}/move", {"offset": "1"})
    assert names() == ["Tank", "A", "Tank (copy)"]
    member.htmx(f"/armies/{army_id}/units/{a['id']}/move", {"offset": "-1"})
    member.htmx(f"/armies/{army_id}/units/{a['id']}/move", {"offset": "-1"})  # already first
    assert names() == ["A", "Tank", "Tank (copy)"]
    member.htmx(f"/armies/{army_id}/units/{b['id']}/delete")
    army = api(member, "GET", f"/api/v1/armies/{army_id}").json()
    assert [(u["name"], u["position"]) for u in army["units"]] == [("A", 0), ("Tank (copy)", 1)]


def test_stale_unit_edit_is_409_and_keeps_the_edit(member: Member) -> None:
    army_id = create(member)
    tank = add_unit(member, army_id, TANK)
    url = f"/armies/{army_id}/units/{tank['id']}"
    first = member.htmx(url, {"version": "1", "name": "Tank Mk II"})
    assert first.status_code == 200
    second = member.htmx(url, {"version": "1", "name": "Tank from tab two"})
    assert second.status_code == 409
    assert (
        "changed in another tab or by someone else" in second.text
        and 'value="Tank from tab two"' in second.text
    )
    r = api(
        member,
        "PATCH",
        f"/api/v1/armies/{army_id}/units/{tank['id']}",
        json={"version": 1, "name": "Stale"},
    )
    assert r.status_code == 409
    assert api(member, "GET", f"/api/v1/armies/{army_id}").json()["units"][0]["name"] == (
        "Tank Mk II"
    )


def test_size_damage_weakens_the_unit(member: Member) -> None:
    """Scorpiosaurus Rex through the API: Power 6, then 4 after 1" of Size Damage."""
    army_id = create(member, budget="100")
    rex = add_unit(
        member,
        army_id,
        {
            "name": "Scorpiosaurus Rex",
            "size": 3,
            "structure_level": 2,
            "mind_die": 6,
            "weapons": [
                {"type": "melee_weapon", "size": 5, "label": "BioStinger"},
                {"type": "melee_weapon", "size": 1},
                {"type": "melee_weapon", "size": 1},
            ],
        },
    )
    assert rex["power"] == 6 and rex["activation_sets"] == [[0, 1], [0, 2], [1, 2]]
    r = api(
        member,
        "PATCH",
        f"/api/v1/armies/{army_id}/units/{rex['id']}",
        json={"version": 1, "size_damage": 1},
    )
    hurt = r.json()
    assert hurt["power"] == 4 and hurt["activation_sets"] == [[1, 2]]
    assert hurt["armor"]["text"] == "2d10"
    assert [f["code"] for f in hurt["weapons"][0]["findings"]] == ["too_big"]


def test_house_rule_allows_over_budget(member: Member) -> None:
    army_id = create(member, budget="5")
    add_unit(member, army_id, TANK)
    army = api(member, "GET", f"/api/v1/armies/{army_id}").json()
    assert [(f["code"], f["severity"]) for f in army["findings"]] == [("over_budget", "error")]
    r = member.htmx(
        f"/armies/{army_id}/house-rules",
        {
            "version": str(army["version"]),
            "allow_over_budget": "on",
            "bonus_die": "same",
            "fractional_dice": "floor",
            "turret_cost": "structure",
        },
    )
    assert r.status_code == 200 and 'id="army"' in r.text  # settings re-sent with the version
    army = api(member, "GET", f"/api/v1/armies/{army_id}").json()
    assert army["house_rules"]["allow_over_budget"] is True
    assert army["house_rules"]["compensating_power"] is False  # unticked box
    assert [(f["code"], f["severity"]) for f in army["findings"]] == [("over_budget", "warning")]
    r = api(
        member,
        "PUT",
        f"/api/v1/armies/{army_id}/house-rules",
        json={"version": army["version"], "options": {"bonus_die": "d20"}},
    )
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "bonus_die"


def test_weapon_preview_shows_stats_and_findings(member: Member) -> None:
    army_id = create(member)
    rex = add_unit(member, army_id, {"name": "Rex", "size": 3, "structure_level": 1})
    url = f"/armies/{army_id}/units/{rex['id']}/weapon-preview"
    r = member.client.get(url, params={"type": "gun", "size": "3"}, headers={"HX-Request": "true"})
    assert "Use 5" in r.text and "Range 14&#34;" in r.text and "9CP" in r.text
    r = member.client.get(url, params={"type": "gun", "size": "7"}, headers={"HX-Request": "true"})
    assert "Divert All Power" in r.text
    r = member.client.get(url, params={"type": "gun", "size": "0"}, headers={"HX-Request": "true"})
    assert "size: must be greater than 0" in r.text
    r = api(
        member,
        "POST",
        f"/api/v1/armies/{army_id}/units/{rex['id']}/weapon-preview",
        json={"type": "gun", "size": 7, "mount": "hand_held"},
    )
    codes = {f["code"] for f in r.json()["findings"]}
    assert r.json()["hold"] == "too_big" and "too_big_to_hold" in codes


def test_cached_unit_rows_follow_every_change(member: Member) -> None:
    """The page memoises each unit's HTML: a rename, a weapon or a house rule must show."""
    army_id = create(member, budget="100")
    tank = add_unit(
        member,
        army_id,
        {
            "name": "Tank",
            "size": 3,
            "structure_level": 2,
            "weapons": [{"type": "gun", "size": 2, "mount": "small_turret"}],
        },
    )
    page = member.client.get(f"/armies/{army_id}").text
    cost = '<td class="num unit-cost" data-label="Cost">{}</td>'
    assert cost.format("13CP") in page  # 6 + gun 6 + Small Turret 1
    member.client.get(f"/armies/{army_id}")  # now served from the memo
    api(
        member,
        "PATCH",
        f"/api/v1/armies/{army_id}/units/{tank['id']}",
        json={"version": 1, "name": "Renamed Tank"},
    )
    assert ">Renamed Tank</a>" in member.client.get(f"/armies/{army_id}").text
    army = api(member, "GET", f"/api/v1/armies/{army_id}").json()
    api(
        member,
        "PUT",
        f"/api/v1/armies/{army_id}/house-rules",
        json={"version": army["version"], "options": {"turret_cost": "free"}},
    )
    assert cost.format("12CP") in member.client.get(f"/armies/{army_id}").text


def _form_html(page: str, marker: str) -> str:
    start = page.index(marker)
    return page[start : page.index("</form>", start)]


def test_shared_forms_carry_each_viewers_own_token_and_the_current_version(
    app,
    member: Member,  # type: ignore[no-untyped-def]
) -> None:
    """The add-unit and house-rules forms are rendered once per army (and version) and
    shared by every view: each page still carries its own session's CSRF token, and a
    change to the house rules shows at once."""
    from fastapi.testclient import TestClient

    from tests.web.conftest import PASSWORD, page_csrf

    army_id = create(member, budget="100")
    add_unit(member, army_id, TANK)
    with TestClient(app) as laptop:  # the same account's second session
        r = laptop.post(
            "/login",
            data={"csrf_token": page_csrf(laptop), "email": member.email, "password": PASSWORD},
            follow_redirects=False,
        )
        assert r.status_code == 303
        token = page_csrf(laptop, "/account")
        assert token != member.csrf
        views = ((member.client, member.csrf, token), (laptop, token, member.csrf))
        for client, mine, theirs in views:
            page = client.get(f"/armies/{army_id}").text
            for marker in ('id="add-unit-form"', 'id="house-rules-form"'):
                form = _form_html(page, marker)
                assert f'value="{mine}"' in form and theirs not in form
    version = api(member, "GET", f"/api/v1/armies/{army_id}").json()["version"]
    r = member.htmx(
        f"/armies/{army_id}/house-rules",
        {"version": str(version), "allow_over_budget": "on", "bonus_die": "same"},
    )
    assert r.status_code == 200, r.text
    form = _form_html(member.client.get(f"/armies/{army_id}").text, 'id="house-rules-form"')
    assert f'name="version" value="{version + 1}"' in form
    assert 'name="allow_over_budget" checked' in form
