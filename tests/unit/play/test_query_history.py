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


def test_history_persists_per_annotator_across_sessions(crmtui_home) -> None:
    from crmtui.play.query_history import history_path

    path = history_path("ann/../x y")
    assert path.parent == crmtui_home / "history" and "/" not in path.name[:-6]
    first = QueryHistory.load(path)
    first.context = {"idx": 3}
    first.add("SELECT Id FROM Case")
    first.add("SELECT Id FROM User")
    first.add("SELECT Id FROM Case")  # again: moves to the newest place
    second = QueryHistory.load(path)
    assert second.entries == ["SELECT Id FROM User", "SELECT Id FROM Case"]
    assert second.older() == "SELECT Id FROM Case"
    assert '"idx": 3' in path.read_text(encoding="utf-8")


def test_a_long_history_file_is_compacted_and_bad_lines_skipped(tmp_path) -> None:
    from crmtui.play import query_history

    path = tmp_path / "h.jsonl"
    lines = ["not json", '{"text": 5}'] + [
        f'{{"text": "SELECT Id FROM Case LIMIT {n % 7}"}}'
        for n in range(query_history.COMPACT_AFTER + 10)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    history = QueryHistory.load(path, limit=5)
    assert len(history.entries) == 5
    assert len(path.read_text(encoding="utf-8").splitlines()) == 5
    assert QueryHistory.load(path, limit=5).entries == history.entries
