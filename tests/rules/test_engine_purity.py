"""The rules engine imports nothing from the web, the database or templates."""

from __future__ import annotations

import ast
from pathlib import Path

import app.rules

FORBIDDEN = (
    "fastapi",
    "starlette",
    "sqlalchemy",
    "jinja2",
    "pydantic",
    "alembic",
    "app.web",
    "app.db",
    "app.services",
)
ENGINE = Path(app.rules.__file__).resolve().parent


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_engine_modules_import_no_web_or_database_code() -> None:
    files = sorted(ENGINE.rglob("*.py"))
    assert len(files) > 5
    offenders = {
        f"{path.relative_to(ENGINE)}: {name}"
        for path in files
        for name in _imports(path)
        if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN)
    }
    assert offenders == set()


def test_the_check_would_catch_an_offender(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from sqlalchemy.orm import Session\nimport fastapi\n")
    assert {"sqlalchemy.orm", "fastapi"} <= _imports(bad)
