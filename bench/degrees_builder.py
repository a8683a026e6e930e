"""The Degrees builder's speed on SQLite, against a real uvicorn worker on loopback (the
BrikWars rows' twin in bench/builder.py): the page of a 200-unit Degrees army."""

from __future__ import annotations

from bench.common import Row, median, served_app, timed

UNITS = 200


def _units() -> list[dict[str, object]]:
    """Simos (Human, three weapons, one with real ammo) and Vehicular tanks, alternately."""
    return [
        {
            "name": f"Simo {i}",
            "kind": "personnel",
            "degree": 3,
            "human": True,
            "weapons": [
                {"type": "inter_offer"},
                {"type": "dousing_rod", "real_ammo": True},
                {"type": "gas_gun", "degree": 4},  # above the unit's degree: a warning
            ],
        }
        if i % 2
        else {
            "name": f"Tank {i}",
            "kind": "vehicular",
            "degree": 5,
            "back_armour": 2,
            "weapons": [{"type": "v_main"}, {"type": "v_tertiary"}, {"type": "a_nuke"}],
        }
        for i in range(UNITS)
    ]


def run() -> list[Row]:
    with served_app("bench-degrees@example.com") as (client, headers):
        army = client.post(
            "/api/v1/armies",
            json={"name": "Simos", "ruleset_id": "degrees", "budget": 100000},
            headers=headers,
        ).json()
        for body in _units():
            r = client.post(f"/api/v1/armies/{army['id']}/units", json=body, headers=headers)
            assert r.status_code == 201, r.text

        def page() -> None:
            assert client.get(f"/armies/{army['id']}").status_code == 200

        page_ms = timed(page, repeat=25)
    return [
        Row(
            f"Degrees builder page, {UNITS} units (GET, full page)",
            median(page_ms),
            "ms median",
            "< 100 ms",
            median(page_ms) < 100,
            f"n={len(page_ms)}; one uvicorn worker on 127.0.0.1, keep-alive client",
        )
    ]
