"""The process-wide CSS cache (crmtui/ui/css_cache.py): a cached parse is the parse Textual
would make, for the same text and the same theme variables, and never another theme's."""

from __future__ import annotations

from textual.css.stylesheet import Stylesheet

from crmtui.ui.css_cache import SharedStylesheet

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
