"""Every worked example of the rule texts is named in the manifest, with a test that
reproduces it through the web (an HTTP route of the app, not the engine alone).

The texts are ``../shared/rules/*.txt``; a worked example is a line that starts with
``Example`` (``Example: ...``, ``- Example:``, a bare ``Example`` heading a table). Each
manifest entry (``tests/worked_examples/<ruleset>.toml``) gives the text and the example's
line, a ``quote`` from the example (within the lines that follow it), and the ``test`` that
reproduces it, as ``path::function``. The check fails when an example has no entry, when an
entry's quote is not in its example, or when its test does not exist, is skipped, or does not
reach a route. Whether the test passes is the suite's own verdict: it runs with the rest.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEXTS = ROOT.parent / "shared" / "rules"
MANIFESTS = sorted(Path(__file__).parent.glob("*.toml"))
EXAMPLE = re.compile(r"^\s*(- )?Example\b")
NEAR = 40  # the quote is looked for in the example's line and the lines after it
ROUTE = re.compile(r"""["'/](api/v1/|calculator|battles|armies)""")


def _entries() -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    for manifest in MANIFESTS:
        found += tomllib.loads(manifest.read_text())["example"]
    return found


def _examples() -> set[tuple[str, int]]:
    return {
        (text.name, number)
        for text in sorted(TEXTS.glob("*.txt"))
        for number, line in enumerate(text.read_text().splitlines(), start=1)
        if EXAMPLE.match(line)
    }


def _words(text: str) -> str:
    return " ".join(text.split())


def _function(path: Path, name: str) -> ast.FunctionDef | None:
    tree = ast.parse(path.read_text())
    return next(
        (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name), None
    )


def test_every_worked_example_has_an_entry() -> None:
    named = [(str(e["text"]), int(str(e["line"]))) for e in _entries()]
    assert len(named) == len(set(named)), "an example is named twice"
    assert _examples(), "no rule texts found beside the checkout (../shared/rules)"
    missing = sorted(_examples() - set(named))
    assert missing == [], f"worked examples with no manifest entry: {missing}"
    assert set(named) <= _examples(), "an entry names a line that is no worked example"


@pytest.mark.parametrize("entry", _entries(), ids=lambda e: f"{e['text']}:{e['line']}")
def test_each_entry_quotes_its_example_and_names_a_test_through_a_route(
    entry: dict[str, object],
) -> None:
    lines = (TEXTS / str(entry["text"])).read_text().splitlines()
    start = int(str(entry["line"])) - 1
    near = _words(" ".join(lines[start : start + NEAR]))
    assert _words(str(entry["quote"])) in near, "the quote is not in its example"
    path, _, name = str(entry["test"]).partition("::")
    function = _function(ROOT / path, name.split("[")[0])
    assert function is not None, f"no test {entry['test']}"
    decorators = " ".join(ast.unparse(d) for d in function.decorator_list)
    assert "skip" not in decorators and "xfail" not in decorators, "a skipped test proves nothing"
    assert ROUTE.search(ast.unparse(function)), "the test reaches no route of the app"


def test_the_check_sees_a_worked_example_and_a_missing_test(tmp_path: Path) -> None:
    """The check above could not pass by reading nothing: an example line is found, and a
    test name that is not in its file is not."""
    assert EXAMPLE.match("Example: a gun") and EXAMPLE.match("- Example:")
    assert not EXAMPLE.match("| Weapon Size Example: The Ripper Blade |")
    assert not EXAMPLE.match("are all examples of Charge attacks")
    module = tmp_path / "test_x.py"
    module.write_text("def test_a(client):\n    client.get('/calculator')\n")
    assert _function(module, "test_a") is not None and _function(module, "test_b") is None
