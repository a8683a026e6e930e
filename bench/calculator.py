"""The calculator page's htmx fragment, timed against a real uvicorn worker on SQLite: a
typical attack (a Tank's Gun against a Creation) and a 6-target Arc Fire (a MachineGun over
the target and five more); and for each ruleset an attack on the target and 6 further target
units, the last a squad of 3 (issue 27: BrikWars Arc Fire, D20 automatic fire, a Degrees
grenade over two locations). Each request changes a value, as a player typing would."""

from __future__ import annotations

from itertools import cycle
from typing import Any

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


def _d20(name: str, weapons: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    stats = {"shot": 10, "hth": 6, "pd": 18, "evasion": 1, "dexterity": 5, "cp": 2}
    return {"name": name, "kind": "figurine", **stats, **more, "weapons": weapons}


def _degrees(name: str, weapons: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    stats = {"degree": 2, "armour": 1, "back_armour": 0, "hp": 2, "ap": 3, "op": 0}
    return {"name": name, "kind": "personnel", **stats, **more, "weapons": weapons}


# Each ruleset's attacker, a target unit (units after the attacker: the target, then the
# further ones), the situation and a further target's own fields (a value varied per request).
FURTHER = {
    "brikwars": (
        {"name": "Tank", **TANK},
        lambda i: {"name": f"Pvt {i}", "kind": "minifig"},
        "arc=3&distance={v}",
        lambda i: f"&follower_distance={4 + i}&follower_spans=0",
        [f"{d / 4:g}" for d in range(4, 48)],
    ),
    "d20": (
        _d20(
            "Gunner", [{"type": "gun", "name": "Rifle", "reach": 60, "power": 6, "automatic": True}]
        ),
        lambda i: _d20(f"Chronos {i}", [], pd=14 + i),
        "mode=automatic&distance={v}",
        lambda i: "&follower_cover=&follower_height=0&follower_shaken=",
        [str(d) for d in range(10, 60)],
    ),
    "degrees": (
        _degrees("Grenadier", [{"type": "grenade", "degree": 4}], degree=4),
        lambda i: _degrees(f"Unit {i}", [], hp=1 + i % 3),
        "{v}",
        lambda i: f"&follower_location={'close' if i % 2 else 'here'}",
        [f"bloom={a}&carried={b}" for b in range(4) for a in range(11)],
    ),
}
FURTHER_TARGETS = 6


def _further(client: Any, headers: dict[str, str], ruleset: str) -> list[float]:
    """The fragment of an attack on a target and 6 further target units (the last a squad
    of 3) under ``ruleset``, each request with a situation not asked before (no odds kept)."""
    attacker, unit, situation, fields, values = FURTHER[ruleset]
    army = client.post(
        "/api/v1/armies",
        json={"name": ruleset, "ruleset_id": ruleset, "budget": 100000},
        headers=headers,
    ).json()
    url = f"/api/v1/armies/{army['id']}/units"
    shooter = client.post(url, json=attacker, headers=headers).json()
    ids = []
    for i in range(FURTHER_TARGETS + 1):
        body = unit(i) | ({"count": 3} if i == FURTHER_TARGETS else {})
        r = client.post(url, json=body, headers=headers)
        assert r.status_code == 201, r.text
        ids.append(r.json()["id"])
    followers = "".join(f"&follower={t}{fields(i)}" for i, t in enumerate(ids[1:]))
    weapon = shooter["weapons"][-1]["id"]  # the Tank's MachineGun
    varied = cycle(values)

    def fragment() -> None:
        r = client.get(
            f"/calculator?attacker={shooter['id']}&weapons={weapon}&target={ids[0]}&"
            + situation.format(v=next(varied))
            + followers,
            headers={"HX-Request": "true"},
        )
        assert r.status_code == 200 and "arc-targets" in r.text, (ruleset, _alert(r.text))

    return timed(fragment, repeat=min(30, len(values) - 3))


def _alert(text: str) -> str:
    start = text.find('role="alert"')
    return text[start : start + 400]


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
        further = {ruleset: _further(client, headers, ruleset) for ruleset in FURTHER}
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
        *(
            Row(
                f"calculator fragment, {ruleset}: target + 6 further target units (a squad of 3)",
                median(ms),
                "ms median",
                "< 40 ms",
                median(ms) < 40,
                f"n={len(ms)}; {note}",
            )
            for ruleset, ms in further.items()
        ),
    ]
