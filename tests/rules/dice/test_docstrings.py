"""The examples in the dice core's docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["spec", "groups", "results", "exact", "compare", "rolling"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(f"app.rules.dice.{name}")
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0
    assert tried > 0 or name == "results"
