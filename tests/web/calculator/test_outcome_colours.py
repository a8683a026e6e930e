"""Issue 29 item 1: every outcome kind of every ruleset has a colour of its own in the
stylesheet (the calculator's outcome bar draws ``.seg.o-<key>``), distinct from the other
kinds of its ruleset, and neither black nor transparent; a kind the stylesheet does not name
(a new ruleset's) still takes a distinct colour by its place (``.seg.n-<i>``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.rules import registry

CSS = (Path(__file__).resolve().parents[3] / "static" / "css" / "app.css").read_text()
RULE = re.compile(r"\.seg\.([on])-([a-z0-9_]+)\s*\{\s*fill:\s*(#[0-9a-fA-F]{6})\s*;\s*\}")
FILLS = {(kind, key): colour.lower() for kind, key, colour in RULE.findall(CSS)}
BY_KEY = {key: colour for (kind, key), colour in FILLS.items() if kind == "o"}
BY_PLACE = {int(key): colour for (kind, key), colour in FILLS.items() if kind == "n"}


@pytest.mark.parametrize("ruleset", registry.RULESETS.values(), ids=lambda r: r.id)
def test_each_outcome_kind_of_the_ruleset_has_its_own_colour(ruleset) -> None:  # type: ignore[no-untyped-def]
    keys = [c.key for c in ruleset.outcome_columns]
    missing = [k for k in keys if k not in BY_KEY]
    assert missing == [], f"no .seg.o-<key> colour in app.css for {missing}"
    colours = [BY_KEY[k] for k in keys]
    assert len(set(colours)) == len(colours), dict(zip(keys, colours, strict=True))
    assert not {"#000000", "#ffffff"} & set(colours)


def test_no_two_kinds_anywhere_share_a_colour() -> None:
    """A key names one kind (destroyed is destroyed in every ruleset): one colour per key, and
    different keys never look alike."""
    assert len(BY_KEY) >= 12
    assert len(set(BY_KEY.values())) == len(BY_KEY), BY_KEY


def test_a_kind_without_a_colour_of_its_own_takes_its_place_s() -> None:
    """Up to eight kinds by place, all distinct: a ruleset added without CSS is not black."""
    assert sorted(BY_PLACE) == list(range(8))
    assert len(set(BY_PLACE.values())) == 8
    most = max(len(r.outcome_columns) for r in registry.RULESETS.values())
    assert most <= len(BY_PLACE)
