"""Builder speed on SQLite: the page of a 200-unit army, and adding a weapon (htmx)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from bench.common import Row, fresh_sqlite_app, median, timed

UNITS = 200


def run() -> list[Row]:
    app = fresh_sqlite_app()
    client = TestClient(app)
    login = client.post(
        "/api/v1/auth/register",
        json={"email": "bench@example.com", "password": "benchmark!", "display_name": "Bench"},
    ).json()
    headers = {"X-CSRF-Token": login["csrf_token"]}
    army = client.post(
        "/api/v1/armies", json={"name": "Horde", "budget": 100000}, headers=headers
    ).json()
    unit_ids = []
    for i in range(UNITS):
        body = (
            {
                "name": f"Trooper {i}",
                "kind": "minifig",
                "weapons": [{"type": "long_ranged_weapon"}, {"type": "hand_weapon"}],
            }
            if i % 2
            else {
                "name": f"Tank {i}",
                "size": 4,
                "structure_level": 2,
                "move": 6,
                "mind_die": 6,
                "weapons": [
                    {"type": "gun", "size": 3},
                    {"type": "machinegun", "size": 2},
                    {"type": "cannon", "size": 3, "ammo": {"xsize": 2, "rounds": 4}},
                ],
            }
        )
        r = client.post(f"/api/v1/armies/{army['id']}/units", json=body, headers=headers)
        assert r.status_code == 201, r.text
        unit_ids.append(r.json()["id"])

    page_url = f"/armies/{army['id']}"

    def page() -> None:
        r = client.get(page_url)
        assert r.status_code == 200

    page_ms = timed(page, repeat=25)

    targets = iter(unit_ids * 2)

    def add_weapon() -> None:
        unit_id = next(targets)
        r = client.post(
            f"/armies/{army['id']}/units/{unit_id}/weapons",
            data={"type": "gun", "size": "1"},
            headers={**headers, "HX-Request": "true"},
        )
        assert r.status_code == 200, r.text[:200]

    add_ms = timed(add_weapon, repeat=50)
    app.state.engine.dispose()
    return [
        Row(
            f"builder page, {UNITS} units (GET, full page)",
            median(page_ms),
            "ms median",
            "< 100 ms",
            median(page_ms) < 100,
            f"n={len(page_ms)}",
        ),
        Row(
            f"weapon add round trip (htmx POST, {UNITS}-unit army)",
            median(add_ms),
            "ms median",
            "< 30 ms",
            median(add_ms) < 30,
            f"n={len(add_ms)}",
        ),
    ]
