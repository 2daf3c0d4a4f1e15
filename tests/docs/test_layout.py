"""docs/architecture.md's layout and docs/contributing.md's benchmark list name what is really
in the repository (#15's "Done when"; the README's Development section moved there in #33)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def layout_tree() -> str:
    section = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    return section[section.index("```") + 3 : section.index("```", section.index("```") + 3)]


def test_every_package_and_top_module_is_in_the_tree() -> None:
    tree = layout_tree()
    named = set(re.findall(r"([a-z_]+)/", tree)) | set(re.findall(r"([a-z_]+\.py)", tree))
    package = REPO / "crmtui"
    present = {p.name for p in package.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    present |= {p.name for p in package.glob("*.py") if p.name != "__init__.py"}
    present |= {p.name for p in (package / "query").iterdir() if (p / "__init__.py").exists()}
    assert sorted(present - named) == []


def test_every_test_folder_is_in_the_tree() -> None:
    tests_line = next(line for line in layout_tree().splitlines() if line.startswith("tests/"))
    named = set(re.findall(r"([a-z_]+)/", tests_line))
    present = {p.name for p in (REPO / "tests").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert sorted(present - named) == []


def test_every_benchmark_script_is_listed() -> None:
    text = (REPO / "docs" / "contributing.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"`(bench_[a-z_]+\.py)`", text))
    present = {p.name for p in (REPO / "benchmarks").glob("bench_*.py")}
    assert sorted(present - listed) == [] and sorted(listed - present) == []
