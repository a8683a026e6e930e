"""Only a ruleset's own package and template folder (and the registry) name it.

Everything else reaches a rule system through ``app.rules.registry`` and the ``Ruleset``
interface. A module "names" a ruleset when it imports ``app.rules.<id>``, or uses the id or
the engine's alias (``bw``) in code or markup (comments and docstrings do not count).

``PENDING`` lists the modules still waiting to move onto the interface (issue 11). It may
only shrink: a new module that names a ruleset fails, and so does a listed module that no
longer does (strike it off).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from app.rules.registry import RULESETS

ROOT = Path(__file__).resolve().parents[2]
IDS = tuple(RULESETS)
ALIASES = ("bw",)
ALLOWED = {
    "app/rules/registry.py": "the one line per ruleset",
    "app/web/api/brikwars.py": "the BrikWars-only /api/v1/brikwars/* endpoints, kept as they were",
    "app/services/brikwars_jobs.py": "the calculation pool's jobs of those endpoints",
    "app/web/openapi.py": "documents those endpoints' public prefix",
    "app/main.py": "serves those endpoints outside the session, by their prefix",
}
PENDING: set[str] = set()
WORD = re.compile(r"\b(" + "|".join(IDS) + r")\b", re.IGNORECASE)
ALIAS = re.compile(r"\b(" + "|".join(ALIASES) + r")\.")
JINJA_COMMENT = re.compile(r"\{#.*?#\}", re.DOTALL)


def _own(path: str) -> bool:
    return any(path.startswith((f"app/rules/{rid}/", f"templates/rulesets/{rid}/")) for rid in IDS)


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _python_names_a_ruleset(text: str) -> bool:
    tree = ast.parse(text)
    docs = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            names = []
        if any(n.startswith(tuple(f"app.rules.{rid}" for rid in IDS)) for n in names):
            return True
        if isinstance(node, ast.Name) and node.id in ALIASES:
            return True
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docs
            and WORD.search(node.value)
        ):
            return True
    return False


def _markup_names_a_ruleset(text: str) -> bool:
    text = JINJA_COMMENT.sub("", text)
    return bool(WORD.search(text) or ALIAS.search(text))


def offenders() -> set[str]:
    found = set()
    for path in sorted((ROOT / "app").rglob("*.py")) + sorted((ROOT / "templates").rglob("*.html")):
        rel = path.relative_to(ROOT).as_posix()
        if _own(rel) or rel in ALLOWED:
            continue
        text = path.read_text()
        named = (
            _python_names_a_ruleset(text) if path.suffix == ".py" else _markup_names_a_ruleset(text)
        )
        if named:
            found.add(rel)
    return found


def test_only_a_rulesets_own_files_name_it() -> None:
    found = offenders()
    new = sorted(found - PENDING)
    assert not new, f"these name a ruleset: use app.rules.registry and the Ruleset interface: {new}"
    moved = sorted(PENDING - found)
    assert not moved, f"these no longer name a ruleset: strike them off PENDING: {moved}"


def test_the_check_sees_an_import_and_a_name() -> None:
    assert _python_names_a_ruleset("from app.rules.brikwars.turn import Turn\n")
    assert _python_names_a_ruleset("import app.rules.brikwars as x\n")
    assert _python_names_a_ruleset("x = bw.catalogue()\n")
    assert _python_names_a_ruleset("RULES = 'BrikWars 2010'\n")
    assert not _python_names_a_ruleset('"""About BrikWars."""\nx = get_ruleset(rid)\n')
    assert _markup_names_a_ruleset("<p>BrikWars · {{ total }}</p>")
    assert not _markup_names_a_ruleset("{# BrikWars #}<p>{{ ruleset.name }}</p>")
