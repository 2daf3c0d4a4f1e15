"""README's Development section names what is really in the repository (#15's "Done when")."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def development_section() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index("## Development")
    end = text.index("\n## ", start + 1) if "\n## " in text[start + 1 :] else len(text)
    return text[start:end]


def layout_tree() -> str:
    section = development_section()
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
    listed = set(re.findall(r"`(bench_[a-z_]+\.py)`", development_section()))
    present = {p.name for p in (REPO / "benchmarks").glob("bench_*.py")}
    assert sorted(present - listed) == [] and sorted(listed - present) == []
