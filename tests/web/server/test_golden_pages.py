"""API bodies and exports match the saved copies in ``tests/web/golden/``.

Moving the product onto the ``Ruleset`` interface (issue 11) and narrowing that interface
(issue 26) must not change what BrikWars users get: a small world (two armies with guns, a
cannon with ammo, a flamethrower and armour plating, a club, a battle with two rolls) is built
the same way every time, and every JSON body and text export that shows it is compared with
its saved copy, byte for byte after the parts that differ from run to run (tokens, times) are
masked. (Whole pages were compared too until issue 26's generic forms had landed, each change
of markup reviewed; the pages' behaviour is the feature tests' to pin, not their bytes.)

After a change that is meant to alter a body, write the copies again with
``GOLDEN_UPDATE=1 pytest tests/web/server/test_golden_pages.py`` and read the diff before
committing.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from app.db.base import Base
from tests.web.conftest import Member

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
ARTIFACTS = GOLDEN.parent.parent / "artifacts" / "golden"
UPDATE = os.environ.get("GOLDEN_UPDATE") == "1"

TANK = {
    "name": "Tank",
    "size": 3,
    "structure_level": 2,
    "move": 4,
    "mind_die": 6,
    "weapons": [{"type": "gun", "size": 3}, {"type": "flamethrower", "size": 2}],
}
GUNSHIP = {
    "name": "Skyhammer",
    "size": 4,
    "structure_level": 2,
    "propulsion": "flying",
    "move": 8,
    "weapons": [
        {"type": "cannon", "size": 3, "ammo": {"xsize": 2, "variant": "standard", "rounds": 2}},
        {"type": "armor_plating", "size": 1},
    ],
}
TROOPER = {"name": "Trooper", "kind": "minifig", "weapons": [{"type": "gun", "size": 1}]}
WALKER = {
    "name": "Walker",
    "size": 3,
    "structure_level": 2,
    "weapons": [{"type": "armor_plating", "size": 1}],
}

MASKS = (
    (re.compile(r'(name="csrf_token" value=")[^"]+'), r"\1CSRF"),
    (re.compile(r'("X-CSRF-Token": ?")[^"]+'), r"\1CSRF"),
    (re.compile(r'(<meta name="csrf-token" content=")[^"]+'), r"\1CSRF"),
    (re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(\+00:00|Z)?"), "DATETIME"),
    (re.compile(r"\d{1,2} [A-Z][a-z]{2} \d{4}(,? \d\d:\d\d)?"), "DATE"),
    (re.compile(r"(nonce-|nonce=\")[A-Za-z0-9+/=_-]+"), r"\1NONCE"),
)


def _mask(body: str) -> str:
    for pattern, replacement in MASKS:
        body = pattern.sub(replacement, body)
    return body


def _restart_ids(app: Any) -> None:
    """Empty every table and start its ids at 1 again, so the pages name the same ids."""
    engine = app.state.engine
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            names = ", ".join(t.name for t in Base.metadata.sorted_tables)
            conn.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
        else:
            for table in reversed(Base.metadata.sorted_tables):
                conn.execute(table.delete())
            has_sequence = conn.execute(
                text("SELECT name FROM sqlite_master WHERE name = 'sqlite_sequence'")
            ).first()
            if has_sequence:
                conn.execute(text("DELETE FROM sqlite_sequence"))


def _api(member: Member, method: str, url: str, **kw: Any) -> Any:
    r = member.client.request(method, url, headers={"X-CSRF-Token": member.csrf}, **kw)
    assert r.status_code < 300, (url, r.status_code, r.text)
    return r


def _world(member: Member) -> dict[str, int]:
    red = _api(member, "POST", "/api/v1/armies", json={"name": "Red", "budget": 100}).json()["id"]
    blue = _api(member, "POST", "/api/v1/armies", json={"name": "Blue", "budget": 60}).json()["id"]
    for unit in (TANK, GUNSHIP, TROOPER):
        _api(member, "POST", f"/api/v1/armies/{red}/units", json=unit)
    _api(member, "POST", f"/api/v1/armies/{blue}/units", json=WALKER)
    _api(member, "POST", f"/api/v1/armies/{blue}/units", json=TROOPER)
    battle = _api(
        member, "POST", "/api/v1/battles", json={"name": "Ford", "army_ids": [red, blue]}
    ).json()
    units = {u["name"]: u["id"] for u in battle["units"]}
    for weapon, seed in ((0, 3), (1, 5)):
        body = {
            "attacker_id": units["Tank"],
            "weapons": [weapon],
            "target_id": units["Walker"],
            "situation": {"distance": 2},
            "seed": seed,
        }
        _api(member, "POST", f"/api/v1/battles/{battle['id']}/rolls", json=body)
    club = member.form("/clubs", {"name": "Brick Club"}, follow_redirects=False)
    assert club.status_code == 303, club.text
    return {
        "red": red,
        "blue": blue,
        "battle": battle["id"],
        "tank": units["Tank"],
        "walker": units["Walker"],
    }


RAW_BODY = {
    "action": {"die": 6, "use": 5},
    "damage": {"dice": 3, "sides": 6},
    "armor": {"dice": 1, "sides": 6},
    "deflection": 1,
}


def _pages(ids: dict[str, int]) -> dict[str, tuple[str, str, Any, dict[str, str]]]:
    """name: (method, url, JSON body, headers). Red: Tank 1 (Gun 1, Flamethrower 2),
    Skyhammer 2 (Cannon 3, Armor Plating 4), Trooper 3 (Gun 5); Blue: Walker 4, Trooper 5."""
    red, battle = ids["red"], ids["battle"]
    saved = {
        "attacker": {"army_id": red, "unit_id": 1, "weapon_id": 1},
        "target": {"army_id": ids["blue"], "unit_id": 4},
        "situation": {"distance": 4},
    }
    return {
        "battle-export.txt": ("GET", f"/battles/{battle}/export.txt", None, {}),
        "army-export.json": ("GET", f"/armies/{red}/export.json", None, {}),
        "army-export.txt": ("GET", f"/armies/{red}/export.txt", None, {}),
        "api-army.json": ("GET", f"/api/v1/armies/{red}", None, {}),
        "api-battle.json": ("GET", f"/api/v1/battles/{battle}", None, {}),
        "api-catalogue.json": ("GET", "/api/v1/brikwars/catalogue", None, {}),
        "api-rulesets.json": ("GET", "/api/v1/rulesets", None, {}),
        "api-ruleset-catalogue.json": ("GET", "/api/v1/rulesets/brikwars/catalogue", None, {}),
        "api-odds.json": ("POST", "/api/v1/brikwars/odds", RAW_BODY, {}),
        "api-roll.json": ("POST", "/api/v1/brikwars/roll", RAW_BODY | {"seed": 11}, {}),
        "api-ruleset-odds.json": ("POST", "/api/v1/rulesets/brikwars/odds", RAW_BODY, {}),
        "api-calculator-odds.json": ("POST", "/api/v1/calculator/odds", saved, {}),
        "api-calculator-roll.json": (
            "POST",
            "/api/v1/calculator/roll",
            saved | {"seed": 7},
            {},
        ),
        "api-battle-odds.json": (
            "POST",
            f"/api/v1/battles/{battle}/odds",
            {
                "attacker_id": ids["tank"],
                "weapons": [0],
                "target_id": ids["walker"],
                "situation": {"distance": 2},
            },
            {},
        ),
    }


def _rounded(value: Any) -> Any:
    """Floats to 12 significant digits: an equal sum in another order differs in the 17th."""
    if isinstance(value, float):
        return float(f"{value:.12g}")
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


def _normal(name: str, body: str) -> str:
    if name.endswith(".json"):
        body = json.dumps(_rounded(json.loads(body)), indent=1, sort_keys=True)
    return _mask(body).rstrip() + "\n"


def test_api_bodies_and_exports_match_their_saved_copies(app: Any, member_factory: Any) -> None:
    _restart_ids(app)
    member = member_factory()
    ids = _world(member)
    changed = []
    for name, (method, url, body, headers) in _pages(ids).items():
        if method == "GET":
            r = member.client.get(url, headers=headers)
        else:
            r = _api(member, method, url, json=body)
        assert r.status_code == 200, (url, r.status_code, r.text[:500])
        got = _normal(name, r.text)
        path = GOLDEN / name
        if UPDATE:
            GOLDEN.mkdir(exist_ok=True)
            path.write_text(got)
        elif path.read_text() != got:
            changed.append(name)
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            (ARTIFACTS / name).write_text(got)
    assert changed == [], f"differ from tests/web/golden (see tests/artifacts/golden): {changed}"


@pytest.fixture
def member_factory(app: Any) -> Any:
    from fastapi.testclient import TestClient

    from tests.web.conftest import sign_up

    clients: list[TestClient] = []

    def make() -> Member:
        c = TestClient(app)
        c.__enter__()
        clients.append(c)
        return sign_up(c, email="golden@example.com", name="Alice")

    yield make
    for c in clients:
        c.__exit__(None, None, None)
