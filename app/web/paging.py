"""The army page's units a page at a time (issue 30 F2: a 1,000-gunship army's page was
21.6 MB). Totals, findings counts and the calculator link still count the whole army (the
view has every unit's figures, memoised); only the unit rows drawn are the page's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from fastapi import Request

from app.services.builder import ArmyView, UnitView
from app.settings import get_settings

# A unit finding's link reaches its unit's page; the panel lists at most this many of them
# (an army of 1,000 units over budget with an error each would list 1,000).
MAX_LISTED_FINDINGS = 100


@dataclass(frozen=True)
class Paging:
    """Page ``number`` of ``count`` of the army's units, ``size`` a page, links from ``base``."""

    number: int
    count: int
    size: int
    base: str
    units: list[UnitView]
    first_index: int

    @property
    def paged(self) -> bool:
        return self.count > 1

    def url(self, number: int) -> str:
        return f"{self.base}?page={number}#units" if number > 1 else f"{self.base}#units"

    def unit_href(self, index: int, unit_id: int) -> str:
        """A link to a unit's row: on this page an anchor, else its page's address."""
        number = index // self.size + 1
        anchor = f"#unit-{unit_id}"
        if number == self.number:
            return anchor
        return f"{self.base}?page={number}{anchor}" if number > 1 else f"{self.base}{anchor}"

    def listed_findings(self, view: ArmyView) -> tuple[list[tuple[int, UnitView, Any]], int]:
        """The units' findings to list (unit index, unit, finding), at most
        ``MAX_LISTED_FINDINGS``, and how many more there are."""
        listed: list[tuple[int, UnitView, Any]] = []
        more = 0
        for index, unit in enumerate(view.units):
            for finding in unit.all_findings:
                if len(listed) < MAX_LISTED_FINDINGS:
                    listed.append((index, unit, finding))
                else:
                    more += 1
        return listed, more


def requested_page(request: Request) -> int:
    """The page asked for: ``?page=N``, or for htmx the page it was sent from (an edit's
    re-drawn builder stays on the page the user was on). 1 if none or unreadable."""
    raw = request.query_params.get("page")
    if raw is None and request.headers.get("HX-Request") == "true":
        current = request.headers.get("HX-Current-URL", "")
        raw = next(iter(parse_qs(urlsplit(current).query).get("page", [])), None)
    if raw is None or not raw.isascii() or not raw.isdigit() or len(raw) > 6:
        return 1
    return max(1, int(raw))


def paging_for(request: Request, view: ArmyView, base: str) -> Paging:
    """The requested page of the army's units (past the last page: the last page)."""
    size = get_settings().army_page_units
    count = max(1, -(-len(view.units) // size))
    number = min(requested_page(request), count)
    first = (number - 1) * size
    return Paging(number, count, size, base, view.units[first : first + size], first)
