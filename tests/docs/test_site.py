"""The documentation builds as a site with no broken link or anchor, and the README stays a
map (#33)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys

import pytest

from tests.docs.doclines import DOCS, REPO, pages


def test_mkdocs_build_strict(tmp_path) -> None:
    if importlib.util.find_spec("mkdocs") is None:  # the test extra installs it
        pytest.skip("mkdocs is not installed")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "site" / "cli" / "index.html").exists()


def test_readme_is_short_and_links_to_every_reader_page() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    for page in ("annotate", "studies", "agents", "reproduce", "architecture", "contributing"):
        assert f"(docs/{page}.md)" in readme


def test_every_page_is_in_the_nav_and_every_link_resolves() -> None:
    """The plain-Markdown reading too: relative links and images point at real files."""
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r":\s*([\w./-]+\.md)\s*$", nav, re.MULTILINE))
    # Pages other sessions of this round add themselves when they merge.
    reserved = {"no-soql.md", "parity.md", "fidelity.md", "pro-tasks.md"}
    reserved.add("inspect-and-html-report.md")
    on_disk = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert sorted(on_disk - listed - reserved) == []
    broken = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            if not (page.parent / target.split("#")[0]).exists():
                broken.append(f"{page.relative_to(REPO)}: {target}")
    assert broken == []


def test_no_citation_of_a_file_outside_the_repository() -> None:
    """Facts about upstream cite public sources, never a private notes file."""
    citation = re.compile(r"REFERENCE(\.md| ?§| \d)")
    files = [REPO / "README.md"]
    for folder in ("crmtui", "docs", "scripts", "tests", "benchmarks"):
        files += [p for p in (REPO / folder).rglob("*") if p.suffix in (".py", ".md")]
    cited = [
        str(path.relative_to(REPO))
        for path in files
        if path.name != "test_site.py" and citation.search(path.read_text(encoding="utf-8"))
    ]
    assert cited == []
