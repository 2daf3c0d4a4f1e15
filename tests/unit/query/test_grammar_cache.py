"""The on-disk cache of lark's parser tables: written once, rebuilt when corrupt."""

from __future__ import annotations

from pathlib import Path

from crmtui.query.grammar import build_parser
from crmtui.query.soql.parser import GRAMMAR as SOQL
from crmtui.query.sosl.parser import GRAMMAR as SOSL


def test_cache_file_is_written_and_reused(crmtui_home: Path) -> None:
    parser = build_parser(SOQL, propagate_positions=True, maybe_placeholders=False)
    files = list((crmtui_home / "cache").glob("lark-*-soql.lark-*.pickle"))
    assert len(files) == 1
    again = build_parser(SOQL, propagate_positions=True, maybe_placeholders=False)
    text = "SELECT Id FROM Case"
    assert again.parse(text) == parser.parse(text)


def test_corrupt_cache_is_replaced(crmtui_home: Path) -> None:
    build_parser(SOSL, start=["query", "search_expr"])
    (cache_file,) = (crmtui_home / "cache").glob("lark-*-sosl.lark-*.pickle")
    cache_file.write_bytes(b"not a pickle")
    parser = build_parser(SOSL, start=["query", "search_expr"])
    assert parser.parse("FIND {tent}", start="query") is not None


def test_options_change_the_cache_key(crmtui_home: Path) -> None:
    build_parser(SOQL, propagate_positions=True)
    build_parser(SOQL, propagate_positions=False)
    assert len(list((crmtui_home / "cache").glob("lark-*-soql.lark-*.pickle"))) == 2


def test_a_home_where_cache_cannot_be_made_still_parses(crmtui_home: Path) -> None:
    """Issue #35: a read-only CRMTUI_HOME without cache/ made every query UNKNOWN_EXCEPTION
    (the folder's ConfigError escaped). A file where the folder belongs fails the same way
    for root too, who may write anywhere."""
    crmtui_home.mkdir(parents=True, exist_ok=True)
    (crmtui_home / "cache").write_text("not a folder", "utf-8")
    parser = build_parser(SOQL, propagate_positions=True, maybe_placeholders=False)
    assert parser.parse("SELECT Id FROM Case") is not None
