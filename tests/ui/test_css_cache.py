"""The process-wide CSS cache (crmtui/ui/css_cache.py): a cached parse is the parse Textual
would make, for the same text and the same theme variables, and never another theme's; kept
on disk, the next process reads it instead of parsing, and an unreadable file is parsed over."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.css.stylesheet import Stylesheet

from crmtui.ui.css_cache import SharedStylesheet, parsed_css_path, read_parsed, save_parsed

CSS = "Label { color: $accent; background: $surface; } #x { width: 10; }"


def _rules(sheet: Stylesheet) -> list[str]:
    sheet.add_source(CSS, read_from=("test", "CSS"))
    sheet.parse()
    return [rule.css for rule in sheet.rules]


def test_a_cached_parse_equals_textuals_own() -> None:
    light = {"accent": "#ff0000", "surface": "#ffffff"}
    assert _rules(SharedStylesheet(variables=light)) == _rules(Stylesheet(variables=light))
    # the second stylesheet of the process gets the first one's rules, unchanged
    assert _rules(SharedStylesheet(variables=light)) == _rules(Stylesheet(variables=light))


def test_another_theme_is_parsed_again() -> None:
    light = {"accent": "#ff0000", "surface": "#ffffff"}
    dark = {"accent": "#00ff00", "surface": "#000000"}
    first = _rules(SharedStylesheet(variables=light))
    second = _rules(SharedStylesheet(variables=dark))
    assert second == _rules(Stylesheet(variables=dark)) and second != first
    sheet = SharedStylesheet(variables=light)
    sheet.set_variables(dark)  # a theme switch in a running app
    assert _rules(sheet) == second


# -- kept on disk between processes ---------------------------------------------------------


@pytest.fixture
def fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process as a new one: no parses in memory, the file not read yet."""
    monkeypatch.setattr(SharedStylesheet, "_shared", {})
    monkeypatch.setattr(SharedStylesheet, "_disk_read", False)
    monkeypatch.setattr(SharedStylesheet, "_dirty", False)


def _parse_count(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts Textual's own parses from now on (one element per parse)."""
    calls: list[int] = []
    real = Stylesheet._parse_rules

    def counted(self: Stylesheet, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Stylesheet, "_parse_rules", counted)
    return calls


def test_the_next_process_reads_the_parses_and_they_equal_textuals(
    fresh_process: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    light = {"accent": "#ff0000", "surface": "#ffffff"}
    first = _rules(SharedStylesheet(variables=light))
    assert save_parsed() and parsed_css_path().is_file()
    assert not save_parsed()  # nothing new parsed: nothing written
    # A new process: the parse comes from the file, equal to Textual's own.
    monkeypatch.setattr(SharedStylesheet, "_shared", {})
    monkeypatch.setattr(SharedStylesheet, "_disk_read", False)
    parses = _parse_count(monkeypatch)
    again = _rules(SharedStylesheet(variables=light))
    assert not parses and again == first
    assert again == _rules(Stylesheet(variables=light))
    # Other CSS text (an edited file, a new widget) is parsed, not taken from the file.
    sheets = [SharedStylesheet(variables=light), Stylesheet(variables=light)]
    for sheet in sheets:
        sheet.add_source("Label { width: 3; }", read_from=("test", "other"))
        sheet.parse()
    assert parses and [r.css for r in sheets[0].rules] == [r.css for r in sheets[1].rules]
    assert "width: 3" in sheets[0].rules[0].css


@pytest.mark.parametrize("content", [b"", b"not a pickle", pickle.dumps(["a", "list"])])
def test_an_unreadable_file_is_parsed_over_and_replaced(
    fresh_process: None, monkeypatch: pytest.MonkeyPatch, content: bytes
) -> None:
    light = {"accent": "#ff0000", "surface": "#ffffff"}
    parsed_css_path().write_bytes(content)
    parses = _parse_count(monkeypatch)
    assert _rules(SharedStylesheet(variables=light)) == _rules(Stylesheet(variables=light))
    assert parses  # parsed, not read
    assert save_parsed()
    assert read_parsed() >= 1  # the file is whole again


def test_the_file_is_named_after_python_and_the_installed_textual() -> None:
    import textual

    stat = Path(textual.__file__).with_name("css").joinpath("model.py").stat()
    name = parsed_css_path().name
    assert f"py{sys.version_info[0]}{sys.version_info[1]}-" in name
    assert f"{stat.st_mtime_ns:x}{stat.st_size:x}" in name
