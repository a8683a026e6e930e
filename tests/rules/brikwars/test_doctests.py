"""The examples in the engine's docstrings run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "catalogue",
    "options",
    "units",
    "validation",
    "activation",
    "serialize",
    "turn",
    "battle_state",
    "situation_fields",
    "plated",
    "shapes",
    "raw_attack",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"app.rules.brikwars.{name}")
    result = doctest.testmod(module)
    assert result.failed == 0
    assert result.attempted > 0


def test_engine_is_pure():
    """STYLE.md: app/rules imports no web, database or template library."""
    import pathlib
    import re

    banned = re.compile(
        r"^\s*(from|import)\s+(fastapi|starlette|sqlalchemy|jinja2|pydantic)\b", re.MULTILINE
    )
    root = pathlib.Path(__file__).resolve().parents[3] / "app" / "rules"
    for path in root.rglob("*.py"):
        assert not banned.search(path.read_text()), path
