"""Big data stays fast (issue 15 item 4), on SQLite against one uvicorn worker:

- a club with 10,000 rosters (3 to 8 units each, 40 members): its page, a name search and
  a cost-range search;
- an army of 1,000 units (the most an army holds): importing it (POST /armies/import, a
  112 kB document), its builder page and its JSON export;
- a battle with 5,000 log entries: its page and its JSON twin.

The club's rosters are written straight into the database in one transaction (10,000 armies
through the HTTP API would take minutes); each unit is first read and normalised by its
ruleset, as an import does, so the rows are those the builder writes, and each army's
stored cost is computed from them as ``history.record`` keeps it. The battle's log is
real rolls: 40 rolled through the API, then 4,960 copies of those rows put before them (as
if rolled earlier), so the newest entries, the ones Undo reads, are the real ones.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import httpx

from bench.common import Row, median, served_app, timed

ROSTERS = 10_000
MEMBERS = 40
BIG_ARMY = 1_000
LOG = 5_000
REAL_ROLLS = 40


def _unit(i: int, rng: random.Random) -> dict[str, Any]:
    """A BrikWars unit as an export writes it: troopers, heroes and vehicles of several sizes."""
    kind = i % 4
    if kind in (0, 1):
        return {
            "name": f"Trooper {i}",
            "kind": "minifig",
            "weapons": [{"type": "long_ranged_weapon"}, {"type": "hand_weapon"}][: 1 + i % 2],
        }
    if kind == 2:
        return {
            "name": f"Heavy {i}",
            "kind": "minifig",
            "weapons": [{"type": "heavy_weapon"}],
        }
    return {
        "name": f"Tank {i}",
        "size": rng.choice((2, 3, 4, 6)),
        "structure_level": 2,
        "move": 6,
        "mind_die": 6,
        "weapons": [
            {"type": "gun", "size": rng.choice((1, 2, 3))},
            {"type": "machinegun", "size": 2},
            {"type": "cannon", "size": 3, "ammo": {"xsize": 2, "rounds": 4}},
        ][: 1 + i % 3],
    }


def _document(name: str, units: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)  # noqa: S311 (data, not secrets)
    return {
        "format": "brikforge-army",
        "version": 1,
        "ruleset": "brikwars",
        "name": name,
        "budget": 1_000_000,
        "notes": "",
        "units": [_unit(i, rng) for i in range(units)],
    }


# ------------------------------------------------------------------------------ the club


def _seed_club(owner_email: str) -> int:
    """10,000 rosters shared with one club of 40 members; returns the club's id."""
    from sqlalchemy import bindparam, insert, select, update

    from app.db.models import Army, Club, ClubMember, Unit, User, Weapon
    from app.db.session import make_engine, make_sessionmaker
    from app.rules.registry import get_ruleset
    from app.services.army_figures import cost_value, total_cost
    from app.services.army_rows import load_rows_of

    rules = get_ruleset("brikwars")
    rng = random.Random(15)  # noqa: S311 (data, not secrets)
    # The units' stored forms, normalised by the ruleset as an import does.
    kinds = []
    for i in range(40):
        normal = rules.encode_unit(rules.decode_unit(_unit(i, rng)))
        weapons = normal.pop("weapons", [])
        name, kind = normal.pop("name"), normal.pop("kind")
        kinds.append((name, kind, normal, weapons))
    options = rules.encode_options(rules.decode_options({}))
    engine = make_engine(os.environ["DATABASE_URL"])
    with make_sessionmaker(engine)() as session, session.begin():
        owner = session.scalars(select(User).where(User.email == owner_email)).one()
        club = Club(name="The Big Club", house_rules={})
        session.add(club)
        session.flush()
        session.add(ClubMember(club_id=club.id, user_id=owner.id, role="owner"))
        members = [owner]
        for m in range(1, MEMBERS):
            user = User(
                email=f"member{m}@example.com",
                display_name=f"Member {m:02d} {rng.choice(['Red', 'Blue', 'Grey'])}",
                password_hash=owner.password_hash,
            )
            session.add(user)
            members.append(user)
        session.flush()
        for user in members[1:]:
            session.add(ClubMember(club_id=club.id, user_id=user.id, role="member"))
        words = ["Iron", "Red", "Sky", "Bone", "Brick", "Storm", "Night", "Sand", "Frost"]
        nouns = ["Legion", "Bricks", "Hawks", "Raiders", "Guard", "Host", "Company", "Pack"]
        army_rows = [
            {
                "owner_id": members[a % MEMBERS].id,
                "name": f"{rng.choice(words)} {rng.choice(nouns)} {a}",
                "ruleset_id": "brikwars",
                "budget": rng.choice((100, 200, 300, 500)),
                "notes": "",
                "house_rules": options,
                "club_id": club.id,
            }
            for a in range(ROSTERS)
        ]
        session.execute(insert(Army), army_rows)
        army_ids = list(
            session.scalars(select(Army.id).where(Army.club_id == club.id).order_by(Army.id))
        )
        unit_id = (session.scalar(select(Unit.id).order_by(Unit.id.desc()).limit(1)) or 0) + 1
        units, weapons = [], []
        for army_id in army_ids:
            for position in range(rng.randint(3, 8)):
                name, kind, spec, unit_weapons = rng.choice(kinds)
                units.append(
                    {
                        "id": unit_id,
                        "army_id": army_id,
                        "position": position,
                        "name": name,
                        "kind": kind,
                        "spec": spec,
                        "count": rng.choice((1, 1, 1, 2, 5)),
                    }
                )
                for w_position, weapon in enumerate(unit_weapons):
                    w = dict(weapon)
                    weapons.append(
                        {
                            "unit_id": unit_id,
                            "position": w_position,
                            "type": w.pop("type"),
                            "spec": w,
                        }
                    )
                unit_id += 1
        session.execute(insert(Unit), units)
        session.execute(insert(Weapon), weapons)
        # Each army's cost as history.record keeps it after every change.
        armies = session.scalars(select(Army).where(Army.club_id == club.id)).all()
        rows = load_rows_of(session, army_ids)
        table = Army.__table__
        session.connection().execute(
            update(table).where(table.c.id == bindparam("army")).values(cost=bindparam("cost")),
            [{"army": a.id, "cost": cost_value(total_cost(a, rows[a.id]))} for a in armies],
        )
        club_id = club.id
    engine.dispose()
    return club_id


def _club_rows(client: httpx.Client, club_id: int) -> list[Row]:
    cases = [
        ("club page, 10,000 rosters (first page of rosters)", ""),
        ("club roster search by name, 10,000 rosters", "?name=Iron+Legion"),
        ("club roster search by cost range, 10,000 rosters", "?min_cost=20&max_cost=60"),
        ("club roster search, page 50 of the name-less list", "?page=50"),
    ]
    found = client.get(f"/clubs/{club_id}?min_cost=20&max_cost=60").text
    assert re.search(r"[1-9]\d* rosters · page 1 of", found), "the cost range finds rosters"
    rows = []
    for label, query in cases:

        def get(query: str = query) -> None:
            r = client.get(f"/clubs/{club_id}{query}")
            assert r.status_code == 200, r.text[:300]

        ms = _sampled(get, repeat=10)
        rows.append(
            Row(label, median(ms), "ms median", "< 100 ms", median(ms) < 100, f"n={len(ms)}")
        )
    return rows


# ------------------------------------------------------------------------------ the army


def _army_rows(client: httpx.Client, headers: dict[str, str]) -> list[Row]:
    doc = json.dumps(_document("Grand Horde", BIG_ARMY, seed=1)).encode()
    imported: list[int] = []

    def import_once() -> None:
        r = client.post(
            "/armies/import",
            files={"file": ("horde.json", doc, "application/json")},
            headers=headers,
        )
        assert r.status_code == 303, r.text[:300]
        imported.append(int(r.headers["location"].rsplit("/", 1)[1]))

    import_ms = timed(import_once, repeat=3, warmup=0)
    army_id = imported[0]

    def page() -> None:
        r = client.get(f"/armies/{army_id}")
        assert r.status_code == 200, r.text[:300]

    page_ms = _sampled(page, repeat=10)
    exported: list[bytes] = []

    def export() -> None:
        r = client.get(f"/armies/{army_id}/export.json")
        assert r.status_code == 200, r.text[:300]
        exported.append(r.content)

    export_ms = _sampled(export, repeat=5)
    assert len(json.loads(exported[-1])["units"]) == BIG_ARMY
    size = f"document {len(doc) // 1000} kB"
    return [
        Row(
            f"builder page, {BIG_ARMY:,} units (GET, full page)",
            median(page_ms),
            "ms median",
            "< 300 ms",
            median(page_ms) < 300,
            f"n={len(page_ms)}",
        ),
        Row(
            f"export of {BIG_ARMY:,} units (GET export.json)",
            median(export_ms),
            "ms median",
            "< 2000 ms",
            median(export_ms) < 2000,
            f"n={len(export_ms)}; {size}",
        ),
        Row(
            f"import of {BIG_ARMY:,} units (POST /armies/import, a new army each time)",
            median(import_ms),
            "ms median",
            "< 2000 ms",
            median(import_ms) < 2000,
            f"n={len(import_ms)}; {size}",
        ),
    ]


# ------------------------------------------------------------------------------ the battle


def _battle(client: httpx.Client, headers: dict[str, str]) -> int:
    """A battle of two 10-unit armies of 3-figure units (60 battle units) with 5,000
    entries; returns its id. (The page of a battle of 200 units, the most allowed, takes
    ~200 ms whatever its log: its units' state, not the log, is that case's cost.)"""
    armies = []
    for side in range(2):
        doc = _document(f"Side {side}", 10, seed=side)
        for unit in doc["units"]:  # 30 figures a side: enough left standing after 40 rolls
            unit["name"] = f"{unit['name']} of side {side}"
            unit["count"] = 3
        r = client.post("/api/v1/armies/import", content=json.dumps(doc), headers=headers)
        assert r.status_code == 201, r.text[:300]
        armies.append(r.json()["id"])
    r = client.post(
        "/api/v1/battles", json={"name": "The Long War", "army_ids": armies}, headers=headers
    )
    assert r.status_code == 201, r.text[:300]
    battle = r.json()
    units = battle["units"]
    sides: dict[str, list[dict[str, Any]]] = {}
    for unit in units:
        sides.setdefault(unit["side"], []).append(unit)
    first, second = list(sides.values())
    rolled = failed = seed = 0
    while rolled < REAL_ROLLS:
        seed += 1
        attacker = (first, second)[seed % 2][(seed // 2) % len(first)]
        targets = (second, first)[seed % 2]
        target = targets[(seed // 2 + rolled) % len(targets)]
        r = client.post(
            f"/api/v1/battles/{battle['id']}/rolls",
            json={
                "attacker_id": attacker["id"],
                "target_id": target["id"],
                "weapons": [0],
                "seed": seed,
            },
            headers=headers,
        )
        if r.status_code == 201:
            rolled += 1
        else:  # a destroyed unit neither attacks nor is a target
            assert r.status_code == 422, r.text[:300]
            failed += 1
            assert failed < 10 * REAL_ROLLS, f"cannot find units to roll with: {r.text[:300]}"
    _copy_log(battle["id"])
    return int(battle["id"])


def _copy_log(battle_id: int) -> None:
    """Move the real entries to the end and put copies of them before, 5,000 in all."""
    from sqlalchemy import insert, select, update

    from app.db.models import BattleEntry
    from app.db.session import make_engine, make_sessionmaker

    engine = make_engine(os.environ["DATABASE_URL"])
    copies = LOG - REAL_ROLLS
    with make_sessionmaker(engine)() as session, session.begin():
        real = list(
            session.scalars(
                select(BattleEntry)
                .where(BattleEntry.battle_id == battle_id)
                .order_by(BattleEntry.seq)
            )
        )
        session.execute(
            update(BattleEntry)
            .where(BattleEntry.battle_id == battle_id)
            .values(seq=BattleEntry.seq + copies)
        )
        session.execute(
            insert(BattleEntry),
            [
                {
                    "battle_id": battle_id,
                    "seq": seq,
                    "created_at": e.created_at,
                    "actor_id": e.actor_id,
                    "kind": e.kind,
                    "seed": e.seed,
                    "summary": e.summary,
                    "request_json": e.request_json,
                    "odds_json": e.odds_json,
                    "dice_json": e.dice_json,
                    "changes_json": e.changes_json,
                }
                for seq, e in zip(
                    range(1, copies + 1), real * (copies // len(real) + 1), strict=False
                )
            ],
        )
    engine.dispose()


def _battle_rows(client: httpx.Client, headers: dict[str, str]) -> list[Row]:
    battle_id = _battle(client, headers)
    page = client.get(f"/battles/{battle_id}")
    assert f"Undo #{LOG}" in page.text, "the newest entry is Undo's"

    def get_page() -> None:
        r = client.get(f"/battles/{battle_id}")
        assert r.status_code == 200, r.text[:300]

    def get_json() -> None:
        r = client.get(f"/api/v1/battles/{battle_id}", headers=headers)
        assert r.status_code == 200, r.text[:300]

    page_ms = _sampled(get_page, repeat=10)
    json_ms = _sampled(get_json, repeat=10)
    return [
        Row(
            f"battle page, {LOG:,} log entries (GET, full page)",
            median(page_ms),
            "ms median",
            "< 100 ms",
            median(page_ms) < 100,
            f"n={len(page_ms)}; {len(page.content) // 1000} kB",
        ),
        Row(
            f"battle JSON, {LOG:,} log entries (GET /api/v1/battles/{{id}})",
            median(json_ms),
            "ms median",
            "< 100 ms",
            median(json_ms) < 100,
            f"n={len(json_ms)}",
        ),
    ]


def _sampled(fn: Callable[[], None], *, repeat: int) -> list[float]:
    """``timed`` with one warm-up call, and fewer calls when one takes seconds (a page that
    misses its target by far must not hold the benchmark up for minutes)."""
    first = timed(fn, repeat=1, warmup=1)
    if first[0] > 1000:
        return first + timed(fn, repeat=1, warmup=0)
    return first + timed(fn, repeat=repeat - 1, warmup=0)


def run() -> list[Row]:
    parts = os.environ.get("BIGDATA_PARTS", "club,army,battle").split(",")
    rows: list[Row] = []
    with served_app("bench@example.com") as (client, headers):
        client.timeout = httpx.Timeout(120)
        if "club" in parts:
            start = time.perf_counter()
            club_id = _seed_club("bench@example.com")
            print(f"  seeded the club in {time.perf_counter() - start:.1f} s", file=sys.stderr)
            rows += _club_rows(client, club_id)
        if "army" in parts:
            rows += _army_rows(client, headers)
        if "battle" in parts:
            rows += _battle_rows(client, headers)
    # Wall-clock figures on a shared 2-core machine: say how busy it was.
    load = f"load average {os.getloadavg()[0]:.1f} after"
    return [replace(row, note=f"{row.note}; {load}") for row in rows]
