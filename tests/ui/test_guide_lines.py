"""Task texts keep their lines on screen: every line of a guide, policy, domain details or
query is a line of its own, in order, as ``crmtui tasks show`` prints it (the
activity-priority guide's indented lists were joined into one paragraph, all 20 rows, b2b
and b2c). Checked over every text of the CRMArena sample, both Pro samples and, when
``../shared`` is at hand, upstream's three task files."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from crmtui.play.guide_text import guide_lines, plain_words
from crmtui.ui.widgets.guide import guide_renderable

_MARK = re.compile(r"^(?:#{1,6}\s+|[-*+•]\s+|\d{1,3}[.)]\s+)")


def _drawn(renderable: Any, width: int) -> list[str]:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return [line.rstrip() for line in console.export_text().splitlines()]


def _content(line: str) -> str:
    return plain_words(_MARK.sub("", line.strip()))


def _check(text: str) -> None:
    source = [_content(line) for line in text.splitlines() if line.strip()]
    drawn = [_content(line) for line in _drawn(guide_renderable(text), 1000) if line.strip()]
    assert drawn == source


def _texts(rows: list[dict[str, Any]]) -> set[str]:
    found = set()
    for row in rows:
        meta = row.get("metadata") or {}
        for text in (row["query"], meta.get("required"), meta.get("optional")):
            if text and text.strip():
                found.add(text)
    return found


def test_every_line_of_every_sample_text_stays_a_line(
    sample_org_path: Path, pro_sample_paths: dict[str, Path]
) -> None:
    texts: set[str] = set()
    for org in (sample_org_path, *pro_sample_paths.values()):
        texts |= _texts(json.loads(org.with_suffix(".tasks.json").read_text(encoding="utf-8")))
    assert any("    - " in text for text in texts)  # the indented lists are there
    for text in texts:
        _check(text)


def test_upstreams_texts_keep_their_lines(shared_dir: Path) -> None:
    names = ("crmarena_tasks.json", "crmarenapro_b2b_tasks.json", "crmarenapro_b2c_tasks.json")
    texts: set[str] = set()
    for name in names:
        path = shared_dir / name
        if path.is_file():
            texts |= _texts(json.loads(path.read_text(encoding="utf-8")))
    if not texts:
        pytest.skip("upstream's task files are not at hand")
    for text in texts:
        _check(text)


def test_an_indented_item_is_drawn_under_its_line_with_a_hanging_indent() -> None:
    text = (
        "\n        ## Activity priority guide.\n        Examples of task for each stage:\n\n"
        "        Qualification: The goal is to qualify.\n"
        "            - Researching prospects to gather background information in depth.\n"
        "            - etc\n"
    )
    kinds = [(line.kind, line.depth) for line in guide_lines(text)]
    assert kinds == [("heading", 0), ("text", 0), ("blank", 0), ("text", 0), ("item", 4),
                     ("item", 4)]  # fmt: skip
    drawn = _drawn(guide_renderable(text), 40)
    assert drawn[:4] == ["Activity priority guide.", "Examples of task for each stage:", "",
                         "Qualification: The goal is to qualify."]  # fmt: skip
    assert drawn[4].startswith("    • Researching")
    assert drawn[5].startswith("      ") and drawn[5].strip()  # wrapped under its text


async def test_the_play_screens_context_panel_draws_the_guide_line_for_line() -> None:
    from textual.app import App
    from textual.widgets import Static

    from crmtui.data.schema import Schema
    from crmtui.ui.widgets.panels import MetadataPanel, QueryPanel

    guide = (
        "## Activity priority guide\nEach stage has its activities.\n"
        "Qualification: find out.\n    - Research the prospect\n    - Send an email\n"
    )

    class Host(App[None]):
        def compose(self) -> Any:
            yield MetadataPanel(id="metadata-panel")
            yield QueryPanel(id="query-panel")

    app = Host()
    async with app.run_test(size=(80, 24)):
        panel = app.query_one(MetadataPanel)
        panel.show(guide, None, None, Schema([]), False)
        app.query_one(QueryPanel).show("Which tasks?\n## Given Case\n- Case Subject: Torn")
        shown = _drawn(panel.query_one("#metadata-text", Static).content, 76)
        start = shown.index("Activity priority guide")
        assert shown[start : start + 5] == [
            "Activity priority guide",
            "Each stage has its activities.",
            "Qualification: find out.",
            "    • Research the prospect",
            "    • Send an email",
        ]
        query = _drawn(app.query_one("#query-text", Static).content, 76)
        assert query == ["Which tasks?", "Given Case", "• Case Subject: Torn"]
