"""The contract, its guide and the smallest ruleset agree.

``docs/adding-a-ruleset.md`` lists every member of ``Ruleset`` with its job and whether a
ruleset writes it (a primitive) or ``RulesetBase`` derives it; the fake ruleset, written on
the base, stays small enough to read in one sitting.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

from app.rules.ruleset import RulesetBase
from app.rules.ruleset.contract import Battles, Building, Calculating

ROOT = Path(__file__).resolve().parents[3]
GUIDE = ROOT / "docs" / "adding-a-ruleset.md"
FAKE = Path(__file__).with_name("fake_ruleset.py")
ROW = re.compile(r"^\| (building|calculating|battles) \| `(\w+)` \| (primitive|derived) \|", re.M)


def contract_members(protocol: type) -> set[str]:
    """The members a protocol declares itself (annotations, methods, properties)."""
    own = set(inspect.get_annotations(protocol)) | set(protocol.__dict__)
    return {name for name in own if not name.startswith("_")}


def primitives() -> set[str]:
    """What the base leaves to a ruleset: its abstract methods and attributes it only types."""
    typed = set(RulesetBase.__annotations__) - set(vars(RulesetBase))
    return set(RulesetBase.__abstractmethods__) | typed


def guide_rows() -> list[tuple[str, str, str]]:
    return ROW.findall(GUIDE.read_text())


def test_the_guides_table_is_the_contract() -> None:
    rows = guide_rows()
    names = [name for _, name, _ in rows]
    assert len(names) == len(set(names)), "a member is listed twice"
    jobs = {"building": Building, "calculating": Calculating, "battles": Battles}
    for job, protocol in jobs.items():
        listed = {name for j, name, _ in rows if j == job}
        assert listed == contract_members(protocol), job


def test_the_guide_says_which_members_are_primitives() -> None:
    listed = {name for _, name, kind in guide_rows() if kind == "primitive"}
    assert listed == primitives()


def test_the_base_derives_every_member_but_the_primitives() -> None:
    every = contract_members(Building) | contract_members(Calculating) | contract_members(Battles)
    derived = every - primitives()
    assert all(hasattr(RulesetBase, name) for name in derived)
    assert (
        len(every) == 60 and len(primitives()) <= 15
    )  # 58: roster_findings (issue 28); 59: sample_army (issue 29); 60: turn_reset (issue 31)


def class_members(path: Path, name: str) -> list[str]:
    """The members a class defines in its body: methods, properties and attributes."""
    tree = ast.parse(path.read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
    found = []
    for node in cls.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append(node.name)
        elif isinstance(node, ast.Assign):
            found += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found.append(node.target.id)
    return found


def test_the_fake_ruleset_is_small() -> None:
    members = class_members(FAKE, "CoinWar")
    assert len(members) <= 25, members
    assert len(FAKE.read_text().splitlines()) <= 250
    # the generic templates (templates/rulesets/default/) do: it needs none of its own
    assert not list(ROOT.glob("**/templates/rulesets/coinwar/*.html"))


def test_the_member_count_sees_every_kind_of_member(tmp_path: Path) -> None:
    """The count above could not pass by missing members: each kind is counted."""
    source = tmp_path / "x.py"
    source.write_text(
        "class X:\n    a = 1\n    b: int = 2\n    @property\n    def c(self): ...\n"
        "    def d(self): ...\n    async def e(self): ...\n"
    )
    assert class_members(source, "X") == ["a", "b", "c", "d", "e"]
