"""Builder speed on SQLite, against a real uvicorn worker on loopback (not the in-process
test client, whose thread hand-offs add several ms to every request): the page of a
200-unit army, and adding a weapon (htmx) to one of its units."""

from __future__ import annotations

from bench.common import Row, median, served_app, timed

UNITS = 200
SMALL = 20


def _units() -> list[dict[str, object]]:
    return [
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
        for i in range(UNITS)
    ]


def run() -> list[Row]:
    with served_app("bench@example.com") as (client, headers):
        army = client.post(
            "/api/v1/armies", json={"name": "Horde", "budget": 100000}, headers=headers
        ).json()
        unit_ids = []
        for body in _units():
            r = client.post(f"/api/v1/armies/{army['id']}/units", json=body, headers=headers)
            assert r.status_code == 201, r.text
            unit_ids.append(r.json()["id"])

        def page() -> None:
            assert client.get(f"/armies/{army['id']}").status_code == 200

        page_ms = timed(page, repeat=25)
        targets = iter(unit_ids * 2)

        def add_weapon() -> None:
            r = client.post(
                f"/armies/{army['id']}/units/{next(targets)}/weapons",
                data={"type": "gun", "size": "1"},
                headers={**headers, "HX-Request": "true"},
            )
            assert r.status_code == 200, r.text[:200]

        add_ms = timed(add_weapon, repeat=50)

        # A club-sized army, the usual case for the weapon-add target.
        small = client.post(
            "/api/v1/armies", json={"name": "Squad", "budget": 1000}, headers=headers
        ).json()
        small_ids = [
            client.post(f"/api/v1/armies/{small['id']}/units", json=body, headers=headers).json()[
                "id"
            ]
            for body in _units()[:SMALL]
        ]
        small_targets = iter(small_ids * 5)

        def add_weapon_small() -> None:
            r = client.post(
                f"/armies/{small['id']}/units/{next(small_targets)}/weapons",
                data={"type": "gun", "size": "1"},
                headers={**headers, "HX-Request": "true"},
            )
            assert r.status_code == 200, r.text[:200]

        small_ms = timed(add_weapon_small, repeat=50)
    note = "one uvicorn worker on 127.0.0.1, keep-alive client"
    return [
        Row(
            f"builder page, {UNITS} units (GET, full page)",
            median(page_ms),
            "ms median",
            "< 100 ms",
            median(page_ms) < 100,
            f"n={len(page_ms)}; {note}",
        ),
        Row(
            f"weapon add round trip (htmx POST, {SMALL}-unit army, revision recorded)",
            median(small_ms),
            "ms median",
            "< 30 ms",
            median(small_ms) < 30,
            f"n={len(small_ms)}; {note}",
        ),
        Row(
            f"weapon add round trip, stress case: {UNITS}-unit army (revision of all its units)",
            median(add_ms),
            "ms median",
            "< 30 ms",
            median(add_ms) < 30,
            f"n={len(add_ms)}; {note}",
        ),
    ]
