"""Every cache has a bound: many distinct requests level memory off (issue 10, item 17).

A fuzzer's 160,000 distinct requests grew one server to 1.07 GB: the memos of unit figures,
unit views, unit JSON and rendered unit blocks held up to 20,000 entries each whatever their
size, the rendered blocks were keyed by each visitor's CSRF token, and the dice core's pool
caches (and its group tables, whose size grows with the per-die modifier) counted entries,
not the arrays they keep. The bounds are shrunk here so that a few
hundred requests fill every cache; then as many more must not grow memory.
"""

from __future__ import annotations

import gc
import tracemalloc

import pytest
from fastapi.testclient import TestClient

from app.rules.dice import exact, groups
from app.rules.memo import BoundedMemo
from app.services import army_document, army_figures, builder, calculator_units
from app.web import templating
from tests.web.conftest import PASSWORD, Member, page_csrf

pytestmark = pytest.mark.slow
WEAPON = "short_ranged_weapon"

MEMOS: dict[str, BoundedMemo] = {  # type: ignore[type-arg]
    "figures": army_figures._figures,
    "unit views": builder._unit_view,
    "kept armies": builder._KEPT_UNITS,
    "units' armies": calculator_units._ARMY_OF,
    "glossary terms": templating._term,
    "unit json": army_document._unit_json,
    "unit blocks": templating._UNIT_BLOCKS,
    "shared forms": templating._FRAGMENTS,
    "page contents": templating._CONTENTS,
    "group tables": groups._table,
    "pool sums": exact._sums_cached,
    "pool drops": exact._kept_cached,
    "pool pairs": exact._kept_pair_cached,
    "pool rings": exact._lowest_cached,
}


@pytest.fixture
def small_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    for memo in MEMOS.values():
        memo.cache_clear()
        monkeypatch.setattr(memo, "maxsize", 20)
        if memo.max_bytes is not None:
            monkeypatch.setattr(memo, "max_bytes", min(memo.max_bytes, 1 << 20))


def _round(client: TestClient, member: Member, start: int, count: int) -> None:
    """``count`` distinct requests of each kind: new units (figures, views) in armies of ten,
    the builder page (rendered blocks), now and then from a new session (a new CSRF token),
    exports (unit JSON), small odds bodies computed inline (the dice core's caches)."""
    headers = {"X-CSRF-Token": member.csrf}
    army = 0
    for i in range(start, start + count):
        if i % 10 == 0 or not army:
            r = member.client.post(
                "/api/v1/armies", json={"name": f"Soak {i}", "budget": 1000}, headers=headers
            )
            army = r.json()["id"]
        unit = {"name": f"Trooper {i}", "kind": "minifig", "weapons": [{"type": WEAPON}]}
        r = member.client.post(f"/api/v1/armies/{army}/units", json=unit, headers=headers)
        assert r.status_code == 201, r.text
        viewer = member.client
        if i % 10 == 5:  # the same member in a new browser: a new session and CSRF token
            viewer = TestClient(client.app)
            token = page_csrf(viewer)
            form = {"csrf_token": token, "email": member.email, "password": PASSWORD}
            assert viewer.post("/login", data=form, follow_redirects=False).status_code == 303
        assert viewer.get(f"/armies/{army}").status_code == 200
        assert member.client.get(f"/api/v1/armies/{army}/export").status_code == 200
        body = {
            "damage": {"dice": 1 + i % 3, "sides": 6, "per_die_modifier": i % 997},
            "armor": {"fixed": 4},
            "deflection": i % 2,
        }
        assert client.post("/api/v1/brikwars/odds", json=body).status_code == 200


def _memory() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def test_memory_levels_off_over_many_distinct_requests(
    small_bounds: None, client: TestClient, member: Member
) -> None:
    _round(client, member, 0, 40)  # fill every cache past its bound
    tracemalloc.start()
    try:
        _round(client, member, 40, 40)
        first = _memory()
        _round(client, member, 80, 80)
        second = _memory()
    finally:
        tracemalloc.stop()
    for name, memo in MEMOS.items():
        info = memo.cache_info()
        assert info.currsize <= info.maxsize, name
        assert info.nbytes <= (memo.max_bytes or 0), name
    for name in ("figures", "unit views", "unit json", "unit blocks", "pool sums"):
        assert MEMOS[name].cache_info().currsize == 20, name  # full, and no fuller
    # twice as many distinct requests again, and memory stays where it was (within 1 MB)
    assert second - first < 1 << 20, (first, second)
