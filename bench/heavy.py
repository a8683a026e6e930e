"""Heavy work of the largest legal army (issue 30 F2, rulings G10, G11): 1,000 gunships of
12 weapons each (an 820 kB import), on one uvicorn worker over SQLite: the army page's size
(a page of 50 units; every unit drawn, it was 9.9 MB) and the streamed exports' times."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from typing import Any

import httpx

from bench.common import Row, median, served_app, timed

UNITS = 1_000
GUNSHIP: dict[str, Any] = {
    "size": 4,
    "structure_level": 2,
    "propulsion": "flying",
    "move": 8,
    "weapons": [
        {"type": "cannon", "size": 3, "ammo": {"xsize": 2, "variant": "standard", "rounds": 2}}
    ]
    * 6
    + [{"type": "gun", "size": 2}] * 5
    + [{"type": "armor_plating", "size": 1}],
}


def document() -> bytes:
    units = [dict(GUNSHIP, name=f"Skyhammer {i}") for i in range(1, UNITS + 1)]
    doc = {"format": "brikforge-army", "version": 2, "ruleset": "brikwars", "name": "Armada"}
    return json.dumps(doc | {"budget": 1_000_000, "units": units}).encode()


def run() -> list[Row]:
    with served_app("heavy@example.com") as (client, headers):
        client.timeout = httpx.Timeout(300)
        r = client.post(
            "/armies/import",
            files={"file": ("armada.json", document(), "application/json")},
            headers=headers,
        )
        assert r.status_code == 303, r.text[:300]
        army = r.headers["location"]
        page = client.get(army)
        assert page.status_code == 200 and page.text.count('<tbody id="unit-') == 50
        sizes: dict[str, int] = {}

        def export(kind: str) -> None:
            got = client.get(f"{army}/export.{kind}")
            assert got.status_code == 200, got.text[:300]
            sizes[kind] = len(got.content)

        text_ms = timed(lambda: export("txt"), repeat=3, warmup=1)
        json_ms = timed(lambda: export("json"), repeat=3, warmup=1)
    load = f"load average {os.getloadavg()[0]:.1f} after"
    rows = [
        Row(
            f"army page of {UNITS:,} gunships x 12 weapons (first page, 50 units)",
            len(page.content) / 1e6,
            "MB",
            "< 1 MB",
            len(page.content) < 1_000_000,
            "every unit drawn it was 9.9 MB",
        ),
        Row(
            f"text export of that army (streamed, {sizes['txt'] // 1000} kB)",
            median(text_ms),
            "ms median",
            "< 5000 ms",
            median(text_ms) < 5000,
            f"n={len(text_ms)}",
        ),
        Row(
            f"JSON export of that army (streamed, {sizes['json'] // 1000} kB)",
            median(json_ms),
            "ms median",
            "< 1000 ms",
            median(json_ms) < 1000,
            f"n={len(json_ms)}",
        ),
    ]
    return [replace(row, note=f"{row.note}; {load}") for row in rows]
