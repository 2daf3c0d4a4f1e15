"""Console query history: recall and search."""

from __future__ import annotations

from crmtui.play.query_history import QueryHistory


def test_recall_older_and_newer() -> None:
    h = QueryHistory()
    assert h.older() is None
    for q in ["SELECT Id FROM Case", "SELECT Id FROM Account", "SELECT Id FROM Account "]:
        h.add(q)
    assert h.entries == ["SELECT Id FROM Case", "SELECT Id FROM Account"]
    assert h.older() == "SELECT Id FROM Account"
    assert h.older() == "SELECT Id FROM Case"
    assert h.older() is None
    assert h.newer() == "SELECT Id FROM Account"
    assert h.newer() == ""
    assert h.newer() is None


def test_search_newest_first_case_insensitive() -> None:
    h = QueryHistory()
    for q in [
        "select Id from Case",
        "FIND {zip}",
        "SELECT Subject FROM Case",
        "select Id from Case",
    ]:
        h.add(q)
    assert h.search("case") == ["select Id from Case", "SELECT Subject FROM Case"]
    assert h.search("nothing") == []


def test_limit() -> None:
    h = QueryHistory(limit=2)
    for i in range(5):
        h.add(f"q{i}")
    assert h.entries == ["q3", "q4"]
