"""The D20 builder's speed on SQLite, against a real uvicorn worker on loopback (the
BrikWars rows' twin in bench/builder.py): the page of a 200-figurine D20 army."""

from __future__ import annotations

from bench.common import Row, median, served_app, timed

UNITS = 200
RIFLE = {"type": "gun", "name": "Assault rifle", "reach": 60, "power": 6, "automatic": True}


def _units() -> list[dict[str, object]]:
    """SUs (a rifle, a knife, two grenades) and troopers (a rifle, a pistol: the one-target
    warning, a Searing Grenade: the SU-only error), alternately."""
    return [
        {
            "name": f"SU {i}",
            "kind": "su",
            "shot": 12,
            "hth": 8,
            "pd": 14,
            "evasion": 3,
            "dexterity": 5,
            "cp": 3,
            "points": 10,
            "weapons": [
                {**RIFLE, "points": 4},
                {"type": "hth", "name": "Knife", "power": 3, "points": 1},
                {"type": "defensive_grenade", "points": 2},
                {"type": "flaming_grenade", "points": 2},
            ],
        }
        if i % 2
        else {
            "name": f"Trooper {i}",
            "shot": 9,
            "hth": 6,
            "pd": 12,
            "evasion": 2,
            "cp": 2,
            "points": 6,
            "weapons": [
                RIFLE,
                {"type": "gun", "name": "Pistol", "reach": 25, "power": 4},
                {"type": "searing_grenade"},
            ],
        }
        for i in range(UNITS)
    ]


def run() -> list[Row]:
    with served_app("bench-d20@example.com") as (client, headers):
        army = client.post(
            "/api/v1/armies",
            json={"name": "Genetics", "ruleset_id": "d20", "budget": 100000},
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
            f"D20 builder page, {UNITS} figurines (GET, full page)",
            median(page_ms),
            "ms median",
            "< 100 ms",
            median(page_ms) < 100,
            f"n={len(page_ms)}; one uvicorn worker on 127.0.0.1, keep-alive client",
        )
    ]
