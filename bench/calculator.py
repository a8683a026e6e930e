"""The calculator page's htmx fragment, timed against a real uvicorn worker on SQLite: a
typical attack (a Tank's Gun against a Creation) and a 6-target Arc Fire (a MachineGun over
the target and five more). Each request changes the distance, as a player typing would."""

from __future__ import annotations

from itertools import cycle

from bench.common import Row, median, served_app, timed

TANK = {
    "name": "Tank",
    "size": 4,
    "structure_level": 2,
    "move": 6,
    "mind_die": 6,
    "weapons": [{"type": "gun", "size": 3}, {"type": "machinegun", "size": 2}],
}
WALKER = {
    "name": "Walker",
    "size": 3,
    "structure_level": 2,
    "weapons": [{"type": "gun", "size": 2}],
}


def run() -> list[Row]:
    with served_app("calc@example.com") as (client, headers):
        army = client.post(
            "/api/v1/armies", json={"name": "Column", "budget": 100000}, headers=headers
        ).json()
        url = f"/api/v1/armies/{army['id']}/units"
        tank = client.post(url, json=TANK, headers=headers).json()
        walker = client.post(url, json=WALKER, headers=headers).json()
        troopers = [
            client.post(url, json={"name": f"Pvt {i}", "kind": "minifig"}, headers=headers).json()[
                "id"
            ]
            for i in range(5)
        ]
        gun, mg = (w["id"] for w in tank["weapons"])
        distances = cycle([f"{d / 2:g}" for d in range(2, 42)])
        htmx = {"HX-Request": "true"}

        def typical() -> None:
            r = client.get(
                f"/calculator?attacker={tank['id']}&weapons={gun}&target={walker['id']}"
                f"&distance={next(distances)}",
                headers=htmx,
            )
            assert r.status_code == 200 and "data-p" in r.text, r.text[:300]

        followers = "".join(
            f"&follower={t}&follower_distance={4 + i}&follower_spans=0"
            for i, t in enumerate(troopers)
        )

        def arc() -> None:
            r = client.get(
                f"/calculator?attacker={tank['id']}&weapons={mg}&target={walker['id']}"
                f"&arc=3&distance={next(distances)}{followers}",
                headers=htmx,
            )
            assert r.status_code == 200 and "arc-targets" in r.text, r.text[:300]

        typical_ms = timed(typical, repeat=60)
        arc_ms = timed(arc, repeat=40)
    note = (
        "htmx GET round trip; one uvicorn worker on 127.0.0.1, keep-alive client; distance varied"
    )
    return [
        Row(
            'calculator fragment, typical attack (3" Gun vs a Size 3" Creation)',
            median(typical_ms),
            "ms median",
            "< 20 ms",
            median(typical_ms) < 20,
            f"n={len(typical_ms)}; {note}",
        ),
        Row(
            "calculator fragment, 6-target Arc Fire (MachineGun, Arc 3)",
            median(arc_ms),
            "ms median",
            "< 40 ms",
            median(arc_ms) < 40,
            f"n={len(arc_ms)}; {note}",
        ),
    ]
