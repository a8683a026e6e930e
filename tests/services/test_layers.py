"""Layers run one way: web -> services -> db and rules. No service module imports the web
layer or a web framework, by any form of import (including one inside a function, and the
relative forms)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import app.services

SERVICES = Path(app.services.__file__).resolve().parent
ROOT = SERVICES.parent.parent
FORBIDDEN = ("app.web", "fastapi", "starlette", "jinja2")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_names(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every module (or module.name) that ``source`` imports, relative imports resolved
    against ``module``: ``from app import web`` gives ``app.web``."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".") if is_package else module.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            names.add(base)
            names |= {f"{base}.{alias.name}" for alias in node.names}
    return names


def forbidden_imports(source: str, module: str, is_package: bool = False) -> set[str]:
    return {
        name
        for name in imported_names(source, module, is_package)
        if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN)
    }


@pytest.mark.parametrize(
    "source",
    [
        "import app.web.api.attacks",
        "import app.web",
        "from app.web.api import rulesets",
        "from app import web",
        "from ..web.api import attacks",
        "from .. import web",
        "from ...web import deps",  # from a sub-package, e.g. app.services.battles.x
        "def job():\n    from app.web.api.attacks import OddsOut\n",
        "import fastapi",
        "from starlette.requests import Request",
    ],
)
def test_the_check_catches_every_form_of_a_web_import(source: str) -> None:
    module = "app.services.battles.x" if "..." in source else "app.services.x"
    assert forbidden_imports(source, module) != set()


@pytest.mark.parametrize(
    "source",
    [
        "import app.services.errors",
        "from app.rules import registry",
        "from . import compute",
        "from ..rules.ruleset import Attack",
        "from app.db.models import Army",
        "import webbrowser",
        "from app import webhooks",
    ],
)
def test_the_check_lets_other_imports_through(source: str) -> None:
    assert forbidden_imports(source, "app.services.x") == set()


def test_no_service_module_imports_the_web_layer() -> None:
    files = sorted(SERVICES.rglob("*.py"))
    assert len(files) > 20 and SERVICES / "compute.py" in files
    offenders = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in files
        for name in forbidden_imports(
            path.read_text(), _module_name(path), is_package=path.name == "__init__.py"
        )
    }
    assert offenders == set()
