"""The dice core is every ruleset's: it imports no ruleset (a rule of one system, such as
BrikWars' ring against a Deflecting object, lives in that system's package)."""

from __future__ import annotations

import ast
from pathlib import Path

import app.rules.dice

DICE = Path(app.rules.dice.__file__).resolve().parent
RULESETS = ("app.rules.brikwars", "app.rules.degrees", "app.rules.d20", "app.rules.registry")


def ruleset_imports(source: str) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        elif isinstance(node, ast.ImportFrom) and node.level >= 2:  # a sibling of dice
            names |= {f"app.rules.{node.module or a.name}" for a in node.names}
    return {n for n in names if any(n == r or n.startswith(r + ".") for r in RULESETS)}


def test_the_check_catches_a_ruleset_import() -> None:
    assert ruleset_imports("from app.rules.brikwars.plated import sweep_work")
    assert ruleset_imports("from app.rules import brikwars")
    assert ruleset_imports("from ..brikwars import plated")
    assert ruleset_imports("def f():\n    import app.rules.d20\n")
    assert not ruleset_imports("from app.rules.dice import exact\nfrom . import spec")


def test_no_dice_module_imports_a_ruleset() -> None:
    files = sorted(DICE.glob("*.py"))
    assert len(files) > 5
    offenders = {f"{p.name}: {n}" for p in files for n in ruleset_imports(p.read_text())}
    assert offenders == set()
