"""The generated reference (CLI, keys, events) matches the code it is generated from (#33)."""

from __future__ import annotations

import importlib.util
import sys

from tests.docs.doclines import REPO


def _gen_docs():
    spec = importlib.util.spec_from_file_location("gen_docs", REPO / "scripts" / "gen_docs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_docs", module)
    spec.loader.exec_module(module)
    return module


def test_checked_in_reference_matches_the_code(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("CRMTUI_HOME", str(tmp_path))
    gen = _gen_docs()
    stale = [str(path.relative_to(REPO)) for path in gen.stale(gen.expected())]
    assert stale == [], f"generated docs are stale: {stale}; run {gen.REGENERATE}"


def test_every_command_has_a_section_in_the_cli_reference() -> None:
    gen = _gen_docs()
    page = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    missing = [" ".join(p) for p, _ in gen.walk_commands() if f"\n## {' '.join(p)}\n" not in page]
    assert missing == []


def test_a_changed_block_is_seen_as_stale(tmp_path) -> None:
    gen = _gen_docs()
    page = tmp_path / "events.md"
    page.write_text("x\n<!-- BEGIN GENERATED: events -->\nold\n<!-- END GENERATED: events -->\ny\n")
    text = gen.replace_block(page.read_text(), "events", gen.events_table())
    assert gen.stale({page: text}) == [page]
    page.write_text(text)
    assert gen.stale({page: text}) == []
    assert "| | `answer` | string | yes |" in text and "| `submit` | The answer was" in text
